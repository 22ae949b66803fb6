"""Monitoring: a seeded day of tool-call audit events, the five signals worth watching, a dashboard.

Five signals, each with the direction a healthy deployment shows (`SIGNALS`):

1. writes by tools declared read-only: should be 0; anything else means a hint or an
   implementation is wrong;
2. share of sensitive calls run without confirmation: near 0; high means the client
   trusts hints too much;
3. changes of a tool's hints between listings: 0; each one needs re-approval (a rug pull?);
4. confirmation approval rate: well below 100 %; near 100 % means prompts are clicked through;
5. server authorisation rejection rate: small but not 0; a steady 0 suggests scopes too broad
   or no check at all.

Only the directions are established; the numeric thresholds of the three shares (5 %, 95 %,
0.5 % to 5 %) are the course's illustrative choices ("say ..." in `Signal.healthy`): tune
them to your own traffic.

An event log is a DataFrame with `EVENT_COLUMNS`; `simulate_day(seed)` makes a realistic
one (a bad day with `problems=True`, a healthy one with `problems=False`);
`five_signals(events)` computes the day's values, `hourly_signals(events)` the same per hour;
`course_lib.plots.plot_dashboard(events)` draws them with the healthy range marked. Like
`host.AuditEvent`, an event holds the host's decision as a `PreCall` and the user's answer as a
bool (missing when not asked); they become words only when shown.

Introduced in: notebooks/06_beyond_hints.ipynb
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

import pandas as pd

from .decisions import PreCall

__all__ = [
    "DAY", "EVENT_COLUMNS", "SIGNALS", "Signal", "approval_rate", "five_signals", "hint_changes",
    "hourly_signals", "rejection_rate", "share", "simulate_day", "unconfirmed_sensitive_share",
    "writes_by_read_only_tools",
]

DAY = pd.Timestamp("2026-11-30")
EVENT_COLUMNS = (
    "time",  # pandas Timestamp
    "event",  # "tools/list" (one row per tool listed) or "tools/call"
    "server",
    "tool",
    "hints",  # the tool's declared hints as listed, e.g. "readOnly=true destructive=absent ..."
    "declared_read_only",  # bool: the tool declared readOnlyHint true when called
    # bool: the host treats the call as sensitive (not declared read-only, or on its own list)
    "sensitive",
    "decision",  # PreCall: ALLOW (ran without asking) or CONFIRM (the user was asked)
    "answer",  # the user's answer: True approved, False declined, missing (<NA>) when not asked
    "authorised",  # the server's check: True allowed, False rejected, <NA> not checked
    "write_observed",  # bool: the audit saw the call change state
)


@dataclass(frozen=True)
class Signal:
    """One signal: what it measures and the range a healthy deployment stays in."""

    name: str
    unit: str  # "count" or "share"
    low: float
    high: float
    healthy: str  # the healthy range, as a person would say it
    meaning: str  # what an unhealthy value suggests

    def status(self, value: float | None) -> str:
        """``"ok"`` inside the healthy range, ``"ALERT"`` outside it, ``"no data"`` for NaN."""
        if value is None or (isinstance(value, float) and math.isnan(value)):
            return "no data"
        return "ok" if self.low <= value <= self.high else "ALERT"


SIGNALS: tuple[Signal, ...] = (
    Signal(
        "writes by read-only tools", "count", 0, 0, "0",
        "a hint or an implementation is wrong: audit the tool",
    ),
    Signal(
        "sensitive calls without confirmation", "share", 0, 0.05, "near 0 (say ≤ 5 %)",
        "the client trusts hints (or auto-approval) too much",
    ),
    Signal(
        "hint changes", "count", 0, 0, "0",
        "definitions changed after approval: re-approve, suspect a rug pull",
    ),
    Signal(
        "confirmation approval rate", "share", 0, 0.95, "below 100 % (say ≤ 95 %)",
        "prompts are clicked through: approval fatigue",
    ),
    Signal(
        "authorisation rejection rate", "share", 0.005, 0.05, "above 0 (say 0.5–5 %)",
        "0: scopes too broad or no check; high: misuse",
    ),
)
_BY_NAME = {s.name: s for s in SIGNALS}


def _hints(**short: bool) -> dict[str, bool]:
    """Declared hints by wire name, from short names: `_hints(readOnly=True)`."""
    return {f"{name}Hint": value for name, value in short.items()}


def _as_text(hints: dict[str, bool]) -> str:
    """The hints as the audit log records a listing: "readOnly=true openWorld=false"."""
    return " ".join(f"{name.removesuffix('Hint')}={str(v).lower()}" for name, v in hints.items())


# (server, tool): (hints on a healthy day, sensitive on the host's own list)
_TOOLS: dict[tuple[str, str], tuple[dict[str, bool], bool]] = {
    ("annotated-file-ops", "read_file"): (_hints(readOnly=True, openWorld=False), False),
    ("annotated-file-ops", "append_text"): (
        _hints(readOnly=False, destructive=False, idempotent=False, openWorld=False),
        False,
    ),
    ("annotated-file-ops", "delete_file"): (
        _hints(readOnly=False, destructive=True, idempotent=True, openWorld=False),
        True,
    ),
    ("log-tidy", "disk_usage"): (_hints(readOnly=True, openWorld=False), False),
    ("log-tidy", "tidy_logs"): (
        _hints(readOnly=False, destructive=True, idempotent=True, openWorld=False),
        False,
    ),
    ("ops-assistant", "list_logs"): (_hints(readOnly=True, openWorld=False), False),
    ("ops-assistant", "cleanup_logs"): (
        _hints(readOnly=False, destructive=True, idempotent=True, openWorld=False),
        True,
    ),
    ("ops-db", "execute_query"): (
        _hints(readOnly=False, destructive=True, idempotent=False, openWorld=False),
        True,
    ),
}
_WEIGHTS = {
    "read_file": 30, "append_text": 8, "delete_file": 4, "disk_usage": 10, "tidy_logs": 3,
    "list_logs": 15, "cleanup_logs": 3, "execute_query": 12,
}
_WRITES = {"append_text", "delete_file", "tidy_logs", "cleanup_logs"}
_AUTHORISING = {"ops-assistant", "ops-db"}
_LYING_HINTS = _hints(readOnly=True, openWorld=False)


def simulate_day(
    seed: int = 2026, *, problems: bool = True, calls_per_hour: tuple[int, int] = (30, 50)
) -> pd.DataFrame:
    """Return one working day (08:00 to 19:00) of audit events of the operations assistant, seeded.

    With `problems` the day goes wrong the ways lesson 06 warns about: log-tidy's
    `tidy_logs` declares itself read-only and deletes; `cleanup_logs`' hints flip to
    read-only from 13:00 to 16:00 (a rug pull and back); at 13:00 the user picks "always
    allow" for `delete_file`; prompts are approved 98 % of the time; the token's scopes are so
    broad that the servers never refuse. Without `problems` every signal stays healthy.
    The day's host records what its audit sees but does not act on it (no trust downgrade, as
    lesson 05's auditing `Host` would make), so every lying call runs: monitoring is how the
    team finds out.

    Raises:
        ValueError: a non-integer seed or a bad `calls_per_hour` range.
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an integer, not {seed!r}")
    low, high = calls_per_hour
    if not (isinstance(low, int) and isinstance(high, int) and 0 < low <= high <= 10_000):
        raise ValueError(
            "calls_per_hour must be (low, high) with 0 < low <= high <= 10000, not "
            f"{calls_per_hour!r}"
        )
    day = _Day(random.Random(seed), problems)
    rows: list[dict[str, Any]] = []
    for hour in range(8, 19):
        rows += day.listings(hour)
        rows += [day.call(hour) for _ in range(day.rng.randint(low, high))]
    frame = pd.DataFrame(rows, columns=list(EVENT_COLUMNS))
    frame = frame.sort_values(["time", "event", "server", "tool"], kind="stable")
    frame = frame.reset_index(drop=True)
    for column in ("declared_read_only", "sensitive", "answer", "authorised", "write_observed"):
        frame[column] = frame[column].astype("boolean")
    return frame


