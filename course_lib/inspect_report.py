"""The text and JSON report of `python -m course_lib inspect`: per server, its tools and findings;
then, for all servers together, the session's lethal-trifecta status.

The text report is in the learner's language (``COURSE_LANG=zh_CN``: Chinese), what a server
sent always shown as it sent it, escaped; the JSON document keeps its English texts (data for
scripts). The session's own status and caveats (`course_lib.trifecta`) are English in both.

Introduced in: notebooks/04_lethal_trifecta.ipynb (guide: docs/inspect.md)
"""

from __future__ import annotations

import os
import textwrap
import unicodedata
from typing import Any

from mcp.types import Tool

from .annotations import HINTS, classify, declared, display_title, effective
from .i18n import beside
from .i18n import gettext_ as _
from .i18n import ngettext_ as ngettext
from .inspection import LEGACY_HANDSHAKE, MAX_TOOLS, ServerInspection
from .legs import Leg
from .lint import Finding, check_annotations
from .phrase import Phrase
from .safe_text import printable, truncated
from .trifecta import SessionReport, analyse_session

__all__ = ["report", "tools_lines"]

MAX_LISTED = 5  # suppliers named per leg in the text report
MAX_CELL = 60  # characters of a name or title shown in a table cell
MAX_ROWS = 200  # tools shown in one server's text table (--json has them all)
WIDTH = 100  # characters of a line of prose in the text report (a projector's width)


def _cell(raw: Any, eff: Any) -> str:
    show = {True: "true", False: "false", None: "-"}
    if raw is None:
        return f"- → {show.get(eff, eff)}" if eff != "n/a" else "-"
    if eff == "n/a":
        return f"{show[raw]} (n/a)"
    return show[raw]


