"""Measure one client through its adapter: servers, cells, repeats, classification, the record.

What every measurement shares: the measurement servers (started once, with the measurement's
secret), each cell (mode x trust or rule setting) run `repeats` times in a fresh private
workspace, every attempted call classified from the logs, and the `Measurement` it adds up
to. The clients are in their own modules (`claude_code`, `codex`, `gemini`, ...), each an
`adapter.ClientAdapter`.

How a call is classified, from the servers' and the stand-in's own logs (never from model text):

* not among the tools the stand-in model was offered -> `HIDDEN`;
* the gate (the permission-prompt tool) logged a question about it -> `ASK`;
* the measurement server logged that it ran, no question asked -> `RAN`;
* the result sent back to the model says the client would have asked but cannot in a headless
  run (the adapter's `headless_phrases`) -> `ASK_HEADLESS`;
* otherwise (the client refused it) -> `DENY`.

A call a safety classifier judged (a classifier request reached the stand-in between the call
and its result) carries the classifier's scripted answer.

Introduced in: docs/measure.md.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from course_lib.measured import Cell, Measurement, Result
from course_lib.permissions import Outcome
from course_lib.safe_text import printable

from .adapter import ClientAdapter, Run, Workspace
from .errors import MeasureError
from .process import run_contained
from .profiles import OTHER_TOOL, PROFILES, combination_tools
from .servers import MeasurementServers
from .standin import Script

__all__ = [
    "OTHER",
    "PLAN",
    "PROFILE_TOOLS",
    "PROMPT",
    "Progress",
    "classify",
    "cli_version",
    "combinations",
    "concurrency",
    "measure",
    "measure_cells",
    "require_turns",
    "scratch_env",
    "startup",
    "workspace",
]

PROFILE_TOOLS = [f"mcp__profiles__{p.tool}" for p in PROFILES]
OTHER = f"mcp__other__{OTHER_TOOL}"
PLAN = [*PROFILE_TOOLS, OTHER]
PROMPT = "Call each measurement tool once."

Progress = Callable[[str], None]


def scratch_env(home: Path, keep: Sequence[str] = ()) -> dict[str, str]:
    """A minimal environment: PATH, locale and the given variables; no keys, no user config."""
    env = {k: v for k, v in os.environ.items() if k in {"PATH", "LANG", "LC_ALL", "TZ", *keep}}
    env["HOME"] = str(home)
    env["TMPDIR"] = str(home)  # nothing the CLI writes lands in the machine's shared /tmp
    env["XDG_CONFIG_HOME"] = str(home / ".config")
    env["XDG_DATA_HOME"] = str(home / ".local" / "share")
    env["XDG_CACHE_HOME"] = str(home / ".cache")
    env["XDG_STATE_HOME"] = str(home / ".local" / "state")
    env["NO_COLOR"] = "1"
    return env


def workspace(prefix: str = "measure-") -> tempfile.TemporaryDirectory[str]:
    """A private scratch folder (mode 0700) for one run; its `Workspace` is made inside it."""
    return tempfile.TemporaryDirectory(prefix=prefix)


def cli_version(cli: str, args: Sequence[str] = ("--version",)) -> str:
    """The version number a CLI prints for ``--version`` (e.g. ``2.1.332``), from a private HOME.

    Raises:
        MeasureError: it could not run, or printed no version number.
    """
    with workspace("measure-version-") as tmp:
        work = Workspace(Path(tmp))
        try:
            done = run_contained(
                [cli, *args], cwd=work.project, env=scratch_env(work.home), timeout=120
            )
        except OSError as exc:
            raise MeasureError(f"{cli} {' '.join(args)} could not run: {exc}") from None
    found = re.search(r"\d+\.\d+\.\d+", done.stdout) or re.search(r"\d+\.\d+\.\d+", done.stderr)
    if done.returncode != 0 or not found:
        raise MeasureError(
            f"{cli} {' '.join(args)} printed no version number (exit {done.returncode}): "
            f"{done.tail(200)!r}"
        )
    return found.group(0)


def require_turns(run: Run, what: str) -> Run:
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


def _short(tool: str) -> str:
    return tool.split("__", 2)[2]


def _results_by_tool(run: Run) -> dict[str, list[str]]:
    """The text of every result the model was sent, by the planned tool it answers."""
    tool_of = {e.get("tool_use_id"): e["tool"] for e in run.events if e["kind"] == "tool_use"}
    texts: dict[str, list[str]] = {}
    for event in run.events:
        if event["kind"] == "result" and event.get("tool_use_id") in tool_of:
            texts.setdefault(tool_of[event["tool_use_id"]], []).append(str(event.get("text", "")))
    return texts


def _output_about(output: str, short: str) -> str:
    """The CLI's output lines that name tool `short` (``profiles_append``, not ``append_x``)."""
    named = re.compile(rf"(?<![a-z0-9]){re.escape(short.lower())}(?![a-z0-9_])")
    return " ".join(line for line in output.splitlines() if named.search(line))


