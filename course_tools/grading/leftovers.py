"""What a grader leaves on this machine while it runs, and removing what a killed one left.

Each kernel has a private folder in TMPDIR (``course-grade-XXXXXXXX``, holding an ``owner`` file)
and, where there is one, a cgroup (``course-grade-<owner>-XXXXXXXX``). The owner is the grader's
process id and start time, so a grader killed with SIGKILL, which cannot clean up, is told
apart from one still running (a reused process id has another start time). The next grader to
start removes what dead ones left: only folders of this user, with exactly these names.

Introduced in: docs/instructor.md
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
import time

__all__ = ["PREFIX", "clean_stale_folders", "new_private_folder", "owner_alive", "owner_tag"]

PREFIX = "course-grade-"
_FOLDER = re.compile(re.escape(PREFIX) + r"[A-Za-z0-9_]{8}")
_OWNER = "owner"
_ORPHAN_SECONDS = 24 * 3600  # a folder without an owner file (an older grader's) this old


def owner_tag() -> str:
    """This process as named in what it makes: ``<pid>.<start time>``."""
    return f"{os.getpid()}.{_start_time(os.getpid())}"


def owner_alive(tag: str) -> bool:
    """Whether the process `owner_tag` named is still running (a reused pid does not count)."""
    pid, _, start = tag.partition(".")
    if not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # another user's process: alive
    return _start_time(int(pid)) == start


def _start_time(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[19].decode()
    except (OSError, IndexError):
        return "0"  # no /proc (macOS): the pid alone tells


def new_private_folder() -> str:
    """A new private folder in TMPDIR for one kernel, marked as this grader's."""
    folder = tempfile.mkdtemp(prefix=PREFIX)
    fd = os.open(os.path.join(folder, _OWNER), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(owner_tag())
    return folder


def _owner(folder: str) -> str | None:
    """The tag in `folder`'s owner file, "" when it has none, None when it cannot be read."""
    try:
        fd = os.open(os.path.join(folder, _OWNER), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return ""
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, 64).decode("ascii", "replace").strip()
    finally:
        os.close(fd)


def clean_stale_folders(base: str | None = None) -> list[str]:
    """Remove the kernel folders in `base` (TMPDIR) that graders no longer running left.

    Only folders of this user, named exactly as `new_private_folder` names them, are touched;
    links are never followed. Returns the folders removed.
    """
    base = base or tempfile.gettempdir()
    removed: list[str] = []
    try:
        names = os.listdir(base)
    except OSError:
        return removed
    for name in names:
        if not _FOLDER.fullmatch(name):
            continue
        path = os.path.join(base, name)
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
            continue
        owner = _owner(path)
        if owner is None or (owner and owner_alive(owner)):
            continue
        if not owner and time.time() - info.st_mtime < _ORPHAN_SECONDS:
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed
