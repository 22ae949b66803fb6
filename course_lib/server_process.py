"""A stdio server's operating-system process: its stderr, its process group and its orphans.

`connect` starts servers through the SDK; this module bounds what they can cost the
caller: stderr is drained into a small tail, and every process a server leaves behind
(its group, its session, and with `orphans_killed` its double-forked grandchildren) is
killed when the connection ends.

Introduced in: notebooks/00_start_here.ipynb
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import mcp.client.stdio as sdk_stdio

from .safe_text import printable

__all__ = [
    "MAX_LINE",
    "STDERR_LINES",
    "StderrTail",
    "kill_server_group",
    "orphans_killed",
    "record_started_servers",
    "started_servers",
]

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
        return self.all_lines(wait)[-STDERR_LINES:]

    def all_lines(self, wait: float = 2.0) -> list[str]:
        """Every line kept (the last `STDERR_TAIL_BYTES`), escaped and cut like `lines`."""
        self.close_writer()
        self._thread.join(wait)
        with self._lock:
            data = bytes(self._tail[-STDERR_TAIL_BYTES:])
        text = data.decode("utf-8", errors="replace")
        return [
            printable(line.strip(), limit=MAX_LINE) for line in text.splitlines() if line.strip()
        ]


# The SDK starts each stdio server in a new session (its pid is the process group id), but
# kills that group only when the server outlives its grace period: a server that exits on
# its own leaves its children running. Every server `connect` starts is recorded here, and
# its whole group and session are killed when the connection ends.
started_servers: ContextVar[list[int] | None] = ContextVar(
    "course_lib_started_servers", default=None
)


_RECORDING: list[Any] = []  # the wrapper below, once installed


def record_started_servers() -> None:
    spawn = getattr(sdk_stdio, "_create_platform_compatible_process", None)
    if spawn is None or spawn in _RECORDING:
        return

    async def recording_spawn(*args: Any, **kwargs: Any) -> Any:
        process = await spawn(*args, **kwargs)
        started = started_servers.get()
        if started is not None:
            started.append(process.pid)
        return process

    _RECORDING.append(recording_spawn)
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
