"""Inspecting stdio MCP servers: start each command, list its tools (bounded), stop it.

The engine behind `python -m course_lib inspect` (`inspect_cmd` parses the command line and
prints the report). Never raises for a misbehaving server: what went wrong is in the result.
A tool the SDK cannot validate is read from the raw `tools/list` JSON (name, title,
annotations) and reported as a "malformed" finding, so one bad tool never hides the others.
Findings and the fallback note are `Phrase`s, said in the learner's language when printed;
what a server sent (names, validation errors) is a value in them, escaped, never translated.

Introduced in: notebooks/04_lethal_trifecta.ipynb (guide: docs/inspect.md)
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp.types import Tool, ToolAnnotations
from mcp_types.methods import validate_server_result
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from .annotations import HINTS
from .connection import ConnectError, connect
from .i18n import N_
from .lint import Finding
from .phrase import Phrase
from .safe_text import printable
from .server_command import ServerCommand, redacted
from .wire import WireLog

DEFAULT_TIMEOUT = 30.0
MAX_PAGES = 100  # tools/list pages read from one server
MAX_CONCURRENT = 4  # servers started at the same time
MAX_TOOLS = 1000  # tools read from one server; the rest are counted as not read
MAX_NAME = 200  # characters kept of a tool's name, title and description, or a server's name
FALLBACK_NOTE = N_(
    "`{program}` closed the connection on `server/discover` (servers on mcp 1.9.3 and older "
    "crash on the 2026 request), so it was retried once with the legacy `initialize` handshake."
)
LEGACY_HANDSHAKE = N_("initialize (legacy handshake)")
ENV_NOTE = (
    " If it needs a key or a setting from the environment, pass it with --env NAME=VALUE or "
    "--env-file FILE: a server gets only PATH, HOME and a few more variables unless you do."
)
_ENV_WORDS = re.compile(r"environment|\benv\b|api[ _-]?key|token", re.IGNORECASE)
PLACEHOLDER_SCHEMA = {"type": "object"}  # stands for an inputSchema that did not validate


@dataclass
class ServerInspection:
    """What inspecting one server command found (or why it failed)."""

    argv: list[str]
    env_names: list[str] = field(default_factory=list)  # extra variables given (never values)
    tools: list[Tool] = field(default_factory=list)
    raw_tools: list[dict[str, Any]] = field(default_factory=list)  # as sent, before validation
    malformed: list[Finding] = field(default_factory=list)  # tools read from the raw JSON
    name: str | None = None
    version: str | None = None
    protocol: str | None = None
    error: str | None = None
    fallback: Phrase | None = None  # why the legacy handshake was retried, when it was
    more_tools: bool = False  # the server listed more than MAX_TOOLS tools

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def command(self) -> str:
        """The command as one shell-quoted line; this Python's own path is shown as `python`."""
        return display_command(self.argv)

    @property
    def program(self) -> str:
        """The program's name, without its folder: what error messages call the server."""
        return os.path.basename(display_command(self.argv[:1])) or self.command

    @property
    def handshake(self) -> str | None:
        if self.protocol is None:
            return None
        return "server/discover" if self.protocol in MODERN_PROTOCOL_VERSIONS else LEGACY_HANDSHAKE


def display_command(argv: list[str]) -> str:
    """Return `argv` as one shell-quoted line, the running Python's path shortened to `python`."""
    shown = list(argv)
    if shown and _same_file(shown[0], sys.executable):
        shown[0] = "python"
    return shlex.join(shown)


def _same_file(a: str, b: str) -> bool:
    try:
        return a == b or os.path.samefile(a, b)
    except OSError:
        return False


def _bounded(tool: Tool) -> Tool:
    """`tool` with its server-chosen strings escaped and cut to `MAX_NAME` characters."""
    update: dict[str, Any] = {"name": printable(tool.name, limit=MAX_NAME)}
    for key in ("title", "description"):
        value = getattr(tool, key, None)
        if isinstance(value, str):
            update[key] = printable(value, limit=MAX_NAME)
    if tool.annotations is not None and isinstance(tool.annotations.title, str):
        update["annotations"] = tool.annotations.model_copy(
            update={"title": printable(tool.annotations.title, limit=MAX_NAME)}
        )
    return tool.model_copy(update=update)


