"""What a learner gets: the lessons and the exercises, never the solutions.

The hub seeds each learner's home from a course checkout (`seed_home`), and the learner
distribution for nbgitpuller is exported from the same list (`LEARNER_FOLDERS`).

Introduced in: docs/hub.md
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

__all__ = [
    "LEARNER_FOLDERS",
    "CourseNotFound",
    "course_root",
    "exercise_ids",
    "learner_files",
    "seed_home",
]

LEARNER_FOLDERS = ("notebooks", "exercises")
"""Folders a learner receives, relative to the course root. `solutions/` is never among them."""

FIRST_LESSON = "notebooks/00_start_here.ipynb"


class CourseNotFound(ValueError):
    """No course checkout (a folder with notebooks/ and exercises/) where one was expected."""


def _is_course(folder: Path) -> bool:
    return all((folder / name).is_dir() for name in LEARNER_FOLDERS)


def course_root(given: Path | None = None) -> Path:
    """The course checkout: `given`, $COURSE_ROOT, the checkout this package runs from, or the cwd.

    Raises:
        CourseNotFound: the folder chosen holds no notebooks/ and exercises/.
    """
    if given is None and os.environ.get("COURSE_ROOT"):
        given = Path(os.environ["COURSE_ROOT"])
    if given is not None:
        given = given.resolve()
        if not _is_course(given):
            raise CourseNotFound(
                f"{given} is not a course checkout (it has no notebooks/ and exercises/ folders): "
                "give the folder you cloned or unpacked the course into"
            )
        return given
    for candidate in (Path(__file__).resolve().parents[2], Path.cwd()):
        if _is_course(candidate):
            return candidate
    raise CourseNotFound(
        "cannot find the course's notebooks/ and exercises/: run this from the course folder, "
        "or give it with --course DIR (or the COURSE_ROOT environment variable)"
    )


def learner_files(root: Path) -> list[Path]:
    """Every file a learner receives, relative to `root`, sorted (`LEARNER_FOLDERS`' notebooks)."""
    return sorted(
        path.relative_to(root)
        for folder in LEARNER_FOLDERS
        for path in (root / folder).glob("*.ipynb")
        if path.is_file()
    )


def exercise_ids(root: Path) -> list[str]:
    """The exercises' notebook names without `.ipynb` (``01_annotate_tools``...), sorted."""
    return sorted(path.stem for path in (root / "exercises").glob("*.ipynb") if path.is_file())


def seed_home(root: Path, home: Path) -> list[Path]:
    """Copy the learner files from course `root` into `home`; return what was copied.

    A file the learner already has is left alone (their work is never overwritten), and a
    folder in the home that is a symbolic link is not written through.
    """
    root, home = Path(root), Path(home)
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    copied = []
    for relative in learner_files(root):
        folder = home / relative.parent
        if folder.is_symlink():
            continue
        folder.mkdir(exist_ok=True)
        target = home / relative
        if os.path.lexists(target):
            continue
        shutil.copyfile(root / relative, target)
        copied.append(relative)
    return copied
