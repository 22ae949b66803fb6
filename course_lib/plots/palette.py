"""Colours and symbols of the course's figures: the Okabe-Ito palette, backed by symbols.

Colours come from the Okabe-Ito palette, which stays distinguishable with the common
colour-vision deficiencies; every colour is backed by a symbol in the cell, written in black or
white, whichever contrasts more with the cell (at least 4.5:1 for this palette).

Introduced in: notebooks/03_combinations.ipynb
"""

from __future__ import annotations

from typing import Any

from ..decisions import PostCall, PreCall
from ..i18n import beside
from ..i18n import gettext_ as _

__all__ = [
    "COLORS",
    "EDGE",
    "SHORT_LABELS",
    "SYMBOLS",
    "UNTRUSTED_MARK",
    "contrast_ratio",
    "legend_handles",
    "text_color",
]

COLORS: dict[PreCall, str] = {
    PreCall.ALLOW: "#009E73",  # Okabe-Ito bluish green
    PreCall.CONFIRM: "#F0E442",  # Okabe-Ito yellow
    PreCall.WARN: "#E69F00",  # Okabe-Ito orange
    PreCall.DENY: "#D55E00",  # Okabe-Ito vermillion
}
"""Cell colour for each decision before the call (Okabe-Ito palette)."""

SHORT_LABELS: dict[PreCall, str] = {p: p.value for p in PreCall}
"""The words the legend uses for each decision before the call: `PreCall`'s own values, so
figures and tables use one wording."""

SYMBOLS: dict[PreCall, str] = {
    PreCall.ALLOW: "\u2713",  # check mark
    PreCall.CONFIRM: "?",
    PreCall.WARN: "\u26a0",  # warning sign
    PreCall.DENY: "\u2717",  # ballot x
}
"""The symbol written in a cell for each decision before the call; the legend spells it out."""

EDGE = "#4d4d4d"
"""Edge colour of a legend's swatches."""

UNTRUSTED_MARK = "#000000"
"""Colour of the corner triangle on a cell whose output the client treats as untrusted."""


def _luminance(color: str) -> float:
    from matplotlib.colors import to_rgb

    channels = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in to_rgb(color)]
    return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]


def contrast_ratio(foreground: str, background: str) -> float:
    """Return the WCAG 2 contrast ratio of two colours, from 1 (none) to 21 (black on white)."""
    light, dark = sorted((_luminance(foreground), _luminance(background)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def text_color(background: str) -> str:
    """Return "black" or "white", whichever contrasts more with `background`."""
    return (
        "black"
        if contrast_ratio("black", background) >= contrast_ratio("white", background)
        else "white"
    )


def legend_handles(used: set[PreCall], show_trusted: bool, show_untrusted: bool) -> list[Any]:
    """The legend of a decision matrix: a swatch per decision `used` (its symbol and words, with
    the Chinese beside them in Chinese), and the corner mark's meaning."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles: list[Any] = [
        Patch(facecolor=COLORS[p], edgecolor=EDGE, label=f"{SYMBOLS[p]}  {beside(SHORT_LABELS[p])}")
        for p in PreCall
        if p in used
    ]
    if show_trusted:
        handles.append(
            Line2D(
                [],
                [],
                linestyle="none",
                marker="s",
                markersize=9,
                markerfacecolor="white",
                markeredgecolor=EDGE,
                label=_("no corner: {after} (unreviewed)").format(
                    after=beside(PostCall.TRUST.value)
                ),
            )
        )
    if show_untrusted:
        handles.append(
            Line2D(
                [],
                [],
                linestyle="none",
                marker=[(-1, 1), (1, 1), (1, -1)],
                markersize=9,
                color=UNTRUSTED_MARK,
                label=_("corner: {after}").format(after=beside(PostCall.UNTRUSTED.value)),
            )
        )
    return handles
