"""Measure GitHub Copilot CLI: its modes x its tool allow and deny lists, bring-your-own-key.

Copilot CLI (``copilot -p``) runs offline with no GitHub login (``COPILOT_OFFLINE=true``)
against the OpenAI-compatible stand-in (``COPILOT_PROVIDER_*``, the key the measurement's
secret), with its state in a private ``COPILOT_HOME``. The measurement servers are given for
the session with ``--additional-mcp-config @FILE`` (the secret as a header, in a private file),
the built-in GitHub
servers off. The binary unpacks its JavaScript on the first run. Modes: plain ``-p``,
``--plan``, ``--autopilot`` and ``--allow-all-tools``; settings: ``--allow-tool`` and
``--deny-tool`` for the whole profiles server.

Introduced in: docs/measure.md; results in docs/clients.md.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .adapter import CliRun, Pin
from .chat_standin import ChatStandIn
from .harness import PLAN, PROMPT, require_turns
from .process import run_contained
from .scratch import Workspace, scratch_env
from .servers import MeasurementServers
from .standin import Script
from .tabled import TabledAdapter

__all__ = ["Copilot"]

MODES: dict[str, tuple[str, ...]] = {
    "prompt": (),
    "plan": ("--plan",),
    "autopilot": ("--autopilot",),
    "allow-all-tools": ("--allow-all-tools",),
}
SETTINGS: dict[str, dict[str, Any]] = {
    "none": {},
    "--allow-tool profiles": {"args": ["--allow-tool", "profiles"]},
    "--deny-tool profiles": {"args": ["--deny-tool", "profiles"]},
}


def wire_names(servers: MeasurementServers) -> dict[str, str]:
    """Copilot CLI's name for each planned tool: ``SERVER-TOOL``."""
    return {
        f"{server}-{tool}": planned
        for planned in PLAN
        for _, server, tool in [planned.split("__", 2)]
        if server in servers.names
    }


class Copilot(TabledAdapter):
    """GitHub Copilot CLI (``copilot -p``), bring-your-own-key, offline."""

    pin = Pin("copilot", "GitHub Copilot CLI", "@github/copilot", "1.0.102", "copilot", "copilot")
    tui_prompt_typed = False  # `copilot -i PROMPT` types it
    headless_phrases = ("non-interactive", "cannot prompt", "no interactive", "not approved")
    environment = {"COPILOT_OFFLINE": "true", "COPILOT_PROVIDER_TYPE": "openai"}

    mode_args = MODES
    command_shown = "copilot -p PROMPT {args}"
    setting_table = SETTINGS
    concurrency_mode = "allow-all-tools"

    def _prepare(
        self, servers: MeasurementServers, work: Workspace, url: str
    ) -> tuple[list[str], dict[str, str]]:
        """Options and environment; the MCP config (it holds the secret) goes in a private file,
        given as ``@FILE``, so the secret never appears on a command line."""
        mcp = {
            name: {
                "type": "http",
                "url": servers.url(name),
                "headers": servers.headers,
                "tools": ["*"],
            }
            for name in servers.names
        }
        config = work.root / "mcp-config.json"
        config.write_text(json.dumps({"mcpServers": mcp}), encoding="utf-8")
        env = scratch_env(work.home)
        env.update(
            self.environment,
            COPILOT_HOME=str(work.home / ".copilot"),
            COPILOT_PROVIDER_BASE_URL=f"{url}/v1",
            COPILOT_PROVIDER_API_KEY=servers.token,
            COPILOT_MODEL="stand-in",
        )
        args = [
            "--no-auto-update",
            "--disable-builtin-mcps",
            "--additional-mcp-config",
            f"@{config}",
        ]
        return args, env

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
        names = wire_names(servers)
        with ChatStandIn(script, token=servers.token, wire_names=names) as stand_in:
            options, env = self._prepare(servers, work, stand_in.url)
            args = [cli, "-p", PROMPT, *options, *MODES[mode], *setting.get("args", [])]
            finished = run_contained(args, cwd=work.project, env=env, timeout=self.timeout)
            events = stand_in.events
        run = CliRun(events, servers.calls_since(mark), finished)
        return require_turns(run, f"copilot ({mode})")

    def tui(self) -> dict[str, re.Pattern[str]]:
        return {
            "ready": re.compile(r"Call each measurement tool once"),
            "dialog": re.compile(r"Do you want to use this tool\?"),
            "done": re.compile(r"Measurement finished|Permission denied"),
            "start": re.compile(r"\(MCP: "),
        }

    @contextmanager
    def interactive(
        self, cli: str, servers: MeasurementServers, work: Workspace, script: Script
    ) -> Iterator[tuple[list[str], dict[str, str], ChatStandIn]]:
        """`copilot -i PROMPT` in its default (prompting) mode, the folder trusted."""
        names = wire_names(servers)
        home = work.home / ".copilot"
        home.mkdir(mode=0o700, exist_ok=True)
        config = {"trusted_folders": [str(work.project)], "banner": "never"}
        (home / "config.json").write_text(json.dumps(config), encoding="utf-8")
        with ChatStandIn(script, token=servers.token, wire_names=names) as stand_in:
            options, env = self._prepare(servers, work, stand_in.url)
            env["TERM"] = "xterm-256color"
            yield [cli, *options, "-i", PROMPT], env, stand_in
