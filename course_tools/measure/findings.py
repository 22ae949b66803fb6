"""Findings outside the cells: concurrency, a setting under which a CLI will not start, the 81.

Introduced in: docs/clients.md.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from course_lib.measured import Result
from course_lib.safe_text import printable

from .adapter import ClientAdapter
from .classify import classify
from .errors import MeasureError
from .harness import PLAN, one_run
from .profiles import combination_tools
from .servers import MeasurementServers
from .standin import Script

__all__ = ["CONCURRENCY_TRIES", "combinations", "concurrency", "startup"]


CONCURRENCY_TRIES = 3
"""Runs of the concurrency probe at most: a client that runs two calls together may still start
the second late once (seen: opencode, 1.6 s apart), but one that runs them one by one never
overlaps them, so one overlap in any try settles it."""

_PAIRS = {
    "read-only pair": ("read_closed", "read_open"),
    "non-read-only pair": ("delete", "set_value"),
}


def _pairs_seen(calls: list[dict[str, Any]]) -> dict[str, Any]:
    """For each pair: did its two calls overlap in this run, and how far apart they started."""
    spans: dict[str, list[float]] = {}
    for call in calls:
        if call["event"] in {"start", "end"}:
            spans.setdefault(call["tool"], []).append(call["t"])
    report: dict[str, Any] = {}
    for label, (a, b) in _PAIRS.items():
        if len(spans.get(a, [])) != 2 or len(spans.get(b, [])) != 2:
            report[label] = {"tools": [a, b], "concurrent": None, "note": "a call did not run"}
            continue
        overlap = max(spans[a][0], spans[b][0]) < min(spans[a][1], spans[b][1])
        gap = round(abs(spans[a][0] - spans[b][0]), 1)
        report[label] = {"tools": [a, b], "concurrent": overlap, "start_gap_seconds": gap}
    return report


def _settled(before: dict[str, Any], now: dict[str, Any]) -> dict[str, Any]:
    """Two tries as one: a pair that overlapped once is concurrent (that try is kept)."""
    if not before:
        return now
    return {
        label: now[label] if now[label]["concurrent"] and not seen["concurrent"] else seen
        for label, seen in before.items()
    }


def concurrency(
    adapter: ClientAdapter, cli: str, servers: MeasurementServers, mode: str
) -> dict[str, Any]:
    """Two read-only calls in one turn, then two non-read-only ones: did each pair overlap?
    Tried up to `CONCURRENCY_TRIES` times, until every pair has overlapped once."""
    script = Script(
        turns=tuple(tuple(f"mcp__profiles__{t}" for t in pair) for pair in _PAIRS.values()),
        seconds=0.5,
    )
    report: dict[str, Any] = {}
    for _ in range(CONCURRENCY_TRIES):
        run = one_run(adapter, cli, servers, mode, adapter.settings()["none"], script)
        report = _settled(report, _pairs_seen(run.calls))
        if all(seen["concurrent"] for seen in report.values()):
            break
    return report


def startup(
    adapter: ClientAdapter,
    cli: str,
    servers: MeasurementServers,
    mode: str,
    setting: dict[str, Any],
) -> dict[str, Any]:
    """Run once with `setting` and say whether the CLI got as far as the model, and if not why.

    For a setting under which a CLI refuses to start at all (an untrusted folder), which is a
    finding, not a cell.
    """
    try:
        run = one_run(adapter, cli, servers, mode, setting, Script.one_per_turn(PLAN))
    except MeasureError as exc:
        lines = [line.strip() for line in str(exc).splitlines()[1:] if line.strip()]
        telling = [line for line in lines if "trust" in line.lower()] or lines
        said = printable(telling[0], limit=200) if telling else ""
        return {"reached the model": False, "said": said}
    return {"reached the model": True, "results": _shorts(classify(run, PLAN))}


def combinations(
    adapter: ClientAdapter, cli: str, mode: str, setting: dict[str, Any] | None = None
) -> dict[str, str]:
    """What `mode` does with each of the 81 hint combinations (tool ``c_RDIO``, see
    `profiles.combination_tools`), from one run against the ``combinations`` server."""
    tools = [f"mcp__combinations__{name}" for name in combination_tools()]
    with (
        tempfile.TemporaryDirectory(prefix="measure-servers-") as folder,
        MeasurementServers(Path(folder), ("combinations",)) as servers,
    ):
        chosen = adapter.settings()["none"] if setting is None else setting
        run = one_run(adapter, cli, servers, mode, chosen, Script.one_per_turn(tools))
    return _shorts(classify(run, tools, adapter.headless_phrases))


def _shorts(results: dict[str, Result]) -> dict[str, str]:
    return {tool: result.short() for tool, result in results.items()}
