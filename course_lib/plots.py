"""Decision matrices: every combination of the four hints against what a client decides.

One matrix is a 9 x 9 grid covering all 81 combinations: rows set `readOnlyHint` and
`destructiveHint`, columns set `idempotentHint` and `openWorldHint` (each true, false or
absent). A cell's colour and word give the decision before the call; a black corner marks a
tool whose output the client treats as untrusted after the call. Colours come from the
Okabe-Ito palette, which stays distinguishable with the common colour-vision deficiencies,
and every colour is backed by a word in the cell, so nothing depends on colour alone.

Nothing here changes global state: no `rcParams` edits, no `plt.show()`. Without `ax=`, a new
figure is made with pyplot, so Jupyter displays it at the end of the cell.

Introduced in: notebooks/03_combinations.ipynb
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Polygon, Rectangle

from .annotations import HINTS
from .policy import HINT_VALUES, POLICIES, Policy, PostCall, PreCall, Trust, _policy, _trust, decision_matrix

__all__ = [
    "COLORS",
    "UNTRUSTED_MARK",
    "SHORT_LABELS",
    "plot_decision_matrices",
    "plot_decision_matrix",
]

COLORS: dict[PreCall, str] = {
    PreCall.ALLOW: "#009E73",  # Okabe-Ito bluish green
    PreCall.CONFIRM: "#F0E442",  # Okabe-Ito yellow
    PreCall.WARN: "#E69F00",  # Okabe-Ito orange
    PreCall.DENY: "#D55E00",  # Okabe-Ito vermillion
}
"""Cell colour for each decision before the call (Okabe-Ito palette)."""

_TEXT_COLORS: dict[PreCall, str] = {
    PreCall.ALLOW: "white",
    PreCall.CONFIRM: "black",
    PreCall.WARN: "black",
    PreCall.DENY: "white",
}

SHORT_LABELS: dict[PreCall, str] = {
    PreCall.ALLOW: "allow",
    PreCall.CONFIRM: "confirm",
    PreCall.WARN: "warn",
    PreCall.DENY: "deny",
}
"""The word written in a cell for each decision before the call."""

UNTRUSTED_MARK = "#000000"
"""Colour of the corner triangle on a cell whose output the client treats as untrusted."""

_CORNER = 0.34  # length of the corner triangle's legs, in cells

_EDGE = "#4d4d4d"
_ROW_HINTS = HINTS[:2]  # readOnlyHint, destructiveHint
_COL_HINTS = HINTS[2:]  # idempotentHint, openWorldHint
_SHORT = {"readOnlyHint": "readOnly", "destructiveHint": "destructive", "idempotentHint": "idempotent", "openWorldHint": "openWorld"}


def _word(value: bool | None) -> str:
    return "absent" if value is None else str(value).lower()


def _pairs() -> list[tuple[bool | None, bool | None]]:
    return [(a, b) for a in HINT_VALUES for b in HINT_VALUES]


def _pair_label(names: Sequence[str], values: tuple[bool | None, bool | None]) -> str:
    return " · ".join(f"{_SHORT[n]} {_word(v)}" for n, v in zip(names, values))


def _new_axes(figsize: tuple[float, float], nrows: int = 1, ncols: int = 1) -> list[Axes]:
    import matplotlib.pyplot as plt  # only when no `ax` is given: pyplot lets Jupyter show the figure

    fig, axes = plt.subplots(nrows, ncols, figsize=figsize, squeeze=False, layout="constrained")
    return list(axes.flat)


def _legend_handles(used: set[PreCall], show_untrusted: bool) -> list[Any]:
    handles = [
        Patch(facecolor=COLORS[p], edgecolor=_EDGE, label=f"{SHORT_LABELS[p]}: {p.value}" if SHORT_LABELS[p] != p.value else p.value)
        for p in PreCall
        if p in used
    ]
    if show_untrusted:
        handles.append(
            Line2D(
                [], [], linestyle="none", marker=[(-1, 1), (1, 1), (1, -1)], markersize=9,
                color=UNTRUSTED_MARK, label="corner: output treated as untrusted",
            )
        )
    return handles


def plot_decision_matrix(
    policy: Policy,
    *,
    trust: Trust | str = Trust.UNTRUSTED,
    ax: Axes | None = None,
    legend: bool = True,
    title: str | None = None,
    ylabels: bool = True,
    block_labels: bool = True,
    fontsize: float = 7.0,
) -> Axes:
    """Draw `policy`'s decision for every combination of the four hints as a 9 x 9 heatmap.

    Rows are `readOnlyHint` x `destructiveHint`, columns `idempotentHint` x `openWorldHint`,
    each through true, false, absent. Each cell is a `Rectangle` whose colour is the decision
    before the call (`COLORS`), with the decision's word (`SHORT_LABELS`) written in it; a
    black corner triangle (a `Polygon`) marks a cell whose output the client treats as untrusted.

    Args:
        policy: the client policy, e.g. `SPEC` or `VSCODE`.
        trust: the trust level of the server whose tools are judged (default untrusted).
        ax: the Axes to draw on; a new figure is made when omitted.
        legend: draw a legend beside the grid.
        title: the title; default ``"<policy name>, <trust> server"``.
        ylabels: write the row labels (turn off for the inner panels of a side-by-side figure).
        block_labels: write the `readOnlyHint` label of each block of rows, right of the grid.
        fontsize: size of the words in the cells and of the labels, in points.

    Returns:
        The Axes drawn on.

    Raises:
        ValueError: `policy` is not a `Policy` or the trust level is unknown.
    """
    policy = _policy(policy)
    trust = _trust(trust)
    if ax is None:
        ax = _new_axes((6.4, 6.6))[0]
    elif not isinstance(ax, Axes):
        raise ValueError(f"ax must be a matplotlib Axes (e.g. from plt.subplots()), not {type(ax).__name__}")

    matrix = decision_matrix(policy, trust=trust)
    rows, cols = _pairs(), _pairs()
    used: set[PreCall] = set()
    any_untrusted = False
    for _, entry in matrix.iterrows():
        r = rows.index((entry[_ROW_HINTS[0]], entry[_ROW_HINTS[1]]))
        c = cols.index((entry[_COL_HINTS[0]], entry[_COL_HINTS[1]]))
        pre = PreCall(entry["before call"])
        untrusted = PostCall(entry["after call"]) is PostCall.UNTRUSTED
        used.add(pre)
        any_untrusted |= untrusted
        cell = Rectangle(
            (c, r),
            1,
            1,
            facecolor=COLORS[pre],
            edgecolor="white",
            linewidth=0.8,
            gid=f"cell:{_pair_label(_ROW_HINTS, rows[r])} · {_pair_label(_COL_HINTS, cols[c])}",
            label=pre.value,
        )
        ax.add_patch(cell)
        if untrusted:
            corner = [(c + 1 - _CORNER, r), (c + 1, r), (c + 1, r + _CORNER)]
            ax.add_patch(Polygon(corner, closed=True, facecolor=UNTRUSTED_MARK, edgecolor="none", gid=f"untrusted:{cell.get_gid()[5:]}"))
        ax.text(
            c + 0.5,
            r + 0.5,
            SHORT_LABELS[pre],
            ha="center",
            va="center",
            fontsize=fontsize,
            color=_TEXT_COLORS[pre],
            fontweight="bold",
            gid="cell-label",
        )
    for k in (3, 6):  # separate the blocks of the slower-varying hint
        ax.axhline(k, color="black", linewidth=1.6)
        ax.axvline(k, color="black", linewidth=1.6)

    ax.set_xlim(0, 9)
    ax.set_ylim(9, 0)  # first combination at the top left
    ax.set_aspect("equal")
    ax.tick_params(length=0, labelsize=fontsize)
    ax.set_xticks([i + 0.5 for i in range(9)])
    ax.set_xticklabels([_word(p[1]) for p in cols])
    ax.set_xlabel(_SHORT[_COL_HINTS[1]], fontsize=fontsize + 0.5, fontweight="bold", labelpad=2)
    ax.set_yticks([i + 0.5 for i in range(9)])
    ax.set_yticklabels([f"{_SHORT[_ROW_HINTS[1]]} {_word(p[1])}" for p in rows] if ylabels else [])
    for spine in ax.spines.values():
        spine.set_visible(False)
    for block, value in enumerate(HINT_VALUES):  # the slower-varying hints label each block of three
        ax.text(
            3 * block + 1.5, -0.15, f"{_SHORT[_COL_HINTS[0]]} {_word(value)}",
            ha="center", va="bottom", fontsize=fontsize + 0.5, fontweight="bold", gid="block-label",
        )
        if block_labels:
            ax.text(
                9.15, 3 * block + 1.5, f"{_SHORT[_ROW_HINTS[0]]} {_word(value)}",
                ha="left", va="center", rotation=270, fontsize=fontsize + 0.5, fontweight="bold", gid="block-label",
            )
    ax.set_title(title if title is not None else f"{policy.name}, {trust.value} server", fontsize=fontsize + 2.5, pad=fontsize * 2.6 + 3)
    if legend:
        ax.legend(
            handles=_legend_handles(used, any_untrusted),
            loc="upper center",
            bbox_to_anchor=(0.5, -0.09),
            ncols=2,
            fontsize=fontsize + 0.5,
            frameon=False,
        )
    return ax


def plot_decision_matrices(
    policies: Sequence[Policy] = POLICIES,
    *,
    trust: Trust | str = Trust.UNTRUSTED,
    ncols: int = 3,
    axes: Sequence[Axes] | None = None,
) -> list[Axes]:
    """Draw several policies' decision matrices side by side, with one shared legend.

    Every policy judges the same server at the same `trust` level, so cells that differ
    between panels show where clients disagree.

    Args:
        policies: the policies, one panel each, left to right (default: the standard line-up).
        trust: the trust level of the server (default untrusted).
        ncols: panels per row when a new figure is made.
        axes: one Axes per policy to draw on; a new figure is made when omitted.

    Returns:
        The Axes, one per policy, in order.

    Raises:
        ValueError: no policies, a non-`Policy`, an unknown trust level, `ncols` below 1,
            or a wrong number of Axes.
    """
    if isinstance(policies, Policy):
        policies = [policies]
    policies = [_policy(p) for p in policies]
    if not policies:
        raise ValueError("no policies given: pass at least one, e.g. [SPEC, VSCODE]")
    trust = _trust(trust)
    if isinstance(ncols, bool) or not isinstance(ncols, int) or ncols < 1:
        raise ValueError(f"ncols must be a whole number of panels per row, at least 1, not {ncols!r}")
    if axes is None:
        ncols = min(ncols, len(policies))
        nrows = -(-len(policies) // ncols)
        grid = _new_axes((4.0 * ncols + 1.0, 4.5 * nrows + 0.6), nrows=nrows, ncols=ncols)
        for spare in grid[len(policies):]:
            spare.set_axis_off()
        axes = grid[: len(policies)]
    else:
        axes = list(axes)
        if len(axes) != len(policies):
            raise ValueError(f"got {len(axes)} Axes for {len(policies)} policies: pass one Axes per policy")
        ncols = len(axes)
    used: set[PreCall] = set()
    any_untrusted = False
    for i, (policy, ax) in enumerate(zip(policies, axes)):
        plot_decision_matrix(
            policy, trust=trust, ax=ax, legend=False, title=policy.name, ylabels=i % ncols == 0,
            block_labels=i % ncols == ncols - 1 or i == len(policies) - 1, fontsize=6.0
        )
        matrix = decision_matrix(policy, trust=trust)
        used |= {PreCall(v) for v in matrix["before call"]}
        any_untrusted |= bool((matrix["after call"] == PostCall.UNTRUSTED.value).any())
    figure = axes[0].figure
    handles = _legend_handles(used, any_untrusted)
    if _is_constrained(figure):
        figure.legend(handles=handles, loc="outside lower center", ncols=len(handles), fontsize=8, frameon=False)
    else:  # the caller's own layout: keep the legend beside the last panel
        axes[-1].legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=7, frameon=False)
    figure.suptitle(f"Decision for every combination of hints, {trust.value} server", fontsize=10)
    return axes


def _is_constrained(figure: Any) -> bool:
    engine = figure.get_layout_engine()
    return engine is not None and type(engine).__name__ == "ConstrainedLayoutEngine"
