"""The demo servers' sandboxes hold against races, links, special files, big files and planted names.

Each attack comes from something else that can write in the sandbox folder (another tool,
another process): it swaps folders for links while tools run, plants hard links and FIFOs,
grows files between a check and a read, replaces files the server opened at start, and names
files so that parsing their names fails.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from pathlib import Path

import anyio
import pytest

from course_lib import connect
from course_lib.connection import call_tool_sync
from course_lib.servers import file_ops, log_tidy, mailer, ops_assistant, ops_db, private_notes, web_search


HANG_GUARD = 120  # seconds: only a call that blocks (an open or read that never returns) gets near it
RACE_CALLS, RACE_SWAPS = 400, 400  # a race runs until both counts are reached, however long it takes


def text(result) -> str:
    return result.content[0].text


async def calls(server, *requests: tuple[str, dict]):
    with anyio.fail_after(HANG_GUARD):
        async with connect(server) as client:
            return [await client.call_tool(name, arguments) for name, arguments in requests]


def call(server, name: str, arguments: dict):
    return anyio.run(calls, server, (name, arguments))[0]


def without_blocking(server, *requests: tuple[str, dict]):
    """The results of `requests`, run on a thread this test can give up on: a server blocked in an
    open() or read() (a FIFO with no writer, a device) is a failure here, not a hung suite."""
    box: dict = {}

    def run() -> None:
        try:
            box["results"] = anyio.run(calls, server, *requests)
        except BaseException as exc:  # re-raised in the test's own thread
            box["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(HANG_GUARD)
    if worker.is_alive():
        pytest.fail(f"the server was still blocked after {HANG_GUARD} s", pytrace=False)
    if "error" in box:
        raise box["error"]
    return box["results"]


@pytest.fixture
def world(tmp_path: Path):
    sandbox, outside = tmp_path / "sandbox", tmp_path / "outside"
    sandbox.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("OUTSIDE SECRET")
    return sandbox, outside


def test_a_folder_swapped_for_a_link_during_calls_never_leads_out(world):
    sandbox, outside = world
    (sandbox / "d").mkdir()
    (sandbox / "d" / "secret.txt").write_text("inside")
    (outside / "victim.txt").write_text("keep me")
    server = file_ops.file_ops_server(sandbox)
    stop = threading.Event()
    swaps = [0]

    def swapper() -> None:  # d: a real folder one moment, a link to the outside the next
        while not stop.is_set():
            os.rename(sandbox / "d", sandbox / "d.real")
            os.symlink(outside, sandbox / "d")
            (sandbox / "d.real" / "victim.txt").write_text("inside victim")
            os.unlink(sandbox / "d")
            os.rename(sandbox / "d.real", sandbox / "d")
            swaps[0] += 1

    async def attack() -> list[str]:  # until the race has run enough to mean something
        seen = []
        with anyio.fail_after(HANG_GUARD):
            async with connect(server) as client:
                while len(seen) < RACE_CALLS or swaps[0] < RACE_SWAPS:
                    seen.append(text(await client.call_tool("read_file", {"path": "d/secret.txt"})))
                    await client.call_tool("append_text", {"path": "d/appended.txt", "text": "x"})
                    await client.call_tool("delete_file", {"path": "d/victim.txt"})
        return seen

    thread = threading.Thread(target=swapper, daemon=True)
    thread.start()
    try:
        seen = anyio.run(attack)
    finally:
        stop.set()
        thread.join(HANG_GUARD)
    escapes = [s for s in seen if "OUTSIDE" in s]
    after = call(server, "read_file", {"path": "d/secret.txt"})  # a server that refused everything would fail here
    assert text(after) == "inside"
    assert not escapes, f"{len(escapes)} reads of an outside file in {len(seen)} calls"
    assert not (outside / "appended.txt").exists(), "appended to a file outside the sandbox"
    assert (outside / "victim.txt").read_text() == "keep me", "deleted a file outside the sandbox"


def test_a_hard_link_to_an_outside_file_is_neither_read_nor_appended_to(world):
    sandbox, outside = world
    os.link(outside / "secret.txt", sandbox / "hard.txt")
    server = file_ops.file_ops_server(sandbox)
    read, append = anyio.run(calls, server, ("read_file", {"path": "hard.txt"}), ("append_text", {"path": "hard.txt", "text": "pwned"}))
    assert read.is_error and "hard link" in text(read) and "OUTSIDE" not in text(read)
    assert append.is_error and "hard link" in text(append)
    assert (outside / "secret.txt").read_text() == "OUTSIDE SECRET"


def test_a_fifo_is_refused_at_once_and_does_not_starve_the_server(world):
    sandbox, _ = world
    os.mkfifo(sandbox / "pipe.txt")
    server = file_ops.file_ops_server(sandbox)
    results = without_blocking(server, *[("read_file", {"path": "pipe.txt"})] * 50, ("append_text", {"path": "pipe.txt", "text": "x"}))
    assert len(results) == 51 and all(r.is_error and "not a regular file" in text(r) for r in results)
    (sandbox / "ok.txt").write_text("still serving")
    assert text(call(server, "read_file", {"path": "ok.txt"})) == "still serving"


def test_a_file_that_grows_after_the_size_check_is_never_returned_whole(world):
    sandbox, _ = world
    target = sandbox / "grows.txt"
    target.write_text("small")
    server = file_ops.file_ops_server(sandbox)
    big = "B" * (file_ops.MAX_READ_BYTES * 3)
    stop = threading.Event()

    def grower() -> None:  # small when its size is checked, big when it is read: now and then
        with open(target, "r+") as handle:
            while not stop.is_set():
                handle.truncate(5)
                time.sleep(0.0005)
                handle.seek(0)
                handle.write(big)
                handle.flush()
                time.sleep(0.0005)

    thread = threading.Thread(target=grower, daemon=True)
    thread.start()
    try:
        results = anyio.run(calls, server, *[("read_file", {"path": "grows.txt"})] * 400)
    finally:
        stop.set()
        thread.join(5)
    assert max(len(text(r)) for r in results) <= file_ops.MAX_READ_BYTES


def test_read_note_refuses_a_note_larger_than_its_limit(tmp_path):
    server = private_notes.private_notes_server(tmp_path)
    (tmp_path / "huge.txt").write_text("x" * 5_000_000)
    result = call(server, "read_note", {"title": "huge"})
    assert result.is_error and "larger than" in text(result)
    assert len(text(result)) < 1000


def test_query_log_replaced_by_a_link_after_start_is_not_followed(world):
    sandbox, outside = world
    server = web_search.web_search_server(sandbox)
    assert not call(server, "search_web", {"query": "vpn"}).is_error
    os.unlink(sandbox / "queries.log")
    os.symlink(outside / "secret.txt", sandbox / "queries.log")
    result = call(server, "search_web", {"query": "vpn outage"})
    assert result.is_error and "symbolic link" in text(result)
    assert (outside / "secret.txt").read_text() == "OUTSIDE SECRET"


def test_outbox_replaced_by_a_link_or_hard_link_after_start_is_not_written(world):
    sandbox, outside = world
    server = mailer.mailer_server(sandbox)
    message = {"to": "mei@ops.example", "subject": "hi", "body": "hello"}
    assert not call(server, "send_email", message).is_error
    os.unlink(sandbox / "outbox.jsonl")
    os.symlink(outside / "secret.txt", sandbox / "outbox.jsonl")
    assert call(server, "send_email", message).is_error
    os.unlink(sandbox / "outbox.jsonl")
    os.link(outside / "secret.txt", sandbox / "outbox.jsonl")
    assert call(server, "send_email", message).is_error
    assert (outside / "secret.txt").read_text() == "OUTSIDE SECRET"


def test_ops_db_replaced_by_a_link_after_start_is_refused(world):
    sandbox, outside = world
    server = ops_db.ops_db_server(sandbox)
    other = outside / "other.db"
    ops_db.seed_database(other)
    os.unlink(sandbox / "ops.db")
    os.symlink(other, sandbox / "ops.db")
    result = call(server, "execute_query", {"sql": "DROP TABLE incidents"})
    assert result.is_error and "symbolic link" in text(result)
    import sqlite3

    with sqlite3.connect(other) as connection:
        assert connection.execute("SELECT count(*) FROM incidents").fetchone() == (3,)
    connection.close()


def test_disk_usage_does_not_follow_links(world):
    sandbox, outside = world
    (outside / "big.bin").write_bytes(b"x" * 123_456)
    server = log_tidy.log_tidy_server(sandbox)
    os.symlink(outside / "big.bin", sandbox / "logs" / "shadow.log")
    result = call(server, "disk_usage", {"folder": "logs"})
    assert not result.is_error and "123456" not in text(result)
    assert "logs/app.log: 18 bytes" in text(result)


def test_a_device_node_is_refused_without_reading_it(world):
    sandbox, _ = world
    try:
        os.mknod(sandbox / "zero.txt", 0o600 | stat.S_IFCHR, os.makedev(1, 5))  # /dev/zero's numbers
    except PermissionError:
        pytest.skip("creating a device node needs CAP_MKNOD (the FIFO test covers the same check)")
    server = file_ops.file_ops_server(sandbox)
    read, append = without_blocking(server, ("read_file", {"path": "zero.txt"}), ("append_text", {"path": "zero.txt", "text": "x"}))
    assert read.is_error and "not a regular file" in text(read)
    assert append.is_error and "not a regular file" in text(append)


def test_a_log_named_with_an_impossible_date_does_not_stop_the_cleanup(tmp_path):
    server = ops_assistant.ops_assistant_server(tmp_path, enforce_scopes=False)
    logs = tmp_path / "logs" / "test"
    (logs / "app-2026-99-99.log").write_text("planted")
    dated = sorted(p.name for p in logs.iterdir() if p.name != "app-2026-99-99.log")
    result = call_tool_sync(server, "cleanup_logs", {"environment": "test", "keep_days": 0})
    # was: a bare "Error executing tool cleanup_logs" (ValueError: month must be in 1..12)
    assert not result.is_error, result.content[0].text
    assert f"deleted {len(dated) - 1} log file(s)" in result.content[0].text
    assert sorted(p.name for p in logs.iterdir()) == [dated[-1], "app-2026-99-99.log"]
