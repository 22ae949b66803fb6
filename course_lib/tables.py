"""Tool lists as tables: one row per tool, declared hints beside their effective values.

Introduced in: notebooks/00_start_here.ipynb
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from .annotations import HINTS, Tools, as_tools, classify, declared, display_title, effective

__all__ = ["tools_table"]


def tools_table(tools: Tools) -> pd.DataFrame:
    """Return one row per tool: display title, hints as declared, and their effective values.

    Columns are two-level: ``("declared", hint)`` holds exactly what the server sent
    (`None` where a hint is absent, never shown as False); ``("effective", hint)`` holds
    the value after the spec's defaults ("n/a" where `readOnlyHint` makes a hint
    meaningless); ``("", "display title")`` is the name a UI shows by the spec's precedence
    (`title`, then `annotations.title`, then the tool's `name`; not a declared value) and
    ``("", "profile")`` the course's risk profile.
    """
    rows = []
    for tool in as_tools(tools):
        raw = declared(tool.annotations)
        eff = effective(tool.annotations).as_wire()
        row: dict[tuple[str, str], Any] = {("", "display title"): display_title(tool)}
        row.update({("declared", hint): raw[hint] for hint in HINTS})
        row.update({("effective", hint): eff[hint] for hint in HINTS})
        row[("", "profile")] = str(classify(tool.annotations))
        rows.append((tool.name, row))
    columns = pd.MultiIndex.from_tuples(
        [
            ("", "display title"),
            *[("declared", h) for h in HINTS],
            *[("effective", h) for h in HINTS],
            ("", "profile"),
        ]
    )
    frame = pd.DataFrame(
        [r for _, r in rows], index=pd.Index([n for n, _ in rows], name="tool"), columns=columns
    )
    return frame.astype(object)
