"""The census figure: what every measured client did with each annotation profile, in one grid.

Rows are clients in their everyday and plan modes (`course_lib.census_tables.HEADLINE`), columns the
measured profiles, and each cell is coloured by what happened to the call and labelled in
words (``RAN``, ``ASK``, ``ASK-H``, ``DENY``, ``HIDDEN``), so nothing depends on colour alone or
on a symbol font. The title carries every version and the measurement dates.

Introduced in: notebooks/03_combinations.ipynb (section "Same hints, different clients").
"""

from __future__ import annotations

from typing import Any

from matplotlib.axes import Axes
from matplotlib.patches import Patch

from ..census_tables import HEADLINE, census_measurements
from ..decisions import Outcome
from ..measured import SHORT_LABELS, SHORT_OUTCOMES
from .palette import text_color

__all__ = ["OUTCOME_COLORS", "plot_census"]

OUTCOME_COLORS: dict[Outcome, str] = {
    Outcome.RAN: "#009E73",  # Okabe-Ito bluish green
    Outcome.ASK: "#F0E442",  # yellow
    Outcome.ASK_HEADLESS: "#E69F00",  # orange
    Outcome.DENY: "#D55E00",  # vermillion
    Outcome.HIDDEN: "#999999",  # grey
}
"""Cell colour for each outcome of a measured call (Okabe-Ito palette, plus grey)."""

_DPI = 72
_LEGEND = {
    Outcome.RAN: "RAN: ran without asking",
    Outcome.ASK: "ASK: asked the user",
    Outcome.ASK_HEADLESS: "ASK-H: would ask (headless: failed)",
    Outcome.DENY: "DENY: refused",
    Outcome.HIDDEN: "HIDDEN: not offered",
}


def plot_census(ax: Axes | None = None) -> Axes:
    """Draw every committed census measurement as one grid; return the axes.

    A ``*`` marks a call a safety classifier judged (scripted to approve).
    """
    import matplotlib.pyplot as plt

    measurements = census_measurements()
    modes = {client: chosen for client, _, chosen in HEADLINE}
    titles = {client: title for client, title, _ in HEADLINE}
    profiles = measurements[0].profiles
    rows: list[tuple[str, dict[str, Any]]] = []
    for m in measurements:
        for mode in modes[m.client]:
            rows.append((f"{titles[m.client]} {m.version}: {mode}", m.cell(mode).results))
    if ax is None:
        width, height = 2.2 + 0.62 * len(profiles), 1.6 + 0.32 * len(rows)
        _, ax = plt.subplots(figsize=(width, height), dpi=_DPI)
    for y, (_, results) in enumerate(rows):
        for x, profile in enumerate(profiles):
            result = results.get(profile["tool"])
            color = "white" if result is None else OUTCOME_COLORS[result.outcome]
            ax.add_patch(plt.Rectangle((x, y), 1, 1, facecolor=color, edgecolor="white"))
            word = "-" if result is None else SHORT_OUTCOMES[result.outcome]
            word += "*" if result is not None and result.classifier else ""
            ax.text(
                x + 0.5,
                y + 0.5,
                word,
                ha="center",
                va="center",
                fontsize=6.5,
                color=text_color(color),
            )
    ax.set_xlim(0, len(profiles))
    ax.set_ylim(len(rows), 0)
    ax.set_xticks([x + 0.5 for x in range(len(profiles))])
    ax.set_xticklabels(
        [SHORT_LABELS.get(p["tool"], p["label"]) for p in profiles],
        rotation=55,
        ha="right",
        fontsize=7,
    )
    ax.set_yticks([y + 0.5 for y in range(len(rows))])
    ax.set_yticklabels([label for label, _ in rows], fontsize=7)
    ax.tick_params(length=0)
    for side in ax.spines.values():
        side.set_visible(False)
    dates = ", ".join(sorted({m.date for m in measurements}))
    ax.set_title(
        f"What each client did with each profile, measured offline ({dates})",
        fontsize=9,
        loc="left",
    )
    handles = [Patch(facecolor=OUTCOME_COLORS[o], label=_LEGEND[o]) for o in OUTCOME_COLORS]
    ax.legend(
        handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False
    )
    return ax
