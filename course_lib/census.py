"""The census of real servers: what 60-odd servers from npm and PyPI declare on their tools.

`load_census()` reads the committed data (`course_lib/data/census/`, made offline by
`python -m course_tools census run --write`): one row per server (package, version, protocol,
or why it did not start) and one per tool (its title, each hint as declared, other annotation
keys, its risk profile and inspect's findings). Hints are `True`, `False` or `None` (absent), as
`declared()` gives them: a hint is declared exactly when it is not `None`.

Introduced in: notebooks/02_defaults.ipynb (section "Silence in the wild"); the whole census:
the book's census page.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any

from .annotations import HINTS

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Census", "load_census"]

_WIRE = {"true": True, "false": False, "": None}


@dataclass(frozen=True)
class Census:
    """The committed census: `servers` and `tools` tables, and `about` (date, method, counts)."""

    servers: pd.DataFrame
    tools: pd.DataFrame
    about: dict[str, Any]

    @property
    def date(self) -> str:
        """The day the census ran (UTC), as YYYY-MM-DD."""
        return str(self.about["date"])

    def listed(self) -> pd.DataFrame:
        """The servers that listed their tools."""
        return self.servers[self.servers["status"] == "listed"]


def _hint(value: Any) -> Any:
    """A hint cell: true/false/absent as True/False/None; anything else kept as written."""
    text = "" if value != value else str(value)  # NaN (an empty cell) is absent
    return _WIRE.get(text, text)


def load_census() -> Census:
    """Return the committed census (no network, no install: it reads the package's data).

    Raises:
        ValueError: the data files are missing (a broken install); reinstall the course.
    """
    import pandas as pd

    folder = resources.files("course_lib").joinpath("data/census")
    try:
        about = json.loads(folder.joinpath("about.json").read_text(encoding="utf-8"))
        with folder.joinpath("servers.csv").open(encoding="utf-8") as handle:
            servers = pd.read_csv(handle, keep_default_na=False)
        with folder.joinpath("tools.csv").open(encoding="utf-8") as handle:
            tools = pd.read_csv(handle, keep_default_na=False, dtype=str)
    except FileNotFoundError as exc:
        raise ValueError(
            f"the census data is missing ({exc.filename}): reinstall the course (pip install -e .)"
        ) from None
    for hint in HINTS:
        tools[hint] = tools[hint].map(_hint).astype(object)
    tools["has_annotations"] = tools["has_annotations"] == "True"
    return Census(servers, tools, about)
