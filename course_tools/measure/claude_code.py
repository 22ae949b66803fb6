"""Measure Claude Code: every permission mode x every rule set, concurrency, project settings.

Claude Code runs headless (``claude -p``, stream-json) with a permission-prompt tool, the
measurement's ``gate`` server: a call it would ask a person about is sent to the gate, which
logs the question (`ASK`) and refuses. Rule sets are passed with ``--settings FILE``. The
MCP servers are given with the secret as a header (``--mcp-config``, ``--strict-mcp-config``),
the stand-in gets it as the API key.

Introduced in: docs/measure.md; results in lesson 03.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from course_lib.measured import Result

from .adapter import ClientAdapter, CliRun, Pin
from .anthropic_standin import AnthropicStandIn
from .classify import classify
from .errors import MeasureError
from .findings import concurrency
from .harness import OTHER, PLAN, PROFILE_TOOLS, PROMPT, Progress, require_turns
from .process import run_contained
from .profiles import GATE_TOOL, file_ops_tools
from .scratch import Workspace, cli_version, scratch_env, workspace
from .servers import MeasurementServers
from .standin import Script

__all__ = ["CLAUDE_ENV", "RULE_SETS", "ClaudeCode", "measure_settings"]

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
        # two rules on one tool: which list wins (the documented order is deny > ask > allow)
        "allow and ask": {"allow": PROFILE_TOOLS, "ask": PROFILE_TOOLS},
        "ask and deny": {"ask": PROFILE_TOOLS, "deny": PROFILE_TOOLS},
    }


RULE_SETS = _rule_sets()


class ClaudeCode(ClientAdapter):
    """Claude Code (``claude -p``) with a permission-prompt tool standing in for the person."""

    pin = Pin(
        "claude-code",
        "Claude Code",
        "@anthropic-ai/claude-code",
        "2.1.332",
        "claude",
        "claude",
        node="22",
    )
    servers = ("profiles", "other", "gate")
    environment = CLAUDE_ENV

    def modes(self, cli: str) -> list[str]:
        """The choices of ``--permission-mode`` that ``claude --help`` lists."""
        with workspace("measure-help-") as tmp:
            work = Workspace(Path(tmp))
            done = run_contained(
                [cli, "--help"], cwd=work.project, env=scratch_env(work.home), timeout=120
            )
        text = " ".join(done.stdout.split())
        found = re.search(r"--permission-mode <mode>.*?\(choices: ([^)]*)\)", text)
        if not found:
            raise MeasureError(f"{cli} --help lists no --permission-mode choices")
        return re.findall(r'"([A-Za-z]+)"', found.group(1))

    def settings(self) -> dict[str, dict[str, Any]]:
        return RULE_SETS

    def run_turn(
        self,
        cli: str,
        servers: MeasurementServers,
        work: Workspace,
        mode: str,
        setting: dict[str, Any],
        script: Script,
    ) -> CliRun:
        """One ``claude -p`` run; retried once when the MCP servers were not connected in time."""
        plan = sorted({t for turn in script.turns for t in turn})
        for attempt in (1, 2):
            run = self._run_once(cli, servers, work, mode, setting, script, f"try{attempt}")
            if any(set(e["offered"]) & set(plan) for e in run.events if e["kind"] == "turn"):
                return run
        raise MeasureError(
            f"claude (mode {mode}) offered none of the measurement tools twice: the MCP servers "
            "did not connect"
        )

    def _config(self, servers: MeasurementServers, work: Workspace, attempt: str) -> Path:
        config = work.root / f"mcp{attempt}.json"
        mcp_servers = {
            name: {"type": "http", "url": servers.url(name), "headers": servers.headers}
            for name in servers.names
        }
        config.write_text(json.dumps({"mcpServers": mcp_servers}), encoding="utf-8")
        return config

    def _env(self, work: Workspace, url: str, servers: MeasurementServers) -> dict[str, str]:
        env = scratch_env(work.home)
        env.update(CLAUDE_ENV, ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY=servers.token)
        return env

    def _run_once(
        self,
        cli: str,
        servers: MeasurementServers,
        work: Workspace,
        mode: str,
        permissions: dict[str, Any],
        script: Script,
        attempt: str = "",
    ) -> CliRun:
        config = self._config(servers, work, attempt)
        args = [cli, "-p", PROMPT, "--output-format", "stream-json", "--verbose"]
        args += ["--mcp-config", str(config), "--strict-mcp-config", "--permission-mode", mode]
        args += ["--permission-prompt-tool", f"mcp__gate__{GATE_TOOL}"]
        if permissions:
            settings = work.root / f"settings{attempt}.json"
            settings.write_text(json.dumps({"permissions": permissions}), encoding="utf-8")
            args += ["--settings", str(settings)]
        mark = servers.mark()
        with AnthropicStandIn(script, token=servers.token) as stand_in:
            env = self._env(work, stand_in.url, servers)
            finished = run_contained(args, cwd=work.project, env=env, timeout=self.timeout)
            events = stand_in.events
        run = require_turns(CliRun(events, servers.calls_since(mark), finished), f"claude ({mode})")
        deferred = any(e["kind"] == "turn" and e.get("tool_search") for e in events)
        offered = {t for e in events if e["kind"] == "turn" for t in e["offered"]}
        if deferred and not offered & set(PLAN):
            raise MeasureError(
                "claude deferred the MCP tools behind ToolSearch although ENABLE_TOOL_SEARCH=false "
                "was set"
            )
        return run

    def tui(self) -> dict[str, re.Pattern[str]]:
        return {
            "ready": re.compile(r"\? for shortcuts"),
            "dialog": re.compile(r"Do you want to proceed\?"),
            "done": re.compile(r" ran\b|Did not run|Error"),
            "start": re.compile(r"^\s*Tool use"),
        }

    @contextmanager
    def interactive(
        self, cli: str, servers: MeasurementServers, work: Workspace, script: Script
    ) -> Iterator[tuple[list[str], dict[str, str], AnthropicStandIn]]:
        """`claude` in manual mode (its interactive default is auto mode), onboarding done,
        the folder trusted and the stand-in's key approved."""
        state = {
            "hasCompletedOnboarding": True,
            "theme": "dark",
            "customApiKeyResponses": {"approved": [servers.token[-20:]], "rejected": []},
            "projects": {str(work.project): {"hasTrustDialogAccepted": True}},
        }
        (work.home / ".claude.json").write_text(json.dumps(state), encoding="utf-8")
        config = self._config(servers, work, "")
        args = [cli, "--mcp-config", str(config), "--strict-mcp-config"]
        args += ["--permission-mode", "manual"]
        with AnthropicStandIn(script, token=servers.token) as stand_in:
            env = self._env(work, stand_in.url, servers)
            env["TERM"] = "xterm-256color"
            yield args, env, stand_in

    def notes(self, cli: str, servers: MeasurementServers) -> dict[str, Any]:
        available = self.modes(cli)
        default_mode = next((m for m in ("default", "manual") if m in available), available[0])
        return {
            "concurrency": concurrency(self, cli, servers, "bypassPermissions"),
            "project_settings": {
                "mode": default_mode,
                **_project_settings(self, cli, servers, default_mode),
            },
        }


