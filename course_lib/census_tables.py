"""The census as tables: every measured client side by side, and a few client modes compared.

`census_table` is lesson 03's one table of every measured client (its everyday and plan
mode), with the documented-only clients labelled by source; `side_by_side` puts a few client
modes next to each other, one row per profile (exercise 2, part 2e). Both read the newest
committed measurement of each client (`course_lib/data/clients/`).

Introduced in: notebooks/03_combinations.ipynb (section "Same hints, different clients").
"""

from __future__ import annotations

from typing import Any

from .decisions import PreCall, Trust
from .measured import SHORT_LABELS, Measurement, committed_files
from .policy import CURSOR_ASK, VSCODE, Policy

__all__ = [
    "CENSUS_COLUMNS",
    "DOCUMENTED",
    "HEADLINE",
    "census_measurements",
    "census_table",
    "side_by_side",
]


HEADLINE: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("claude-code", "Claude Code", ("manual", "plan")),
    ("codex", "Codex CLI", ("exec",)),
    ("gemini", "Gemini CLI", ("default", "plan")),
    ("qwen-code", "Qwen Code", ("default", "plan")),
    ("copilot", "Copilot CLI", ("prompt", "plan")),
    ("opencode", "opencode", ("build", "plan")),
    ("kilo", "Kilo CLI", ("build", "plan")),
    ("cline", "Cline CLI", ("act", "plan")),
    ("continue", "Continue CLI", ("normal", "readonly")),
)
"""The census table's rows: each client's everyday mode and its plan (read-only) mode."""

CENSUS_COLUMNS = {
    "read_closed": "read-only",
    "append": "additive",
    "delete": "destructive",
    "unannotated": "no hints",
    "read_destructive": "ro+destr",
}
"""The census table's columns: one tool per profile, with a label short enough for a projector."""

_WORDS = {
    PreCall.ALLOW: "runs",
    PreCall.CONFIRM: "asks",
    PreCall.WARN: "warns",
    PreCall.DENY: "refuses",
}
_CHATGPT = {"read_closed": "may run", "read_destructive": "may run"}

DOCUMENTED: tuple[tuple[str, str, Policy | None], ...] = (
    ("VS Code", "its source", VSCODE),
    ("Cursor Ask mode", "issues", CURSOR_ASK),
    ("ChatGPT", "OpenAI docs", None),
)
"""Clients known from documents only: (name, source, its model), shown in lower case so a reader
never takes them for measurements. VS Code: microsoft/vscode
`mcpLanguageModelToolContribution.ts` at 027907c (`course_lib.policy.VSCodePolicy`); Cursor's
Ask mode: colbymchenry/codegraph#1018 and sourcebot-dev/sourcebot PR #1013 (secondary); ChatGPT:
OpenAI's Apps SDK reference (developers.openai.com/apps-sdk/reference), where `readOnlyHint`
lets ChatGPT skip the "Are you sure?" prompt ("can", so "may run"; any other tool "may ask")."""


def _documented_row(policy: Policy | None, hints: dict[str, Any]) -> dict[str, str]:
    row = {}
    for tool, label in CENSUS_COLUMNS.items():
        if policy is None:
            row[label] = _CHATGPT.get(tool, "may ask")
        else:
            row[label] = _WORDS[policy.decide(hints[tool], trust=Trust.TRUSTED).pre_call]
    return row


def _latest(client: str) -> Measurement | None:
    found = [Measurement.load(p) for p in committed_files() if p.stem.startswith(f"{client}-")]
    found = [m for m in found if m.client == client]
    if not found:
        return None
    return max(found, key=lambda m: tuple(int(x) for x in m.version.split(".")))


def census_measurements() -> list[Measurement]:
    """The newest committed measurement of each census client, in the table's order."""
    found = [_latest(client) for client, _, _ in HEADLINE]
    return [m for m in found if m is not None]


def census_table(*, documented: bool = True) -> Any:
    """Every measured client side by side: one row per client and mode, one column per profile.

    Measured cells are ``RAN``, ``ASK``, ``ASK-H`` (it would have asked; a headless run cannot),
    ``DENY`` or ``HIDDEN``, ``*`` where a safety classifier judged the call (approving). With
    `documented`, VS Code, Cursor's Ask mode and ChatGPT follow in lower case, each with its
    source: documented, not measured. The index's name says the measurement dates; each row
    its client's version.
    """
    import pandas as pd

    titles = {client: title for client, title, _ in HEADLINE}
    rows: dict[str, dict[str, str]] = {}
    dates = set()
    for m in census_measurements():
        dates.add(m.date)
        modes = dict((c, ms) for c, _, ms in HEADLINE)[m.client]
        for mode in modes:
            cell = m.cell(mode)
            label = f"{titles[m.client]} {m.version} {mode}"
            rows[label] = {
                CENSUS_COLUMNS[t]: cell.results[t].short() if t in cell.results else "-"
                for t in CENSUS_COLUMNS
            }
    if documented:
        profiles = [p for m in census_measurements() for p in m.profiles]
        hints = {str(p["tool"]): p["hints"] for p in reversed(profiles)}
        for name, source, policy in DOCUMENTED:
            rows[f"{name} ({source})"] = _documented_row(policy, hints)
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = f"measured {_dates(dates)}"
    return frame


def _dates(dates: set[str]) -> str:
    """``2026-12-01``, or a short range such as ``2026-12-01..02`` (projector width)."""
    first, last = min(dates), max(dates)
    if first == last:
        return first
    return f"{first}..{last[8:]}" if first[:8] == last[:8] else f"{first}..{last}"


def side_by_side(*picks: tuple[str, str]) -> Any:
    """A few measured client modes side by side: one row per profile, one column per pick.

    Each pick is ``(client, mode)``, e.g. ``("codex", "exec")``; the newest committed version of
    each is used, and the index's name gives the versions and dates.

    Raises:
        ValueError: a client with no committed measurement, or a mode it was not measured in.
    """
    import pandas as pd

    titles = {client: title for client, title, _ in HEADLINE}
    columns: dict[str, dict[str, str]] = {}
    dates: set[str] = set()
    for client, mode in picks:
        m = _latest(client)
        if m is None:
            raise ValueError(f"no committed measurement of {client!r}")
        if mode not in m.modes:
            raise ValueError(f"{client} {m.version} was not measured in mode {mode!r}: {m.modes}")
        dates.add(m.date)
        title = f"{titles.get(client, client).removesuffix(' CLI')} {mode}"
        columns[title] = {
            SHORT_LABELS.get(t, t): r.short() for t, r in m.cell(mode).results.items()
        }
    frame = pd.DataFrame(columns)
    frame.index.name = f"measured {_dates(dates)}"
    return frame
