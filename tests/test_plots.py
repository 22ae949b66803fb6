"""Tests for course_lib.plots: the decision matrices, checked on the returned Axes (Agg backend)."""

from __future__ import annotations

from collections import Counter

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402
from matplotlib.patches import Polygon, Rectangle  # noqa: E402

from course_lib.combinations import decision_matrix
from course_lib.plots import (  # noqa: E402
    COLORS,
    SHORT_LABELS,
    SYMBOLS,
    UNTRUSTED_MARK,
    contrast_ratio,
    plot_decision_matrices,
    plot_decision_matrix,
    text_color,
)
from course_lib.policy import CURSOR_ASK, SPEC, VSCODE  # noqa: E402
from course_lib.decisions import PostCall, PreCall, Trust


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def cells(ax):
    return [p for p in ax.patches if isinstance(p, Rectangle) and (p.get_gid() or "").startswith("cell:")]


def untrusted_marks(ax):
    return [p for p in ax.patches if isinstance(p, Polygon) and (p.get_gid() or "").startswith("untrusted:")]


def cell_words(ax):
    return [t.get_text() for t in ax.texts if t.get_gid() == "cell-label"]


def test_decision_matrix_draws_one_cell_and_one_word_per_combination():
    ax = plot_decision_matrix(SPEC, trust=Trust.TRUSTED)
    assert len(cells(ax)) == 81
    assert len(cell_words(ax)) == 81
    assert len({c.get_gid() for c in cells(ax)}) == 81


def test_each_cell_is_coloured_by_its_decision_before_the_call():
    ax = plot_decision_matrix(SPEC, trust=Trust.TRUSTED)
    colours = Counter(to_hex(c.get_facecolor()).upper() for c in cells(ax))
    assert colours == {COLORS[PreCall.ALLOW]: 27, COLORS[PreCall.CONFIRM]: 18, COLORS[PreCall.WARN]: 36}


def test_each_cell_writes_its_decision_symbol_and_symbols_match_colours():
    ax = plot_decision_matrix(CURSOR_ASK)
    words = Counter(cell_words(ax))
    assert words == {SYMBOLS[PreCall.ALLOW]: 27, SYMBOLS[PreCall.DENY]: 54}
    for cell in cells(ax):
        assert to_hex(cell.get_facecolor()).upper() == COLORS[PreCall(cell.get_label())]


def test_figures_use_the_same_words_for_decisions_as_the_tables():
    assert all(SHORT_LABELS[p] == p.value for p in PreCall)
    assert len(set(SYMBOLS.values())) == len(PreCall)


@pytest.mark.parametrize("decision", list(PreCall))
def test_cell_symbols_contrast_with_their_background_at_least_4_5_to_1(decision):
    ax = plot_decision_matrix(SPEC if decision is not PreCall.DENY else CURSOR_ASK, trust=Trust.TRUSTED)
    colours = {t.get_text(): t.get_color() for t in ax.texts if t.get_gid() == "cell-label"}
    if SYMBOLS[decision] in colours:
        assert colours[SYMBOLS[decision]] == text_color(COLORS[decision])
    assert contrast_ratio(text_color(COLORS[decision]), COLORS[decision]) >= 4.5


def test_contrast_ratio_spans_1_to_21():
    assert contrast_ratio("black", "white") == pytest.approx(21.0)
    assert contrast_ratio("#009E73", "#009E73") == pytest.approx(1.0)
    assert text_color("#009E73") == "black"  # white on this green is only about 3.4:1


def test_cells_whose_output_is_untrusted_carry_a_black_corner_mark():
    ax = plot_decision_matrix(SPEC, trust=Trust.TRUSTED)
    marks = untrusted_marks(ax)
    assert len(marks) == 54  # openWorldHint true or absent
    assert all("openWorld false" not in m.get_gid() for m in marks)
    assert {to_hex(m.get_facecolor()) for m in marks} == {to_hex(UNTRUSTED_MARK)}
    cell_ids = {c.get_gid()[len("cell:"):] for c in cells(ax)}
    assert {m.get_gid()[len("untrusted:"):] for m in marks} <= cell_ids