def _project_settings(
    adapter: ClaudeCode, cli: str, servers: MeasurementServers, default_mode: str
) -> dict[str, str]:
    """Does a project's .claude/settings.json allow rule apply in -p mode, untrusted and trusted?"""
    results: dict[str, str] = {}
    tool = "mcp__profiles__read_closed"
    for trusted in (False, True):
        with workspace() as tmp:
            work = Workspace(Path(tmp))
            (work.project / ".claude").mkdir()
            rules = json.dumps({"permissions": {"allow": [tool]}})
            (work.project / ".claude" / "settings.json").write_text(rules, encoding="utf-8")
            if trusted:
                state = {"projects": {str(work.project): {"hasTrustDialogAccepted": True}}}
                (work.home / ".claude.json").write_text(json.dumps(state), encoding="utf-8")
            script = Script.one_per_turn([tool, OTHER])
            run = adapter.run_turn(cli, servers, work, default_mode, {}, script)
        label = "folder trusted" if trusted else "folder not trusted"
        outcome = classify(run, [tool])["read_closed"].outcome.value
        results[f"project .claude/settings.json, {label}"] = outcome
    return results


def measure_settings(
    cli: str,
    permissions: dict[str, Any],
    *,
    modes: Sequence[str] | None = None,
    progress: Progress = lambda _: None,
) -> tuple[str, dict[str, dict[str, Result]]]:
    """Measure Claude Code on a logging twin of the file-ops server under the given rules.

    Returns the version and, per mode, what happened to each file-ops tool's call.
    """
    adapter = ClaudeCode()
    version = cli_version(cli)
    available = adapter.modes(cli)
    chosen = [m for m in (modes or available) if m in available]
    if not chosen:
        raise MeasureError(
            f"none of the modes {list(modes or [])} exists in Claude Code {version}; it has "
            f"{available}"
        )
    results: dict[str, dict[str, Result]] = {}
    with (
        workspace("measure-servers-") as folder,
        MeasurementServers(Path(folder), ("file-ops", "gate")) as servers,
    ):
        plan = [f"mcp__file-ops__{tool.name}" for tool in file_ops_tools()]
        for mode in chosen:
            with workspace() as tmp:
                work = Workspace(Path(tmp))
                run = adapter.run_turn(
                    cli, servers, work, mode, permissions, Script.one_per_turn(plan)
                )
            results[mode] = classify(run, plan)
            progress(f"{mode}: " + " ".join(r.short() for r in results[mode].values()))
    return version, results
