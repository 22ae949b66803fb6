"""Find the submissions: one folder per student, or a flat folder of ``<student>_<exercise>.ipynb``.

Layouts (both may be mixed in one folder):

* ``SUBMISSIONS/<student>/<exercise>.ipynb`` (notebooks may sit in subfolders);
* ``SUBMISSIONS/<student>_<exercise>.ipynb``, e.g. ``alice_01_annotate_tools.ipynb``.

A notebook belongs to an exercise when its name is the exercise's id (``01_annotate_tools``)
or starts with the exercise's two-digit number (``01_annotate_tools-Copy1``, ``01 mine``).
Nothing found is ever dropped silently: unmatched notebooks and duplicates are listed in the
student's notes, and a student folder without notebooks still gets a gradebook row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .cases import Exercise

__all__ = ["Submission", "discover"]

_SKIP_DIRS = {".ipynb_checkpoints", "__pycache__", ".git"}
_FLAT = re.compile(r"^(?P<student>.+?)[_\-. ](?P<exercise>\d\d(?:[_\-. ].*)?)$")


@dataclass
class Submission:
    """One student's notebooks, by exercise id, and what the grader noticed about them."""

    student: str
    notebooks: dict[str, Path] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    candidates: dict[str, list[Path]] = field(default_factory=dict)


def _visible(path: Path, root: Path) -> bool:
    return not any(part.startswith(".") or part in _SKIP_DIRS for part in path.relative_to(root).parts)


def _exercise_for(stem: str, exercises: dict[str, Exercise]) -> str | None:
    if stem in exercises:
        return stem
    match = re.match(r"^(\d\d)(?!\d)", stem.strip())
    if match:
        for exercise in exercises.values():
            if exercise.number == match.group(1):
                return exercise.id
    return None


def _add(sub: Submission, path: Path, stem: str, exercises: dict[str, Exercise]) -> None:
    exercise = _exercise_for(stem, exercises)
    if exercise is None:
        sub.notes.append(f"ignored {path.name}: not one of the exercises ({', '.join(exercises)})")
        return
    sub.candidates.setdefault(exercise, []).append(path)


def _settle(sub: Submission) -> None:
    for exercise, paths in sorted(sub.candidates.items()):
        exact = [p for p in paths if p.stem == exercise or p.stem.endswith("_" + exercise)]
        chosen = sorted(exact or paths)[0]
        sub.notebooks[exercise] = chosen
        others = [p.name for p in sorted(paths) if p != chosen]
        if others:
            sub.notes.append(f"{len(paths)} notebooks for {exercise}: graded {chosen.name}, ignored {', '.join(others)}")
        elif chosen.stem != exercise and not chosen.stem.endswith("_" + exercise):
            sub.notes.append(f"graded {chosen.name} as {exercise}")


def discover(root: Path, exercises: dict[str, Exercise]) -> list[Submission]:
    """Return every student's submission found under `root`, sorted by student name.

    Raises:
        ValueError: `root` is not a folder.
    """
    root = Path(root)
    if not root.is_dir():
        raise ValueError(f"{root} is not a folder: give the folder that holds the students' submissions")
    students: dict[str, Submission] = {}

    def student(name: str) -> Submission:
        return students.setdefault(name, Submission(name))

    for entry in sorted(root.iterdir()):
        if entry.name.startswith(".") or entry.name in _SKIP_DIRS:
            continue
        if entry.is_dir():
            sub = student(entry.name)
            for path in sorted(entry.rglob("*.ipynb")):
                if _visible(path, entry):
                    _add(sub, path, path.stem, exercises)
            own = sorted(
                str(p.relative_to(entry)) for p in entry.rglob("course_lib*") if _visible(p, entry) and p.name in {"course_lib", "course_lib.py"}
            )
            if own:
                sub.notes.append(f"ignored the student's own {', '.join(own)}: the course's course_lib was used")
        elif entry.suffix == ".ipynb":
            match = _FLAT.match(entry.stem)
            if match and _exercise_for(match.group("exercise"), exercises):
                _add(student(match.group("student")), entry, match.group("exercise"), exercises)
            else:
                _add(student(entry.stem), entry, entry.stem, exercises)
    for sub in students.values():
        _settle(sub)
    return sorted(students.values(), key=lambda s: s.student.lower())