def test_corner_mark_sits_inside_its_cell_clear_of_the_cell_edges():
    ax = plot_decision_matrix(SPEC, trust=Trust.TRUSTED)
    by_id = {c.get_gid()[len("cell:"):]: c for c in cells(ax)}
    for mark in untrusted_marks(ax):
        x, y = by_id[mark.get_gid()[len("untrusted:"):]].get_xy()
        xs, ys = mark.get_xy()[:, 0], mark.get_xy()[:, 1]
        assert x < xs.min() and xs.max() < x + 1 and y < ys.min() and ys.max() < y + 1  # never touches a block line


def test_vscode_matrix_marks_only_an_explicit_open_world_true():
    marks = untrusted_marks(plot_decision_matrix(VSCODE))
    assert len(marks) == 27
    assert all(m.get_gid().endswith("openWorld true") for m in marks)


def test_cell_position_matches_the_hints_in_its_label():
    ax = plot_decision_matrix(SPEC, trust=Trust.TRUSTED)
    top_left = next(c for c in cells(ax) if c.get_xy() == (0, 0))
    assert top_left.get_gid() == "cell:readOnly true · destructive true · idempotent true · openWorld true"
    bottom_right = next(c for c in cells(ax) if c.get_xy() == (8, 8))
    assert bottom_right.get_gid() == "cell:readOnly absent · destructive absent · idempotent absent · openWorld absent"
    assert bottom_right.get_label() == decision_matrix(SPEC, trust=Trust.TRUSTED).loc[81, "before call"]


def test_axes_carry_readable_labels_a_title_and_a_legend():
    ax = plot_decision_matrix(SPEC, trust=Trust.TRUSTED)
    assert ax.get_title() == "spec (reference), trusted server"
    assert [t.get_text() for t in ax.get_yticklabels()][:3] == ["true", "false", "absent"]
    assert ax.get_ylabel() == "destructive"
    assert [t.get_text() for t in ax.get_xticklabels()][:3] == ["true", "false", "absent"]
    assert ax.get_xlabel() == "openWorld"
    blocks = {t.get_text() for t in ax.texts if t.get_gid() == "block-label"}
    assert {"idempotent true", "readOnly\nabsent"} <= blocks
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == [
        f"{SYMBOLS[PreCall.ALLOW]}  allow",
        f"{SYMBOLS[PreCall.CONFIRM]}  confirm",
        f"{SYMBOLS[PreCall.WARN]}  confirm with warning",
        f"no corner: {PostCall.TRUST.value} (unreviewed)",
        f"corner: {PostCall.UNTRUSTED.value}",
    ]


def test_read_only_block_labels_are_horizontal_and_left_of_the_grid():
    ax = plot_decision_matrix(SPEC, trust=Trust.TRUSTED)
    ax.figure.canvas.draw()
    grid_left = ax.get_window_extent().x0
    labels = [t for t in ax.texts if t.get_gid() == "block-label" and t.get_text().startswith("readOnly")]
    assert len(labels) == 3
    for label in labels:
        assert label.get_rotation() == 0
        assert label.get_window_extent().x1 < grid_left


def test_legend_lists_only_decisions_that_occur():
    ax = plot_decision_matrix(CURSOR_ASK)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == [f"{SYMBOLS[PreCall.ALLOW]}  allow", f"{SYMBOLS[PreCall.DENY]}  deny", "no corner: trust output (unreviewed)"]


def test_plot_draws_on_the_given_axes_and_returns_it():
    fig, ax = plt.subplots()
    assert plot_decision_matrix(VSCODE, ax=ax, legend=False) is ax
    assert ax.get_legend() is None
    assert len(fig.axes) == 1


