"""Connecting to MCP servers: in-process (no subprocess) or over stdio, async or sync.

The one place that knows how the SDK opens a connection. Lessons keep the
`list_tools()` / `call_tool()` lines visible; this module only picks the target.

Introduced in: notebooks/00_start_here.ipynb
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import shlex
import shutil
import signal
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

import anyio
import mcp.client.stdio as sdk_stdio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import get_default_environment, stdio_client
from mcp.types import CallToolResult, Tool

from .safe_text import printable

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
"""What `connect` accepts: a server object, a command list or string, or `StdioServerParameters`."""


class ConnectError(RuntimeError):
    """A server could not be started or did not answer as an MCP server.

    `closed` is True when the server closed the connection during the handshake (it
    crashed or exited), as opposed to not starting, answering wrongly or timing out.
    """

    def __init__(self, message: str, *, closed: bool = False) -> None:
        super().__init__(message)
        self.closed = closed


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


STDERR_LINES = 6  # last lines of a failed server's stderr quoted in its error
MAX_LINE = 300  # characters kept of each quoted line
STDERR_TAIL_BYTES = 16_384  # what is kept of a server's stderr: its end, never the whole stream


class StderrTail:
    """A pipe for a server's stderr, drained on a thread that keeps only the last bytes.

    Whatever a server writes (a 500 MB log included) costs at most `STDERR_TAIL_BYTES`
    (twice that, briefly) of memory and no disk; the server never blocks on a full pipe.
    """

    def __init__(self) -> None:
        read_fd, write_fd = os.pipe()
        # the server's stderr
        self.writer = os.fdopen(write_fd, "w", encoding="utf-8", errors="replace")
        self._tail = bytearray()
        self._lock = threading.Lock()
        self._thread = threading.Thread(
            target=self._drain, args=(read_fd,), name="server-stderr", daemon=True
        )
        self._thread.start()

    def _drain(self, read_fd: int) -> None:
        with open(read_fd, "rb", buffering=0) as pipe:
            while chunk := pipe.read(65_536):
                with self._lock:
                    self._tail += chunk
                    if len(self._tail) > 2 * STDERR_TAIL_BYTES:
                        del self._tail[:-STDERR_TAIL_BYTES]

    def close_writer(self) -> None:
        """Close this process's copy of the write end, so the pipe ends when the server's group
        does."""
        self.writer.close()

    def lines(self, wait: float = 2.0) -> list[str]:
        """The last lines written, control characters escaped; waits up to `wait` s for the pipe to
        end."""
        self.close_writer()
        self._thread.join(wait)
        with self._lock:
            data = bytes(self._tail[-STDERR_TAIL_BYTES:])
        text = data.decode("utf-8", errors="replace")
        lines = [
            printable(line.strip(), limit=MAX_LINE) for line in text.splitlines() if line.strip()
        ]
        return lines[-STDERR_LINES:]


# The SDK starts each stdio server in a new session (its pid is the process group id), but
# kills that group only when the server outlives its grace period: a server that exits on
# its own leaves its children running. Every server `connect` starts is recorded here, and
# its whole group and session are killed when the connection ends.
_started: ContextVar[list[int] | None] = ContextVar("course_lib_started_servers", default=None)


def _record_started_servers() -> None:
    spawn = getattr(sdk_stdio, "_create_platform_compatible_process", None)
    if spawn is None or getattr(spawn, "course_lib_records", False):
        return

    async def recording_spawn(*args: Any, **kwargs: Any) -> Any:
        process = await spawn(*args, **kwargs)
        started = _started.get()
        if started is not None:
            started.append(process.pid)
        return process

    recording_spawn.course_lib_records = True  # type: ignore[attr-defined]
    sdk_stdio._create_platform_compatible_process = recording_spawn


def _session_members(session_id: int) -> list[int]:
    """Pids of live processes in session `session_id` (Linux /proc; elsewhere none are found)."""
    members = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if len(fields) > 4 and int(fields[4]) == session_id:
            members.append(int(entry))
    return members


def kill_server_group(pid: int) -> None:
    """SIGKILL what is left of the process group and session a server started with `pid` leads."""
    if sys.platform == "win32":  # pragma: no cover - the SDK's job object does this on Windows
        return
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    for member in _session_members(pid):  # children that moved to a group of their own
        try:
            os.kill(member, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass



@contextmanager
def orphans_killed() -> Iterator[None]:
    """Run the block as the reaper of its servers' orphans, and kill those left when it ends.

    A server's grandchild that starts a session of its own (fork, ``setsid``, fork) escapes
    `kill_server_group`. On Linux this process becomes a child subreaper (``prctl``), so such
    orphans are re-parented to it, not to init; after the block every process still its
    new child is killed (children it had before are left alone). For a command-line process
    (a notebook kernel is not made a reaper).
    """
    libc = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None
    was = ctypes.c_int(0)
    if libc is not None:
        libc.prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(was), 0, 0, 0)
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    before = set(_children(os.getpid())) if libc is not None else set()  # not ours to kill
    try:
        yield
    finally:
        # killed orphans' own children come back here too
        for _ in range(20 if libc is not None else 0):
            children = [pid for pid in _children(os.getpid()) if pid not in before]
            if not children:
                break
            for child in children:
                try:
                    os.kill(child, signal.SIGKILL)
                    os.waitpid(child, 0)
                except (ProcessLookupError, ChildProcessError, PermissionError):
                    pass
        if libc is not None:
            libc.prctl(_PR_SET_CHILD_SUBREAPER, was.value, 0, 0, 0)


_PR_SET_CHILD_SUBREAPER, _PR_GET_CHILD_SUBREAPER = 36, 37


def _children(parent: int) -> list[int]:
    """Pids of live processes whose parent is `parent` (Linux /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if entry.isdigit() and int(fields[1]) == parent:  # zombies too: they are reaped
            found.append(int(entry))
    return found

@asynccontextmanager
async def connect(
    target: Target,
    *,
    mode: str = "auto",
    env: dict[str, str] | None = None,
    timeout: float | None = None,
    **client_options: Any,
) -> AsyncIterator[Client]:
    """Open an MCP client session to `target` and yield the connected `mcp.Client`.

    `target` is a server object (`MCPServer` or low-level `Server`), connected
    in-process with no subprocess and no JSON-RPC framing; or a command (a list such
    as ``["python", "-m", "course_lib", "serve", "file-ops"]``, a shell-style string, or
    `StdioServerParameters`), started as a subprocess and spoken to over stdio.
    `mode` is the SDK's connect mode: "auto" (try the 2026 discovery, else the
    handshake) or "legacy" (the pre-2026 `initialize` handshake). `timeout` bounds the
    whole session in seconds (start, handshake and everything done inside the block).

    Use it with ``async with connect(server) as client:`` in a notebook cell.

    Raises:
        ConnectError: the command could not be started, did not speak MCP, or the
            session did not finish within `timeout`.
    """
    stdio = isinstance(target, (str, list, tuple, StdioServerParameters))
    if stdio:
        params = _stdio_parameters(target, env)
        label = os.path.basename(params.command) or params.command
        # The server's stderr goes to a pipe we drain, not the notebook: inside a Jupyter kernel
        # `sys.stderr` has no file descriptor, and its log lines would land in cell outputs.
        # Its last lines are quoted (escaped) when the session fails.
        tail = StderrTail()
        stderr: StderrTail | None = tail
        _record_started_servers()
        client = Client(stdio_client(params, errlog=tail.writer), mode=mode, **client_options)
    else:
        label = getattr(target, "name", type(target).__name__)
        stderr = None
        client = Client(target, mode=mode, **client_options)
    label = printable(str(label), limit=MAX_LINE)
    started: list[int] = []
    token = _started.set(started)

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
                raise ConnectError(_explain(label, exc, stderr.lines()), closed=closed) from None
            finally:
                _started.reset(token)
                if stderr is not None:
                    stderr.close_writer()  # the server has its own copy
            try:
                yield client
            finally:
                await client.__aexit__(None, None, None)
        if scope.cancelled_caught:
            raise ConnectError(
                f"`{label}` did not answer within {timeout:g} s, so it was stopped. A program "
                "that waits "
                "without speaking MCP on stdio is not an MCP server (or is waiting for input, a "
                "login or a "
                "download: run it alone in a terminal, or allow more time)." + _quoted(stderr)
            )
    finally:
        for pid in started:
            kill_server_group(pid)


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
