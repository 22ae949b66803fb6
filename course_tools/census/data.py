"""The census as committed data: `servers.csv`, `tools.csv` and `about.json`, and what changed.

The files live in `course_lib/data/census/` (learners read them with `course_lib.load_census`).
`differences(folder, census)` compares a new run with the committed files and names each
change (a server's version or status, a tool's hint, a tool that appeared or went away); the
date and the wording of error messages are not compared.
"""

from __future__ import annotations

import csv
import json
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from .survey import CensusRun, ServerRow, ToolRow

__all__ = ["DATA", "differences", "read_rows", "write"]

DATA = Path(__file__).resolve().parents[2] / "course_lib" / "data" / "census"
SERVER_KEYS = (
    "version",
    "status",
    "protocol",
    "handshake",
    "tools",
    "annotated",
    "malformed",
    "mismatches",
    "trifecta_alone",
)
TOOL_KEYS = tuple(f.name for f in fields(ToolRow) if f.name not in ("server", "tool"))


def write(folder: Path, census: CensusRun, about: dict[str, Any]) -> None:
    """Write the census's three files into `folder` (CSV rows in census order)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, kind, rows in (
        ("servers", ServerRow, census.servers),
        ("tools", ToolRow, census.tools),
    ):
        with open(folder / f"{name}.csv", "w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, [f.name for f in fields(kind)], lineterminator="\n")
            writer.writeheader()
            writer.writerows(asdict(row) for row in rows)
    (folder / "about.json").write_text(json.dumps(about, indent=2) + "\n", encoding="utf-8")


def read_rows(folder: Path, name: str) -> list[dict[str, str]]:
    """The rows of `folder/name.csv` as strings."""
    with open(folder / f"{name}.csv", newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _as_strings(row: Any) -> dict[str, str]:
    return {k: str(v) for k, v in asdict(row).items()}


def differences(folder: Path, census: CensusRun, only: list[str] | None = None) -> list[str]:
    """What `census` says differently from the files in `folder`, one line per change (with
    `only`, about those servers alone)."""
    keep = set(only) if only else None
    old_servers = {
        r["label"]: r for r in read_rows(folder, "servers") if not keep or r["label"] in keep
    }
    old_tools = {
        (r["server"], r["tool"]): r
        for r in read_rows(folder, "tools")
        if not keep or r["server"] in keep
    }
    return _server_changes(old_servers, census) + _tool_changes(old_tools, census)


def _server_changes(old_servers: dict[str, dict[str, str]], census: CensusRun) -> list[str]:
    lines = []
    new_servers = {r.label: _as_strings(r) for r in census.servers}
    for label in sorted(old_servers.keys() - new_servers.keys()):
        lines.append(f"server {label}: no longer in the census")
    for label, new in new_servers.items():
        old = old_servers.get(label)
        if old is None:
            lines.append(f"server {label}: new in the census ({new['status']})")
            continue
        for key in SERVER_KEYS:
            if old.get(key, "") != new[key]:
                lines.append(f"server {label}: {key} {old.get(key, '')!r} -> {new[key]!r}")
        if new["status"] != "listed" and old.get("status") != new["status"]:
            lines.append(f"server {label}: now {new['status']}: {new['reason'][:200]}")
    return lines


def _tool_changes(old_tools: dict[tuple[str, str], dict[str, str]], census: CensusRun) -> list[str]:
    lines = []
    new_tools = {(r.server, r.tool): _as_strings(r) for r in census.tools}
    for server, tool in sorted(old_tools.keys() - new_tools.keys()):
        lines.append(f"tool {server}/{tool}: gone")
    for (server, tool), new in new_tools.items():
        old = old_tools.get((server, tool))
        if old is None:
            lines.append(f"tool {server}/{tool}: new ({new['profile']})")
            continue
        for name in TOOL_KEYS:
            if old.get(name, "") != new[name]:
                lines.append(f"tool {server}/{tool}: {name} {old.get(name, '')!r} -> {new[name]!r}")
    return lines