def _validation_summary(exc: ValidationError) -> tuple[str, str]:
    """The first error of `exc` (checking a one-tool page) as (the tool's field, "where: what")."""
    first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": str(exc)}
    loc = [str(part) for part in first.get("loc", ())][2:]  # drop ("tools", 0)
    where = ".".join(loc) or "the tool"
    what = printable(f"{where}: {first.get('msg', '')}", limit=MAX_NAME)
    return (loc[0] if loc else "tool"), what


def _lenient_tool(raw: Mapping[str, Any], error: ValidationError) -> tuple[Tool | None, Finding]:
    """A tool the SDK rejected, read from its raw JSON: name, title, description, annotations."""
    name = raw.get("name")
    shown = printable(name, limit=MAX_NAME) if isinstance(name, str) else "(no name)"
    field_name, what = _validation_summary(error)
    annotations: ToolAnnotations | None = None
    said = Phrase(
        N_(
            "its tools/list entry does not validate ({what}); its name, title and annotations "
            "were read from the raw JSON"
        ),
        what=what,
    )
    if isinstance(raw.get("annotations"), Mapping):
        try:
            annotations = ToolAnnotations.model_validate(raw["annotations"], by_name=False)
        except ValidationError:
            said = Phrase(
                N_(
                    "its tools/list entry does not validate ({what}); its name and title (its "
                    "annotations do not validate either: defaults apply) were read from the raw "
                    "JSON"
                ),
                what=what,
            )
    finding = Finding(shown, "malformed", field_name, said)
    if not isinstance(name, str) or not name:
        return None, finding
    strings = {k: raw[k] for k in ("title", "description") if isinstance(raw.get(k), str)}
    try:
        tool = Tool(name=name, input_schema=PLACEHOLDER_SCHEMA, annotations=annotations, **strings)
    except ValidationError:
        return None, finding
    return tool, finding


def _validated(entry: Mapping[str, Any], version: str) -> Tool:
    """`entry` as the SDK reads a tool at protocol `version`: the wire schema, then the model.

    Raises:
        ValidationError: `entry` is not a valid tool at `version`.
    """
    try:
        validate_server_result("tools/list", version, {"tools": [entry]})
    except (KeyError, ValueError) as exc:
        if isinstance(exc, ValidationError):
            raise
    return Tool.model_validate(entry, by_name=False)


def tools_from_raw(page: Mapping[str, Any], version: str) -> tuple[list[Tool], list[Finding]]:
    """Read a raw `tools/list` result (at protocol `version`) tool by tool: the valid ones as the
    SDK reads them, the others leniently (`_lenient_tool`), each of those with a "malformed"
    finding."""
    entries = page.get("tools")
    if not isinstance(entries, list):
        said = Phrase(N_("the tools/list result has no list"))
        return [], [Finding("(all)", "malformed", "tools", said)]
    tools: list[Tool] = []
    findings: list[Finding] = []
    for entry in entries[:MAX_TOOLS]:
        if not isinstance(entry, Mapping):
            said = Phrase(N_("an entry is not an object"))
            findings.append(Finding("(unnamed)", "malformed", "tool", said))
            continue
        try:
            tools.append(_validated(entry, version))
        except ValidationError as exc:
            tool, finding = _lenient_tool(entry, exc)
            findings.append(finding)
            if tool is not None:
                tools.append(tool)
    return tools, findings


async def _list(
    found: ServerInspection, command: ServerCommand, *, timeout: float, mode: str
) -> None:
    wire = WireLog()
    async with connect(
        list(command.argv), mode=mode, timeout=timeout, env=dict(command.env), wire=wire
    ) as client:
        found.protocol = client.protocol_version
        if client.server_info is not None:
            found.name = printable(client.server_info.name, limit=MAX_NAME)
            found.version = (
                printable(client.server_info.version, limit=MAX_NAME)
                if client.server_info.version
                else None
            )
        cursor: str | None = None
        for _ in range(MAX_PAGES):  # a server may list its tools over several pages
            tools, malformed, cursor = await _read_page(client, wire, cursor)
            room = MAX_TOOLS - len(found.tools)
            found.tools += [_bounded(t) for t in tools[:room]]
            found.malformed += malformed
            raw = wire.last_tools_page or {}
            entries: list[Any] = raw["tools"] if isinstance(raw.get("tools"), list) else []
            found.raw_tools += [t for t in entries[:room] if isinstance(t, dict)]
            found.malformed += loose_hints(entries[:room])
            found.more_tools = found.more_tools or len(found.tools) >= MAX_TOOLS and len(tools) > 0
            if not cursor or len(found.tools) >= MAX_TOOLS:
                break


