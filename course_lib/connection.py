"""Connecting to MCP servers: in-process (no subprocess) or over stdio, async or sync.

The one place that knows how the SDK opens a connection. Lessons keep the
`list_tools()` / `call_tool()` lines visible; this module only picks the target.

Introduced in: notebooks/00_start_here.ipynb
"""

from __future__ import annotations

import asyncio
import os
import shlex
import shutil
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import get_default_environment, stdio_client
from mcp.types import CallToolResult, Tool

from .safe_text import printable
from .server_process import (
    MAX_LINE,
    STDERR_LINES,
    StderrTail,
    kill_server_group,
    record_started_servers,
    started_servers,
)
from .servers import DemoServer
from .wire import WireLog, recorded

if sys.version_info < (3, 11):  # pragma: no cover - Python 3.10
    from exceptiongroup import BaseExceptionGroup

__all__ = [
    "ConnectError",
    "Target",
    "call_tool_sync",
    "connect",
    "list_tools_sync",
    "python_command",
    "run_sync",
]

T = TypeVar("T")
Target = Any
"""What `connect` accepts: a server object (or a demo server's handle), a command list or string, or
`StdioServerParameters`."""


class ConnectError(RuntimeError):
    """A server could not be started or did not answer as an MCP server.

    `closed` is True when the server closed the connection during the handshake (it
    crashed or exited), as opposed to not starting, answering wrongly or timing out.
    `stderr` holds the end of what the server wrote on stderr (escaped), for callers that
    must tell one crash from another.
    """

    def __init__(self, message: str, *, closed: bool = False, stderr: str = "") -> None:
        super().__init__(message)
        self.closed = closed
        self.stderr = stderr


def python_command(*args: str) -> list[str]:
    """Return a command that runs this Python (the course's environment) with `args`."""
    return [sys.executable, *args]


def _stdio_parameters(
    target: str | Sequence[str] | StdioServerParameters, env: dict[str, str] | None
) -> StdioServerParameters:
    if isinstance(target, StdioServerParameters):
        return target
    argv = shlex.split(target) if isinstance(target, str) else list(target)
    if not argv:
        raise ValueError(
            "the command to start the server is empty: give a program and its arguments"
        )
    program = argv[0]
    if shutil.which(program) is None and not os.path.exists(program):
        raise ConnectError(
            f"`{program}` did not start: no such program on PATH; check the spelling or install it"
        )
    # The SDK hands a server only a small allow-list of variables (PATH, HOME, ...), never the
    # whole environment: a server is not trusted with your secrets. Extra variables must be given.
    return StdioServerParameters(
        command=program, args=argv[1:], env={**get_default_environment(), **(env or {})}
    )


@asynccontextmanager
async def connect(
    target: Target,
    *,
    mode: str = "auto",
    env: dict[str, str] | None = None,
    timeout: float | None = None,
    wire: WireLog | None = None,
    **client_options: Any,
) -> AsyncIterator[Client]:
    """Open an MCP client session to `target` and yield the connected `mcp.Client`.

    `target` is a server object (`MCPServer` or low-level `Server`, or a demo server's
    handle such as `file_ops_server()`), connected
    in-process with no subprocess and no JSON-RPC framing; or a command (a list such
    as ``["python", "-m", "course_lib", "serve", "file-ops"]``, a shell-style string, or
    `StdioServerParameters`), started as a subprocess and spoken to over stdio.
    `mode` is the SDK's connect mode: "auto" (try the 2026 discovery, else the
    handshake) or "legacy" (the pre-2026 `initialize` handshake). `timeout` bounds the
    whole session in seconds (start, handshake and everything done inside the block).
    `wire` (stdio only) keeps the raw result of each `tools/list` (see `course_lib.wire`).

    Use it with ``async with connect(server) as client:`` in a notebook cell.

    Raises:
        ConnectError: the command could not be started, did not speak MCP, or the
            session did not finish within `timeout`.
    """
    client, label, stderr = _client(target, env, mode, wire, client_options)
    label = printable(str(label), limit=MAX_LINE)
    started: list[int] = []
    token = started_servers.set(started)

    try:
        with anyio.move_on_after(timeout) as scope:
            try:
                await client.__aenter__()
            except Exception as exc:
                if stderr is None:
                    raise ConnectError(
                        f"could not open an in-process MCP session with `{label}` ({_causes(exc)})"
                    ) from None
                for pid in started:
                    kill_server_group(pid)
                closed = "Connection closed" in _causes(exc)
                kept = stderr.all_lines()
                explained = _explain(label, exc, kept[-STDERR_LINES:])
                raise ConnectError(explained, closed=closed, stderr="\n".join(kept)) from None
            finally:
                started_servers.reset(token)
                if stderr is not None:
                    stderr.close_writer()  # the server has its own copy
            try:
                yield client
            finally:
                await client.__aexit__(None, None, None)
        if scope.cancelled_caught:
            raise ConnectError(_silent(label, timeout, stderr))
    finally:
        for pid in started:
            kill_server_group(pid)


