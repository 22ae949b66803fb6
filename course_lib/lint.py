"""A sanity check of a tool's annotations: contradictions, ignored hints, names that disagree.

`check_annotations(tool)` returns `Finding`s: a read-only tool that also says destructive, a
hint that is meaningless on a read-only tool, a name that sounds like a change on a tool that
declares read-only (or like a read on one that does not), and an absent `openWorldHint`.

Introduced in: notebooks/03_combinations.ipynb; used by `python -m course_lib inspect`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcp.types import Tool

from .annotations import as_tool, declared

__all__ = ["Finding", "check_annotations"]


@dataclass(frozen=True)
class Finding:
    """One problem found by `check_annotations`."""

    tool: str
    severity: str  # "contradiction", "suspicious", "ignored" or "missing"
    field: str
    message: str


_READ_VERBS = re.compile(
    r"^(get|read|list|search|find|fetch|show|describe|query|lookup|view|count|inspect)(_|$)"
)
_WRITE_VERBS = re.compile(
    r"^(delete|remove|drop|destroy|purge|erase|wipe|cleanup|clean|truncate|kill|overwrite|reset|"
    r"write|set|update|create|append|add|insert|send|post|put|upload|move|rename|execute|run)(_|$)"
)
_DESTRUCTIVE_VERBS = re.compile(
    r"^(delete|remove|drop|destroy|purge|erase|wipe|cleanup|clean|truncate|kill|overwrite|reset)(_|$)"
)


def check_annotations(tool: Tool | Mapping[str, Any]) -> list[Finding]:
    """Report contradictory or suspicious declarations on one tool.

    Looks only at what the server declared (name and annotations); it cannot see
    what the tool really does, so every finding is a question for a human, not a verdict.
    """
    tool = as_tool(tool)
    values = declared(tool.annotations)
    name = tool.name
    lowered = name.lower()
    findings: list[Finding] = []

    def add(severity: str, field: str, message: str) -> None:
        findings.append(Finding(name, severity, field, message))

    read_only = values["readOnlyHint"]
    if read_only is True:
        for wire in ("destructiveHint", "idempotentHint"):
            if values[wire] is not None:
                add(
                    "ignored",
                    wire,
                    f"{wire}={values[wire]} is ignored: it is meaningful only when readOnlyHint "
                    "is false",
                )
        if values["destructiveHint"] is True:
            add("contradiction", "destructiveHint", "declared read-only and destructive at once")
        if _WRITE_VERBS.match(lowered):
            add(
                "suspicious",
                "readOnlyHint",
                f"declared read-only, but the name {name!r} sounds like it changes state",
            )
    if read_only is None and _READ_VERBS.match(lowered):
        add(
            "missing",
            "readOnlyHint",
            f"{name!r} sounds read-only but lacks readOnlyHint: true, so clients treat it "
            "as a write",
        )
    if (
        values["destructiveHint"] is False
        and _DESTRUCTIVE_VERBS.match(lowered)
        and read_only is not True
    ):
        add(
            "suspicious",
            "destructiveHint",
            f"declared additive (destructiveHint: false), but {name!r} sounds destructive",
        )
    if values["openWorldHint"] is None:
        add(
            "missing",
            "openWorldHint",
            "openWorldHint is absent, so the spec default applies: open world (output untrusted)",
        )
    return findings
