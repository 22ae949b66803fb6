"""Measure Gemini CLI: every approval mode x server trust and user policies.

Gemini CLI (``gemini -p``) reads ``~/.gemini/settings.json`` from the private HOME: the
measurement servers as Streamable HTTP servers (``httpUrl``, the secret as a header, and
``trust`` per server), API-key auth, and auto-update, usage statistics and telemetry off. The
stand-in is the Gemini API (``GOOGLE_GEMINI_BASE_URL``), the key the measurement's secret;
the sandbox is off (``GEMINI_SANDBOX=false``). User policies (``~/.gemini/policies/*.toml``)
can match a tool's annotations; two are measured. Gemini CLI offers an MCP tool to the model
as ``mcp_SERVER_TOOL``.

How it reads the hints, in its bundle (``@google/gemini-cli`` 0.61.0): ``isReadOnly =
annotations?.readOnlyHint === true`` when a tool is discovered; the plan-mode policy
(``policies/plan.toml``) asks about an MCP tool with ``readOnlyHint = true`` in an
interactive session and denies every other tool; a trusted server in a trusted folder is
never asked about (``getConfirmationDetails``).

Introduced in: docs/measure.md; results in docs/clients.md.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .adapter import CliRun, Pin
from .findings import startup
from .gemini_standin import GeminiStandIn
from .harness import PLAN, PROMPT, require_turns
from .process import run_contained
from .scratch import Workspace, scratch_env
from .servers import MeasurementServers
from .standin import Script
from .tabled import TabledAdapter

__all__ = ["GEMINI_ENV", "Gemini"]

GEMINI_ENV = {"GEMINI_SANDBOX": "false", "GEMINI_CLI_NO_RELAUNCH": "true"}

_POLICY_ALLOW_READ_ONLY = """\
[[rule]]
toolName = "*"
mcpName = "*"
toolAnnotations = { readOnlyHint = true }
decision = "allow"
priority = 900
"""

_POLICY_DENY_DESTRUCTIVE = """\
[[rule]]
toolName = "*"
mcpName = "*"
toolAnnotations = { destructiveHint = true }
decision = "deny"
priority = 900
"""

SETTINGS: dict[str, dict[str, Any]] = {
    "none": {},
    "trust": {"trust": True},
    "policy: allow readOnlyHint": {"policy": _POLICY_ALLOW_READ_ONLY},
    "policy: deny destructiveHint": {"policy": _POLICY_DENY_DESTRUCTIVE},
}
"""The trust and rule settings measured: per-server ``trust``, folder trust, user policies."""


def wire_names(servers: MeasurementServers) -> dict[str, str]:
    """Gemini CLI's name for each planned tool: ``mcp_SERVER_TOOL``."""
    return {
        f"mcp_{server}_{tool}": planned
        for planned in PLAN
        for _, server, tool in [planned.split("__", 2)]
        if server in servers.names
    }


def _settings_json(servers: MeasurementServers, setting: dict[str, Any]) -> str:
    mcp = {
        name: {
            "httpUrl": servers.url(name),
            "headers": servers.headers,
            "trust": bool(setting.get("trust")),
            "timeout": 60_000,
        }
        for name in servers.names
    }
    settings = {
        "mcpServers": mcp,
        "security": {
            "auth": {"selectedType": "gemini-api-key"},
            "folderTrust": {"enabled": bool(setting.get("folder_trust"))},
        },
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "ide": {"enabled": False},
    }
    return json.dumps(settings)


class Gemini(TabledAdapter):
    """Gemini CLI (``gemini -p``) with each ``--approval-mode``."""

    pin = Pin("gemini", "Gemini CLI", "@google/gemini-cli", "0.61.0", "gemini", "gemini")
    environment = GEMINI_ENV
    headless_phrases = ("non-interactive", "cannot prompt", "requires user confirmation")

    mode_args = {m: ("--approval-mode", m) for m in ("default", "auto_edit", "plan", "yolo")}
    command_shown = "gemini {args} -p PROMPT"
    setting_table = SETTINGS
    concurrency_mode = "yolo"

    def more_notes(self, cli: str, servers: MeasurementServers) -> dict[str, Any]:
        untrusted = {"trust": True, "folder_trust": True}
        return {
            "folder trust on, folder not trusted (trusted server, yolo)": startup(
                self, cli, servers, "yolo", untrusted
            ),
        }

    def tui(self) -> dict[str, re.Pattern[str]]:
        return {
            "ready": re.compile(r"Type your message"),
            "dialog": re.compile(r"Allow execution|Do you want to proceed|Allow once", re.I),
            "done": re.compile(r"Measurement finished"),
            "start": re.compile(r"Action Required"),
        }

    @contextmanager
    def interactive(
        self, cli: str, servers: MeasurementServers, work: Workspace, script: Script
    ) -> Iterator[tuple[list[str], dict[str, str], GeminiStandIn]]:
        """`gemini` in its default approval mode, an untrusted server, the theme chosen."""
        folder = work.home / ".gemini"
        folder.mkdir(mode=0o700)
        settings = json.loads(_settings_json(servers, {}))
        settings["ui"] = {"theme": "Default"}
        (folder / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
        names = wire_names(servers)
        with GeminiStandIn(script, token=servers.token, wire_names=names) as stand_in:
            env = scratch_env(work.home)
            env.update(
                GEMINI_ENV, GEMINI_API_KEY=servers.token, GOOGLE_GEMINI_BASE_URL=stand_in.url
            )
            env["TERM"] = "xterm-256color"
            yield [cli, "--approval-mode", "default"], env, stand_in

    def run_turn(
        self,
        cli: str,
        servers: MeasurementServers,
        work: Workspace,
        mode: str,
        setting: dict[str, Any],
        script: Script,
    ) -> CliRun:
        folder = work.home / ".gemini"
        folder.mkdir(mode=0o700)
        (folder / "settings.json").write_text(_settings_json(servers, setting), encoding="utf-8")
        if setting.get("policy"):
            (folder / "policies").mkdir()
            (folder / "policies" / "measure.toml").write_text(setting["policy"], encoding="utf-8")
        mark = servers.mark()
        with GeminiStandIn(script, token=servers.token, wire_names=wire_names(servers)) as stand_in:
            env = scratch_env(work.home)
            env.update(
                GEMINI_ENV, GEMINI_API_KEY=servers.token, GOOGLE_GEMINI_BASE_URL=stand_in.url
            )
            args = [cli, *self.mode_args[mode], "-p", PROMPT]
            finished = run_contained(args, cwd=work.project, env=env, timeout=self.timeout)
            events = stand_in.events
        run = CliRun(events, servers.calls_since(mark), finished)
        return require_turns(run, f"gemini ({mode})")
