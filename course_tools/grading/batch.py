"""Grading a class: every handed-in notebook, a few at a time, with a progress line each.

Introduced in: docs/instructor.md
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from course_lib.safe_text import printable

from .cases import Exercise
from .discover import Submission
from .results import ExerciseResult, Limits, missing_result
from .runner import grade_notebook, isolation_note
from .sandbox import Isolation

__all__ = ["grade_all"]


class _Progress:
    def __init__(self, total: int, quiet: bool) -> None:
        self.total, self.done, self.quiet = total, 0, quiet
        self.width = len(str(total))

    def __call__(self, result: ExerciseResult) -> None:
        self.done += 1
        if not self.quiet:
            print(
                f"[{self.done:>{self.width}}/{self.total}] "
                f"{printable(result.student, limit=80)} · {result.exercise}: "
                f"{result.score:g}/{result.max_score:g} {result.status} ({result.seconds:.1f} s)",
                file=sys.stderr,
                flush=True,
            )


async def grade_all(
    submissions: list[Submission],
    exercises: dict[str, Exercise],
    limits: Limits,
    jobs: int,
    quiet: bool = False,
    isolation: Isolation | None = None,
    root: Path | None = None,
) -> dict[str, list[ExerciseResult]]:
    """Grade every handed-in notebook, `jobs` at a time; return results by student.

    Every exercise is present in each student's list.
    """
    work = [
        (s.student, path, exercises[ex]) for s in submissions for ex, path in s.notebooks.items()
    ]
    progress = _Progress(len(work), quiet)
    semaphore = asyncio.Semaphore(max(1, jobs))

    async def one(student: str, path: Path, exercise: Exercise) -> ExerciseResult:
        async with semaphore:
            result = await grade_notebook(
                student, path, exercise, limits, isolation, root or path.parent
            )
        progress(result)
        return result

    graded = await asyncio.gather(*(one(*w) for w in work))
    by_student: dict[str, list[ExerciseResult]] = {s.student: [] for s in submissions}
    for result in graded:
        by_student[result.student].append(result)
    for sub in submissions:
        for exercise_id, exercise in exercises.items():
            if exercise_id not in sub.notebooks:
                missing = missing_result(sub.student, exercise)
                if isolation is not None and not isolation.isolated:
                    missing.notes.append(isolation_note(isolation))
                by_student[sub.student].append(missing)
        by_student[sub.student].sort(key=lambda r: r.exercise)
    return by_student
