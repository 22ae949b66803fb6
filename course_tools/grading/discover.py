"""Find the submissions: one folder per student, or a flat folder of ``<student>_<exercise>.ipynb``.

Layouts (both may be mixed in one folder):

* ``SUBMISSIONS/<student>/<exercise>.ipynb`` (notebooks may sit in subfolders);
* ``SUBMISSIONS/<student>_<exercise>.ipynb``, e.g. ``alice_01_annotate_tools.ipynb``.

A notebook belongs to an exercise when its name is the exercise's id (``01_annotate_tools``)
or starts with the exercise's two-digit number (``01_annotate_tools-Copy1``, ``01 mine``).
Nothing found is ever dropped silently: unmatched notebooks and duplicates (with their paths)
are listed in the student's notes, a student folder without notebooks still gets a gradebook
row, and anything else at the top (a hidden folder without notebooks, a stray file) is listed
in the class notes the grader prints.

A folder that is not in this layout, such as learners' home folders holding the lessons
(``01_fields.ipynb`` starts with ``01`` like an exercise) or one learner's home (notebooks/
and exercises/ next to tools' dot-folders), is refused with an explanation instead of being
guessed at.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..handin import MANIFEST
from .cases import Exercise

__all__ = ["Submission", "discover"]

_SKIP_DIRS = {".ipynb_checkpoints", "__pycache__", ".git"}
_FLAT = re.compile(r"^(?P<student>.+?)[_\-. ](?P<exercise>\d\d(?:[_\-. ].*)?)$")
# The course's lessons (notebooks/): their names start with two digits like the exercises'.
LESSONS = frozenset(
    {
        "00_start_here",
        "01_fields",
        "02_defaults",
        "03_combinations",
        "04_lethal_trifecta",
        "05_lying_server",
        "06_beyond_hints",
    }
)
_HOME_MARKERS = ("notebooks", "exercises")  # what a learner's home folder on the hub holds


@dataclass
class Submission:
    """One student's notebooks, by exercise id, and what the grader noticed about them."""

    student: str
    notebooks: dict[str, Path] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    candidates: dict[str, list[Path]] = field(default_factory=dict)


def _visible(path: Path, root: Path) -> bool:
    return not any(
        part.startswith(".") or part in _SKIP_DIRS for part in path.relative_to(root).parts
    )


def _exercise_for(stem: str, exercises: dict[str, Exercise]) -> str | None:
    if stem in exercises:
        return stem
    match = re.match(r"^(\d\d)(?!\d)", stem.strip())
    if match:
        for exercise in exercises.values():
            if exercise.number == match.group(1):
                return exercise.id
    return None


def _is_lesson(stem: str) -> bool:
    return any(
        stem == lesson or stem.startswith(lesson + "-") or stem.startswith(lesson + " ")
        for lesson in LESSONS
    )


def _add(
    sub: Submission, path: Path, stem: str, exercises: dict[str, Exercise], base: Path
) -> None:
    shown = _shown(path, base)
    if _is_lesson(stem) and stem not in exercises:
        sub.notes.append(f"ignored {shown}: a lesson, not an exercise")
        return
    exercise = _exercise_for(stem, exercises)
    if exercise is None:
        sub.notes.append(f"ignored {shown}: not one of the exercises ({', '.join(exercises)})")
        return
    sub.candidates.setdefault(exercise, []).append(path)


def _shown(path: Path, base: Path) -> str:
    """A path as the notes show it: relative to the student's folder (or the submissions folder)."""
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return path.name


def _settle(sub: Submission, base: Path) -> None:
    for exercise, paths in sorted(sub.candidates.items()):
        exact = [p for p in paths if p.stem == exercise or p.stem.endswith("_" + exercise)]
        chosen = sorted(exact or paths)[0]
        sub.notebooks[exercise] = chosen
        others = [_shown(p, base) for p in sorted(paths) if p != chosen]
        if others:
            sub.notes.append(
                f"{len(paths)} notebooks for {exercise}: graded {_shown(chosen, base)}, "
                f"ignored {', '.join(others)}"
            )
        elif chosen.stem != exercise and not chosen.stem.endswith("_" + exercise):
            sub.notes.append(f"graded {_shown(chosen, base)} as {exercise}")


def _looks_like_homes(root: Path) -> list[str]:
    """The top-level folders that look like learners' home folders (lessons, exercises inside)."""
    homes = []
    for entry in sorted(root.iterdir()):
        if not entry.is_dir() or entry.is_symlink() or entry.name.startswith("."):
            continue
        inside = {p.name for p in entry.iterdir()} if os.access(entry, os.R_OK | os.X_OK) else set()
        lessons = any(_is_lesson(p.stem) for p in entry.glob("*.ipynb")) or any(
            _is_lesson(p.stem) for p in entry.glob("notebooks/*.ipynb")
        )
        if lessons or all(marker in inside for marker in _HOME_MARKERS):
            homes.append(entry.name)
    return homes


