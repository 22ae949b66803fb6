"""A bound on a graded kernel as a whole: its memory and its number of processes, in a cgroup.

Resource limits (`setrlimit`) bound each process; a kernel that starts children escapes them
(six children of 1 GiB each, 256 processes per child). A cgroup bounds the kernel and
everything it starts together: ``memory.max``/``memory.limit_in_bytes`` (swap included) and
``pids.max``. Each kernel gets its own group, entered before bubblewrap starts (`KernelGroup.wrap`),
so no process of the kernel ever runs outside it; the group is emptied and removed when the
kernel ends, and a grader killed with SIGKILL leaves groups that the next one removes.

Where the groups come from, first that works:

* cgroup v2, delegated: the grader's own cgroup already hands the ``memory`` and ``pids``
  controllers to its children (a container or a systemd unit with ``Delegate=yes``);
* cgroup v2 through systemd: a transient scope per kernel (``systemd-run --scope``, with
  ``--user`` for a normal user with a systemd session);
* cgroup v1: the ``memory`` and ``pids`` hierarchies, where the grader can make a group below its
  own in each (as root, usually).

Elsewhere (a normal user without a delegated cgroup, macOS) `find` says why, and each process
keeps only its own limits.

Introduced in: docs/instructor.md
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .leftovers import PREFIX, owner_alive, owner_tag

__all__ = ["CgroupRoot", "KernelGroup", "find"]

_MOUNTINFO = "/proc/self/mountinfo"
_CGROUP = "/proc/self/cgroup"
V1, V2, SYSTEMD = "cgroup v1", "cgroup v2", "cgroup v2 (systemd scope)"
# Enters every group named before "--", then runs the rest: the kernel starts inside them.
_ENTER = (
    'for f do [ "$f" = -- ] && break; echo $$ > "$f" || exit 125; shift; done; shift; exec "$@"'
)


def _write(path: Path, value: str) -> None:
    with open(path, "w") as handle:
        handle.write(value)


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


@dataclass(frozen=True)
class KernelGroup:
    """One kernel's group: a folder per hierarchy (or, for systemd, the scope's properties)."""

    kind: str
    folders: tuple[Path, ...] = ()
    systemd: tuple[str, ...] = ()

    def wrap(self, argv: list[str]) -> list[str]:
        """`argv`, started inside this group (before its first instruction)."""
        if self.systemd:
            return [*self.systemd, "--", *argv]
        procs = [str(folder / "cgroup.procs") for folder in self.folders]
        return ["/bin/sh", "-c", _ENTER, "course-grade-enter", *procs, "--", *argv]

    def out_of_memory(self) -> bool:
        """Whether the memory bound stopped a process of the kernel."""
        for folder in self.folders:
            for name in ("memory.events", "memory.oom_control"):
                match = re.search(r"^oom_kill (\d+)", _read(folder / name), re.MULTILINE)
                if match and int(match.group(1)) > 0:
                    return True
        return False

    def pids(self) -> set[int]:
        return {
            int(p) for f in self.folders for p in _read(f / "cgroup.procs").split() if p.isdigit()
        }

    def kill(self) -> None:
        """Stop every process still in the group."""
        for folder in self.folders:
            if (folder / "cgroup.kill").exists():
                try:
                    _write(folder / "cgroup.kill", "1")
                except OSError:
                    pass
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass

    def remove(self) -> bool:
        """Remove the group's folders; False while a process is still leaving them."""
        gone = True
        for folder in self.folders:
            try:
                folder.rmdir()
            except FileNotFoundError:
                pass
            except OSError:
                gone = False
        return gone


@dataclass(frozen=True)
class CgroupRoot:
    """Where kernels' groups are made: a parent folder per hierarchy, or systemd."""

    kind: str
    parents: tuple[Path, ...] = ()
    user: bool = False  # systemd: the user's manager

    def create(self, name: str, memory_bytes: int, processes: int) -> KernelGroup:
        """A new group `name` bounded to `memory_bytes` (swap included) and `processes`.

        Raises:
            OSError: the group cannot be made or bounded (it is removed again).
        """
        if self.kind == SYSTEMD:
            argv = ["systemd-run", *(["--user"] if self.user else []), "--scope", "--quiet"]
            argv += ["--collect", "--unit", name.replace(".", "_")]  # "." starts a unit's type
            for prop in (f"MemoryMax={memory_bytes}", "MemorySwapMax=0", f"TasksMax={processes}"):
                argv += ["-p", prop]
            return KernelGroup(self.kind, systemd=tuple(argv))
        group = KernelGroup(self.kind, tuple(parent / name for parent in self.parents))
        try:
            for folder in group.folders:
                folder.mkdir()
            self._bound(group.folders, memory_bytes, processes)
        except OSError:
            group.remove()
            raise
        return group

    def _bound(self, folders: tuple[Path, ...], memory_bytes: int, processes: int) -> None:
        """Write the bounds into whichever of `folders` has each file (v1: one per hierarchy)."""
        memory = (
            ("memory.max", "memory.swap.max")
            if self.kind == V2
            else (
                "memory.limit_in_bytes",
                "memory.memsw.limit_in_bytes",  # only where swap is accounted
            )
        )
        bounds = [
            (memory[0], memory_bytes, True),
            (memory[1], 0 if self.kind == V2 else memory_bytes, False),
        ]
        bounds.append(("pids.max", processes, True))
        for name, value, required in bounds:
            where = [folder / name for folder in folders if (folder / name).exists()]
            if required and not where:
                raise OSError(f"the cgroup has no {name}")
            for path in where:
                _write(path, str(value))

    def clean_stale(self) -> None:
        """Remove the groups of graders no longer running, stopping what is left in them."""
        for parent in self.parents:
            try:
                entries = list(parent.iterdir())
            except OSError:
                continue
            for folder in entries:
                tag = folder.name[len(PREFIX) :].split("-", 1)[0]
                if not folder.name.startswith(PREFIX) or owner_alive(tag):
                    continue
                group = KernelGroup(self.kind, (folder,))
                group.kill()
                group.remove()