def _client(
    target: Target,
    env: dict[str, str] | None,
    mode: str,
    wire: WireLog | None,
    client_options: dict[str, Any],
) -> tuple[Client, str, StderrTail | None]:
    """The unopened client for `target`, its label, and (stdio only) the server's stderr tail."""
    if isinstance(target, DemoServer):
        target = target.server
    stdio = isinstance(target, (str, list, tuple, StdioServerParameters))
    if stdio:
        params = _stdio_parameters(target, env)
        label = os.path.basename(params.command) or params.command
        # The server's stderr goes to a pipe we drain, not the notebook: inside a Jupyter kernel
        # `sys.stderr` has no file descriptor, and its log lines would land in cell outputs.
        # Its last lines are quoted (escaped) when the session fails.
        tail = StderrTail()
        stderr: StderrTail | None = tail
        record_started_servers()
        transport = stdio_client(params, errlog=tail.writer)
        if wire is not None:
            transport = recorded(transport, wire)
        client = Client(transport, mode=mode, **client_options)
    else:
        label = getattr(target, "name", type(target).__name__)
        stderr = None
        client = Client(target, mode=mode, **client_options)
    return client, label, stderr


def _silent(label: str, timeout: float | None, stderr: StderrTail | None) -> str:
    return (
        f"`{label}` did not answer within {timeout:g} s, so it was stopped. A program that "
        "waits without speaking MCP on stdio is not an MCP server (or is waiting for input, a "
        "login or a download: run it alone in a terminal, or allow more time)." + _quoted(stderr)
    )


def _quoted(stderr: StderrTail | None) -> str:
    lines = stderr.lines() if stderr is not None else []
    return (" Its last lines on stderr: " + " | ".join(lines)) if lines else ""


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def _causes(exc: BaseException) -> str:
    causes = "; ".join(f"{type(e).__name__}: {e}".rstrip(": ") for e in _leaves(exc))
    return printable(causes, limit=2 * MAX_LINE)  # a server's error message is its own text


def _explain(program: str, exc: BaseException, stderr: list[str]) -> str:
    """Turn a failed stdio handshake into one paragraph: what happened, the likely cause, what to
    try."""
    causes = _causes(exc)
    did_not_start = all(isinstance(e, OSError) for e in _leaves(exc))
    if did_not_start:
        text = (
            f"`{program}` did not start ({causes}). "
            "Check that the program exists and may be executed."
        )
    elif "Connection closed" in causes:
        text = (
            f"`{program}` is not an MCP server, or it stopped: it closed its output before "
            "completing the MCP "
            "handshake (it may have crashed, printed something other than JSON-RPC on stdout, or "
            "exited)."
        )
    else:
        text = (
            f"`{program}` is not an MCP server on stdio: what it wrote back is not an MCP reply "
            "(it may echo its "
            f"input, as `cat` does, or speak another protocol). The client saw: {causes}."
        )
    if stderr:
        text += " Its last lines on stderr: " + " | ".join(stderr)
    elif not did_not_start:
        text += " Run the command alone in a terminal to see what it does."
    return text


def run_sync(coroutine_function: Callable[[], Awaitable[T]]) -> T:
    """Run an async function to completion from synchronous code and return its result.

    Works in a plain script (no event loop yet) and inside a running Jupyter kernel,
    whose loop is already running: there `anyio.run()`/`asyncio.run()` refuse to
    nest, so the kernel's loop is patched once with `nest_asyncio` and re-entered.
    """
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_call(coroutine_function))
    import nest_asyncio

    nest_asyncio.apply(loop)
    return loop.run_until_complete(_call(coroutine_function))


async def _call(coroutine_function: Callable[[], Awaitable[T]]) -> T:
    return await coroutine_function()


def list_tools_sync(target: Target, **connect_options: Any) -> list[Tool]:
    """Connect to `target`, list its tools and return them (synchronous)."""

    async def work() -> list[Tool]:
        async with connect(target, **connect_options) as client:
            return list((await client.list_tools()).tools)

    return run_sync(work)


def call_tool_sync(
    target: Target, name: str, arguments: dict[str, Any] | None = None, **connect_options: Any
) -> CallToolResult:
    """Connect to `target`, call one tool and return its `CallToolResult` (synchronous)."""

    async def work() -> CallToolResult:
        async with connect(target, **connect_options) as client:
            return await client.call_tool(name, arguments or {})

    return run_sync(work)
