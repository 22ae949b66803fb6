"""Decision matrices: every combination of the four hints against what a client decides.

One matrix is a 9 x 9 grid covering all 81 combinations: rows set `readOnlyHint` and
`destructiveHint`, columns set `idempotentHint` and `openWorldHint` (each true, false or
absent). A cell's colour and symbol give the decision before the call (the legend spells each
one out in the same words as `PreCall`'s values and the tables); a black corner marks a tool
whose output the client treats as untrusted after the call (no corner: "trust output", the
output goes to the model unreviewed). Colours and symbols are in `course_lib.plots.palette`.

Nothing here changes global state: no `rcParams` edits, no `plt.show()`. Without `ax=`, a new
figure is made with pyplot, so Jupyter displays it at the end of the cell.

Introduced in: notebooks/03_combinations.ipynb
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from matplotlib.axes import Axes
from matplotlib.patches import Polygon, Rectangle
from matplotlib.transforms import ScaledTranslation, blended_transform_factory

from ..annotations import HINTS
from ..clients import POLICIES
from ..combinations import HINT_VALUES, decision_matrix
from ..decisions import PostCall, PreCall, Trust, as_trust
from ..i18n import gettext_ as _
from ..policy import Policy, as_policies, as_policy
from .fonts import localise_fonts
from .palette import COLORS, SYMBOLS, UNTRUSTED_MARK, legend_handles, text_color

__all__ = ["plot_decision_matrices", "plot_decision_matrix"]

_CORNER = 0.2  # length of the corner triangle's legs, in cells
_INSET = 0.07  # gap between the corner and the cell's edges, so it never touches the block lines

_ROW_HINTS = HINTS[:2]  # readOnlyHint, destructiveHint
_COL_HINTS = HINTS[2:]  # idempotentHint, openWorldHint
_SHORT = {
    "readOnlyHint": "readOnly",
    "destructiveHint": "destructive",
    "idempotentHint": "idempotent",
    "openWorldHint": "openWorld",
}
_DPI = 72  # modest resolution for new figures: notebooks that store them stay small


def _word(value: bool | None) -> str:
    return _("absent") if value is None else str(value).lower()


def _pairs() -> list[tuple[bool | None, bool | None]]:
    return [(a, b) for a in HINT_VALUES for b in HINT_VALUES]


def _pair_label(names: Sequence[str], values: tuple[bool | None, bool | None]) -> str:
    return " · ".join(f"{_SHORT[n]} {_word(v)}" for n, v in zip(names, values))


def _new_axes(
    figsize: tuple[float, float], nrows: int = 1, ncols: int = 1, dpi: float = _DPI
) -> list[Axes]:
    # only when no `ax` is given: pyplot lets Jupyter show the figure
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(
        nrows, ncols, figsize=figsize, dpi=dpi, squeeze=False, layout="constrained"
    )
    return list(axes.flat)


@dataclass
class _Seen:
    """What the drawn matrices show, so the legend lists only that."""

    decisions: set[PreCall] = field(default_factory=set)
    trusted: bool = False
    untrusted: bool = False

    def add(self, matrix: Any) -> None:
        self.decisions |= {PreCall(v) for v in matrix["before call"]}
        untrusted = matrix["after call"] == PostCall.UNTRUSTED.value
        self.untrusted |= bool(untrusted.any())
        self.trusted |= bool((~untrusted).any())

    def handles(self) -> list[Any]:
        return legend_handles(self.decisions, self.trusted, self.untrusted)


def plot_decision_matrix(
    policy: Policy,
    *,
    trust: Trust = Trust.UNTRUSTED,
    ax: Axes | None = None,
    legend: bool = True,
    title: str | None = None,
    ylabels: bool = True,
    block_labels: bool = True,
    fontsize: float = 9.0,
    dpi: float = _DPI,
) -> Axes:
    """Draw `policy`'s decision for every combination of the four hints as a 9 x 9 heatmap.

    Rows are `readOnlyHint` x `destructiveHint`, columns `idempotentHint` x `openWorldHint`,
    each through true, false, absent. The slower-varying hint labels each block of three (rows:
    left, columns: top); the faster one labels each row or column (right, bottom). Each cell is a
    `Rectangle` whose colour is the decision
    before the call (`COLORS`), with the decision's symbol (`SYMBOLS`) written in it; a
    black corner triangle (a `Polygon`) marks a cell whose output the client treats as untrusted.

    Args:
        policy: the client policy, e.g. `SPEC` or `VSCODE`.
        trust: the trust level of the server whose tools are judged (default untrusted).
        ax: the Axes to draw on; a new figure is made when omitted.
        legend: draw a legend below the grid.
        title: the title; default ``"<policy name>, <trust> server"``.
        ylabels: write the `destructiveHint` value of each row, right of the grid.
        block_labels: write the `readOnlyHint` label of each block of rows, horizontally, left of
        the grid.
        fontsize: size of the labels, in points (the cell symbols are twice as large).
        dpi: resolution of a new figure (ignored with `ax=`); keep it modest for stored notebooks.

    Returns:
        The Axes drawn on.

    Raises:
        ValueError: `policy` is not a `Policy` or the trust level is unknown.
    """
    policy = as_policy(policy)
    trust = as_trust(trust)
    if ax is None:
        ax = _new_axes((6.4, 6.9), dpi=dpi)[0]
    elif not isinstance(ax, Axes):
        raise ValueError(
            f"ax must be a matplotlib Axes (e.g. from plt.subplots()), not {type(ax).__name__}"
        )
    matrix = decision_matrix(policy, trust=trust)
    _draw_cells(ax, matrix, fontsize)
    _label_grid(ax, ylabels, fontsize)
    _label_blocks(ax, block_labels, fontsize)
    ax.set_title(
        title
        if title is not None
        else _("{policy}, {trust} server").format(policy=policy.name, trust=_(trust.value)),
        fontsize=fontsize + 3,
        pad=fontsize * 2.2 + 3,
    )
    if legend:
        seen = _Seen()
        seen.add(matrix)
        ax.legend(
            handles=seen.handles(),
            loc="upper center",
            bbox_to_anchor=(0.5, -0.09),
            ncols=2,
            fontsize=fontsize,
            frameon=False,
        )
    localise_fonts(ax.figure)
    return ax


def _draw_cells(ax: Axes, matrix: Any, fontsize: float) -> None:
    """One coloured cell per combination, its symbol in it, a corner where output is untrusted;
    then the lines between the blocks of three."""
    rows, cols = _pairs(), _pairs()
    for _row, entry in matrix.iterrows():
        r = rows.index((entry[_ROW_HINTS[0]], entry[_ROW_HINTS[1]]))
        c = cols.index((entry[_COL_HINTS[0]], entry[_COL_HINTS[1]]))
        pre = PreCall(entry["before call"])
        gid = f"{_pair_label(_ROW_HINTS, rows[r])} · {_pair_label(_COL_HINTS, cols[c])}"
        ax.add_patch(
            Rectangle(
                (c, r),
                1,
                1,
                facecolor=COLORS[pre],
                edgecolor="white",
                linewidth=0.8,
                gid=f"cell:{gid}",
                label=pre.value,
            )
        )
        if PostCall(entry["after call"]) is PostCall.UNTRUSTED:
            _draw_corner(ax, r, c, gid)
        ax.text(
            c + 0.5,
            r + 0.5,
            SYMBOLS[pre],
            ha="center",
            va="center",
            fontsize=fontsize * 2,
            color=text_color(COLORS[pre]),
            fontweight="bold",
            gid="cell-label",
        )
    for k in (3, 6):  # separate the blocks of the slower-varying hint
        ax.axhline(k, color="black", linewidth=1.6)
        ax.axvline(k, color="black", linewidth=1.6)


def _draw_corner(ax: Axes, r: int, c: int, gid: str) -> None:
    """The black corner triangle of an untrusted cell, inset from the cell's edges."""
    right, top = c + 1 - _INSET, r + _INSET
    corner = [(right - _CORNER, top), (right, top), (right, top + _CORNER)]
    ax.add_patch(
        Polygon(
            corner, closed=True, facecolor=UNTRUSTED_MARK, edgecolor="none", gid=f"untrusted:{gid}"
        )
    )


