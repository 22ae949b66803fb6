"""Measure opencode: its agents (``build``, ``plan``) x its permission settings.

opencode (``opencode run``) reads ``opencode.json`` from the project folder: the stand-in as an
OpenAI-compatible provider (``@ai-sdk/openai-compatible``, its key the measurement's secret),
the measurement servers as remote MCP servers (the secret as a header), and auto-update and
sharing off. Its ``OPENCODE_DISABLE_*`` variables turn off the model list download, default
plugins, LSP downloads and reading Claude Code's files. An MCP tool reaches the model as
``SERVER_TOOL``. Kilo CLI, a fork, is measured by `kilo` with the same code.

Introduced in: docs/measure.md; results in docs/clients.md.
"""

from __future__ import annotations

import json
from typing import Any

from .adapter import CliRun, Pin
from .chat_standin import ChatStandIn
from .harness import PLAN, PROMPT, require_turns
from .process import run_contained
from .scratch import Workspace, scratch_env
from .servers import MeasurementServers
from .standin import Script
from .tabled import TabledAdapter

__all__ = ["Opencode"]

SETTINGS: dict[str, dict[str, Any]] = {
    "none": {},
    "permission: ask every MCP tool": {"permission": {"profiles_*": "ask", "other_*": "ask"}},
    "permission: deny every MCP tool": {"permission": {"profiles_*": "deny", "other_*": "deny"}},
}


class Opencode(TabledAdapter):
    """opencode (``opencode run``), with its ``build`` and ``plan`` agents."""

    pin = Pin("opencode", "opencode", "opencode-ai", "1.18.33", "opencode", "opencode")
    config_name = "opencode.json"
    variable_prefix = "OPENCODE"
    headless_phrases = ("auto-rejecting", "non-interactive", "cannot ask", "no interactive")

    @property
    def environment(self) -> dict[str, str]:  # type: ignore[override]
        names = ("AUTOUPDATE", "MODELS_FETCH", "DEFAULT_PLUGINS", "LSP_DOWNLOAD", "CLAUDE_CODE")
        return {f"{self.variable_prefix}_DISABLE_{name}": "1" for name in names}

    mode_args = {m: ("--agent", m) for m in ("build", "plan")}
    command_shown = "{program} run {args} PROMPT"
    setting_table = SETTINGS
    concurrency_mode = "build"

    def wire_names(self, servers: MeasurementServers) -> dict[str, str]:
        """The name each planned tool is offered under: ``SERVER_TOOL``."""
        return {
            f"{server}_{tool}": planned
            for planned in PLAN
            for _, server, tool in [planned.split("__", 2)]
            if server in servers.names
        }

    def config(self, url: str, servers: MeasurementServers, setting: dict[str, Any]) -> str:
        provider = {
            "npm": "@ai-sdk/openai-compatible",
            "name": "stand-in",
            "options": {"baseURL": f"{url}/v1", "apiKey": servers.token},
            "models": {"stand-in": {"name": "stand-in", "tool_call": True}},
        }
        mcp = {
            name: {"type": "remote", "url": servers.url(name), "headers": servers.headers}
            for name in servers.names
        }
        config: dict[str, Any] = {
            "provider": {"standin": provider},
            "model": "standin/stand-in",
            "mcp": mcp,
            "autoupdate": False,
            "share": "disabled",
        }
        if setting.get("permission"):
            config["permission"] = setting["permission"]
        return json.dumps(config)

    def run_turn(
        self,
        cli: str,
        servers: MeasurementServers,
        work: Workspace,
        mode: str,
        setting: dict[str, Any],
        script: Script,
    ) -> CliRun:
        mark = servers.mark()
        names = self.wire_names(servers)
        with ChatStandIn(script, token=servers.token, wire_names=names) as stand_in:
            config = self.config(stand_in.url, servers, setting)
            (work.project / self.config_name).write_text(config, encoding="utf-8")
            env = scratch_env(work.home)
            env.update(self.environment)
            args = [cli, "run", *self.mode_args[mode], PROMPT]
            finished = run_contained(args, cwd=work.project, env=env, timeout=self.timeout)
            events = stand_in.events
        what = f"{self.pin.program} ({mode})"
        return require_turns(CliRun(events, servers.calls_since(mark), finished), what)
