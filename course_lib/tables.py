"""Tool lists as tables: one row per tool, declared hints beside their effective values.

Introduced in: notebooks/00_start_here.ipynb
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd
from mcp.types import ListToolsResult, Tool

from .annotations import HINTS, as_tool, classify, declared, display_title, effective

__all__ = ["as_tools", "tools_table"]


def as_tools(tools: Any) -> list[Tool]:
    """Return a list of `Tool` from a `ListToolsResult`, an iterable of `Tool` or wire dicts, or a server object.

    A server object (anything `connect` accepts that is not a list) is connected
    in-process and listed synchronously.
    """
    if isinstance(tools, ListToolsResult):
        return list(tools.tools)
    if isinstance(tools, Tool):
        return [tools]
    if isinstance(tools, (list, tuple)) and all(isinstance(t, (Tool, Mapping)) for t in tools):
        return [as_tool(t) for t in tools]
    if isinstance(tools, Iterable) and not isinstance(tools, (str, bytes, Mapping)):
        items = list(tools)
        if all(isinstance(t, (Tool, Mapping)) for t in items):
            return as_tools(items)
    if isinstance(tools, (str, bytes, Mapping, int, float)) or tools is None:
        raise ValueError(
            "tools_table needs tools: a ListToolsResult, a list of Tool objects, or a server object; "
            f"got {type(tools).__name__}"
        )
    from .connection import list_tools_sync

    return list_tools_sync(tools)


def tools_table(tools: Any) -> pd.DataFrame:
    """Return one row per tool: the display title, the hints as declared, and their effective values.

    Columns are two-level: ``("declared", hint)`` holds exactly what the server sent
    (`None` where a hint is absent, never shown as False); ``("effective", hint)`` holds
    the value after the spec's defaults ("n/a" where `readOnlyHint` makes a hint
    meaningless); ``("", "display title")`` is the name a UI shows by the spec's precedence
    (`title`, then `annotations.title`, then the tool's `name`; not a declared value) and
    ``("", "profile")`` the course's risk profile.
    """
    rows = []
    for tool in as_tools(tools):
        raw = declared(tool.annotations)
        eff = effective(tool.annotations).as_wire()
        row: dict[tuple[str, str], Any] = {("", "display title"): display_title(tool)}
        row.update({("declared", hint): raw[hint] for hint in HINTS})
        row.update({("effective", hint): eff[hint] for hint in HINTS})
        row[("", "profile")] = str(classify(tool.annotations))
        rows.append((tool.name, row))
    columns = pd.MultiIndex.from_tuples(
        [("", "display title"), *[("declared", h) for h in HINTS], *[("effective", h) for h in HINTS], ("", "profile")]
    )
    frame = pd.DataFrame([r for _, r in rows], index=pd.Index([n for n, _ in rows], name="tool"), columns=columns)
    return frame.astype(object)
