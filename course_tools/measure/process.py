"""Run a client CLI contained: its own session, a time limit, bounded output, nothing left behind.

A measured CLI is a third-party program, so it is treated as hostile:

* it starts in a session and process group of its own (``start_new_session``), with no
  standard input;
* this process is its child subreaper while it runs (``prctl(PR_SET_CHILD_SUBREAPER)``,
  `course_lib.server_process.orphans_killed`): a grandchild that detaches (fork, ``setsid``,
  fork) is re-parented here, not to init;
* when it exits, or at the time limit, its whole group and session are killed, then every
  orphan it left (a detached daemon such as Cline's hub) is killed and reaped;
* its standard output and error are drained on threads that keep only the last
  `OUTPUT_TAIL_BYTES` of each, so a CLI printing gigabytes costs a few hundred kilobytes.

Introduced in: docs/measure.md (how the measurement contains a CLI).
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from course_lib.server_process import kill_server_group, orphans_killed

__all__ = ["COMMAND_PREFIX", "OUTPUT_TAIL_BYTES", "Finished", "OutputTail", "run_contained"]

OUTPUT_TAIL_BYTES = 262_144
"""What is kept of each of a CLI's output streams: its last bytes, never the whole stream."""


COMMAND_PREFIX: ContextVar[tuple[str, ...]] = ContextVar("measure_command_prefix", default=())
"""A command every contained run is started under (``strace ...`` when tracing connections)."""


class OutputTail:
    """A thread draining one stream, keeping its last `limit` bytes and counting the rest."""

    def __init__(self, stream: IO[bytes], limit: int = OUTPUT_TAIL_BYTES) -> None:
        self.limit = limit
        self.total = 0
        self._data = bytearray()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, args=(stream,), daemon=True)
        self._thread.start()

    def _drain(self, stream: IO[bytes]) -> None:
        with stream:
            while chunk := stream.read(65_536):
                with self._lock:
                    self.total += len(chunk)
                    self._data += chunk
                    if len(self._data) > 2 * self.limit:
                        del self._data[: -self.limit]

    def text(self, wait: float = 5.0) -> str:
        """The kept bytes as text (after waiting up to `wait` s for the stream to end)."""
        self._thread.join(wait)
        with self._lock:
            return bytes(self._data[-self.limit :]).decode("utf-8", errors="replace")


@dataclass(frozen=True)
class Finished:
    """How one contained run of a CLI ended."""

    returncode: int | None  # None: killed at the time limit
    stdout: str  # the last OUTPUT_TAIL_BYTES of standard output
    stderr: str  # the last OUTPUT_TAIL_BYTES of standard error
    seconds: float
    output_bytes: int  # everything it wrote to both streams, kept or not

    @property
    def timed_out(self) -> bool:
        return self.returncode is None

    def tail(self, characters: int = 1500) -> str:
        """The end of its error and output streams, for a message."""
        return f"{self.stderr[-characters:]}{self.stdout[-characters:]}"


def run_contained(
    args: Sequence[str],
    *,
    cwd: Path,
    env: dict[str, str],
    timeout: float,
) -> Finished:
    """Run `args` once, contained (see the module docstring), and return how it ended.

    Raises:
        OSError: the program could not be started.
    """
    started = time.monotonic()
    with orphans_killed():
        process = subprocess.Popen(
            [*COMMAND_PREFIX.get(), *args],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        assert process.stdout is not None and process.stderr is not None
        out, err = OutputTail(process.stdout), OutputTail(process.stderr)
        returncode: int | None
        try:
            returncode = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            returncode = None
        finally:
            kill_server_group(process.pid)
            if process.poll() is None:
                process.kill()
            process.wait()
    seconds = time.monotonic() - started
    return Finished(returncode, out.text(), err.text(), seconds, out.total + err.total)