def _label_grid(ax: Axes, ylabels: bool, fontsize: float) -> None:
    """Each column's value below the grid, each row's on the right; no ticks, no frame."""
    rows, cols = _pairs(), _pairs()
    ax.set_xlim(0, 9)
    ax.set_ylim(9, 0)  # first combination at the top left
    ax.set_aspect("equal")
    ax.tick_params(length=0, labelsize=fontsize)
    ax.set_xticks([i + 0.5 for i in range(9)])
    ax.set_xticklabels([_word(p[1]) for p in cols])
    ax.set_xlabel(_SHORT[_COL_HINTS[1]], fontsize=fontsize + 1, fontweight="bold", labelpad=2)
    # like the columns (blocks on top, values below), rows have blocks on the left, values on
    # the right
    ax.yaxis.tick_right()
    ax.yaxis.set_label_position("right")
    ax.set_yticks([i + 0.5 for i in range(9)])
    ax.set_yticklabels([_word(p[1]) for p in rows] if ylabels else [])
    if ylabels:
        ax.set_ylabel(
            _SHORT[_ROW_HINTS[1]],
            fontsize=fontsize + 1,
            fontweight="bold",
            labelpad=4,
            rotation=270,
            va="bottom",
        )
    for spine in ax.spines.values():
        spine.set_visible(False)


