"""When each notebook was handed in, and whether that was after the deadline (``--deadline``).

The time is the one ``hub collect`` recorded (`course_tools.handin`) when the graded notebook
is the one it copied, else the file's modification time, and the gradebook says which: a
modification time is only as good as the way the files were copied (a download from an LMS
may reset it, and a learner can set it on their own machine), while a collection time is the
grader's own clock.

Introduced in: docs/instructor.md (section 8, after grading)
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path

from course_lib.safe_text import printable

from ..handin import MANIFEST, Collection, read_collection
from .cases import Exercise
from .discover import Submission
from .results import ExerciseResult

__all__ = [
    "HandIn",
    "TimeSource",
    "gradebook_cells",
    "gradebook_columns",
    "hand_ins",
    "late_lines",
    "parse_deadline",
]


class TimeSource(Enum):
    """Where a hand-in time comes from."""

    COLLECTED = "hub collect"
    MODIFIED = "file time"


@dataclass(frozen=True)
class HandIn:
    """When one notebook was handed in, by which clock, and whether it was late."""

    exercise: str
    at: datetime  # timezone-aware
    source: TimeSource
    late: bool
    why_not_collected: str = ""  # set when a collection record exists but does not apply


def parse_deadline(text: str) -> datetime:
    """The deadline as a timezone-aware time; without a zone, this machine's local time.

    Raises:
        ValueError: not an ISO 8601 date and time (the message shows the form).
    """
    value = text.strip()
    if value[-1:] in ("Z", "z"):
        value = value[:-1] + "+00:00"  # Python 3.10 does not read the Z suffix
    try:
        deadline = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(
            f"--deadline {printable(text)!r} is not an ISO 8601 time: write it like "
            "2026-12-04T17:00 (this machine's local time) or 2026-12-04T17:00+01:00"
        ) from None
    return deadline if deadline.tzinfo else deadline.astimezone()


def _modified(path: Path) -> datetime:
    return datetime.fromtimestamp(os.stat(path, follow_symlinks=False).st_mtime, timezone.utc)


def _hand_in(
    result: ExerciseResult,
    path: Path,
    where: str,
    record: dict[str, Collection],
    deadline: datetime,
) -> HandIn:
    collected = record.get(where)
    why = ""
    if collected is not None and collected.sha256 == result.sha256:
        at, source = collected.collected_at, TimeSource.COLLECTED
    else:
        if collected is not None:
            why = f"{result.exercise} changed since hub collect copied it: timed by its file"
        at, source = _modified(path), TimeSource.MODIFIED
    return HandIn(result.exercise, at, source, at > deadline, why)


def hand_ins(
    submissions: Sequence[Submission],
    by_student: dict[str, list[ExerciseResult]],
    root: Path,
    deadline: datetime,
    class_notes: list[str],
) -> dict[str, dict[str, HandIn]]:
    """Each student's hand-in per exercise they handed in (an unreadable record: file times)."""
    try:
        record = read_collection(root)
    except ValueError as exc:
        class_notes.append(f"{exc}; hand-in times are the files' modification times")
        record = {}
    found: dict[str, dict[str, HandIn]] = {}
    for sub in submissions:
        results = {r.exercise: r for r in by_student.get(sub.student, [])}
        mine = found.setdefault(sub.student, {})
        for exercise, path in sub.notebooks.items():
            try:
                where = path.relative_to(root).as_posix()
                result = results[exercise]
                mine[exercise] = _hand_in(result, path, where, record, deadline)
            except (KeyError, ValueError, OSError):
                continue  # not graded in this run, or gone since: no time to record
    return found


def gradebook_columns(exercises: dict[str, Exercise]) -> list[str]:
    """The gradebook's extra columns with --deadline."""
    columns = []
    for exercise in exercises:
        columns += [f"{exercise} handed in", f"{exercise} late"]
    return [*columns, "hand-in times from"]


def gradebook_cells(
    mine: dict[str, HandIn], exercises: dict[str, Exercise], deadline: datetime
) -> dict[str, str]:
    """One student's extra gradebook cells: times in the deadline's zone, late yes or no."""
    cells: dict[str, str] = {}
    for exercise in exercises:
        hand_in = mine.get(exercise)
        at = hand_in.at.astimezone(deadline.tzinfo).isoformat() if hand_in else ""
        cells[f"{exercise} handed in"] = at
        cells[f"{exercise} late"] = ("yes" if hand_in.late else "no") if hand_in else ""
    sources = sorted({h.source.value for h in mine.values()})
    cells["hand-in times from"] = " and ".join(sources)
    return cells


def late_lines(found: dict[str, dict[str, HandIn]], deadline: datetime) -> list[str]:
    """For the terminal: the deadline, and each late notebook with how late it was."""
    late = [(student, h) for student, mine in found.items() for h in mine.values() if h.late]
    total = sum(len(m) for m in found.values())
    lines = [f"deadline {deadline.isoformat()}: {len(late)} of {total} notebooks late"]
    for student, hand_in in late:
        minutes = int((hand_in.at - deadline).total_seconds() // 60)
        lines.append(
            f"  late: {printable(student)} · {hand_in.exercise}, by {minutes // 60} h "
            f"{minutes % 60:02d} min ({hand_in.source.value})"
        )
    if any(h.source is TimeSource.MODIFIED for m in found.values() for h in m.values()):
        lines.append(
            f"  times marked 'file time' are files' modification times (no {MANIFEST} "
            "record from hub collect covers them)"
        )
    return lines