@dataclass
class _Day:
    """The simulated day's host and users: one random source, and whether the day goes wrong."""

    rng: random.Random
    problems: bool

    @property
    def approve_p(self) -> float:
        return 0.98 if self.problems else 0.8

    @property
    def reject_p(self) -> float:
        return 0.0 if self.problems else 0.03

    def hints_at(self, server: str, tool: str, hour: int) -> dict[str, bool]:
        if self.problems and tool == "tidy_logs":
            return _LYING_HINTS
        if self.problems and tool == "cleanup_logs" and 13 <= hour < 16:
            return _LYING_HINTS
        return _TOOLS[(server, tool)][0]

    def listings(self, hour: int) -> list[dict[str, Any]]:
        """The hour's `tools/list` events: every tool, with the hints it declares at that hour."""
        start = DAY + pd.Timedelta(hours=hour)
        return [
            {
                "time": start,
                "event": "tools/list",
                "server": server,
                "tool": tool,
                "hints": _as_text(self.hints_at(server, tool, hour)),
            }
            for server, tool in _TOOLS
        ]

    def call(self, hour: int) -> dict[str, Any]:
        """One `tools/call` event in `hour`: a tool drawn by its weight, decided, maybe answered,
        maybe refused by the server's authorisation, and whether it was seen to write."""
        names = list(_TOOLS)
        server, tool = self.rng.choices(names, [_WEIGHTS[t] for _, t in names])[0]
        hints = self.hints_at(server, tool, hour)
        read_only = hints.get("readOnlyHint") is True
        sensitive = (not read_only) or _TOOLS[(server, tool)][1]
        answer: bool | None = None
        if not sensitive or (self.problems and tool == "delete_file" and hour >= 13):
            decision = PreCall.ALLOW  # from 13:00, "always allow" for delete_file
        else:
            decision, answer = PreCall.CONFIRM, self.rng.random() < self.approve_p
        ran = answer is not False
        authorised: bool | None = None
        if ran and server in _AUTHORISING:
            authorised = self.rng.random() >= self.reject_p
        writes = tool in _WRITES or (tool == "execute_query" and self.rng.random() < 0.3)
        start = DAY + pd.Timedelta(hours=hour)
        return {
            "time": start + pd.Timedelta(seconds=self.rng.randrange(1, 3600)),
            "event": "tools/call",
            "server": server,
            "tool": tool,
            "hints": _as_text(hints),
            "declared_read_only": read_only,
            "sensitive": sensitive,
            "decision": decision,
            "answer": answer,
            "authorised": authorised,
            "write_observed": ran and authorised is not False and writes,
        }


