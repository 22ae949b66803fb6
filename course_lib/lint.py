"""A sanity check of a tool's annotations: contradictions, ignored hints, names that disagree.

`check_annotations(tool)` returns `Finding`s: a read-only tool that also says destructive, a
hint that is meaningless on a read-only tool, a name that sounds like a change on a tool that
declares read-only (or like a read on one that does not), and an absent `openWorldHint`. What a
finding says is a `Phrase`: ``finding.message`` is it in the learner's language
(``COURSE_LANG``), the tool's name in it a value that is never translated.

Introduced in: notebooks/03_combinations.ipynb; used by `python -m course_lib inspect`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcp.types import Tool

from .annotations import as_tool, declared
from .i18n import N_
from .i18n import gettext_ as _
from .phrase import Phrase

__all__ = ["SEVERITIES", "Finding", "check_annotations"]

SEVERITIES = {
    "contradiction": N_("[contradiction]"),
    "suspicious": N_("[suspicious]"),
    "ignored": N_("[ignored]"),
    "missing": N_("[missing]"),
    "malformed": N_("[malformed]"),  # inspect's: a tool whose tools/list entry does not validate
}
"""Each severity, as a report shows it (the severity itself is data: ``finding.severity``)."""


@dataclass(frozen=True)
class Finding:
    """One problem found by `check_annotations` (or by `inspect`, reading a server's tools)."""

    tool: str
    severity: str  # a key of SEVERITIES
    field: str
    said: Phrase  # what the finding says, in no language yet

    @property
    def message(self) -> str:
        """What the finding says, in the language in use."""
        return self.said.text()

    @property
    def shown_severity(self) -> str:
        """The severity as a report shows it, in the language in use (``[missing]``)."""
        label = SEVERITIES.get(self.severity)
        return _(label) if label else f"[{self.severity}]"

    def as_dict(self) -> dict[str, str]:
        """The finding as ``inspect --json`` gives it: its message in English, as data."""
        return {
            "tool": self.tool,
            "severity": self.severity,
            "field": self.field,
            "message": self.said.english(),
        }


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

    def add(severity: str, field: str, said: Phrase) -> None:
        findings.append(Finding(name, severity, field, said))

    read_only = values["readOnlyHint"]
    if read_only is True:
        for wire in ("destructiveHint", "idempotentHint"):
            if values[wire] is not None:
                add(
                    "ignored",
                    wire,
                    Phrase(
                        N_(
                            "{hint}={value} is ignored: it is meaningful only when readOnlyHint "
                            "is false"
                        ),
                        hint=wire,
                        value=str(values[wire]),
                    ),
                )
        if values["destructiveHint"] is True:
            said = Phrase(N_("declared read-only and destructive at once"))
            add("contradiction", "destructiveHint", said)
        if _WRITE_VERBS.match(lowered):
            said = Phrase(
                N_("declared read-only, but the name {name} sounds like it changes state"),
                name=repr(name),
            )
            add("suspicious", "readOnlyHint", said)
    if read_only is None and _READ_VERBS.match(lowered):
        said = Phrase(
            N_(
                "{name} sounds read-only but lacks readOnlyHint: true, so clients treat it "
                "as a write"
            ),
            name=repr(name),
        )
        add("missing", "readOnlyHint", said)
    if (
        values["destructiveHint"] is False
        and _DESTRUCTIVE_VERBS.match(lowered)
        and read_only is not True
    ):
        said = Phrase(
            N_("declared additive (destructiveHint: false), but {name} sounds destructive"),
            name=repr(name),
        )
        add("suspicious", "destructiveHint", said)
    if values["openWorldHint"] is None:
        said = Phrase(
            N_(
                "openWorldHint is absent, so the spec default applies: open world "
                "(output untrusted)"
            )
        )
        add("missing", "openWorldHint", said)
    return findings