def _attempted(run: Run) -> set[str]:
    return {e["tool"] for e in run.events if e["kind"] == "tool_use"}


def classify(
    run: Run, tools: Sequence[str], headless_phrases: Sequence[str] = ()
) -> dict[str, Result]:
    """Classify each planned tool's call from the stand-in's events and the servers' call log."""
    offered: set[str] = set()
    for event in run.events:
        if event["kind"] == "turn":
            offered.update(event["offered"])
    asked = {c["tool_name"] for c in run.calls if c["event"] == "asked"}
    ran = {f"mcp__{c['server']}__{c['tool']}" for c in run.calls if c["event"] == "start"}
    answers = _results_by_tool(run)
    output = run.finished.tail(200_000).lower() if run.finished else ""
    judged: dict[str, str] = {}
    pending: list[str] = []
    for event in run.events:
        if event["kind"] == "tool_use":
            pending.append(event["tool"])
        elif event["kind"] == "classifier" and pending:
            judged[pending[-1]] = event["answer"]
        elif event["kind"] == "turn":
            pending = []
    results = {}
    for tool in tools:
        short = tool.split("__", 2)[2]
        said = " ".join(answers.get(tool, [])).lower() + " " + _output_about(output, short)
        if tool not in offered:
            outcome = Outcome.HIDDEN
        elif tool in asked:
            outcome = Outcome.ASK
        elif tool in ran:
            outcome = Outcome.RAN
        elif any(phrase.lower() in said for phrase in headless_phrases):
            outcome = Outcome.ASK_HEADLESS
        else:
            outcome = Outcome.DENY
        results[short] = Result(outcome, judged.get(tool))
    return results


def _one_run(
    adapter: ClientAdapter,
    cli: str,
    servers: MeasurementServers,
    mode: str,
    setting: dict[str, Any],
    script: Script,
) -> Run:
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
            run = _one_run(adapter, cli, servers, mode, setting, script)
            seconds.append(run.seconds)
            found = classify(run, todo, adapter.headless_phrases)
            attempted = _attempted(run)
            offered_later = [
                t
                for t in todo
                if t not in attempted and found[_short(t)].outcome is not Outcome.HIDDEN
            ]
            for tool in todo:
                if tool not in offered_later:
                    results[_short(tool)] = found[_short(tool)]
            if len(offered_later) == len(todo):  # no progress: keep what was classified
                results.update({_short(t): found[_short(t)] for t in offered_later})
                break
            todo = offered_later
        outcomes.append({_short(t): results[_short(t)] for t in PLAN})
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


def concurrency(
    adapter: ClientAdapter, cli: str, servers: MeasurementServers, mode: str
) -> dict[str, Any]:
    """Two read-only calls in one turn, then two non-read-only ones: did each pair overlap?"""
    pairs = {
        "read-only pair": ("read_closed", "read_open"),
        "non-read-only pair": ("delete", "set_value"),
    }
    script = Script(
        turns=tuple(tuple(f"mcp__profiles__{t}" for t in pair) for pair in pairs.values()),
        seconds=0.5,
    )
    run = _one_run(adapter, cli, servers, mode, adapter.settings()["none"], script)
    spans: dict[str, list[float]] = {}
    for call in run.calls:
        if call["event"] in {"start", "end"}:
            spans.setdefault(call["tool"], []).append(call["t"])
    report: dict[str, Any] = {}
    for label, (a, b) in pairs.items():
        if len(spans.get(a, [])) != 2 or len(spans.get(b, [])) != 2:
            report[label] = {"tools": [a, b], "concurrent": None, "note": "a call did not run"}
            continue
        overlap = max(spans[a][0], spans[b][0]) < min(spans[a][1], spans[b][1])
        gap = round(abs(spans[a][0] - spans[b][0]), 1)
        report[label] = {"tools": [a, b], "concurrent": overlap, "start_gap_seconds": gap}
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
        run = _one_run(adapter, cli, servers, mode, setting, Script.one_per_turn(PLAN))
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
        run = _one_run(adapter, cli, servers, mode, chosen, Script.one_per_turn(tools))
    return _shorts(classify(run, tools, adapter.headless_phrases))


def _shorts(results: dict[str, Result]) -> dict[str, str]:
    return {tool: result.short() for tool, result in results.items()}


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
