"""Exercise notebooks copied out of learners' homes into the grader's layout.

``HOMES/<learner>/exercises/NN_name.ipynb`` -> ``OUT/<learner>/NN_name.ipynb``, exactly the
course's exercise names and nothing else. The homes are attacker-controlled (a learner's kernel
can write anything there), so: no symbolic link is followed, at any depth; only regular files
with one name (no hard link) owned by the home's owner are read (a FIFO or a device is never
opened for reading); sizes are bounded; names reach the terminal only through `printable()`.
Everything not collected is reported with the reason.

Introduced in: docs/hub.md
"""

from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from course_lib.safe_text import printable

__all__ = ["Collected", "CollectLimits", "Skipped", "collect"]

_LEARNER = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")


@dataclass(frozen=True)
class CollectLimits:
    max_bytes: int = 5_000_000  # per notebook; the course's largest exercise is ~60 kB
    max_entries: int = 2_000  # entries listed in one folder before giving up on it
    max_learners: int = 1_000


@dataclass(frozen=True)
class Skipped:
    """Something not collected: where (relative to HOMES) and why, both already printable."""

    where: str
    why: str

    def __str__(self) -> str:
        return f"skipped {self.where}: {self.why}"


@dataclass
class Collected:
    """What `collect` did: notebooks copied per learner, and everything it skipped."""

    notebooks: dict[str, list[str]] = field(default_factory=dict)
    skipped: list[Skipped] = field(default_factory=list)

    @property
    def count(self) -> int:
        return sum(len(found) for found in self.notebooks.values())


class _Refused(Exception):
    """A path that is not collected, with the reason."""


def _open_dir(name: str, dir_fd: int | None) -> int:
    try:
        return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dir_fd)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR):
            kind = "a symbolic link" if _is_link(name, dir_fd) else "not a folder"
            raise _Refused(f"{kind}, not followed") from None
        if error.errno == errno.ENOENT:
            raise _Refused("missing") from None
        raise _Refused(f"cannot be opened ({error.strerror})") from None


def _is_link(name: str, dir_fd: int | None) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _check(info: os.stat_result, owner: int, limits: CollectLimits) -> None:
    """Refuse anything but a regular file of the home's owner with one name, within the limit.

    A hard link (more than one name) is the same file as another one, which the learner's
    kernel could read but that is not theirs: a canary outside the homes, another learner's
    notebook. A file of another user is not this learner's work either.
    """
    if stat.S_ISLNK(info.st_mode):
        raise _Refused("a symbolic link, not followed")
    if not stat.S_ISREG(info.st_mode):
        raise _Refused("not a regular file")
    if info.st_nlink != 1:
        raise _Refused(
            f"a hard link (the file has {info.st_nlink} names, so it may be another file's): "
            "not collected; ask the learner to save a copy of their notebook under this name"
        )
    if info.st_uid != owner:
        raise _Refused(f"owned by another user than the home's (uid {info.st_uid}), not collected")
    if info.st_size > limits.max_bytes:
        raise _Refused(
            f"{info.st_size} bytes, over the {limits.max_bytes}-byte limit for a notebook"
        )


def _read_notebook(name: str, dir_fd: int, owner: int, limits: CollectLimits) -> bytes:
    """The bytes of file `name` in `dir_fd` if `_check` accepts it (before and once open)."""
    try:
        _check(os.stat(name, dir_fd=dir_fd, follow_symlinks=False), owner, limits)
    except FileNotFoundError:
        raise _Refused("not handed in (no such file)") from None
    # O_NONBLOCK: if the file was swapped for a FIFO since the stat, opening it does not hang.
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
    except OSError as error:
        raise _Refused(f"cannot be opened ({error.strerror})") from None
    with os.fdopen(fd, "rb") as handle:
        _check(os.fstat(handle.fileno()), owner, limits)  # the file opened is the one checked
        data = handle.read(limits.max_bytes + 1)
    if len(data) > limits.max_bytes:
        raise _Refused(f"over the {limits.max_bytes}-byte limit for a notebook")
    return data