def _mounts() -> list[tuple[str, str, str, set[str]]]:
    """(mount point, root in the hierarchy, file system type, super options) per cgroup."""
    found = []
    for line in _read(Path(_MOUNTINFO)).splitlines():
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) >= 5 and len(tail) >= 3 and tail[0] in ("cgroup", "cgroup2"):
            point = fields[4].replace("\\040", " ")
            found.append((point, fields[3], tail[0], set(tail[2].split(","))))
    return found


def _own_paths() -> dict[str, str]:
    """The grader's cgroup per v1 controller (and "" for v2), from /proc/self/cgroup."""
    paths = {}
    for line in _read(Path(_CGROUP)).splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            paths[controller] = path
    return paths


def _inside(point: str, root: str, path: str) -> Path | None:
    if root != "/" and not (path == root or path.startswith(root.rstrip("/") + "/")):
        return None
    relative = path[len(root) :] if root != "/" else path
    return Path(point) / relative.lstrip("/")


def _can_make_children(parents: Iterable[Path], kind: str) -> str:
    """ "" when a test group can be made (and bounded) below every parent, else why not."""
    root = CgroupRoot(kind, tuple(parents))
    name = f"{PREFIX}{owner_tag()}-probe"
    try:
        root.create(name, 1024**3, 64).remove()
    except OSError as exc:
        where = os.path.dirname(exc.filename) if exc.filename else root.parents[0]
        return f"cannot make a cgroup in {where}: {exc.strerror or exc}"
    return ""


def _v2(point: str, root: str, own: str) -> tuple[CgroupRoot | None, str]:
    folder = _inside(point, root, own)
    if folder is None:
        return None, "the grader's cgroup v2 is not visible"
    delegated = set(_read(folder / "cgroup.subtree_control").split())
    if {"memory", "pids"} <= delegated:
        problem = _can_make_children([folder], V2)
        if not problem:
            return CgroupRoot(V2, (folder,)), ""
    return _systemd()


def _systemd() -> tuple[CgroupRoot | None, str]:
    if shutil.which("systemd-run") is None or not os.path.isdir("/run/systemd/system"):
        return None, "cgroup v2 without a delegated cgroup or systemd to make one"
    user = os.geteuid() != 0
    root = CgroupRoot(SYSTEMD, user=user)
    argv = root.create(f"{PREFIX}{owner_tag()}-probe", 1024**3, 64).wrap(["/bin/true"])
    try:
        done = subprocess.run(argv, capture_output=True, timeout=20, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None, "systemd-run cannot make a scope here"
    if done.returncode != 0:
        return None, "systemd-run cannot make a scope here"
    return root, ""


def _v1(
    mounts: list[tuple[str, str, str, set[str]]], own: dict[str, str]
) -> tuple[CgroupRoot | None, str]:
    parents = []
    for controller in ("memory", "pids"):
        mount = next((m for m in mounts if m[2] == "cgroup" and controller in m[3]), None)
        if mount is None or controller not in own:
            return None, f"no cgroup {controller} controller is mounted"
        folder = _inside(mount[0], mount[1], own[controller])
        if folder is None:
            return None, f"the grader's {controller} cgroup is not visible"
        parents.append(folder)
    problem = _can_make_children(parents, V1)
    return (None, problem) if problem else (CgroupRoot(V1, tuple(parents)), "")


def find() -> tuple[CgroupRoot | None, str]:
    """Where kernels' groups can be made here, or None and why not."""
    mounts = _mounts()
    if not mounts:
        return None, "no cgroup file system is mounted"
    own = _own_paths()
    unified = next((m for m in mounts if m[2] == "cgroup2"), None)
    v1_memory = any(m[2] == "cgroup" and "memory" in m[3] for m in mounts)
    if unified is not None and not v1_memory:  # cgroup v2 only: the controllers are there
        return _v2(unified[0], unified[1], own.get("", "/"))
    return _v1(mounts, own)