def _label_blocks(ax: Axes, block_labels: bool, fontsize: float) -> None:
    """The slower-varying hints label each block of three: columns on top, rows on the left."""
    # readOnly, the hint that matters most, labels each block of rows horizontally on the left
    left = blended_transform_factory(ax.transAxes, ax.transData) + ScaledTranslation(
        -fontsize / 2 / 72, 0, ax.figure.dpi_scale_trans
    )
    for block, value in enumerate(HINT_VALUES):
        ax.text(
            3 * block + 1.5,
            -0.15,
            f"{_SHORT[_COL_HINTS[0]]} {_word(value)}",
            ha="center",
            va="bottom",
            fontsize=fontsize + 1,
            fontweight="bold",
            gid="block-label",
        )
        if block_labels:
            ax.text(
                0,
                3 * block + 1.5,
                f"{_SHORT[_ROW_HINTS[0]]}\n{_word(value)}",
                transform=left,
                ha="right",
                va="center",
                fontsize=fontsize + 1,
                fontweight="bold",
                gid="block-label",
            )


def plot_decision_matrices(
    policies: Sequence[Policy] = POLICIES,
    *,
    trust: Trust = Trust.UNTRUSTED,
    ncols: int = 2,
    axes: Sequence[Axes] | None = None,
    fontsize: float = 9.0,
    dpi: float = _DPI,
) -> list[Axes]:
    """Draw several policies' decision matrices side by side, with one shared legend.

    Every policy judges the same server at the same `trust` level, so cells that differ
    between panels show where clients disagree. Every panel carries its own row and block
    labels, so each can be read (or projected) alone.

    Args:
        policies: the policies, one panel each, left to right (default: the standard line-up).
        trust: the trust level of the server (default untrusted).
        ncols: panels per row when a new figure is made.
        axes: one Axes per policy to draw on; a new figure is made when omitted.
        fontsize: size of the labels, in points (the cell symbols are twice as large).
        dpi: resolution of a new figure (ignored with `axes=`).

    Returns:
        The Axes, one per policy, in order.

    Raises:
        ValueError: no policies, a non-`Policy`, an unknown trust level, `ncols` below 1,
            or a wrong number of Axes.
    """
    policies = as_policies(policies)
    trust = as_trust(trust)
    if isinstance(ncols, bool) or not isinstance(ncols, int) or ncols < 1:
        raise ValueError(
            f"ncols must be a whole number of panels per row, at least 1, not {ncols!r}"
        )
    axes = _panels(len(policies), ncols, axes, dpi)
    seen = _Seen()
    for policy, ax in zip(policies, axes):
        plot_decision_matrix(
            policy, trust=trust, ax=ax, legend=False, title=policy.name, fontsize=fontsize
        )
        seen.add(decision_matrix(policy, trust=trust))
    figure = axes[0].figure
    handles = seen.handles()
    if _is_constrained(figure):
        figure.legend(
            handles=handles,
            loc="outside lower center",
            ncols=min(len(handles), 3),
            fontsize=fontsize + 1,
            frameon=False,
        )
    else:  # the caller's own layout: keep the legend beside the last panel
        axes[-1].legend(
            handles=handles,
            loc="upper left",
            bbox_to_anchor=(1.02, 1.0),
            fontsize=fontsize,
            frameon=False,
        )
    figure.suptitle(
        _("Decision for every combination of hints, {trust} server").format(trust=_(str(trust))),
        fontsize=fontsize + 4,
    )
    localise_fonts(figure)
    return axes


def _panels(count: int, ncols: int, axes: Sequence[Axes] | None, dpi: float) -> list[Axes]:
    """`count` Axes: the caller's (exactly one per policy), or a new grid `ncols` wide whose spare
    panels are hidden."""
    if axes is not None:
        given = list(axes)
        if len(given) != count:
            raise ValueError(
                f"got {len(given)} Axes for {count} policies: pass one Axes per policy"
            )
        return given
    ncols = min(ncols, count)
    nrows = -(-count // ncols)
    grid = _new_axes((6.6 * ncols, 6.4 * nrows + 0.8), nrows=nrows, ncols=ncols, dpi=dpi)
    for spare in grid[count:]:
        spare.set_axis_off()
    return grid[:count]


def _is_constrained(figure: Any) -> bool:
    engine = figure.get_layout_engine()
    return engine is not None and type(engine).__name__ == "ConstrainedLayoutEngine"
