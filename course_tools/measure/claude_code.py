"""Measure Claude Code: every permission mode x every rule set, concurrency, project settings.

Introduced in: README.md, section "Measure a real client"; results in lesson 03.
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from course_lib.measured import Measurement, Result

from .profiles import GATE_TOOL, file_ops_tools
from .run import (
    OTHER,
    PLAN,
    PROFILE_TOOLS,
    PROMPT,
    MeasureError,
    _classify,
    _measure_cells,
    _measurement,
    _Run,
    _run_cli,
    _scratch_env,
    _Servers,
    cli_version,
)
from .standins import AnthropicStandIn, Script

__all__ = ["CLAUDE_ENV", "RULE_SETS", "measure_claude_code", "measure_settings"]

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