def _check_events(events: Any) -> pd.DataFrame:
    if not isinstance(events, pd.DataFrame):
        raise ValueError(
            "events must be a DataFrame with the columns of EVENT_COLUMNS, not "
            f"{type(events).__name__}"
        )
    missing = [c for c in EVENT_COLUMNS if c not in events.columns]
    if missing:
        raise ValueError(
            f"events lacks the column(s) {', '.join(missing)}; see monitoring.EVENT_COLUMNS"
        )
    calls = events[events["event"] == "tools/call"]
    for decision in calls["decision"].unique():
        if decision not in _DECISIONS:
            raise ValueError(
                f"decision {decision!r} is not a PreCall value: record PreCall.ALLOW (ran without "
                "asking) or PreCall.CONFIRM (the user was asked)"
            )
    for column, meaning in (("answer", _ANSWER), ("authorised", _AUTHORISED)):
        for value in calls[column].unique():
            if not (value is pd.NA or value is None or pd.api.types.is_bool(value)):
                raise ValueError(f"{column} {value!r} is not {meaning}")
    return events


_DECISIONS = frozenset(PreCall)
_ANSWER = "the user's answer: record True (approved), False (declined) or None (not asked)"
_AUTHORISED = (
    "the server's check: record True (allowed), False (rejected) or None (not checked)"
)


def share(count: int, total: int) -> float:
    """`count` of `total` as a fraction; NaN ("no data") when `total` is 0."""
    return count / total if total else math.nan


