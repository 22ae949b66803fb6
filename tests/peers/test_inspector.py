"""The MCP Inspector (npm, CLI mode) against every demo server the course ships.

Each server is started exactly as a learner starts it for a real client
(``python -m course_lib serve NAME --root DIR``); the Inspector, a TypeScript client on the
official TypeScript SDK, lists its tools and calls them. What it sees must be what the
lessons show in-process: the same tools, titles and annotations, byte for byte on the wire.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from peerlib import course_server_command, run_inspector

from course_lib import declared
from course_lib.connection import list_tools_sync
from course_lib.servers import SERVERS, build

pytestmark = pytest.mark.peers

# A sensible value for each argument name the demo servers use; unknown names fall back by type.
SAMPLE_ARGUMENTS: dict[str, str] = {
    "path": "notes.txt",
    "text": "hello",
    "key": "owner",
    "value": "ops",
    "title": "on-call",
    "query": "deploy",
    "to": "ops-team@example.com",
    "subject": "Status",
    "body": "All services are up.",
    "folder": "logs",
    "sql": "SELECT 1",
    "environment": "staging",
    "keep_days": "7",
}
FALLBACK_BY_TYPE = {"string": "test", "integer": "1", "number": "1", "boolean": "false", "array": "[]", "object": "{}"}


def _list(inspector: list[str], name: str, root: Path, cwd: Path) -> list[dict[str, Any]]:
    answer = run_inspector(inspector, [*course_server_command(name, root), "--method", "tools/list"], cwd=cwd)
    return answer["tools"]


def _call(inspector: list[str], name: str, root: Path, cwd: Path, tool: str, **arguments: str) -> dict[str, Any]:
    args = [*course_server_command(name, root), "--method", "tools/call", "--tool-name", tool]
    for key, value in arguments.items():
        args += ["--tool-arg", f"{key}={value}"]
    return run_inspector(inspector, args, cwd=cwd)


def _text(result: dict[str, Any]) -> str:
    return "\n".join(item.get("text", "") for item in result["content"] if item.get("type") == "text")


@pytest.fixture
def place(tmp_path: Path) -> tuple[Path, Path]:
    """A sandbox folder and an empty working folder, side by side in a fresh temporary folder."""
    root, cwd = tmp_path / "peer" / "sandbox", tmp_path / "peer" / "cwd"
    root.mkdir(parents=True)
    cwd.mkdir()
    return root, cwd


def _assert_nothing_outside(place: tuple[Path, Path]) -> None:
    root, cwd = place
    assert sorted(p.name for p in root.parent.iterdir()) == ["cwd", "sandbox"], "a server wrote next to its sandbox"
    assert list(cwd.iterdir()) == [], f"a server wrote into its working folder: {[p.name for p in cwd.iterdir()]}"


@pytest.mark.parametrize("name", sorted(SERVERS))
def test_inspector_lists_every_tool_with_the_annotations_the_server_declares(inspector, name, place, tmp_path):
    root, cwd = place
    seen = {t["name"]: t for t in _list(inspector, name, root, cwd)}
    expected = {t.name: t for t in list_tools_sync(build(name, root=tmp_path / "in-process"))}
    assert sorted(seen) == sorted(expected), f"{name}: the Inspector lists {sorted(seen)}, the lessons show {sorted(expected)}"
    for tool_name, tool in expected.items():
        wire = tool.model_dump(by_alias=True, mode="json", exclude_none=True)
        assert seen[tool_name].get("annotations") == wire.get("annotations"), f"{name}.{tool_name}: annotations differ on the wire"
        assert seen[tool_name].get("title") == wire.get("title"), f"{name}.{tool_name}: title differs on the wire"
        assert declared(seen[tool_name].get("annotations")) == declared(tool), f"{name}.{tool_name}: hints read differently"
    _assert_nothing_outside(place)


def _sample_arguments(tool: dict[str, Any]) -> dict[str, str]:
    schema = tool.get("inputSchema", {})
    required = set(schema.get("required", []))
    arguments = {}
    for prop, spec in schema.get("properties", {}).items():
        if prop not in required and "default" in spec:
            continue  # let the server use its default, as a model usually would
        arguments[prop] = SAMPLE_ARGUMENTS.get(prop, FALLBACK_BY_TYPE.get(spec.get("type", "string"), "test"))
    return arguments


@pytest.mark.parametrize("name", sorted(set(SERVERS) - {"file-ops"}))
def test_inspector_calls_every_tool_of_a_demo_server_and_gets_a_well_formed_answer(inspector, name, place):
    root, cwd = place
    for tool in _list(inspector, name, root, cwd):
        result = _call(inspector, name, root, cwd, tool["name"], **_sample_arguments(tool))
        assert isinstance(result.get("content"), list) and result["content"], f"{name}.{tool['name']}: no content in {result}"
        assert isinstance(result.get("isError", False), bool), f"{name}.{tool['name']}: isError is not a boolean"
        assert "Traceback" not in _text(result), f"{name}.{tool['name']}: a traceback reached the client:\n{_text(result)}"
        _assert_nothing_outside(place)


def test_inspector_appends_reads_and_deletes_a_file_inside_the_file_ops_sandbox(inspector, place):
    root, cwd = place
    appended = _call(inspector, "file-ops", root, cwd, "append_text", path="notes.txt", text="disk 91% on db-1")
    assert appended["isError"] is False and _text(appended) == "appended 16 characters to notes.txt"
    assert (root / "notes.txt").read_text(encoding="utf-8") == "disk 91% on db-1"

    read = _call(inspector, "file-ops", root, cwd, "read_file", path="notes.txt")
    assert read["isError"] is False and _text(read) == "disk 91% on db-1"
    assert "structuredContent" not in read, "file-ops tools return plain text (structured_output=False)"

    deleted = _call(inspector, "file-ops", root, cwd, "delete_file", path="notes.txt")
    assert deleted["isError"] is False and _text(deleted) == "deleted notes.txt"
    assert not (root / "notes.txt").exists()

    again = _call(inspector, "file-ops", root, cwd, "delete_file", path="notes.txt")
    assert again["isError"] is False and "nothing to delete" in _text(again), "deleting twice is idempotent, not an error"
    _assert_nothing_outside(place)


def test_inspector_sets_a_value_and_the_file_ops_server_reports_it(inspector, place):
    root, cwd = place
    result = _call(inspector, "file-ops", root, cwd, "set_value", key="owner", value="ops")
    assert result["isError"] is False and _text(result) == "owner = 'ops'"
    assert list(root.iterdir()) == [], "set_value keeps its store in memory: it must not write files"
    _assert_nothing_outside(place)


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("read_file", {"path": "../outside.txt"}),
        ("append_text", {"path": "../escaped.txt", "text": "x"}),
        ("delete_file", {"path": "../cwd"}),
    ],
)
def test_inspector_gets_a_tool_error_when_a_path_leaves_the_file_ops_sandbox(inspector, place, tool, arguments):
    root, cwd = place
    (root.parent / "outside.txt").write_text("secret", encoding="utf-8")
    result = _call(inspector, "file-ops", root, cwd, tool, **arguments)
    assert result["isError"] is True, f"{tool}({arguments}) should be refused, got {result}"
    assert "sandbox" in _text(result) or "'..'" in _text(result), f"the refusal should say why: {_text(result)}"
    (root.parent / "outside.txt").unlink()
    _assert_nothing_outside(place)
