"""A session's trifecta as a figure: tools as nodes coloured by the legs they supply.

Introduced in: notebooks/04_lethal_trifecta.ipynb
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..i18n import gettext_ as _
from ..legs import Basis, Leg
from ..trifecta import SessionReport, SessionTool
from .fonts import localise_fonts

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["LEG_COLORS", "LEG_LETTERS", "TRIFECTA_COLOR", "plot_session"]

LEG_COLORS: dict[Leg, str] = {
    Leg.PRIVATE_DATA: "#0072B2",  # Okabe-Ito blue
    Leg.UNTRUSTED_CONTENT: "#E69F00",  # Okabe-Ito orange
    Leg.EXTERNAL_COMMUNICATION: "#CC79A7",  # Okabe-Ito reddish purple
}
"""The colour of each leg (Okabe-Ito, like the palette); letters back the colours."""

LEG_LETTERS: dict[Leg, str] = {
    Leg.PRIVATE_DATA: "P",
    Leg.UNTRUSTED_CONTENT: "U",
    Leg.EXTERNAL_COMMUNICATION: "E",
}
TRIFECTA_COLOR = "#000000"  # black: unlike red or vermillion, never confused with the orange of U


_HUBS: dict[Leg, tuple[float, float]] = {
    Leg.PRIVATE_DATA: (0.0, 0.0),
    Leg.UNTRUSTED_CONTENT: (1.0, 1.6),
    Leg.EXTERNAL_COMMUNICATION: (2.0, 0.0),
}
_CENTRE = (1.0, 0.55)
_ABSENT = "#bbbbbb"  # the triangle of an incomplete trifecta


def plot_session(
    report: SessionReport, ax: Axes | None = None, *, title: str | None = None
) -> Axes:
    """Draw the session: one node per leg (a triangle), each tool linked to the legs it supplies.

    Tools are coloured by their legs (blue P private data, orange U untrusted content, purple
    E external communication; split when a tool supplies several, grey when none) and linked
    to the three big lettered leg nodes (P, U, E; hollow when absent); dashed links are guesses
    or worst cases.
    When all three legs are present the triangle joining P, U and E is drawn thick and black.
    Returns the matplotlib `Axes`.

    Raises:
        ValueError: `report` is not a `SessionReport`.
    """
    import matplotlib.pyplot as plt

    if not isinstance(report, SessionReport):
        raise ValueError("plot_session needs a SessionReport: use analyse_session(tools) first")
    if ax is None:
        _figure, ax = plt.subplots(figsize=(8, 4.8))
    color = TRIFECTA_COLOR if report.complete else _ABSENT
    corners = [_HUBS[leg] for leg in Leg] + [_HUBS[Leg.PRIVATE_DATA]]
    ax.plot(
        *zip(*corners),
        color=color,
        lw=5 if report.complete else 1.5,
        zorder=1,
        solid_capstyle="round",
    )
    xs, ys = [x for x, _y in _HUBS.values()], [y for _x, y in _HUBS.values()]
    for legs, items in _tools_by_legs(report).items():
        base, along = _placement(legs)
        for k, item in enumerate(items):
            offset = (k - (len(items) - 1) / 2) * 0.7
            x, y = base[0] + along[0] * offset, base[1] + along[1] * offset
            xs.append(x)
            ys.append(y)
            _draw_tool(ax, report, item, legs, (x, y))
    _draw_hubs(ax, report)
    ax.legend(
        handles=_legend_handles(report, color),
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
        frameon=False,
        fontsize=9,
    )
    ax.set_xlim(min(xs) - 0.45, max(xs) + 0.45)
    ax.set_ylim(min(ys) - 0.45, max(ys) + 0.5)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(
        title
        or (_("Lethal trifecta: complete") if report.complete else _("Lethal trifecta: incomplete"))
    )
    localise_fonts(ax.figure)
    return ax


def _supplies(report: SessionReport, item: SessionTool, leg: Leg) -> list[Any]:
    """The report's evidence that tool `item` supplies `leg`."""
    return [
        s
        for s in report.supplies
        if s.tool == item.name and s.server == item.server and s.leg is leg
    ]


