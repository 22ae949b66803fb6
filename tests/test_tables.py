"""course_lib.tools_table: declared values exactly as sent, effective values, titles and profiles."""

from __future__ import annotations

import pytest
from mcp.server import MCPServer
from mcp.types import ListToolsResult, Tool, ToolAnnotations

from course_lib import tools_table
from course_lib.connection import list_tools_sync
from course_lib.servers.file_ops import file_ops_server


def test_table_has_one_row_per_tool_with_declared_and_effective_hints():
    table = tools_table(list_tools_sync(file_ops_server()))
    assert list(table.index) == ["read_file", "append_text", "set_value", "delete_file"]
    assert table.loc["read_file", ("declared", "destructiveHint")] is None
    assert table.loc["read_file", ("effective", "destructiveHint")] == "n/a"
    assert table.loc["delete_file", ("effective", "idempotentHint")] is True
    assert table.loc["append_text", ("", "profile")] == "additive"
    assert table.loc["read_file", ("", "display title")] == "Read a text file"


def test_absent_hints_are_none_and_never_false():
    server = MCPServer("plain", log_level="WARNING")

    @server.tool()
    def lookup(q: str) -> str:
        return q

    row = tools_table(list_tools_sync(server)).loc["lookup"]
    assert all(row[("declared", h)] is None for h in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"))
    assert row[("effective", "readOnlyHint")] is False
    assert row[("effective", "openWorldHint")] is True
    assert row[("", "profile")] == "destructive"


def test_table_accepts_a_list_tools_result_and_wire_dicts():
    tools = list_tools_sync(file_ops_server())
    assert tools_table(ListToolsResult(tools=tools)).shape == tools_table(tools).shape
    table = tools_table([{"name": "x", "annotations": {"readOnlyHint": True, "title": "X"}}])
    assert table.loc["x", ("", "display title")] == "X"


def test_tool_title_wins_over_annotation_title_in_the_table():
    t = Tool(name="n", title="Top", input_schema={"type": "object"}, annotations=ToolAnnotations(title="Inner"))
    assert tools_table([t]).loc["n", ("", "display title")] == "Top"


@pytest.mark.parametrize("bad", ["file-ops", None, 3, {"name": 3}])
def test_table_of_something_that_is_not_tools_is_a_clear_error(bad):
    with pytest.raises(ValueError, match="expected tools|annotations must be"):
        tools_table(bad)