def test_plotting_changes_no_global_matplotlib_settings():
    before = dict(matplotlib.rcParams)
    plot_decision_matrix(SPEC)
    plot_decision_matrices([SPEC, VSCODE])
    assert dict(matplotlib.rcParams) == before


def test_side_by_side_draws_one_panel_per_policy_with_one_shared_legend():
    axes = plot_decision_matrices([SPEC, VSCODE, CURSOR_ASK], trust=Trust.TRUSTED)
    assert [ax.get_title() for ax in axes] == [SPEC.name, VSCODE.name, CURSOR_ASK.name]
    assert all(len(cells(ax)) == 81 for ax in axes)
    figure = axes[0].figure
    assert len(figure.legends) == 1
    assert [t.get_text() for t in figure.legends[0].get_texts()][-2:] == ["no corner: trust output (unreviewed)", "corner: treat as untrusted"]
    assert "trusted server" in figure.get_suptitle()
    for ax in axes:  # every panel can be read on its own
        assert [t.get_text() for t in ax.get_yticklabels()][:3] == ["true", "false", "absent"]
        assert sum(t.get_text().startswith("readOnly") for t in ax.texts) == 3


def test_new_figures_use_a_modest_resolution_unless_asked():
    assert plot_decision_matrix(SPEC).figure.dpi == 72
    assert plot_decision_matrices([SPEC], dpi=100)[0].figure.dpi == 100


def test_side_by_side_wraps_panels_and_hides_spare_axes():
    axes = plot_decision_matrices([SPEC, VSCODE, CURSOR_ASK, SPEC], ncols=3)
    figure = axes[0].figure
    assert len(axes) == 4
    assert len(figure.axes) == 6
    assert sum(not ax.axison for ax in figure.axes) == 2


def test_side_by_side_panels_differ_where_clients_disagree():
    spec, vscode = plot_decision_matrices([SPEC, VSCODE], trust=Trust.TRUSTED)
    differing = [a.get_gid() for a, b in zip(cells(spec), cells(vscode)) if a.get_label() != b.get_label()]
    assert len(differing) == 36  # the cells SPEC warns about; VS Code only confirms
    assert all("readOnly true" not in gid for gid in differing)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: plot_decision_matrix("spec"), "expected a Policy"),
        (lambda: plot_decision_matrix(SPEC, trust="maybe"), "trust must be Trust.TRUSTED or Trust.UNTRUSTED"),
        (lambda: plot_decision_matrix(SPEC, ax="left"), "ax must be a matplotlib Axes"),
        (lambda: plot_decision_matrices([]), "no policies given"),
        (lambda: plot_decision_matrices([SPEC], ncols=0), "ncols must be"),
        (lambda: plot_decision_matrices([SPEC, VSCODE], axes=[plt.subplots()[1]]), "one Axes per policy"),
    ],
)
def test_plots_reject_bad_input_with_a_clear_message(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_declared_shares_draw_one_bar_per_hint_and_a_tick_per_guess():
    from course_lib import plot_declared_shares

    ax = plot_declared_shares({"readOnlyHint": 0.46, "openWorldHint": 0.28}, guess={"readOnlyHint": 60})
    assert len(ax.patches) == 2
    assert {t.get_text() for t in ax.texts} == {"46%", "28%"}
    assert "your guess" in ax.get_xlabel()


@pytest.mark.parametrize(
    "shares, guess, message",
    [({"readOnlyHint": 46}, None, "between 0 and 1"), ({"readOnlyHint": 0.4}, {"readOnlyHint": 140}, "percentages"),
     ({"readOnlyHint": 0.4}, {"readonly": 50}, "does not count")],
)
def test_declared_shares_refuse_values_that_cannot_be_drawn(shares, guess, message):
    from course_lib import plot_declared_shares

    with pytest.raises(ValueError, match=message):
        plot_declared_shares(shares, guess)