def _tools_by_legs(report: SessionReport) -> dict[tuple[Leg, ...], list[SessionTool]]:
    """The session's tools grouped by the legs each supplies, in the report's order."""
    groups: dict[tuple[Leg, ...], list[SessionTool]] = {}
    for item in report.tools:
        legs = tuple(leg for leg in Leg if _supplies(report, item, leg))
        groups.setdefault(legs, []).append(item)
    return groups


def _placement(legs: tuple[Leg, ...]) -> tuple[tuple[float, float], tuple[float, float]]:
    """Where a group of tools sits (its base point) and the direction its tools spread along."""
    if not legs:
        return (1.0, -0.75), (1.0, 0.0)  # below the triangle
    mean_x = sum(_HUBS[leg][0] for leg in legs) / len(legs)
    mean_y = sum(_HUBS[leg][1] for leg in legs) / len(legs)
    # push tools outward from the centre so links do not cross the triangle
    push = 0.6 if len(legs) == 1 else 0.9
    dx, dy = mean_x - _CENTRE[0], mean_y - _CENTRE[1]
    norm = max((dx * dx + dy * dy) ** 0.5, 1e-9)
    return (mean_x + push * dx / norm, mean_y + push * dy / norm), (-dy / norm, dx / norm)


def _draw_tool(
    ax: Axes,
    report: SessionReport,
    item: SessionTool,
    legs: tuple[Leg, ...],
    at: tuple[float, float],
) -> None:
    """One tool: a link to each leg it supplies (dashed for a guess or a worst case), a pie of
    its legs' colours (grey when it supplies none) and its name below."""
    from matplotlib.patches import Wedge

    x, y = at
    for leg in legs:
        guessed = all(
            s.basis in (Basis.GUESS, Basis.WORST_CASE) for s in _supplies(report, item, leg)
        )
        ax.plot(
            [x, _HUBS[leg][0]],
            [y, _HUBS[leg][1]],
            color=LEG_COLORS[leg],
            lw=1.2,
            ls="--" if guessed else "-",
            zorder=2,
        )
    share = 360 / len(legs) if legs else 360
    for n, leg in enumerate(legs):
        ax.add_patch(
            Wedge(
                (x, y), 0.13, 90 + n * share, 90 + (n + 1) * share, color=LEG_COLORS[leg], zorder=3
            )
        )
    if not legs:
        ax.add_patch(Wedge((x, y), 0.13, 0, 360, color="#999999", zorder=3))
    ax.annotate(
        item.name,
        (x, y),
        xytext=(0, -16),
        textcoords="offset points",
        ha="center",
        va="top",
        fontsize=9,
        zorder=4,
    )


def _draw_hubs(ax: Axes, report: SessionReport) -> None:
    """The three lettered leg nodes: filled when the session has the leg, hollow when not."""
    for leg, (x, y) in _HUBS.items():
        present = bool(report.suppliers(leg))
        ax.scatter(
            [x],
            [y],
            s=700,
            color=LEG_COLORS[leg] if present else "white",
            edgecolors=LEG_COLORS[leg],
            linewidths=2,
            zorder=5,
        )
        ax.text(
            x,
            y,
            LEG_LETTERS[leg],
            ha="center",
            va="center",
            fontsize=11,
            fontweight="bold",
            color="white" if present else LEG_COLORS[leg],
            zorder=6,
        )


def _legend_handles(report: SessionReport, color: str) -> list[Any]:
    from matplotlib.lines import Line2D

    handles: list[Any] = [
        Line2D(
            [],
            [],
            marker="o",
            ls="",
            ms=11,
            color=LEG_COLORS[leg],
            label=f"{LEG_LETTERS[leg]}  {_(str(leg))}"
            + ("" if report.suppliers(leg) else _(" (absent)")),
        )
        for leg in Leg
    ]
    handles.append(Line2D([], [], color="#555555", ls="--", label=_("guess or worst case")))
    handles.append(
        Line2D(
            [],
            [],
            color=color,
            lw=4,
            label=_("all three legs: trifecta") if report.complete else _("trifecta incomplete"),
        )
    )
    return handles
