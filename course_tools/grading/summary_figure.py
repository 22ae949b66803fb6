"""A class's results as a figure: one bar per part, the share missed, the worst case named.

The instructor's grader (``grade --summary-plot``) computes the numbers (`summary_plot`); this
module only draws them. It is the one figure outside `course_lib.plots`, because no lesson
shows it: learners never install it. The figure is built outside pyplot (no global state, no
display needed) and sized for a projector.

Introduced in: docs/instructor.md section 8 (after grading).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["Bar", "class_summary_figure", "save_class_summary"]

WRONG_COLOUR = "#D55E00"  # Okabe-Ito vermilion, as the course's other figures
BLANK_COLOUR = "#CCCCCC"


@dataclass(frozen=True)
class Bar:
    """One part: its name, the shares of answers wrong and blank (0 to 1), and its note."""

    name: str
    wrong: float
    blank: float
    note: str


def _plain(text: str) -> str:
    return text.replace("$", r"\$")  # a $ would start matplotlib's mathtext


def class_summary_figure(bars: Sequence[Bar], title: str) -> Figure:
    """Draw `bars` top to bottom, each with its note beside it; return the Figure."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(14, 1.8 + 0.55 * max(1, len(bars))), dpi=120)
    FigureCanvasAgg(figure)  # draws without a display
    axes = figure.subplots()
    names = [_plain(b.name) for b in bars]
    wrong = [100 * b.wrong for b in bars]
    blank = [100 * b.blank for b in bars]
    axes.barh(names, wrong, color=WRONG_COLOUR, label="wrong")
    axes.barh(names, blank, left=wrong, color=BLANK_COLOUR, label="left blank or not judged")
    for y, bar in enumerate(bars):
        axes.text(
            100 * (bar.wrong + bar.blank) + 1.5, y, _plain(bar.note), va="center", fontsize=12
        )
    axes.invert_yaxis()  # the first bar on top
    axes.set_xlim(0, 200)  # the right half holds the notes
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
    axes.set_title(_plain(title), fontsize=15, loc="left")
    axes.legend(  # under the axis, at the right: clear of the bars and their notes
        loc="upper right", bbox_to_anchor=(1.0, -0.06), ncol=2, fontsize=12, frameon=False
    )
    figure.tight_layout()
    return figure


def save_class_summary(path: Path, bars: Sequence[Bar], title: str) -> None:
    """Write the figure (PNG, SVG or PDF, by `path`'s suffix), nothing cut at its edges."""
    class_summary_figure(bars, title).savefig(path, bbox_inches="tight", pad_inches=0.2)