def _columns(text: str) -> int:
    """How many columns `text` takes on a terminal: a wide character (汉字) takes two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _padded(text: str, width: int) -> str:
    return text + " " * (width - _columns(text))


def tools_lines(tools: list[Tool]) -> list[str]:
    """Return a plain-text table: declared value, or "- → default" where a hint is absent."""
    if not tools:
        return ["  " + _("(no tools)")]
    header = [_("tool"), _("title"), *[h.removesuffix("Hint") for h in HINTS], _("profile")]
    rows = []
    for tool in tools[:MAX_ROWS]:
        raw, eff = declared(tool.annotations), effective(tool.annotations).as_wire()
        name, title = (
            printable(truncated(text, MAX_CELL)) for text in (tool.name, display_title(tool))
        )
        profile = beside(str(classify(tool.annotations)))  # 只读 (read-only) in Chinese
        rows.append([name, title, *[_cell(raw[h], eff[h]) for h in HINTS], profile])
    widths = [max(_columns(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        "  " + "  ".join(_padded(c, w) for c, w in zip(r, widths)).rstrip() for r in [header, *rows]
    ]
    if len(tools) > MAX_ROWS:
        more = Phrase.counted(
            "... and {n} more tool not shown (see --json)",
            "... and {n} more tools not shown (see --json)",
            len(tools) - MAX_ROWS,
        )
        lines.append("  " + more.text())
    return lines


def _label(found: ServerInspection, used: set[str]) -> str:
    base = found.name or os.path.basename(found.argv[0])
    label, n = base, 2
    while label in used:
        label, n = f"{base}#{n}", n + 1
    used.add(label)
    return label


def report(results: list[ServerInspection]) -> tuple[dict[str, Any], list[str]]:
    """Return the JSON document and the text lines for inspected servers."""
    used: set[str] = set()
    labels = [_label(r, used) for r in results]
    lines: list[str] = []
    servers = []
    for label, found in zip(labels, results):
        findings = found.malformed + [f for tool in found.tools for f in check_annotations(tool)]
        servers.append(_server_document(label, found, findings))
        lines += _server_lines(label, found, findings)
    inspected = {label: found.tools for label, found in zip(labels, results) if found.ok}
    document: dict[str, Any] = {"servers": servers, "session": None}
    if inspected:
        session = analyse_session(inspected)
        document["session"] = session.as_dict()
        lines += _session_lines(session, len(inspected), len(results) - len(inspected))
    return document, lines


def _server_document(label: str, found: ServerInspection, findings: list[Finding]) -> dict:
    """One server of the JSON document: its texts in English, as data."""
    return {
        "label": label,
        "command": found.argv,
        "env": found.env_names,
        "ok": found.ok,
        "error": found.error,
        "server_info": {"name": found.name, "version": found.version} if found.ok else None,
        "protocol": found.protocol,
        "handshake": found.handshake,
        "fallback": found.fallback.english() if found.fallback else None,
        "more_tools_not_read": found.more_tools,
        "tools": [
            {
                "name": t.name,
                "title": display_title(t),
                "declared": declared(t.annotations),
                "effective": effective(t.annotations).as_wire(),
                "profile": str(classify(t.annotations)),
            }
            for t in found.tools
        ],
        "findings": [f.as_dict() for f in findings],
    }


def _server_lines(label: str, found: ServerInspection, findings: list[Finding]) -> list[str]:
    """One server in the text report, in the learner's language: what it is, tools, findings."""
    lines = [f"== {label}: {found.command}"]
    if found.env_names:
        names = ", ".join(found.env_names)
        count = len(found.env_names)
        env = ngettext("env: {names} (value not shown)", "env: {names} (values not shown)", count)
        lines.append("  " + env.format(names=names))
    if not found.ok:
        return [*lines, "  " + _("ERROR: {error}").format(error=found.error), ""]
    count = len(found.tools)
    lines.append(
        "  "
        + ngettext(
            "server {name}{version}; protocol {protocol} via {handshake}; {n} tool",
            "server {name}{version}; protocol {protocol} via {handshake}; {n} tools",
            count,
        ).format(
            name=found.name or _("(unnamed)"),
            version=f" {found.version}" if found.version else "",
            protocol=found.protocol,
            handshake=_(LEGACY_HANDSHAKE)
            if found.handshake == LEGACY_HANDSHAKE
            else found.handshake,
            n=count,
        )
    )
    if found.fallback:
        lines.append("  " + _("note: {note}").format(note=found.fallback.text()))
    if found.more_tools:
        lines.append(
            "  "
            + _(
                "note: the server lists more than {max} tools; only the first {max} were read"
            ).format(max=MAX_TOOLS)
        )
    lines += tools_lines(found.tools)
    shown = _("findings ({n}):").format(n=len(findings)) if findings else _("findings: none")
    lines.append("  " + shown)
    for f in findings[:MAX_ROWS]:
        said = _("{tool}: {severity} {message}").format(
            tool=f.tool, severity=f.shown_severity, message=f.message
        )
        lines += _wrapped(said, "  - ")
    if len(findings) > MAX_ROWS:
        more = Phrase.counted(
            "... and {n} more finding (see --json)",
            "... and {n} more findings (see --json)",
            len(findings) - MAX_ROWS,
        )
        lines.append("  " + more.text())
    lines.append("")
    return lines


def _session_lines(session: SessionReport, servers: int, skipped: int) -> list[str]:
    """The text report's last part: the session's trifecta status, legs and caveats."""
    counted = {
        "servers": ngettext("{n} server", "{n} servers", servers).format(n=servers),
        "tools": ngettext("{n} tool", "{n} tools", len(session.tools)).format(n=len(session.tools)),
    }
    if skipped:
        head = _("== session: {servers}, {tools} ({skipped} not inspected)")
    else:
        head = _("== session: {servers}, {tools}")
    lines = [head.format(skipped=skipped, **counted)]
    lines += _wrapped(session.status, "  ")
    for leg in Leg:
        suppliers = [f"{s.tool} ({s.basis})" for s in session.supplies if s.leg is leg]
        if len(suppliers) > MAX_LISTED:
            more = len(suppliers) - MAX_LISTED
            suppliers = [*suppliers[:MAX_LISTED], _("and {n} more (see --json)").format(n=more)]
        lines.append(f"  {str(leg) + ':':24} {', '.join(suppliers) or '-'}")
    lines.append("  " + _("what the hints cannot tell:"))
    for caveat in session.caveats:
        lines += _wrapped(caveat, "  - ")
    return lines


def _wrapped(text: str, first: str) -> list[str]:
    """`text` in lines of at most `WIDTH` characters, the first after `first`, the rest indented."""
    return textwrap.wrap(
        text,
        WIDTH,
        initial_indent=first,
        subsequent_indent=" " * len(first) if first.endswith("- ") else first + "  ",
        break_long_words=False,
        break_on_hyphens=False,
    )