def loose_hints(entries: list[Any]) -> list[Finding]:
    """A "malformed" finding for each hint on the wire that is not a boolean (e.g. "yes"): the
    SDK turns some of these into booleans silently, so the table shows what it made of them."""
    findings = []
    for entry in entries:
        annotations = entry.get("annotations") if isinstance(entry, Mapping) else None
        if not isinstance(annotations, Mapping):
            continue
        for hint in HINTS:
            value = annotations.get(hint)
            if value is not None and not isinstance(value, bool):
                shown = printable(json.dumps(value), limit=40)
                said = Phrase(
                    N_(
                        "{hint} is {value} on the wire, not true or false: the SDK may turn it "
                        "into a boolean, and a strict client ignores it"
                    ),
                    hint=hint,
                    value=shown,
                )
                name = printable(str(entry.get("name")), limit=MAX_NAME)
                findings.append(Finding(name, "malformed", hint, said))
    return findings


async def _read_page(
    client: Any, wire: WireLog, cursor: str | None
) -> tuple[list[Tool], list[Finding], str | None]:
    """One `tools/list` page: its tools, "malformed" findings, and the next page's cursor."""
    try:
        page = await client.list_tools(cursor=cursor)
        return list(page.tools), [], page.next_cursor
    except ValidationError:  # one bad tool fails the SDK's whole page: read it tool by tool
        raw = wire.last_tools_page or {}
        tools, malformed = tools_from_raw(raw, client.protocol_version)
        after = raw.get("nextCursor")
        return tools, malformed, after if isinstance(after, str) else None


def _rejected_discover(exc: ConnectError) -> bool:
    """True when a server closed the connection saying it did not understand `server/discover`
    (servers on mcp <= 1.9.3 crash on it, quoting the method): only then does the legacy
    handshake have a chance. A crash for any other reason is not retried."""
    return exc.closed and "server/discover" in exc.stderr


def _as_command(command: ServerCommand | Sequence[str]) -> ServerCommand:
    return command if isinstance(command, ServerCommand) else ServerCommand(tuple(command))


async def inspect_server(
    command: ServerCommand | Sequence[str],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    mode: str = "auto",
) -> ServerInspection:
    """Start one server command, list its tools and stop it; never raises for a misbehaving server.

    In "auto" mode, a server that closes the connection on `server/discover` saying it does not
    understand it (as servers on mcp <= 1.9.3 do) is started again once with the legacy
    handshake. The values of `command.env` never appear in the result.
    """
    command = _as_command(command)
    found = ServerInspection(list(command.argv), env_names=command.env_names)
    try:
        try:
            await _list(found, command, timeout=timeout, mode=mode)
        except ConnectError as exc:
            if not (mode == "auto" and _rejected_discover(exc)):
                raise
            try:
                await _list(found, command, timeout=timeout, mode="legacy")
            except ConnectError:
                raise ConnectError(
                    f"{exc} A retry with the legacy `initialize` handshake failed too."
                ) from None
            found.fallback = Phrase(FALLBACK_NOTE, program=found.program)
    except ConnectError as exc:  # did not start, not MCP, or timed out: already one paragraph
        found.error = str(exc)
        if exc.closed and _ENV_WORDS.search(exc.stderr):
            found.error += ENV_NOTE
    except Exception as exc:  # noqa: BLE001 - a foreign server failing after the handshake
        cause = printable(str(exc), limit=MAX_NAME)
        found.error = (
            f"`{found.program}` completed the MCP handshake, "
            f"but listing its tools failed ({cause})."
        )
    if found.error is not None:
        found.error = redacted(found.error, command.env.values())
    return found


async def inspect_servers(
    commands: Sequence[ServerCommand | Sequence[str]],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    mode: str = "auto",
    limit: int = MAX_CONCURRENT,
) -> list[ServerInspection]:
    """Inspect several server commands at once (at most `limit` running together); results in
    command order."""
    results: list[ServerInspection | None] = [None] * len(commands)
    limiter = anyio.CapacityLimiter(max(1, limit))

    async def one(index: int, command: ServerCommand | Sequence[str]) -> None:
        async with limiter:
            results[index] = await inspect_server(command, timeout=timeout, mode=mode)

    async with anyio.create_task_group() as group:
        for index, command in enumerate(commands):
            group.start_soon(one, index, command)
    return [r for r in results if r is not None]
