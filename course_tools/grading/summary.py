"""What the class missed: one row per hidden case, and the cases to re-teach first.

A case is *missed* by every student who handed its exercise in and did not pass it. Of those,
a *wrong* answer (judged wrong, or it raised) is a misconception worth re-teaching; a *blank*
one (not attempted, the name not defined) is unfinished work; a case *not judged* (the
notebook timed out, its kernel died, the result was tampered with) says nothing about the
learner's idea. The re-teach list ranks cases by their share of wrong answers.

Introduced in: docs/instructor.md (section 8, after grading)
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from course_lib.safe_text import printable

from .cases import Exercise
from .output_files import replace_file, spreadsheet_text
from .results import CaseResult, ExerciseResult

__all__ = [
    "CaseSummary",
    "AnswerKind",
    "answer_kind",
    "reteach",
    "reteach_lines",
    "summarise",
    "write_summary",
]


class AnswerKind(Enum):
    """What one student's answer to one case tells the instructor."""

    PASSED = "passed"
    WRONG = "wrong"
    BLANK = "left blank"
    NOT_JUDGED = "not judged"


_KINDS = {
    "passed": AnswerKind.PASSED,
    "failed": AnswerKind.WRONG,
    "error": AnswerKind.WRONG,
    "not attempted": AnswerKind.BLANK,
    "missing": AnswerKind.BLANK,
}


def answer_kind(status: str) -> AnswerKind:
    """What a case result's status tells (timed out, tampered, not run...: not judged)."""
    return _KINDS.get(status, AnswerKind.NOT_JUDGED)


@dataclass(frozen=True)
class CaseSummary:
    """One hidden case across the class: who handed its exercise in, and how they did."""

    exercise: str
    part: str  # "2a" for case "2a.B": the part of the exercise the case belongs to
    case: str
    label: str
    points: float
    handed_in: int
    wrong: tuple[str, ...]  # students, in gradebook order
    blank: tuple[str, ...]
    not_judged: tuple[str, ...]
    hint: str  # the hint the wrong answers got most often (the case's rule)

    @property
    def missed(self) -> tuple[str, ...]:
        return self.wrong + self.blank + self.not_judged

    @property
    def passed(self) -> int:
        return self.handed_in - len(self.missed)

    @property
    def share_missed(self) -> float:
        return len(self.missed) / self.handed_in if self.handed_in else 0.0

    @property
    def share_wrong(self) -> float:
        return len(self.wrong) / self.handed_in if self.handed_in else 0.0


def part_of(case_id: str) -> str:
    """The part a case belongs to: the case id up to its first full stop ("2a.B" -> "2a")."""
    return case_id.split(".", 1)[0]


def _summary(exercise: Exercise, index: int, results: list[ExerciseResult]) -> CaseSummary:
    case = exercise.cases[index]
    by_kind: dict[AnswerKind, list[str]] = {o: [] for o in AnswerKind}
    hints: Counter[str] = Counter()  # in English, as the instructor reads them
    for result in results:
        answer: CaseResult | None = next((c for c in result.cases if c.id == case.id), None)
        kind = answer_kind(answer.status) if answer else AnswerKind.NOT_JUDGED
        by_kind[kind].append(result.student)
        if answer and kind is AnswerKind.WRONG and answer.hint:
            hints[answer.hint.english()] += 1
    return CaseSummary(
        exercise=exercise.id,
        part=part_of(case.id),
        case=case.id,
        label=case.label.english(),
        points=case.points,
        handed_in=len(results),
        wrong=tuple(by_kind[AnswerKind.WRONG]),
        blank=tuple(by_kind[AnswerKind.BLANK]),
        not_judged=tuple(by_kind[AnswerKind.NOT_JUDGED]),
        hint=hints.most_common(1)[0][0] if hints else case.hint.english() if case.hint else "",
    )


def summarise(
    results: Iterable[ExerciseResult], exercises: dict[str, Exercise]
) -> list[CaseSummary]:
    """One summary per hidden case of `exercises`, in the course's order.

    Only students who handed an exercise in count for its cases (a missing notebook misses
    nothing: the gradebook already says it is missing).
    """
    handed_in: dict[str, list[ExerciseResult]] = {e: [] for e in exercises}
    for result in results:
        if result.exercise in handed_in and result.status != "missing":
            handed_in[result.exercise].append(result)
    return [
        _summary(exercise, index, handed_in[exercise.id])
        for exercise in exercises.values()
        for index in range(len(exercise.cases))
    ]


FIELDS = (
    "exercise",
    "part",
    "case",
    "label",
    "points",
    "handed in",
    "passed",
    "wrong",
    "left blank",
    "not judged",
    "missed",
    "share missed",
    "share wrong",
    "missed by",
    "hint",
)


def _row(summary: CaseSummary) -> list[str]:
    def names(students: tuple[str, ...], kind: AnswerKind) -> list[str]:
        return [f"{printable(s)} ({kind.value})" for s in students]

    missed_by = (
        names(summary.wrong, AnswerKind.WRONG)
        + names(summary.blank, AnswerKind.BLANK)
        + names(summary.not_judged, AnswerKind.NOT_JUDGED)
    )
    return [
        summary.exercise,
        summary.part,
        summary.case,
        summary.label,
        f"{summary.points:g}",
        str(summary.handed_in),
        str(summary.passed),
        str(len(summary.wrong)),
        str(len(summary.blank)),
        str(len(summary.not_judged)),
        str(len(summary.missed)),
        f"{summary.share_missed:.2f}",
        f"{summary.share_wrong:.2f}",
        "; ".join(missed_by),
        summary.hint,
    ]


def write_summary(path: Path, summaries: Sequence[CaseSummary]) -> None:
    """Write the summary CSV: one row per case (a cell a spreadsheet would run starts with ')."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(FIELDS)
    for summary in summaries:
        writer.writerow([spreadsheet_text(cell) for cell in _row(summary)])
    replace_file(Path(path), buffer.getvalue())


def reteach(summaries: Iterable[CaseSummary], count: int = 3) -> list[list[CaseSummary]]:
    """The `count` rules answered wrongly by the largest share of the class, most missed first.

    Each rule is the list of its cases (cases sharing a hint test one rule, so they are
    re-taught together); cases nobody answered wrongly are left out.
    """
    ranked = sorted(
        (s for s in summaries if s.wrong), key=lambda s: (-s.share_wrong, -len(s.wrong))
    )
    rules: dict[str, list[CaseSummary]] = {}
    for summary in ranked:
        rule = summary.hint or summary.case
        if rule in rules:
            rules[rule].append(summary)
        elif len(rules) < count:
            rules[rule] = [summary]
    return list(rules.values())


def reteach_lines(summaries: Sequence[CaseSummary], count: int = 3) -> list[str]:
    """What to re-teach, for the terminal: the most-missed cases with their hints."""
    rules = reteach(summaries, count)
    if not rules:
        return ["re-teach: no case was answered wrongly (blank and unjudged answers aside)"]
    lines = [f"re-teach: the {len(rules)} most-missed cases (by share of wrong answers)"]
    for number, (first, *others) in enumerate(rules, start=1):
        lines.append(
            f"  {number}. {first.case} ({first.label}): wrong in {len(first.wrong)} of "
            f"{first.handed_in} notebooks ({first.share_wrong:.0%})"
        )
        if others:
            lines.append(f"     same rule: {', '.join(o.case for o in others)}")
        if first.hint:
            lines.append(f"     what to re-teach: {first.hint}")
    return [printable(line) for line in lines]
