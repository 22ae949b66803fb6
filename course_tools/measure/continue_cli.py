"""Measure Continue CLI (``cn``): normal, ``--readonly`` (plan) and ``--auto``, x ``--ask``.

Continue (``cn --config config.yaml -p PROMPT``) reads one YAML file written in the private
project folder: the stand-in as an ``openai`` model (``apiBase``, its key the measurement's
secret) and the measurement servers as ``streamable-http`` MCP servers (the secret as a
header). It offers an MCP tool to the model by the tool's own name. Its permission flags
``--allow``, ``--ask`` and ``--exclude`` name tools; ``--ask``
for every measurement tool is the rule setting measured.

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

__all__ = ["Continue"]

MODES: dict[str, tuple[str, ...]] = {"normal": (), "readonly": ("--readonly",), "auto": ("--auto",)}
SETTINGS: dict[str, dict[str, Any]] = {
    "none": {},
    "--ask every MCP tool": {"flag": "--ask"},
    "--allow every MCP tool": {"flag": "--allow"},
}


def _config(url: str, servers: MeasurementServers) -> str:
    """config.yaml, written as JSON (which YAML reads as it is)."""
    model = {
        "name": "stand-in",
        "provider": "openai",
        "model": "stand-in",
        "apiBase": f"{url}/v1",
        "apiKey": servers.token,
        "roles": ["chat"],
    }
    mcp = [
        {
            "name": name,
            "type": "streamable-http",
            "url": servers.url(name),
            "requestOptions": {"headers": servers.headers},
        }
        for name in servers.names
    ]
    return json.dumps(
        {
            "name": "measure",
            "version": "1.0.0",
            "schema": "v1",
            "models": [model],
            "mcpServers": mcp,
        }
    )


def wire_names() -> dict[str, str]:
    """Continue's name for each planned tool: the MCP tool's own name, without its server."""
    return {planned.split("__", 2)[2]: planned for planned in PLAN}


class Continue(TabledAdapter):
    """Continue CLI (``cn -p``), its three modes, with and without ``--ask`` rules."""

    pin = Pin("continue", "Continue CLI", "@continuedev/cli", "1.5.47", "cn", "continue")
    headless_phrases = ("non-interactive", "headless", "cannot prompt", "requires permission")
    environment = {"CONTINUE_TELEMETRY_ENABLED": "0", "CONTINUE_ALLOW_ANONYMOUS_TELEMETRY": "0"}

    mode_args = MODES
    command_shown = "cn --config config.yaml -p PROMPT {args}"
    setting_table = SETTINGS
    concurrency_mode = "auto"

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
        with ChatStandIn(script, token=servers.token, wire_names=wire_names()) as stand_in:
            config = work.project / "config.yaml"
            config.write_text(_config(stand_in.url, servers), encoding="utf-8")
            env = scratch_env(work.home)
            env.update(self.environment)
            args = [cli, "--config", str(config), "-p", PROMPT, *MODES[mode]]
            if setting.get("flag"):
                for tool in wire_names():
                    args += [setting["flag"], tool]
            finished = run_contained(args, cwd=work.project, env=env, timeout=self.timeout)
            events = stand_in.events
        return require_turns(CliRun(events, servers.calls_since(mark), finished), f"cn ({mode})")
