"""A measurement of one client version: the cells, how to read and write them, and diffs.

A *cell* is one combination of permission mode, rule set and (for Claude Code's auto-mode
classifier) the classifier's scripted answer. Its *results* hold one `Result` per measured tool
(each annotation profile, plus another server's tool). The committed measurements live in
`course_lib/data/clients/<client>-<version>.json`.

Introduced in: notebooks/02_defaults.ipynb (`measured_table`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from .decisions import Outcome

__all__ = [
    "Cell",
    "Measurement",
    "Result",
    "committed",
    "committed_files",
    "differences",
    "measured_table",
]


SHORT_OUTCOMES = {
    Outcome.RAN: "RAN",
    Outcome.ASK: "ASK",
    Outcome.ASK_HEADLESS: "ASK-H",
    Outcome.DENY: "DENY",
    Outcome.HIDDEN: "HIDDEN",
}
"""How each outcome is shown in a table: ``ASK-H`` would have asked, but a headless run cannot."""


@dataclass(frozen=True)
class Result:
    """What happened to one tool's call: its outcome, and the classifier's answer if asked."""

    outcome: Outcome
    classifier: str | None = (
        None  # "approve" / "refuse" when the auto-mode classifier judged the call
    )

    def short(self) -> str:
        word = SHORT_OUTCOMES[self.outcome]
        return f"{word}*" if self.classifier else word

    def to_json(self) -> dict[str, Any]:
        return {"outcome": self.outcome.value, "classifier": self.classifier}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Result:
        return cls(Outcome(data["outcome"]), data.get("classifier"))


@dataclass(frozen=True)
class Cell:
    """One measured combination and what happened to each tool's call in it."""

    mode: str
    rules: str
    classifier: str
    results: dict[str, Result]
    repeats_agree: bool = True

    @property
    def key(self) -> str:
        return f"mode={self.mode} rules={self.rules} classifier={self.classifier}"

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "rules": self.rules,
            "classifier": self.classifier,
            "repeats_agree": self.repeats_agree,
            "results": {tool: r.to_json() for tool, r in self.results.items()},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Cell:
        return cls(
            data["mode"],
            data["rules"],
            data["classifier"],
            {tool: Result.from_json(r) for tool, r in data["results"].items()},
            bool(data.get("repeats_agree", True)),
        )


