"""The course's figures: decision matrices, a session's trifecta and the monitoring dashboard.

`matrices` draws decision matrices, `session` a session's trifecta, `dashboard` lesson 06's
monitoring signals; `palette` holds the colours and symbols the first two use. Nothing here
changes global state: no `rcParams` edits, no `plt.show()`.

Introduced in: notebooks/03_combinations.ipynb (`plot_session` in 04_lethal_trifecta,
`plot_dashboard` in 06_beyond_hints).
"""

from __future__ import annotations

from .census import plot_declared_shares
from .client_census import OUTCOME_COLORS, plot_census
from .dashboard import plot_dashboard
from .matrices import plot_decision_matrices, plot_decision_matrix
from .palette import COLORS, SHORT_LABELS, SYMBOLS, UNTRUSTED_MARK, contrast_ratio, text_color
from .session import plot_session

__all__ = [
    "COLORS",
    "OUTCOME_COLORS",
    "SHORT_LABELS",
    "SYMBOLS",
    "UNTRUSTED_MARK",
    "contrast_ratio",
    "plot_census",
    "plot_dashboard",
    "plot_declared_shares",
    "plot_decision_matrices",
    "plot_decision_matrix",
    "plot_session",
    "text_color",
]
