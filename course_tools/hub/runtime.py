"""Per-hub folders and limits on one machine: kernel sockets, matplotlib's cache, open files.

Kernel sockets: a short, private folder for each learner's.

With ``--KernelManager.transport=ipc`` every kernel channel is a Unix socket file in Jupyter's
runtime folder, by default inside the learner's home
(``HOMES/learner-01/.local/share/jupyter/runtime/kernel-<uuid>-ipc-4``), and a socket path may
not exceed 107 bytes: homes a few folders deep make every kernel fail with "File name too long".
So the sockets go to ``$TMPDIR/mcp-hub-<uid>/<hub>/<learner>`` instead, in a folder only this
user can enter; ``<hub>`` is short for the hub's folder, so two hubs of one user (a class and a
benchmark) keep apart, and `hub_runtime_dir` is what to delete once a hub has stopped.

matplotlib's font cache: built at a learner's first plot, in their home, unless
``MPLCONFIGDIR`` points elsewhere: 30 learners building it at the same time each pay for a
scan of the machine's fonts. `build_font_cache` builds it once in the hub folder
(`matplotlib_dir`), which the config gives every learner.

Open files: the proxy relays every browser connection of every learner; 60 learners can pass
a soft limit of 1024. `raise_open_files_limit` raises the hub's (the proxy inherits it).

Introduced in: docs/hub.md
"""

from __future__ import annotations

import hashlib
import os
import resource
import stat
import subprocess
import tempfile
from pathlib import Path

__all__ = [
    "OPEN_FILES",
    "SOCKET_PATH_LIMIT",
    "build_font_cache",
    "hub_runtime_dir",
    "kernel_runtime_dir",
    "matplotlib_dir",
    "raise_open_files_limit",
]

OPEN_FILES = 65536  # the open-file limit the hub asks for (if the hard limit allows)

SOCKET_PATH_LIMIT = 107  # sizeof(sockaddr_un.sun_path) - 1 on Linux


def hub_runtime_dir(hub_dir: Path | str, base: Path | None = None) -> Path:
    """The folder holding the kernel runtime folders of the hub kept in `hub_dir`."""
    digest = hashlib.sha256(str(Path(hub_dir).resolve()).encode()).hexdigest()[:8]
    return _private_root(base) / digest


def kernel_runtime_dir(learner: str, hub_dir: Path | str, base: Path | None = None) -> str:
    """The runtime folder for `learner`'s kernels under the hub kept in `hub_dir`.

    The parent, private to this user, is created on first use.

    Raises:
        RuntimeError: the parent exists but is not a folder owned by this user and private to it
            (someone else made it first: a socket there could be hijacked).
    """
    return str(hub_runtime_dir(hub_dir, base) / learner)


def _private_root(base: Path | None) -> Path:
    """``$TMPDIR/mcp-hub-<uid>``, created private; refused if someone else made it."""
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
    return root


def matplotlib_dir(hub_dir: Path | str) -> Path:
    """matplotlib's config and cache folder for every learner of the hub kept in `hub_dir`."""
    return Path(hub_dir) / "matplotlib"


def build_font_cache(hub_dir: Path, python: Path) -> str:
    """Build matplotlib's font cache in `matplotlib_dir(hub_dir)` with `python`; "" or why not."""
    folder = matplotlib_dir(hub_dir)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        done = subprocess.run(
            [str(python), "-c", "import matplotlib.font_manager"],
            env={**os.environ, "MPLCONFIGDIR": str(folder)},
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return str(error)
    if done.returncode == 0:
        return ""
    return (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]


def raise_open_files_limit(wanted: int = OPEN_FILES) -> int:
    """Raise this process's soft open-file limit to `wanted` (or the hard limit); the new one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        return target
    return soft
