"""Measure one client through its adapter: servers, cells, repeats, classification, the record.

What every measurement shares: the measurement servers (started once, with the measurement's
secret), each cell (mode x trust or rule setting) run `repeats` times in a fresh private
workspace, every attempted call classified from the logs, and the `Measurement` it adds up
to. The clients are in their own modules (`claude_code`, `codex`, `gemini`, ...), each an
`adapter.ClientAdapter`.

How each call is classified: `classify`.

Introduced in: docs/measure.md.
"""

from __future__ import annotations

import datetime as _dt
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from course_lib.decisions import Outcome
from course_lib.measured import Cell, Measurement, Result

from .adapter import ClientAdapter, CliRun
from .classify import attempted, classify, short_name
from .errors import MeasureError
from .profiles import OTHER_TOOL, PROFILES
from .scratch import Workspace, workspace
from .servers import MeasurementServers
from .standin import Script

__all__ = [
    "OTHER",
    "PLAN",
    "PROFILE_TOOLS",
    "PROMPT",
    "Progress",
    "measure",
    "measure_cells",
    "one_run",
    "require_turns",
]

PROFILE_TOOLS = [f"mcp__profiles__{p.tool}" for p in PROFILES]
OTHER = f"mcp__other__{OTHER_TOOL}"
PLAN = [*PROFILE_TOOLS, OTHER]
PROMPT = "Call each measurement tool once."

Progress = Callable[[str], None]


def require_turns(run: CliRun, what: str) -> CliRun:
    """`run`, if the CLI asked the stand-in model for at least one turn.

    Raises:
        MeasureError: it never did (it failed before the model: config, network, key...).
    """
    if not any(e["kind"] == "turn" for e in run.events):
        finished = run.finished
        status = "timed out" if finished and finished.timed_out else "exit"
        code = "" if not finished or finished.timed_out else f" {finished.returncode}"
        raise MeasureError(
            f"{what} never asked the stand-in model for a turn ({status}{code}):\n"
            f"{finished.tail() if finished else ''}"
        )
    return run


def one_run(
    adapter: ClientAdapter,
    cli: str,
    servers: MeasurementServers,
    mode: str,
    setting: dict[str, Any],
    script: Script,
) -> CliRun:
    with workspace() as tmp:
        return adapter.run_turn(cli, servers, Workspace(Path(tmp)), mode, setting, script)


def _cell(
    adapter: ClientAdapter,
    cli: str,
    servers: MeasurementServers,
    key: tuple[str, str, str],
    repeats: int,
    seconds: list[float],
) -> Cell:
    mode, setting_name, answer = key
    setting = adapter.settings()[setting_name]
    outcomes: list[dict[str, Result]] = []
    for _ in range(repeats):
        results: dict[str, Result] = {}
        todo = list(PLAN)
        while todo:  # a CLI that ends the session at a refusal: the rest get runs of their own
            script = Script.one_per_turn(todo, classifier=answer)
            run = one_run(adapter, cli, servers, mode, setting, script)
            seconds.append(run.seconds)
            found = classify(run, todo, adapter.headless_phrases)
            tried = attempted(run)
            offered_later = [
                t
                for t in todo
                if t not in tried and found[short_name(t)].outcome is not Outcome.HIDDEN
            ]
            for tool in todo:
                if tool not in offered_later:
                    results[short_name(tool)] = found[short_name(tool)]
            if len(offered_later) == len(todo):  # no progress: keep what was classified
                results.update({short_name(t): found[short_name(t)] for t in offered_later})
                break
            todo = offered_later
        outcomes.append({short_name(t): results[short_name(t)] for t in PLAN})
    agree = all(o == outcomes[0] for o in outcomes)
    return Cell(mode, setting_name, answer, outcomes[0], agree)


def measure_cells(
    adapter: ClientAdapter,
    cli: str,
    servers: MeasurementServers,
    modes: Sequence[str],
    repeats: int,
    progress: Progress,
) -> tuple[list[Cell], list[float]]:
    """Every mode x setting, `repeats` times each; a classifier cell is measured refusing too."""
    cells: list[Cell] = []
    seconds: list[float] = []
    for mode in modes:
        for setting_name in adapter.settings():
            answers = ["approve"]
            while answers:
                answer = answers.pop(0)
                cell = _cell(adapter, cli, servers, (mode, setting_name, answer), repeats, seconds)
                cells.append(cell)
                shown = " ".join(r.short() for r in cell.results.values())
                progress(
                    f"{cell.key}: {shown}" + ("" if cell.repeats_agree else "  (REPEATS DIFFER)")
                )
                if answer == "approve" and any(r.classifier for r in cell.results.values()):
                    answers.append("refuse")  # the classifier judged something: measure it refusing
    return cells, seconds


def _profiles_record() -> list[dict[str, Any]]:
    profiles = [{"tool": p.tool, "label": p.label, "hints": p.hints} for p in PROFILES]
    profiles.append(
        {
            "tool": OTHER_TOOL,
            "label": "another server's tool (read-only, closed world)",
            "hints": {"readOnlyHint": True, "openWorldHint": False},
        }
    )
    return profiles


def measure(
    adapter: ClientAdapter,
    cli: str,
    *,
    repeats: int = 2,
    modes: Sequence[str] | None = None,
    progress: Progress = lambda _: None,
) -> Measurement:
    """Measure `cli` through `adapter`: each mode x each setting, `repeats` times, and its notes.

    Raises:
        MeasureError: the CLI is missing a mode asked for, or could not be driven.
    """
    version = adapter.version(cli)
    available = adapter.modes(cli)
    chosen = available if modes is None else [m for m in modes if m in available]
    if not chosen:
        raise MeasureError(
            f"none of the modes {list(modes or [])} exists in {adapter.pin.title} {version}; "
            f"it has {available}"
        )
    started = time.monotonic()
    with (
        tempfile.TemporaryDirectory(prefix="measure-servers-") as folder,
        MeasurementServers(Path(folder), adapter.servers) as servers,
    ):
        cells, seconds = measure_cells(adapter, cli, servers, chosen, repeats, progress)
        notes = adapter.notes(cli, servers)
        forged = servers.forged()
    if forged:
        progress(
            f"refused {len(forged)} forged request(s) to the measurement servers (no secret); "
            "they changed nothing"
        )
    commands = adapter.mode_commands()
    if commands:
        notes = {"modes": {m: c for m, c in commands.items() if m in chosen}, **notes}
    runs = len(seconds)
    timing = {
        "runs": runs,
        "repeats": repeats,
        "seconds_total": round(time.monotonic() - started, 1),
        "seconds_per_run": round(sum(seconds) / runs, 2) if runs else 0.0,
        "seconds_per_cell": round(sum(seconds) / runs / len(PLAN), 2) if runs else 0.0,
    }
    return Measurement(
        client=adapter.pin.client,
        version=version,
        date=_dt.date.today().isoformat(),
        profiles=_profiles_record(),
        rule_sets=adapter.settings(),
        cells=cells,
        environment=dict(adapter.environment),
        notes=notes,
        timing=timing,
    )
