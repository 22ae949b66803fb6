"""The class summary as a figure: each part of each exercise by the share of answers missed.

One horizontal bar per part (2a, 2b...), most missed on top: the dark segment is the share of
answers that were wrong, the light one the share left blank or not judged. Beside each bar,
the part's most-missed case is named, so the figure alone says what to re-teach. The numbers
are computed here; `summary_figure` draws them.

Introduced in: docs/instructor.md (section 8, after grading)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .summary import CaseSummary
from .summary_figure import Bar, class_summary_figure, save_class_summary

__all__ = ["PartSummary", "bars", "parts", "plot_summary", "summary_figure"]


@dataclass(frozen=True)
class PartSummary:
    """One part across the class: its answers (cases x notebooks) and how many were missed."""

    exercise: str
    part: str
    answers: int
    wrong: int
    blank: int  # left blank or not judged
    worst: CaseSummary  # the part's most-missed case

    @property
    def share_wrong(self) -> float:
        return self.wrong / self.answers if self.answers else 0.0

    @property
    def share_blank(self) -> float:
        return self.blank / self.answers if self.answers else 0.0


def parts(summaries: Sequence[CaseSummary]) -> list[PartSummary]:
    """Each part's totals, most missed first (wrong answers count first, then blank ones)."""
    grouped: dict[tuple[str, str], list[CaseSummary]] = {}
    for summary in summaries:
        grouped.setdefault((summary.exercise, summary.part), []).append(summary)
    result = [
        PartSummary(
            exercise=exercise,
            part=part,
            answers=sum(c.handed_in for c in cases),
            wrong=sum(len(c.wrong) for c in cases),
            blank=sum(len(c.blank) + len(c.not_judged) for c in cases),
            worst=max(cases, key=lambda c: (len(c.wrong), len(c.missed))),
        )
        for (exercise, part), cases in grouped.items()
    ]
    result = [p for p in result if p.answers]
    return sorted(result, key=lambda p: (-p.share_wrong, -p.share_blank))


def _short(text: str, limit: int = 56) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _note(part: PartSummary) -> str:
    """The part's most-missed case: its id, how many missed it, what it checks."""
    worst = part.worst
    if worst.wrong:
        said = f"{len(worst.wrong)} of {worst.handed_in} wrong"
    elif worst.missed:
        said = f"{len(worst.missed)} of {worst.handed_in} blank"
    else:
        return "all passed"
    return f"{worst.case} ({said}): {_short(worst.label)}"


def bars(summaries: Sequence[CaseSummary]) -> list[Bar]:
    """The figure's bars: each part, most missed on top, naming its most-missed case."""
    return [Bar(p.part, p.share_wrong, p.share_blank, _note(p)) for p in parts(summaries)]


def title(summaries: Sequence[CaseSummary], students: int) -> str:
    return (
        f"What the class missed: {students} students, {len(parts(summaries))} parts, "
        "most missed on top"
    )


def summary_figure(summaries: Sequence[CaseSummary], students: int) -> Any:
    """The figure, as a matplotlib Figure (drawn by `summary_figure`)."""
    return class_summary_figure(bars(summaries), title(summaries, students))


def plot_summary(path: Path, summaries: Sequence[CaseSummary], students: int) -> None:
    """Write the figure (PNG, SVG or PDF, by `path`'s suffix)."""
    save_class_summary(path, bars(summaries), title(summaries, students))