def _write(path: Path, data: bytes) -> None:
    """Write a collected notebook; an earlier, different copy is kept as NAME.~N~ (never lost)."""
    try:
        earlier = path.read_bytes()
    except FileNotFoundError:
        earlier = None
    if earlier == data:
        return
    if earlier is not None:
        number = 1
        while path.with_name(f"{path.name}.~{number}~").exists():
            number += 1
        os.replace(path, path.with_name(f"{path.name}.~{number}~"))
    temporary = path.with_name(f".{path.name}.part")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def _listing(dir_fd: int, limits: CollectLimits) -> list[str]:
    names = []
    with os.scandir(dir_fd) as entries:
        for entry in entries:
            names.append(entry.name)
            if len(names) > limits.max_entries:
                break
    return sorted(names)


def _collect_learner(
    home_fd: int,
    learner: str,
    parts: tuple[str, ...],
    exercises: list[str],
    out: Path,
    limits: CollectLimits,
    report: Collected,
) -> None:
    where = printable(learner)
    target = out / learner
    target.mkdir(
        parents=True, exist_ok=True
    )  # the grader gives every learner a row, even with nothing handed in
    fds: list[int] = []
    owner = os.fstat(home_fd).st_uid  # the learner: whoever owns the home
    try:
        fd = home_fd
        for part in parts:
            where = f"{where}/{printable(part, limit=80)}"
            fd = _open_dir(part, fd)
            fds.append(fd)
        wanted = {f"{exercise}.ipynb" for exercise in exercises}
        present = _listing(fd, limits)
        if len(present) > limits.max_entries:
            report.skipped.append(
                Skipped(
                    where,
                    f"more than {limits.max_entries} entries; only the exercise names were "
                    "looked up",
                )
            )
        else:
            for name in present:
                if name not in wanted and name.endswith(".ipynb"):
                    report.skipped.append(
                        Skipped(
                            f"{where}/{printable(name, limit=120)}",
                            "not an exercise's name (rename it to hand it in)",
                        )
                    )
        for exercise in exercises:
            name = f"{exercise}.ipynb"
            try:
                data = _read_notebook(name, fd, owner, limits)
            except _Refused as why:
                report.skipped.append(Skipped(f"{where}/{name}", str(why)))
                continue
            _write(target / name, data)
            report.notebooks.setdefault(learner, []).append(name)
    except _Refused as why:
        report.skipped.append(Skipped(where, str(why)))
    finally:
        for opened in fds:
            os.close(opened)


def collect(
    homes: Path,
    out: Path,
    exercises: list[str],
    *,
    folder: str = "exercises",
    limits: CollectLimits = CollectLimits(),
) -> Collected:
    """Copy each learner's exercise notebooks from `homes` into `out`; report what was skipped.

    `folder` is where the exercises sit inside a home (``exercises``, or e.g.
    ``mcp-course/exercises`` after an nbgitpuller link).

    Raises:
        ValueError: `homes` is not a folder, or `folder` leaves the home.
    """
    relative = PurePosixPath(folder)
    if (
        relative.is_absolute()
        or not relative.parts
        or any(p in ("..", ".") for p in relative.parts)
    ):
        raise ValueError(
            f"--exercises-dir {printable(folder)!r} must be a path inside each home, like exercises"
        )
    try:
        homes_fd = os.open(homes, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        raise ValueError(
            f"{printable(str(homes))} is not a folder: give the folder that holds the learners' "
            "homes"
        ) from None
    report = Collected()
    try:
        names = _listing(homes_fd, limits)
        for count, learner in enumerate(names):
            shown = printable(learner, limit=80)
            if count >= limits.max_learners:
                report.skipped.append(
                    Skipped(shown, f"more than {limits.max_learners} homes; the rest were not read")
                )
                break
            if learner.startswith("."):
                continue
            if not _LEARNER.fullmatch(learner):
                report.skipped.append(
                    Skipped(shown, "not a learner's name (letters, digits, '.', '_', '@', '-')")
                )
                continue
            try:
                home_fd = _open_dir(learner, homes_fd)
            except _Refused as why:
                report.skipped.append(Skipped(shown, str(why)))
                continue
            try:
                _collect_learner(
                    home_fd, learner, relative.parts, exercises, Path(out), limits, report
                )
            finally:
                os.close(home_fd)
    finally:
        os.close(homes_fd)
    return report
