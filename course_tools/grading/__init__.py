"""Instructor grading: run each submission in a fresh kernel, probe hidden cases, judge here.

Modules: `cases` (what a hidden case is, and loading them), `probe` (the cell that reads a
learner's answer as canonical JSON), `submission` (reading a notebook safely), `kernel` (the
sandboxed kernel, one cell at a time), `results` (limits, results, judging), `runner` (one
notebook in one kernel, with time limits), `batch` (a class, a few notebooks at a time),
`sandbox` (bubblewrap), `cells` (code cells read as Python, in bounded time), `shortcuts`
(flags for review a "write it yourself" part that seems to call the course's reference, found by
reading the code cells), `discover` (finding submissions),
`report` (gradebook, results, feedback), `cli` (the ``python -m course_tools grade`` command).
The course's hidden cases are in `hidden/`.

Introduced in: docs/instructor.md
"""

from __future__ import annotations

from .cases import Case, Exercise, load_exercises
from .results import CaseResult, ExerciseResult, Limits
from .runner import grade_notebook

__all__ = [
    "Case",
    "CaseResult",
    "Exercise",
    "ExerciseResult",
    "Limits",
    "grade_notebook",
    "load_exercises",
]
