"""The file-ops demo server: honest annotations, the four behaviours, and a sandbox no path escapes."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from course_lib import classify, connect, declared
from course_lib.servers import build
from course_lib.servers.file_ops import file_ops_server


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every entry under `folder` (not following links) with its content or link target."""
    found: dict[str, bytes | str] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            key = path.relative_to(folder).as_posix()
            if path.is_symlink():
                found[key] = "-> " + os.readlink(path)
            elif path.is_file():
                found[key] = path.read_bytes()
            else:
                found[key] = "<dir>"
    return found


async def call(server, name: str, arguments: dict):
    with anyio.fail_after(60):
        async with connect(server) as client:
            return await client.call_tool(name, arguments)


@pytest.fixture
def world(tmp_path: Path):
    """A sandbox folder and, beside it, files the server must never read, change or delete."""
    sandbox = tmp_path / "sandbox"
    sandbox.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("do not read me")
    (sandbox / "notes.txt").write_text("hello\n")
    (sandbox / "link_to_secret").symlink_to(outside / "secret.txt")
    (sandbox / "link_to_outside_dir").symlink_to(outside)
    return tmp_path, sandbox, outside


def test_four_tools_declare_the_four_risk_profiles():
    async def main():
        async with connect(file_ops_server()) as client:
            return (await client.list_tools()).tools

    tools = {t.name: t for t in anyio.run(main)}
    assert {name: str(classify(t)) for name, t in tools.items()} == {
        "read_file": "read-only",
        "append_text": "additive",
        "set_value": "idempotent write",
        "delete_file": "destructive",
    }
    assert all(declared(t)["openWorldHint"] is False for t in tools.values())
    assert declared(tools["delete_file"])["idempotentHint"] is True


def test_read_append_delete_work_inside_the_sandbox(tmp_path: Path):
    server = file_ops_server(tmp_path)
    assert anyio.run(call, server, "read_file", {"path": "missing.txt"}).is_error
    assert not anyio.run(call, server, "append_text", {"path": "log.txt", "text": "one\n"}).is_error
    assert not anyio.run(call, server, "append_text", {"path": "log.txt", "text": "two\n"}).is_error
    assert (tmp_path / "log.txt").read_text() == "one\ntwo\n"
    assert anyio.run(call, server, "read_file", {"path": "log.txt"}).content[0].text == "one\ntwo\n"
    assert anyio.run(call, server, "delete_file", {"path": "log.txt"}).content[0].text == "deleted log.txt"
    assert not (tmp_path / "log.txt").exists()


def test_deleting_a_missing_file_is_not_an_error():
    result = anyio.run(call, file_ops_server(), "delete_file", {"path": "gone.txt"})
    assert not result.is_error
    assert "nothing to delete" in result.content[0].text


def test_set_value_reports_a_no_op_and_keeps_history():
    server = file_ops_server()

    async def main():
        async with connect(server) as client:
            first = await client.call_tool("set_value", {"key": "owner", "value": "ana"})
            again = await client.call_tool("set_value", {"key": "owner", "value": "ana"})
            other = await client.call_tool("set_value", {"key": "owner", "value": "bo"})
            return first, again, other

    first, again, other = anyio.run(main)
    assert "nothing changed" not in first.content[0].text
    assert "nothing changed" in again.content[0].text
    assert server.store.history["owner"] == ["ana", "bo"]


def test_default_root_is_a_fresh_temporary_folder():
    one, two = file_ops_server(), file_ops_server()
    assert one.sandbox.root != two.sandbox.root
    assert one.sandbox.root.is_dir() and not any(one.sandbox.root.iterdir())


def test_root_that_is_a_file_is_refused_with_a_clear_error(tmp_path: Path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(ValueError, match="not a folder"):
        file_ops_server(tmp_path / "f")


def test_unknown_server_name_lists_the_known_ones():
    with pytest.raises(ValueError, match="file-ops"):
        build("no-such-server")


HOSTILE = [
    ("../outside/secret.txt", "'..'"),
    ("notes/../../outside/secret.txt", "'..'"),
    ("..", "'..'"),
    ("/etc/passwd", "outside the sandbox"),
    ("{outside}/secret.txt", "outside the sandbox"),
    ("", "empty"),
    ("   ", "empty"),
    ("a\x00b", "NUL"),
    ("x" * 300, "limit is 255"),
    ("a/" * 600 + "b", "limit is 1024"),
    ("link_to_secret", "outside the sandbox"),
    ("link_to_outside_dir/secret.txt", "outside the sandbox"),
    ("link_to_outside_dir/new.txt", "outside the sandbox"),
    (".", "sandbox folder itself"),
    ("{sandbox}", "sandbox folder itself"),
]


@pytest.mark.parametrize("tool", ["read_file", "append_text", "delete_file"])
@pytest.mark.parametrize(("path", "reason"), HOSTILE, ids=[repr(p[:20]) for p, _ in HOSTILE])
def test_hostile_path_is_refused_and_nothing_outside_changes(world, tool, path, reason):
    top, sandbox, outside = world
    path = path.format(outside=outside, sandbox=sandbox)
    server = file_ops_server(sandbox)
    before_outside = snapshot(outside)
    before_top = sorted(p.name for p in top.iterdir())
    arguments = {"path": path, "text": "pwned"} if tool == "append_text" else {"path": path}

    async def main():
        with anyio.fail_after(60):
            async with connect(server) as client:
                bad = await client.call_tool(tool, arguments)
                good = await client.call_tool("read_file", {"path": "notes.txt"})
                return bad, good

    bad, good = anyio.run(main)
    assert bad.is_error, f"{tool}({path!r}) should be refused"
    assert reason in bad.content[0].text
    assert "do not read me" not in bad.content[0].text
    assert good.content[0].text == "hello\n", "the server must keep serving after a refused call"
    assert snapshot(outside) == before_outside
    assert sorted(p.name for p in top.iterdir()) == before_top


def test_absolute_path_inside_the_sandbox_is_accepted(tmp_path: Path):
    (tmp_path / "a.txt").write_text("inside")
    result = anyio.run(call, file_ops_server(tmp_path), "read_file", {"path": str(tmp_path / "a.txt")})
    assert not result.is_error and result.content[0].text == "inside"


def test_a_symlink_is_not_followed_even_when_it_stays_inside(tmp_path: Path):
    # following a link that points inside today could follow one swapped to point outside tomorrow
    (tmp_path / "real.txt").write_text("real")
    (tmp_path / "alias.txt").symlink_to(tmp_path / "real.txt")
    result = anyio.run(call, file_ops_server(tmp_path), "read_file", {"path": "alias.txt"})
    assert result.is_error and "symbolic link" in result.content[0].text


def test_reading_a_folder_or_binary_file_is_a_clear_tool_error(tmp_path: Path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "blob.bin").write_bytes(b"\xff\xfe\x00")
    server = file_ops_server(tmp_path)
    assert "is a folder" in anyio.run(call, server, "read_file", {"path": "sub"}).content[0].text
    assert "not UTF-8" in anyio.run(call, server, "read_file", {"path": "blob.bin"}).content[0].text
    assert "is a folder" in anyio.run(call, server, "delete_file", {"path": "sub"}).content[0].text
    assert (tmp_path / "sub").is_dir()
