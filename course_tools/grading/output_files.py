"""How the grader writes what instructors open: whole files at once, and spreadsheet cells as text.

`replace_file` writes a file through a temporary file in the same folder and renames it over the
old one, so a reader (or a second grader) never sees half a gradebook. `spreadsheet_text` keeps a
cell that comes from a submission (a student's folder name, a note) from being a live formula
when the CSV is opened in a spreadsheet.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["replace_file", "spreadsheet_text"]


def replace_file(path: Path, text: str) -> None:
    """Write `text` to `path` whole: readers see the old file or the new one, never a part."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
        handle.write(text)
    os.replace(tmp, path)


def spreadsheet_text(cell: str) -> str:
    """A cell a spreadsheet shows as text: one starting = + - @ tab or CR gets a leading '.

    Student names and notes come from submissions; a name such as =HYPERLINK(...) would
    otherwise be a live formula when the gradebook is opened. Numbers are left as they are.
    """
    if cell[:1] in ("=", "+", "-", "@", "\t", "\r"):
        try:
            float(cell)
        except ValueError:
            return "'" + cell
    return cell
