"""The course's figures: decision matrices (81 combinations per client) and a session's trifecta.

`matrices` draws decision matrices, `session` a session's trifecta, `palette` holds the colours
and symbols both use. Nothing here changes global state: no `rcParams` edits, no `plt.show()`.

Introduced in: notebooks/03_combinations.ipynb (`plot_session` in 04_lethal_trifecta).
"""

from __future__ import annotations

from .matrices import plot_decision_matrices, plot_decision_matrix
from .palette import COLORS, SHORT_LABELS, SYMBOLS, UNTRUSTED_MARK, contrast_ratio, text_color
from .session import plot_session

__all__ = [
    "COLORS",
    "SHORT_LABELS",
    "SYMBOLS",
    "UNTRUSTED_MARK",
    "contrast_ratio",
    "plot_decision_matrices",
    "plot_decision_matrix",
    "plot_session",
    "text_color",
]
