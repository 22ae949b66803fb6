"""A short, private folder for each learner's kernel sockets.

With ``--KernelManager.transport=ipc`` every kernel channel is a Unix socket file in Jupyter's
runtime folder, by default inside the learner's home
(``HOMES/learner-01/.local/share/jupyter/runtime/kernel-<uuid>-ipc-4``), and a socket path may
not exceed 107 bytes: homes a few folders deep make every kernel fail with "File name too long".
So the sockets go to ``$TMPDIR/mcp-hub-<uid>/<learner>`` instead, in a folder only this user
can enter.

Introduced in: docs/hub.md
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

__all__ = ["SOCKET_PATH_LIMIT", "kernel_runtime_dir"]

SOCKET_PATH_LIMIT = 107  # sizeof(sockaddr_un.sun_path) - 1 on Linux


def kernel_runtime_dir(learner: str, base: Path | None = None) -> str:
    """The runtime folder for `learner`'s kernels (its parent created private on first use).

    Raises:
        RuntimeError: the parent exists but is not a folder owned by this user and private to it
            (someone else made it first: a socket there could be hijacked).
    """
    root = Path(base or tempfile.gettempdir()) / f"mcp-hub-{os.getuid()}"
    try:
        root.mkdir(mode=0o700)
    except FileExistsError:
        pass
    info = os.lstat(root)
    if (
        not stat.S_ISDIR(info.st_mode)
        or info.st_uid != os.getuid()
        or stat.S_IMODE(info.st_mode) & 0o077
    ):
        raise RuntimeError(
            f"{root} is not a private folder of this user: remove it (or set TMPDIR elsewhere) "
            "and start the hub again"
        )
    return str(root / learner)