# The five formulas, as lesson 06 shows them in cells (tests/test_saved_cells.py keeps the two
# equal). `calls` are the log's tools/call rows; `listings` its tools/list rows, oldest first.
def writes_by_read_only_tools(calls: pd.DataFrame) -> int:
    """Calls of a tool declared read-only that the audit saw change state: 0."""
    lied = calls["declared_read_only"].eq(True) & calls["write_observed"].eq(True)
    return int(lied.sum())


def unconfirmed_sensitive_share(calls: pd.DataFrame) -> float:
    """Of the sensitive calls that ran, the share nobody was asked about: near 0."""
    declined = calls["answer"].eq(False).fillna(False).astype(bool)
    ran = calls[calls["sensitive"].eq(True) & ~declined]
    return share(int(ran["decision"].eq(PreCall.ALLOW).sum()), len(ran))


def hint_changes(listings: pd.DataFrame) -> int:
    """Times a tool's listed hints differ from its previous listing: 0."""
    changes = 0
    for _, group in listings.groupby(["server", "tool"], sort=True):
        hints = group["hints"].tolist()
        changes += sum(a != b for a, b in zip(hints, hints[1:]))
    return changes


def approval_rate(calls: pd.DataFrame) -> float:
    """Of the questions the user answered, the share approved: below 100 %."""
    answered = calls[calls["answer"].notna()]
    return share(int(answered["answer"].eq(True).sum()), len(answered))


def rejection_rate(calls: pd.DataFrame) -> float:
    """Of the calls a server checked, the share it refused: above 0, but small."""
    checked = calls[calls["authorised"].notna()]
    return share(int(checked["authorised"].eq(False).sum()), len(checked))


def _values(events: pd.DataFrame) -> dict[str, float]:
    calls = events[events["event"] == "tools/call"]
    listings = events[events["event"] == "tools/list"].sort_values("time", kind="stable")
    return {
        "writes by read-only tools": writes_by_read_only_tools(calls),
        "sensitive calls without confirmation": unconfirmed_sensitive_share(calls),
        "hint changes": hint_changes(listings),
        "confirmation approval rate": approval_rate(calls),
        "authorisation rejection rate": rejection_rate(calls),
    }


def _reading(signal: Signal, value: float) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "no data"
    return f"{value * 100:.1f} %" if signal.unit == "share" else f"{int(value)}"


def five_signals(events: pd.DataFrame) -> pd.DataFrame:
    """Return the five signals for a log of events: reading, value, healthy range, status and what
    an alert suggests.

    `reading` is the value as a person reads it ("7.4 %", "2"); `value` is the number, shares
    as fractions (0.25 is 25 %); a share with nothing to count is NaN ("no data").

    Raises:
        ValueError: `events` is not a DataFrame with `EVENT_COLUMNS`.
    """
    values = _values(_check_events(events))
    rows = []
    for signal in SIGNALS:
        value = values[signal.name]
        rows.append(
            {
                "signal": signal.name,
                "reading": _reading(signal, value),
                "value": value,
                "healthy": signal.healthy,
                "status": signal.status(value),
                "if not ok": signal.meaning,
            }
        )
    return pd.DataFrame(rows).set_index("signal")


def hourly_signals(events: pd.DataFrame) -> pd.DataFrame:
    """Return the five signals computed hour by hour (one row per hour of the day that has events).

    A hint change counts in the hour whose listing shows the new hints.

    Raises:
        ValueError: `events` is not a DataFrame with `EVENT_COLUMNS`.
    """
    events = _check_events(events)
    if events.empty:
        return pd.DataFrame(columns=[s.name for s in SIGNALS], index=pd.Index([], name="hour"))
    hours = events["time"].dt.hour
    rows = {}
    for hour in sorted(hours.unique()):
        until = events[hours <= hour]
        earlier = events[hours < hour]
        now = _values(events[hours == hour])
        # a hint change needs the previous listing, which may be in an earlier hour
        now["hint changes"] = _values(until)["hint changes"] - (
            _values(earlier)["hint changes"] if len(earlier) else 0
        )
        rows[int(hour)] = now
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "hour"
    return frame
