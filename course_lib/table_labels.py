"""Tables shown in the learner's language, while their data stays the values a learner types.

A lesson's code indexes a table by its English names (``table.xs("before call", ...)``,
``real[("", "profile")] != "read-only"``) in both editions, so the data never changes: only
what the notebook *displays* does. `install` (run when a course table is first made inside
IPython) registers a display formatter for pandas frames and series; with ``COURSE_LANG=zh_CN``
it shows column and index headers in Chinese, and the values a learner writes with the Chinese
beside them (``确认 (confirm)``). In English it displays the table unchanged.

Introduced in: docs/book.md (the Chinese class); used by every table a lesson shows.
"""

from __future__ import annotations

import sys
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

from .i18n import ENGLISH, N_, beside, language, translate

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["HEADERS", "VALUES", "install", "localised"]

# Column and index names of the course's tables (shown in Chinese only).
HEADERS = frozenset(
    {
        N_("declared"),
        N_("effective"),
        N_("profile"),
        N_("display title"),
        N_("tool"),
        N_("tools"),
        N_("combination"),
        N_("before call"),
        N_("after call"),
        N_("retry safe"),
        N_("reason"),
        N_("server"),
        N_("arguments"),
        N_("trust"),
        N_("decision"),
        N_("confirmation"),
        N_("outcome"),
        N_("side effects"),
        N_("finding"),
        N_("trust after"),
        N_("asked by"),
        N_("result"),
        N_("step"),
        N_("call"),
        N_("leg"),
        N_("present"),
        N_("supplied by"),
        N_("how sure"),
        N_("status"),
        N_("changed"),
        N_("from"),
        N_("to"),
        N_("signal"),
        N_("hour"),
        N_("time"),
        N_("event"),
        N_("count"),
        N_("field (wire)"),
        N_("package"),
    }
)

# Values of the course's vocabularies (PreCall, PostCall, Trust, Outcome, RiskProfile, Leg,
# Basis) and of hints: a learner writes them, so they are shown as "中文 (english)".
VALUES = frozenset(
    {
        N_("allow"),
        N_("confirm"),
        N_("confirm with warning"),
        N_("deny"),
        N_("trust output"),
        N_("treat as untrusted"),
        N_("trusted"),
        N_("untrusted"),
        N_("ran"),
        N_("tool error"),
        N_("asked"),
        N_("not run"),
        N_("denied"),
        N_("hidden"),
        N_("read-only"),
        N_("additive"),
        N_("idempotent write"),
        N_("destructive"),
        N_("private data"),
        N_("untrusted content"),
        N_("external communication"),
        N_("host label"),
        N_("declared hint"),
        N_("spec default"),
        N_("guess"),
        N_("worst case"),
        N_("absent"),
        N_("n/a"),
        N_("not asked"),
        N_("approved"),
        N_("declined"),
    }
)


def _header(label: Hashable) -> Hashable:
    if isinstance(label, tuple):
        return tuple(_header(part) for part in label)
    if isinstance(label, str) and label in HEADERS:
        return translate(label)
    return label


def _value(value: Any) -> Any:
    if isinstance(value, str) and value in VALUES:
        return beside(value)
    if isinstance(value, str) and value in HEADERS:  # a header used as a label, e.g. "tools"
        return translate(value)
    return value


def _index(index: pd.Index) -> pd.Index:
    import pandas as pd

    names = [_header(n) for n in index.names]
    if isinstance(index, pd.MultiIndex):
        return pd.MultiIndex.from_tuples(
            [tuple(_value(_header(v)) for v in t) for t in index], names=names
        )
    if pd.api.types.is_numeric_dtype(index) or pd.api.types.is_datetime64_any_dtype(index):
        return index.rename(names[0])
    return pd.Index([_value(_header(v)) for v in index], name=names[0])


def localised(table: Any) -> Any:
    """The table as the learner's language shows it (itself in English); data is not changed."""
    import pandas as pd

    if language() == ENGLISH or not isinstance(table, (pd.DataFrame, pd.Series)):
        return table
    shown = table.copy()
    shown.index = _index(shown.index)
    if isinstance(shown, pd.DataFrame):
        shown.columns = _index(shown.columns)
        return shown.map(_value)
    shown.name = _header(shown.name)
    return shown.map(_value)


def _html(table: Any) -> str | None:
    return localised(table)._repr_html_()


def _plain(table: Any, printer: Any, cycle: bool) -> None:
    import pandas as pd

    shown = localised(table)
    # a Chinese character takes two columns: align the columns by what the screen shows
    with pd.option_context("display.unicode.east_asian_width", shown is not table):
        printer.text(repr(shown))


_installed = False


def install() -> None:
    """Show pandas tables in the learner's language in this IPython kernel (once; else nothing).

    Cheap: it imports neither IPython nor pandas (formatters are registered by type name).
    """
    global _installed
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None and not _installed else None
    if shell is None:
        return
    formatters = shell.display_formatter.formatters
    # pandas 2 and 3 name their classes' module "pandas"; older ones the defining module
    for module in ("pandas", "pandas.core.frame"):
        formatters["text/html"].for_type_by_name(module, "DataFrame", _html)
        formatters["text/plain"].for_type_by_name(module, "DataFrame", _plain)
    for module in ("pandas", "pandas.core.series"):
        formatters["text/plain"].for_type_by_name(module, "Series", _plain)
    _installed = True
