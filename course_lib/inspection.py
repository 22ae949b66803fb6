"""Inspecting stdio MCP servers: start each command, list its tools (bounded), stop it.

The engine behind `python -m course_lib inspect` (`inspect_cmd` parses the command line and
prints the report). Never raises for a misbehaving server: what went wrong is in the result.

Introduced in: notebooks/04_lethal_trifecta.ipynb (guide: docs/inspect.md)
"""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import dataclass, field
from typing import Any

import anyio
from mcp.types import Tool
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from .connection import ConnectError, connect
from .safe_text import printable

DEFAULT_TIMEOUT = 30.0
MAX_PAGES = 100  # tools/list pages read from one server
MAX_CONCURRENT = 4  # servers started at the same time
MAX_TOOLS = 1000  # tools read from one server; the rest are counted as not read
MAX_NAME = 200  # characters kept of a tool's name, title and description, or a server's name
FALLBACK_NOTE = (
    "`{program}` closed the connection on `server/discover` (servers on mcp 1.9.3 and older "
    "crash on the 2026 request), so it was retried once with the legacy `initialize` handshake."
)


@dataclass
class ServerInspection:
    """What inspecting one server command found (or why it failed)."""

    argv: list[str]
    tools: list[Tool] = field(default_factory=list)
    name: str | None = None
    version: str | None = None
    protocol: str | None = None
    error: str | None = None
    fallback: str | None = None  # why the legacy handshake was retried, when it was
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
        return (
            "server/discover"
            if self.protocol in MODERN_PROTOCOL_VERSIONS
            else "initialize (legacy handshake)"
        )


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


async def _list(found: ServerInspection, argv: list[str], *, timeout: float, mode: str) -> None:
    async with connect(argv, mode=mode, timeout=timeout) as client:
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
            page = await client.list_tools(cursor=cursor)
            found.tools += [_bounded(t) for t in page.tools[: MAX_TOOLS - len(found.tools)]]
            found.more_tools = (
                found.more_tools or len(found.tools) >= MAX_TOOLS and len(page.tools) > 0
            )
            cursor = page.next_cursor
            if not cursor or len(found.tools) >= MAX_TOOLS:
                break


async def inspect_server(
    argv: list[str], *, timeout: float = DEFAULT_TIMEOUT, mode: str = "auto"
) -> ServerInspection:
    """Start one server command, list its tools and stop it; never raises for a misbehaving server.

    In "auto" mode, a server that closes the connection during the handshake (as servers on
    mcp <= 1.9.3 do on `server/discover`) is started again once with the legacy handshake.
    """
    found = ServerInspection(list(argv))
    try:
        try:
            await _list(found, argv, timeout=timeout, mode=mode)
        except ConnectError as exc:
            if not (exc.closed and mode == "auto"):
                raise
            try:
                await _list(found, argv, timeout=timeout, mode="legacy")
            except ConnectError:
                raise ConnectError(
                    f"{exc} A retry with the legacy `initialize` handshake failed too."
                ) from None
            found.fallback = FALLBACK_NOTE.format(program=found.program)
    except ConnectError as exc:  # did not start, not MCP, or timed out: already one paragraph
        found.error = str(exc)
    except Exception as exc:  # noqa: BLE001 - a foreign server failing after the handshake
        cause = printable(str(exc), limit=MAX_NAME)
        found.error = (
            f"`{found.program}` completed the MCP handshake, "
            f"but listing its tools failed ({cause})."
        )
    return found


async def inspect_servers(
    commands: list[list[str]],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    mode: str = "auto",
    limit: int = MAX_CONCURRENT,
) -> list[ServerInspection]:
    """Inspect several server commands at once (at most `limit` running together); results in
    command order."""
    results: list[ServerInspection | None] = [None] * len(commands)
    limiter = anyio.CapacityLimiter(max(1, limit))

    async def one(index: int, argv: list[str]) -> None:
        async with limiter:
            results[index] = await inspect_server(argv, timeout=timeout, mode=mode)

    async with anyio.create_task_group() as group:
        for index, argv in enumerate(commands):
            group.start_soon(one, index, argv)
    return [r for r in results if r is not None]
