"""The set-up check of lesson 00: which versions are installed, and are they the ones the course
needs.

It needs only the standard library to run, so it can report a missing package instead of
failing on it (it shows a pandas table when pandas is there, plain text otherwise).

Introduced in: notebooks/00_start_here.ipynb
"""

from __future__ import annotations

import sys
from importlib import metadata
from typing import Any

__all__ = ["REQUIREMENTS", "PlainReport", "environment_report"]

# package -> (lowest supported major.minor, first unsupported major or None, why the course needs
# it)
REQUIREMENTS: dict[str, tuple[tuple[int, int], int | None, str]] = {
    "mcp": ((2, 0), 3, "the MCP Python SDK 2.x: MCPServer, mcp.Client"),
    "pandas": ((2, 1), None, "tool tables"),
    "matplotlib": ((3, 8), None, "decision matrices and figures"),
    "nest-asyncio": ((1, 6), None, "synchronous helpers inside Jupyter"),
    "jupyterlab": ((4, 0), None, "where you read the lessons"),
    "nbval": ((0, 11), None, "runs every lesson as a test"),
}


def _version_tuple(version: str) -> tuple[int, int]:
    parts = []
    for piece in version.split(".")[:2]:
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits or 0))
    while len(parts) < 2:
        parts.append(0)
    return parts[0], parts[1]


def environment_report() -> Any:
    """Return one row per package the course needs: installed version and whether it is supported.

    The `ok` column is what to look at; when a row is not ok, a `what to do` column says how to fix
    it.
    """
    rows = [
        {
            "package": "python",
            "installed": ".".join(map(str, sys.version_info[:3])),
            "ok": sys.version_info >= (3, 10),
            "needed for": "the course needs Python 3.10 or newer",
            "what to do": ""
            if sys.version_info >= (3, 10)
            else "install Python 3.10+ and re-run the README's first command",
        }
    ]
    for package, (lowest, first_bad_major, why) in REQUIREMENTS.items():
        try:
            installed = metadata.version(package)
        except metadata.PackageNotFoundError:
            installed = None
        ok = installed is not None and _version_tuple(installed) >= lowest
        if ok and first_bad_major is not None:
            ok = _version_tuple(installed)[0] < first_bad_major  # type: ignore[arg-type]
        wanted = f">={lowest[0]}.{lowest[1]}" + (f",<{first_bad_major}" if first_bad_major else "")
        rows.append(
            {
                "package": package,
                "installed": installed or "missing",
                "ok": ok,
                "needed for": why,
                "what to do": "" if ok else f'pip install "{package}{wanted}"',
            }
        )
    if all(row["ok"] for row in rows):
        for row in rows:
            del row["what to do"]
    try:
        import pandas as pd
    except ImportError:
        return PlainReport(rows)
    return pd.DataFrame(rows).set_index("package")


class PlainReport(list):
    """The report as a list of rows, shown as plain text (used when pandas itself is missing)."""

    def __repr__(self) -> str:
        columns = list(self[0])
        widths = {c: max(len(c), *(len(str(row[c])) for row in self)) for c in columns}
        lines = ["  ".join(c.ljust(widths[c]) for c in columns)]
        lines += ["  ".join(str(row[c]).ljust(widths[c]) for c in columns) for row in self]
        return "\n".join(lines)
