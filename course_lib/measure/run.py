"""Run a real client CLI against the stand-ins and classify every attempted call from the logs.

`measure_claude_code(cli)` and `measure_codex(cli)` return a `Measurement`. Each run of the CLI
works in a fresh scratch folder (its own HOME, project and logs), talks only to the stand-in
on 127.0.0.1 and to the measurement MCP servers it starts over stdio, and is repeated to check
the result is deterministic.

How a call is classified, from the servers' own logs (never from model text):

* not among the tools the stand-in model was offered -> `HIDDEN`;
* the gate (the permission-prompt tool) logged a question about it -> `ASK`;
* the measurement server logged that it ran, no question asked -> `RAN`;
* otherwise (the client refused it) -> `DENY`.

A call the auto-mode classifier judged (a classifier request reached the stand-in between the
call and its result) carries the classifier's scripted answer.
"""

from __future__ import annotations

import datetime as _dt
import json
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

from ..permissions import Outcome
from .matrix import Cell, Measurement, Result
from .profiles import GATE_TOOL, OTHER_TOOL, PROFILES, file_ops_tools, read_log
from .standins import AnthropicStandIn, OpenAIStandIn, Script

__all__ = ["MeasureError", "cli_version", "measure_claude_code", "measure_codex", "RULE_SETS"]

RUN_TIMEOUT = 120
PROFILE_TOOLS = [f"mcp__profiles__{p.tool}" for p in PROFILES]
OTHER = f"mcp__other__{OTHER_TOOL}"
PLAN = [*PROFILE_TOOLS, OTHER]
PROMPT = "Call each measurement tool once."

CLAUDE_ENV = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "MCP_CONNECTION_NONBLOCKING": "0",
    "MCP_TIMEOUT": "60000",
    # the 5 s default is too short for Python servers on a busy machine
    "MCP_CONNECT_TIMEOUT_MS": "60000",
    "IS_SANDBOX": "1",  # bypassPermissions refuses to start as root without it
    # 2.1.332 defers MCP tools behind a ToolSearch tool; measure the tools themselves.
    "ENABLE_TOOL_SEARCH": "false",
    # 2.1.332 asks the API itself to run the auto-mode check; a stand-in cannot, so this turns that
    # off and Claude Code sends its classifier request to the stand-in, which answers as scripted.
    "CLAUDE_CODE_AUTO_MODE_SERVER": "0",
}


def _rule_sets() -> dict[str, dict[str, Any]]:
    return {
        "none": {},
        "allow": {"allow": PROFILE_TOOLS},
        "ask": {"ask": PROFILE_TOOLS},
        "deny": {"deny": PROFILE_TOOLS},
        "allow mcp__profiles": {"allow": ["mcp__profiles"]},
        "allow mcp__profiles__*": {"allow": ["mcp__profiles__*"]},
    }


RULE_SETS = _rule_sets()
"""Claude Code rule sets measured: each names every profile tool, or the whole profiles server."""


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


