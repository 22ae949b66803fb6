"""The census figure: the share of real tools that declare each hint, beside the learner's guess.

Introduced in: notebooks/02_defaults.ipynb (section "Silence in the wild").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..i18n import N_
from ..i18n import gettext_ as _
from .fonts import localise_fonts

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_declared_shares"]

BAR = "#0072B2"  # Okabe-Ito blue
GUESS = "#000000"
_TITLE = N_("Share of real tools that declare each hint")


def plot_declared_shares(
    shares: Mapping[str, float] | Any,
    guess: Mapping[str, float] | None = None,
    ax: Axes | None = None,
    *,
    title: str = _TITLE,
) -> Axes:
    """Draw one bar per hint: the share (0 to 1) of tools declaring it, labelled in percent.

    `shares` is a mapping or a pandas Series (hint -> share). `guess`, if given, maps hints to
    the learner's guesses in percent (0 to 100), drawn as black diamonds on the bars.

    Raises:
        ValueError: a share outside 0..1 or a guess outside 0..100, or a guess for an unknown hint.
    """
    import matplotlib.pyplot as plt

    values = {str(k): float(v) for k, v in dict(shares).items()}
    if any(not 0 <= v <= 1 for v in values.values()):
        raise ValueError(f"shares must be between 0 and 1 (fractions of tools), not {values}")
    guesses = {str(k): float(v) for k, v in dict(guess or {}).items()}
    unknown = sorted(set(guesses) - set(values))
    if unknown:
        raise ValueError(f"guesses for hints the census does not count: {unknown}")
    if any(not 0 <= v <= 100 for v in guesses.values()):
        raise ValueError(f"guesses are percentages, between 0 and 100, not {guesses}")
    if ax is None:
        _figure, ax = plt.subplots(figsize=(7, 2.8))
    names = list(values)[::-1]  # first hint on top
    percents = [100 * values[n] for n in names]
    ax.barh(names, percents, color=BAR)
    for y, pct in enumerate(percents):
        inside = pct >= 15
        ax.text(
            pct - 1.5 if inside else pct + 1.5,
            y,
            f"{pct:.0f}%",
            va="center",
            ha="right" if inside else "left",
            color="white" if inside else "black",
        )
    if guesses:
        rows = [(names.index(n), v) for n, v in guesses.items()]
        ax.scatter(
            [v for _y, v in rows],
            [y for y, _ in rows],
            marker="|",
            s=500,
            linewidths=3,
            color=GUESS,
            zorder=3,
            label=_("your guess"),
        )
    ax.set_xlim(0, 105)
    label = _("% of tools declaring the hint (absent: the spec's default applies)")
    ax.set_xlabel(label + (_("; black tick: your guess") if guesses else ""))
    ax.set_title(_(title))
    localise_fonts(ax.figure)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return ax