def _refuse_homes(root: Path, folders: list[str]) -> None:
    listed = ", ".join(folders[:3]) + (", ..." if len(folders) > 3 else "")
    raise ValueError(
        f"{root} does not look like a folder of submissions: {len(folders)} of its folders "
        f"({listed}) hold the "
        "course's lessons (notebooks/, 01_fields.ipynb...), as learners' home folders do. "
        "The grader does not guess "
        "which notebooks were handed in. Copy each learner's exercise notebooks into "
        "submissions/<learner>/ "
        "(on the course's JupyterHub: "
        "`python -m course_tools hub collect HOMES --out submissions/`), "
        "then grade "
        "submissions/."
    )


def _refuse_one_home(root: Path) -> None:
    raise ValueError(
        f"{root} looks like one learner's home folder (it holds notebooks/ and exercises/), "
        "not a folder of submissions. The grader expects one folder per learner, "
        "SUBMISSIONS/<student>/<exercise>.ipynb (or SUBMISSIONS/<student>_<exercise>.ipynb), "
        "and does not guess which notebooks were handed in. Copy this learner's exercise "
        "notebooks into submissions/<learner>/ (on the course's JupyterHub, for every learner: "
        "`python -m course_tools hub collect HOMES --out submissions/`), then grade submissions/."
    )


def _listing(entry: Path) -> tuple[list[Path], list[OSError]]:
    """Every folder and file under `entry`, sorted, in one walk (links are listed, not followed
    into), and the folders the grader may not list."""
    refused: list[OSError] = []
    names = [
        Path(where, name)
        for where, folders, files in os.walk(entry, onerror=refused.append)
        for name in folders + files
    ]
    return sorted(names), refused


def _unreadable_note(entry: Path, error: OSError) -> str | None:
    """The note for a folder under `entry` (or `entry` itself) the grader may not list."""
    folder = Path(error.filename or entry)
    if folder != entry and not _visible(folder, entry):
        return None
    shown = entry.name + "/" if folder == entry else folder.relative_to(entry).as_posix() + "/"
    return (
        f"could not read {shown} ({error.strerror or error}): the notebooks in it were not "
        "graded. Make it readable by the user who grades (or grade as a user who can read it), "
        "then grade again"
    )


def _add_folder(
    entry: Path,
    students: dict[str, Submission],
    exercises: dict[str, Exercise],
    class_notes: list[str],
) -> None:
    """A student's folder: its notebooks (in subfolders too), and what the grader noticed."""
    names, refused = _listing(entry)
    visible = [p for p in names if _visible(p, entry)]
    notebooks = [p for p in visible if p.name.endswith(".ipynb")]
    if entry.name.startswith(".") and not notebooks:
        class_notes.append(f"skipped {entry.name}/: a hidden folder without notebooks")
        return
    sub = students.setdefault(entry.name, Submission(entry.name))
    if entry.name.startswith("."):
        sub.notes.append("a hidden folder (its name starts with '.'), graded like any other")
    sub.notes.extend(note for error in refused if (note := _unreadable_note(entry, error)))
    for path in notebooks:
        _add(sub, path, path.stem, exercises, entry)
    own = [str(p.relative_to(entry)) for p in visible if p.name in {"course_lib", "course_lib.py"}]
    if own:
        sub.notes.append(
            f"ignored the student's own {', '.join(own)}: the course's course_lib was used"
        )


def discover(
    root: Path, exercises: dict[str, Exercise], class_notes: list[str] | None = None
) -> list[Submission]:
    """Return every student's submission found under `root`, sorted by student name.

    What is neither a student's folder nor a notebook (a hidden folder without notebooks, a
    stray file) is described in `class_notes`, when given.

    Raises:
        ValueError: `root` is not a folder, or it looks like learners' home folders rather than
            submissions (the message says what to do).
    """
    root = Path(root)
    if not root.is_dir():
        raise ValueError(
            f"{root} is not a folder: give the folder that holds the students' submissions"
        )
    class_notes = class_notes if class_notes is not None else []
    if all((root / marker).is_dir() for marker in _HOME_MARKERS):
        _refuse_one_home(root)
    # Tools' dot-folders (.ipython, .local, .cache...) are not learners: they do not count.
    folders = [e for e in root.iterdir() if e.is_dir() and not e.name.startswith(".")]
    homes = _looks_like_homes(root)
    if homes and len(homes) * 2 >= len(folders):
        _refuse_homes(root, homes)
    students: dict[str, Submission] = {}
    for entry in sorted(root.iterdir()):
        if entry.name in _SKIP_DIRS:
            class_notes.append(f"skipped {entry.name}/: a tool's folder, not a student's")
        elif entry.is_dir():
            _add_folder(entry, students, exercises, class_notes)
        elif entry.suffix == ".ipynb":
            match = _FLAT.match(entry.stem)
            if match and _exercise_for(match.group("exercise"), exercises):
                sub = students.setdefault(
                    match.group("student"), Submission(match.group("student"))
                )
                _add(sub, entry, match.group("exercise"), exercises, root)
            else:
                sub = students.setdefault(entry.stem, Submission(entry.stem))
                _add(sub, entry, entry.stem, exercises, root)
        elif entry.name != MANIFEST:  # hub collect's record of hand-in times (--deadline)
            class_notes.append(f"skipped {entry.name}: not a folder or a notebook")
    for sub in students.values():
        base = root / sub.student if (root / sub.student).is_dir() else root
        _settle(sub, base)
    return sorted(students.values(), key=lambda s: s.student.lower())