@dataclass
class Measurement:
    """Everything one run of the harness measured on one client version."""

    client: str
    version: str
    date: str
    profiles: list[dict[str, Any]]
    rule_sets: dict[str, dict[str, Any]]
    cells: list[Cell]
    environment: dict[str, str] = field(default_factory=dict)
    notes: dict[str, Any] = field(default_factory=dict)
    timing: dict[str, float] = field(default_factory=dict)
    interactive: dict[str, Any] = field(default_factory=dict)
    """The interactive TUI, per profile: whether an approval dialog appeared and its text."""

    def cell(self, mode: str, rules: str = "none", classifier: str = "approve") -> Cell:
        for cell in self.cells:
            if (cell.mode, cell.rules, cell.classifier) == (mode, rules, classifier):
                return cell
        raise KeyError(
            f"{self.client} {self.version} has no cell mode={mode} rules={rules} "
            f"classifier={classifier}"
        )

    @property
    def modes(self) -> list[str]:
        return list(dict.fromkeys(c.mode for c in self.cells))

    def to_json(self) -> dict[str, Any]:
        return {
            "client": self.client,
            "version": self.version,
            "date": self.date,
            "environment": self.environment,
            "timing": self.timing,
            "profiles": self.profiles,
            "rule_sets": self.rule_sets,
            "cells": [c.to_json() for c in self.cells],
            "notes": self.notes,
            **({"interactive": self.interactive} if self.interactive else {}),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Measurement:
        return cls(
            client=data["client"],
            version=data["version"],
            date=data["date"],
            profiles=data["profiles"],
            rule_sets=data["rule_sets"],
            cells=[Cell.from_json(c) for c in data["cells"]],
            environment=data.get("environment", {}),
            notes=data.get("notes", {}),
            timing=data.get("timing", {}),
            interactive=data.get("interactive", {}),
        )

    def save(self, path: Path) -> None:
        path.write_text(
            json.dumps(self.to_json(), indent=1, sort_keys=False) + "\n", encoding="utf-8"
        )

    @classmethod
    def load(cls, path: Path) -> Measurement:
        return cls.from_json(json.loads(Path(path).read_text(encoding="utf-8")))


def committed_files() -> list[Path]:
    """The committed measurement files, sorted by name."""
    folder = resources.files("course_lib") / "data" / "clients"
    return sorted(Path(str(p)) for p in folder.iterdir() if p.name.endswith(".json"))


def committed(client: str, version: str) -> Measurement:
    """The committed measurement of `client` (``claude-code`` or ``codex``) at `version`.

    Raises:
        ValueError: no such measurement is committed.
    """
    for path in committed_files():
        if path.name == f"{client}-{version}.json":
            return Measurement.load(path)
    known = ", ".join(p.stem for p in committed_files())
    raise ValueError(f"no committed measurement of {client} {version}; committed: {known}")


UNCOMPARED = frozenset({"date", "timing", "interactive"})
"""Top-level fields not compared: the date and timings change on every run; the interactive TUI is
measured apart (``measure-client CLIENT --tui``) and compared only when both have it."""


def differences(old: Measurement, new: Measurement) -> list[str]:
    """One line per measured result that differs between two measurements (empty if they agree).

    Every recorded result counts: each cell's results and whether its repeats agreed, the notes
    (concurrency, project settings, any other finding), the profiles, rule sets and environment
    it was measured with. The date, the timings and any ``*_seconds`` figure do not.
    """
    lines = []
    old_cells = {c.key: c for c in old.cells}
    new_cells = {c.key: c for c in new.cells}
    for key in old_cells.keys() - new_cells.keys():
        lines.append(f"{key}: measured before, missing now")
    for key in new_cells.keys() - old_cells.keys():
        lines.append(f"{key}: new cell, not in the committed measurement")
    for key in [k for k in old_cells if k in new_cells]:
        before, now = old_cells[key].results, new_cells[key].results
        for tool in sorted(before.keys() | now.keys()):
            a, b = before.get(tool), now.get(tool)
            if a != b:
                shown = lambda r: "missing" if r is None else r.short()  # noqa: E731
                lines.append(f"{key} tool={tool}: committed {shown(a)}, measured now {shown(b)}")
        if old_cells[key].repeats_agree != new_cells[key].repeats_agree:
            agree = new_cells[key].repeats_agree
            lines.append(f"{key}: repeats {'agree' if agree else 'disagree'} now, not before")
    if old.interactive and new.interactive:
        _differ(["interactive"], old.interactive, new.interactive, lines)
    rest = [k for k in {**old.to_json(), **new.to_json()} if k not in UNCOMPARED | {"cells"}]
    for field_name in rest:
        a, b = old.to_json().get(field_name, _MISSING), new.to_json().get(field_name, _MISSING)
        _differ([] if field_name == "notes" else [field_name], a, b, lines)
    return lines


_MISSING = object()


def _differ(path: list[str], a: Any, b: Any, lines: list[str]) -> None:
    """Append one line per leaf that differs between two JSON values, named by its path."""
    if path and path[-1].endswith("_seconds"):
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for key in dict.fromkeys([*a, *b]):
            _differ([*path, str(key)], a.get(key, _MISSING), b.get(key, _MISSING), lines)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            _differ([*path, str(i)], x, y, lines)
    elif a != b:
        shown = lambda v: "missing" if v is _MISSING else repr(v)  # noqa: E731
        lines.append(f"{' / '.join(path)}: committed {shown(a)}, measured now {shown(b)}")


SHORT_LABELS = {
    "read_closed": "read-only, closed world",
    "read_open": "read-only, open world",
    "append": "additive",
    "append_world_unsaid": "additive, openWorld absent",
    "set_value": "idempotent write",
    "delete": "destructive",
    "unannotated": "no annotations",
    "read_destructive": "read-only and destructive",
    "not_destructive": "destructiveHint false only",
    "idempotent_only": "idempotentHint true only",
    "title_only": "title only",
    "not_read_only": "readOnlyHint false only",
    "other_read": "other server, read-only",
}
"""Row labels of `measured_table`, short enough for a projector."""


def measured_table(
    client: str,
    version: str | Sequence[str],
    rules: str = "none",
    *,
    modes: Sequence[str] | None = None,
) -> Any:
    """A committed measurement as a table: one row per annotation profile, one column per mode.

    Each cell is what happened to the call: ``RAN``, ``ASK``, ``DENY`` or ``HIDDEN``; a ``*``
    marks a call the auto-mode safety classifier judged (scripted to approve). The index's name
    says which client, version(s) and date, so a printed table always carries its label. With
    several versions, columns are named ``"VERSION MODE"``.

    Raises:
        ValueError: no such committed measurement, rule set or mode.
    """
    import pandas as pd

    versions = [version] if isinstance(version, str) else list(version)
    data: dict[str, dict[str, str]] = {}
    dates = []
    for v in versions:
        m = committed(client, v)
        dates.append(m.date)
        if rules not in m.rule_sets:
            raise ValueError(
                f"{client} {v} was measured with rules {', '.join(m.rule_sets)}, not {rules!r}"
            )
        wanted = list(modes) if modes is not None else m.modes
        unknown = [mode for mode in wanted if mode not in m.modes]
        if unknown:
            raise ValueError(
                f"{client} {v} has no measured mode {unknown[0]!r}; modes: {', '.join(m.modes)}"
            )
        labels = {p["tool"]: SHORT_LABELS.get(p["tool"], p["label"]) for p in m.profiles}
        for mode in wanted:
            cell = m.cell(mode, rules)
            title = mode if len(versions) == 1 else f"{v} {mode}"
            data[title] = {labels[t]: r.short() for t, r in cell.results.items()}
    frame = pd.DataFrame(data)
    name = {"claude-code": "Claude Code", "codex": "Codex CLI"}.get(client, client)
    shown = versions[0] if len(versions) == 1 else ""
    frame.index.name = (
        " ".join(f"{name} {shown}".split()) + f", measured {', '.join(sorted(set(dates)))}"
    )
    return frame
