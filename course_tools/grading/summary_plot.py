"""The class summary as a figure: each part of each exercise by the share of answers missed.

One horizontal bar per part (2a, 2b...), most missed on top: the dark segment is the share of
answers that were wrong, the light one the share left blank or not judged. Beside each bar,
the part's most-missed case is named, so the figure alone says what to re-teach. Sized to be
read on a projector or printed on one page.

Introduced in: docs/instructor.md (section 8, after grading)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .summary import CaseSummary

__all__ = ["PartSummary", "parts", "plot_summary", "summary_figure"]

WRONG_COLOUR, BLANK_COLOUR = "#b2182b", "#d9d9d9"


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
    text = f"{worst.case} ({said}): {_short(worst.label)}"
    return text.replace("$", r"\$")  # a $ would start matplotlib's mathtext


def summary_figure(summaries: Sequence[CaseSummary], students: int) -> Any:
    """The figure (a matplotlib Figure, outside pyplot: no global state, no display)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows = parts(summaries)
    figure = Figure(figsize=(14, 1.8 + 0.55 * max(1, len(rows))), dpi=120)
    FigureCanvasAgg(figure)  # draws without a display
    axes = figure.subplots()
    names = [p.part.replace("$", r"\$") for p in rows]
    wrong = [100 * p.share_wrong for p in rows]
    blank = [100 * p.share_blank for p in rows]
    axes.barh(names, wrong, color=WRONG_COLOUR, label="wrong")
    axes.barh(names, blank, left=wrong, color=BLANK_COLOUR, label="left blank or not judged")
    for y, part in enumerate(rows):
        end = 100 * (part.share_wrong + part.share_blank)
        axes.text(end + 1.5, y, _note(part), va="center", fontsize=12)
    axes.invert_yaxis()  # most missed on top
    axes.set_xlim(0, 200)  # the right half holds the case names
    axes.set_xticks(range(0, 101, 25), [f"{t}%" for t in range(0, 101, 25)])
    axes.spines["bottom"].set_bounds(0, 100)
    axes.spines[["top", "right"]].set_visible(False)
    axes.set_xlabel(
        "share of the part's answers missed (its cases x the notebooks handed in)",
        fontsize=12,
        loc="left",
    )
    axes.tick_params(axis="y", labelsize=13)
    axes.tick_params(axis="x", labelsize=12)
    axes.set_title(
        f"What the class missed: {students} students, {len(rows)} parts, most missed on top",
        fontsize=15,
        loc="left",
    )
    axes.legend(  # under the axis, at the right: clear of the bars and their notes
        loc="upper right", bbox_to_anchor=(1.0, -0.06), ncol=2, fontsize=12, frameon=False
    )
    figure.tight_layout()
    return figure


def plot_summary(path: Path, summaries: Sequence[CaseSummary], students: int) -> None:
    """Write the figure (PNG, SVG or PDF, by `path`'s suffix), nothing cut at its edges."""
    summary_figure(summaries, students).savefig(path, bbox_inches="tight", pad_inches=0.2)
