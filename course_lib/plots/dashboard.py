"""The monitoring dashboard: lesson 06's five signals hour by hour, one panel each.

Introduced in: notebooks/06_beyond_hints.ipynb
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from ..i18n import N_
from ..i18n import gettext_ as _
from ..monitoring import SIGNALS, five_signals, hourly_signals
from .fonts import localise_fonts

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plot_dashboard"]

_BLUE, _GREEN, _RED = "#0072B2", "#009E73", "#D55E00"  # Okabe-Ito: colour-blind safe


_TITLE = N_("A day of tool calls: five signals")


def plot_dashboard(
    events: pd.DataFrame, *, title: str = _TITLE
) -> Figure:
    """Draw the five signals hour by hour, one panel each, the healthy range shaded green.

    Points are blue inside the healthy range and vermilion outside it; each panel's title gives
    the whole day's value. Returns the `Figure` (display it by leaving it last in a cell); no
    global state is changed beyond importing `matplotlib.pyplot`.

    Raises:
        ValueError: `events` is not a DataFrame with `EVENT_COLUMNS`.
    """
    # imported here so `import course_lib` stays quick; pyplot lets Jupyter display the returned
    # figure
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    hourly = hourly_signals(events)
    day = five_signals(events)
    figure = plt.figure(figsize=(11, 6), layout="constrained")
    plt.close(figure)  # shown once, as the cell's value, not again by pyplot at the end of the cell
    axes = figure.subplots(2, 3)
    for ax, signal in zip(axes.flat, SIGNALS):
        values = hourly[signal.name].astype(float)
        scale = 100 if signal.unit == "share" else 1
        colours = [_RED if signal.status(v) == "ALERT" else _BLUE for v in values]
        shown_values = values * scale
        ax.axhspan(signal.low * scale, signal.high * scale, color=_GREEN, alpha=0.2, lw=0, zorder=0)
        ax.axhline(signal.high * scale, color=_GREEN, lw=1.5, zorder=1)
        ax.plot(values.index, shown_values, color="#999999", lw=1, zorder=2)
        ax.scatter(values.index, shown_values.fillna(0), c=colours, s=28, zorder=3)
        top = max(
            float(shown_values.max(skipna=True)) if values.notna().any() else 0.0,
            signal.high * scale,
            1.0,
        )
        ax.set_ylim(-0.05 * top, top * 1.15)
        if signal.unit == "count":
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(
            _("{signal}\nday: {reading} ({status})").format(
                signal=_(signal.name),
                reading=day.loc[signal.name, "reading"],
                status=_(str(day.loc[signal.name, "status"])),
            ),
            fontsize=9,
        )
        ax.set_ylabel("%" if signal.unit == "share" else _("count"), fontsize=8)
        ax.set_xlabel(_("hour"), fontsize=8)
        ax.tick_params(labelsize=7)
    legend = axes.flat[-1]
    legend.axis("off")
    lines = [
        _("{signal}: healthy {range}").format(signal=_(s.name), range=_(s.healthy))
        for s in SIGNALS
    ]
    heading = _("Healthy value or range (green)\nnumbers after 'say' are illustrative") + "\n\n"
    legend.text(0, 1, heading + "\n".join(lines), va="top", fontsize=8, wrap=True)
    figure.suptitle(_(title))
    return localise_fonts(figure)
