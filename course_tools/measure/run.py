"""Run a real client CLI against the stand-ins and classify every attempted call from the logs.

What every measurement shares: the measurement servers (started once, over Streamable HTTP on
127.0.0.1), running a CLI once, classifying its calls, and the cells loop. The clients are in
`claude_code` (`measure_claude_code`, `measure_settings`) and `codex` (`measure_codex`). Each run
of a CLI works in a fresh scratch folder (its own HOME and project), talks only to the stand-in
on 127.0.0.1 and to the measurement servers, and is repeated to check it is deterministic.

How a call is classified, from the servers' own logs (never from model text):

* not among the tools the stand-in model was offered -> `HIDDEN`;
* the gate (the permission-prompt tool) logged a question about it -> `ASK`;
* the measurement server logged that it ran, no question asked -> `RAN`;
* otherwise (the client refused it) -> `DENY`.

A call the auto-mode classifier judged (a classifier request reached the stand-in between the
call and its result) carries the classifier's scripted answer.

Introduced in: README.md, section "Measure a real client"; results in notebooks/02_defaults.ipynb.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from course_lib.decisions import Outcome
from course_lib.measured import Cell, Measurement, Result

from .profiles import OTHER_TOOL, PROFILES, read_log
from .standins import Script

__all__ = ["PLAN", "MeasureError", "cli_version", "find_cli"]

RUN_TIMEOUT = 120
PROFILE_TOOLS = [f"mcp__profiles__{p.tool}" for p in PROFILES]
OTHER = f"mcp__other__{OTHER_TOOL}"
PLAN = [*PROFILE_TOOLS, OTHER]
PROMPT = "Call each measurement tool once."


class MeasureError(RuntimeError):
    """The measurement could not be made (the CLI is missing, failed or misbehaved)."""


@dataclass
class _Run:
    events: list[dict[str, Any]]
    calls: list[dict[str, Any]]
    seconds: float


def _scratch_env(home: Path, keep: Sequence[str] = ()) -> dict[str, str]:
    """A minimal environment: PATH, locale and the given variables; no keys, no user config."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k in {"PATH", "LANG", "LC_ALL", "TZ", "TMPDIR", *keep}
    }
    env["HOME"] = str(home)
    return env