def _claude_modes(cli: str, home: Path) -> list[str]:
    done = subprocess.run(
        [cli, "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env=_scratch_env(home),
        stdin=subprocess.DEVNULL,
        check=False,
    )
    text = " ".join(done.stdout.split())
    found = re.search(r"--permission-mode <mode>.*?\(choices: ([^)]*)\)", text)
    if not found:
        raise MeasureError(f"{cli} --help lists no --permission-mode choices")
    return re.findall(r'"([A-Za-z]+)"', found.group(1))


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
                            "course_lib.measure.profiles",
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


def _run_claude(
    cli: str,
    servers: _Servers,
    mode: str,
    permissions: dict[str, Any],
    script: Script,
    plan: Sequence[str] = PLAN,
) -> _Run:
    """One `claude -p` run; retried once when the MCP servers were not connected in time."""
    for _attempt in (1, 2):
        with tempfile.TemporaryDirectory(prefix="measure-") as tmp:
            run = _run_claude_once(cli, Path(tmp), servers, mode, permissions, script, plan)
        if any(set(e["offered"]) & set(plan) for e in run.events if e["kind"] == "turn"):
            return run
    raise MeasureError(
        f"claude (mode {mode}) offered none of the measurement tools twice: the MCP servers did "
        "not connect"
    )


def _run_claude_once(
    cli: str,
    work: Path,
    servers: _Servers,
    mode: str,
    permissions: dict[str, Any],
    script: Script,
    plan: Sequence[str] = PLAN,
) -> _Run:
    home, project = work / "home", work / "project"
    for folder in (home, project):
        folder.mkdir(parents=True, exist_ok=True)
    config = work / "mcp.json"
    mcp_servers = {name: {"type": "http", "url": servers.url(name)} for name in servers.NAMES}
    config.write_text(json.dumps({"mcpServers": mcp_servers}), encoding="utf-8")
    args = [
        cli,
        "-p",
        PROMPT,
        "--output-format",
        "stream-json",
        "--verbose",
        "--mcp-config",
        str(config),
        "--strict-mcp-config",
        "--permission-mode",
        mode,
        "--permission-prompt-tool",
        f"mcp__gate__{GATE_TOOL}",
    ]
    if permissions:
        settings = work / "settings.json"
        settings.write_text(json.dumps({"permissions": permissions}), encoding="utf-8")
        args += ["--settings", str(settings)]
    mark = servers.mark()
    with AnthropicStandIn(script) as stand_in:
        env = _scratch_env(home)
        env.update(CLAUDE_ENV, ANTHROPIC_BASE_URL=stand_in.url, ANTHROPIC_API_KEY="stand-in-no-key")
        done, seconds = _run_cli(args, project, env, f"claude (mode {mode})")
        events = stand_in.events
    if not any(e["kind"] == "turn" for e in events):
        raise MeasureError(
            f"claude (mode {mode}) never asked the stand-in model for a turn; exit "
            f"{done.returncode}:\n"
            f"{done.stderr[-1500:]}{done.stdout[-1500:]}"
        )
    deferred = any(e["kind"] == "turn" and e.get("tool_search") for e in events)
    if deferred and not any(set(e["offered"]) & set(plan) for e in events if e["kind"] == "turn"):
        raise MeasureError(
            "claude deferred the MCP tools behind ToolSearch although ENABLE_TOOL_SEARCH=false "
            "was set"
        )
    return _Run(events, servers.calls_since(mark), seconds)


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


def _concurrency(cli: str, servers: _Servers) -> dict[str, Any]:
    """Two read-only calls in one turn, then two non-read-only ones: did each pair overlap?"""
    pairs = {
        "read-only pair": ("read_closed", "read_open"),
        "non-read-only pair": ("delete", "set_value"),
    }
    script = Script(
        turns=tuple(tuple(f"mcp__profiles__{t}" for t in pair) for pair in pairs.values()),
        seconds=0.5,
    )
    run = _run_claude(cli, servers, "bypassPermissions", {}, script)
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


def _project_settings(cli: str, servers: _Servers, default_mode: str) -> dict[str, str]:
    """Does a project's .claude/settings.json allow rule apply in -p mode, untrusted and trusted?"""
    results: dict[str, str] = {}
    tool = "mcp__profiles__read_closed"
    for trusted in (False, True):
        with tempfile.TemporaryDirectory(prefix="measure-") as tmp:
            work = Path(tmp)
            (work / "project" / ".claude").mkdir(parents=True)
            rules = json.dumps({"permissions": {"allow": [tool]}})
            (work / "project" / ".claude" / "settings.json").write_text(rules, encoding="utf-8")
            (work / "home").mkdir()
            if trusted:
                state = {"projects": {str(work / "project"): {"hasTrustDialogAccepted": True}}}
                (work / "home" / ".claude.json").write_text(json.dumps(state), encoding="utf-8")
            run = _run_claude_once(
                cli, work, servers, default_mode, {}, Script.one_per_turn([tool, OTHER])
            )
        label = "folder trusted" if trusted else "folder not trusted"
        results[f"project .claude/settings.json, {label}"] = _classify(run, [tool])[
            "read_closed"
        ].outcome.value
    return results


def measure_claude_code(
    cli: str,
    *,
    repeats: int = 2,
    modes: Sequence[str] | None = None,
    progress: Callable[[str], None] = lambda _: None,
) -> Measurement:
    """Measure Claude Code: each mode its --help lists x each rule set, `repeats` times each."""
    version = cli_version(cli)
    with tempfile.TemporaryDirectory(prefix="measure-home-") as home:
        available = _claude_modes(cli, Path(home))
    chosen = available if modes is None else [m for m in modes if m in available]
    if not chosen:
        raise MeasureError(
            f"none of the modes {list(modes or [])} exists in Claude Code {version}; it has "
            f"{available}"
        )
    started = time.monotonic()
    with (
        tempfile.TemporaryDirectory(prefix="measure-servers-") as folder,
        _Servers(Path(folder)) as servers,
    ):

        def run_once(mode: str, permissions: dict[str, Any], script: Script) -> _Run:
            return _run_claude(cli, servers, mode, permissions, script)

        cells, seconds = _measure_cells(run_once, chosen, RULE_SETS, repeats, progress)
        notes: dict[str, Any] = {}
        progress("concurrency: two read-only calls in one turn, then two non-read-only calls")
        notes["concurrency"] = _concurrency(cli, servers)
        default_mode = next((m for m in ("default", "manual") if m in available), chosen[0])
        progress(f"project settings: an allow rule in .claude/settings.json, {default_mode} mode")
        notes["project_settings"] = {
            "mode": default_mode,
            **_project_settings(cli, servers, default_mode),
        }
    return _measurement(
        "claude-code", version, cells, seconds, started, repeats, CLAUDE_ENV, RULE_SETS, notes
    )


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


def measure_settings(
    cli: str,
    permissions: dict[str, Any],
    *,
    modes: Sequence[str] | None = None,
    progress: Callable[[str], None] = lambda _: None,
) -> tuple[str, dict[str, dict[str, Result]]]:
    """Measure Claude Code on a logging twin of the file-ops server under the given rules.

    Returns the version and, per mode, what happened to each file-ops tool's call.
    """
    version = cli_version(cli)
    with tempfile.TemporaryDirectory(prefix="measure-home-") as home:
        available = _claude_modes(cli, Path(home))
    chosen = [m for m in (modes or available) if m in available]
    if not chosen:
        raise MeasureError(
            f"none of the modes {list(modes or [])} exists in Claude Code {version}; it has "
            f"{available}"
        )
    results: dict[str, dict[str, Result]] = {}
    with (
        tempfile.TemporaryDirectory(prefix="measure-servers-") as folder,
        _Servers(Path(folder), ("file-ops", "gate")) as servers,
    ):
        plan = [f"mcp__file-ops__{tool.name}" for tool in file_ops_tools()]
        for mode in chosen:
            run = _run_claude(cli, servers, mode, permissions, Script.one_per_turn(plan), plan)
            results[mode] = _classify(run, plan)
            progress(f"{mode}: " + " ".join(r.short() for r in results[mode].values()))
    return version, results


CODEX_MODES = {"exec": [], "bypass": ["--dangerously-bypass-approvals-and-sandbox"]}


def _run_codex(cli: str, servers: _Servers, mode: str, script: Script) -> _Run:
    with tempfile.TemporaryDirectory(prefix="measure-") as tmp:
        work = Path(tmp)
        home, project = work / "home", work / "project"
        codex_home = home / ".codex"
        for folder in (codex_home, project):
            folder.mkdir(parents=True, exist_ok=True)
        mark = servers.mark()
        with OpenAIStandIn(script) as stand_in:
            lines = [
                'model = "stand-in"',
                'model_provider = "standin"',
                "",
                "[model_providers.standin]",
                'name = "stand-in"',
                f'base_url = "{stand_in.url}/v1"',
                'env_key = "STANDIN_API_KEY"',
                'wire_api = "responses"',
                "",
            ]
            for name in ("profiles", "other"):
                lines += [
                    f"[mcp_servers.{name}]",
                    f'url = "{servers.url(name)}"',
                    "required = true",
                    "",
                ]
            (codex_home / "config.toml").write_text("\n".join(lines), encoding="utf-8")
            env = _scratch_env(home)
            env.update(CODEX_HOME=str(codex_home), STANDIN_API_KEY="stand-in-no-key")
            args = [cli, "exec", "--json", "--skip-git-repo-check", *CODEX_MODES[mode], PROMPT]
            done, seconds = _run_cli(args, project, env, f"codex (mode {mode})")
            events = stand_in.events
    if not any(e["kind"] == "turn" for e in events):
        raise MeasureError(
            "codex never asked the stand-in model for a turn; exit "
            f"{done.returncode}:\n{done.stderr[-1500:]}"
        )
    return _Run(events, servers.calls_since(mark), seconds)


def measure_codex(
    cli: str, *, repeats: int = 2, progress: Callable[[str], None] = lambda _: None
) -> Measurement:
    """Measure Codex's `codex exec`, plain and with approvals bypassed, `repeats` times each."""
    version = cli_version(cli)
    started = time.monotonic()
    rule_sets: dict[str, dict[str, Any]] = {"none": {}}
    with (
        tempfile.TemporaryDirectory(prefix="measure-servers-") as folder,
        _Servers(Path(folder)) as servers,
    ):

        def run_once(mode: str, _permissions: dict[str, Any], script: Script) -> _Run:
            return _run_codex(cli, servers, mode, script)

        cells, seconds = _measure_cells(run_once, list(CODEX_MODES), rule_sets, repeats, progress)
    modes = {m: " ".join(["codex exec", *a]) for m, a in CODEX_MODES.items()}
    return _measurement(
        "codex", version, cells, seconds, started, repeats, {}, rule_sets, {"modes": modes}
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
