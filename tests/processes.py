"""Helpers for tests that check a process is gone: what a test may kill, and how long it waits."""

from __future__ import annotations

import os
import signal
import time

GONE_WITHIN = 60  # seconds: a guard only; the wait ends as soon as the process is gone


def running(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie is dead: it only waits for its parent)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def gone(pid: int) -> bool:
    """Wait until `pid` is gone (at most `GONE_WITHIN` seconds); kill it if it is not, and say so."""
    deadline = time.monotonic() + GONE_WITHIN
    while running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if not running(pid):
        return True
    os.kill(pid, signal.SIGKILL)  # never leave it running, even when the test fails
    return False