def cli_version(cli: str) -> str:
    """The version number a CLI prints for ``--version`` (e.g. ``2.1.332``)."""
    with tempfile.TemporaryDirectory(prefix="measure-version-") as home:
        try:
            done = subprocess.run(
                [cli, "--version"],
                capture_output=True,
                text=True,
                timeout=60,
                env=_scratch_env(Path(home)),
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise MeasureError(f"{cli} --version failed: {exc}") from None
    found = re.search(r"\d+\.\d+\.\d+", done.stdout)
    if done.returncode != 0 or not found:
        raise MeasureError(
            f"{cli} --version printed no version number: {done.stdout[:200]!r} "
            f"{done.stderr[:200]!r}"
        )
    return found.group(0)


class _Servers:
    """The measurement MCP servers, each started once over Streamable HTTP on 127.0.0.1.

    Every run of a CLI connects to the same servers; runs are one after the other, so the
    events a run caused are the log lines it added (`calls_since`).
    """

    def __init__(self, folder: Path, names: Sequence[str] = ("profiles", "other", "gate")) -> None:
        self.NAMES = tuple(names)
        self.log = folder / "calls.jsonl"
        self.ports: dict[str, int] = {}
        self._processes: list[subprocess.Popen[bytes]] = []

    def __enter__(self) -> _Servers:
        try:
            for name in self.NAMES:
                port = _free_port()
                self.ports[name] = port
                self._processes.append(
                    subprocess.Popen(
                        [
                            sys.executable,
                            "-m",
                            "course_tools.measure.profiles",
                            name,
                            "--log",
                            str(self.log),
                            "--port",
                            str(port),
                        ],
                        stdin=subprocess.DEVNULL,
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                    )
                )
            for name, port in self.ports.items():
                _wait_for_port(port, name)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        for process in self._processes:
            process.terminate()
        for process in self._processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.ports[name]}/mcp"

    def mark(self) -> int:
        return len(read_log(self.log))

    def calls_since(self, mark: int) -> list[dict[str, Any]]:
        return read_log(self.log)[mark:]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_for_port(port: int, name: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise MeasureError(
        f"the measurement server {name} did not start listening on 127.0.0.1:{port} within "
        f"{timeout:.0f} s"
    )


def _classify(run: _Run, tools: Sequence[str]) -> dict[str, Result]:
    """Classify each planned tool's call from the stand-in's events and the servers' call log."""
    offered: set[str] = set()
    for event in run.events:
        if event["kind"] == "turn":
            offered.update(event["offered"])
    asked = {c["tool_name"] for c in run.calls if c["event"] == "asked"}
    ran = {f"mcp__{c['server']}__{c['tool']}" for c in run.calls if c["event"] == "start"}
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
        if tool not in offered:
            outcome = Outcome.HIDDEN
        elif tool in asked:
            outcome = Outcome.ASK
        elif tool in ran:
            outcome = Outcome.RAN
        else:
            outcome = Outcome.DENY
        results[short] = Result(outcome, judged.get(tool))
    return results


def _run_cli(
    args: list[str], cwd: Path, env: dict[str, str], what: str
) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run a CLI once, with no input and a time limit; return its result and the seconds it took."""
    started = time.monotonic()
    try:
        done = subprocess.run(
            args,
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise MeasureError(f"{what} did not finish within {RUN_TIMEOUT} s") from None
    return done, time.monotonic() - started


RunOnce = Callable[[str, dict[str, Any], Script], _Run]


def _measure_cells(
    run_once: RunOnce,
    modes: Sequence[str],
    rule_sets: dict[str, dict[str, Any]],
    repeats: int,
    progress: Callable[[str], None],
) -> tuple[list[Cell], list[float]]:
    cells: list[Cell] = []
    seconds: list[float] = []
    for mode in modes:
        for rules_name, permissions in rule_sets.items():
            answers = ["approve"]
            while answers:
                answer = answers.pop(0)
                outcomes: list[dict[str, Result]] = []
                for _ in range(repeats):
                    run = run_once(mode, permissions, Script.one_per_turn(PLAN, classifier=answer))
                    seconds.append(run.seconds)
                    outcomes.append(_classify(run, PLAN))
                agree = all(o == outcomes[0] for o in outcomes)
                cell = Cell(mode, rules_name, answer, outcomes[0], agree)
                cells.append(cell)
                shown = " ".join(r.short() for r in cell.results.values())
                progress(f"{cell.key}: {shown}" + ("" if agree else "  (REPEATS DIFFER)"))
                if answer == "approve" and any(r.classifier for r in cell.results.values()):
                    answers.append(
                        "refuse"
                    )  # the classifier judged something: measure it refusing too
    return cells, seconds


def _measurement(
    client: str,
    version: str,
    cells: list[Cell],
    seconds: list[float],
    started: float,
    repeats: int,
    environment: dict[str, str],
    rule_sets: dict[str, dict[str, Any]],
    notes: dict[str, Any],
) -> Measurement:
    runs = len(seconds)
    timing = {
        "runs": runs,
        "repeats": repeats,
        "seconds_total": round(time.monotonic() - started, 1),
        "seconds_per_run": round(sum(seconds) / runs, 2) if runs else 0.0,
        "seconds_per_cell": round(sum(seconds) / runs / len(PLAN), 2) if runs else 0.0,
    }
    profiles = [{"tool": p.tool, "label": p.label, "hints": p.hints} for p in PROFILES]
    profiles.append(
        {
            "tool": OTHER_TOOL,
            "label": "another server's tool (read-only, closed world)",
            "hints": {"readOnlyHint": True, "openWorldHint": False},
        }
    )
    return Measurement(
        client=client,
        version=version,
        date=_dt.date.today().isoformat(),
        profiles=profiles,
        rule_sets=rule_sets,
        cells=cells,
        environment=dict(environment),
        notes=notes,
        timing=timing,
    )


def find_cli(client: str, given: str | None) -> str | None:
    """The CLI to measure: `given`, else on PATH, else where .ci/peers installs it."""
    if given:
        return given if Path(given).exists() or shutil.which(given) else None
    program = {"claude-code": "claude", "codex": "codex"}[client]
    on_path = shutil.which(program)
    if on_path:
        return on_path
    root = Path(__file__).resolve().parents[2] / ".peers"
    folder = {"claude-code": "claude", "codex": "codex"}[client]
    installed = root / folder / "node_modules" / ".bin" / program
    return str(installed) if installed.exists() else None
