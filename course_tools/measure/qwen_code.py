"""Measure Qwen Code: every approval mode (``auto`` with its classifier) x server trust.

Qwen Code (``qwen -p``, a fork of Gemini CLI) reads ``~/.qwen/settings.json`` from the
private HOME, shaped like Gemini CLI's: the measurement servers (``httpUrl``, the secret as a
header, ``trust`` per server), telemetry and updates off. The model is the OpenAI-compatible
stand-in (``OPENAI_BASE_URL``, ``--auth-type openai``). MCP tools are deferred: the model
finds one with ``tool_search`` (``select:mcp__SERVER__TOOL``) and calls it through
``tool_call``. In ``auto`` mode each call goes to an LLM classifier, a request carrying a
``respond_in_schema`` tool; the stand-in approves or blocks as scripted.

How it reads the hints, in its bundle (``@qwen-code/qwen-code`` 0.24.4): an MCP tool is of
kind ``read`` when ``readOnlyHint === true``, else ``other``; the classifier's prompt tells
it that annotations "may add suspicion but never remove it"; replay after a reconnect needs a
trusted server and ``idempotentHint`` or ``readOnlyHint``.

Introduced in: docs/measure.md; results in docs/clients.md.
"""

from __future__ import annotations

import json
from typing import Any

from .adapter import CliRun, Pin
from .chat_standin import ChatStandIn
from .findings import startup
from .harness import PROMPT, require_turns
from .process import run_contained
from .scratch import Workspace, scratch_env
from .servers import MeasurementServers
from .standin import Script
from .tabled import TabledAdapter

__all__ = ["QwenCode"]

MODES = {m: ("--approval-mode", m) for m in ("default", "auto-edit", "plan", "yolo", "auto")}
SETTINGS: dict[str, dict[str, Any]] = {
    "none": {},
    "trust": {"trust": True},
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
    return json.dumps(
        {
            "mcpServers": mcp,
            "security": {
                "auth": {"selectedType": "openai"},
                "folderTrust": {"enabled": bool(setting.get("folder_trust"))},
            },
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "ide": {"enabled": False},
        }
    )


class QwenCode(TabledAdapter):
    """Qwen Code (``qwen -p``) with each ``--approval-mode``."""

    pin = Pin(
        "qwen-code", "Qwen Code", "@qwen-code/qwen-code", "0.24.4", "qwen", "qwen-code", node="22"
    )
    headless_phrases = ("non-interactive", "cannot prompt", "requires user confirmation")

    mode_args = MODES
    command_shown = "qwen {args} -p PROMPT"
    setting_table = SETTINGS
    concurrency_mode = "yolo"

    def more_notes(self, cli: str, servers: MeasurementServers) -> dict[str, Any]:
        untrusted = {"trust": True, "folder_trust": True}
        return {
            "folder trust on, folder not trusted (trusted server, yolo)": startup(
                self, cli, servers, "yolo", untrusted
            ),
        }

    def run_turn(
        self,
        cli: str,
        servers: MeasurementServers,
        work: Workspace,
        mode: str,
        setting: dict[str, Any],
        script: Script,
    ) -> CliRun:
        folder = work.home / ".qwen"
        folder.mkdir(mode=0o700)
        (folder / "settings.json").write_text(_settings_json(servers, setting), encoding="utf-8")
        mark = servers.mark()
        with ChatStandIn(script, token=servers.token) as stand_in:
            env = scratch_env(work.home)
            env.update(OPENAI_API_KEY=servers.token, OPENAI_BASE_URL=f"{stand_in.url}/v1")
            args = [cli, "--auth-type", "openai", "--model", "stand-in"]
            args += [*self.mode_args[mode], "-p", PROMPT]
            finished = run_contained(args, cwd=work.project, env=env, timeout=self.timeout)
            events = stand_in.events
        return require_turns(CliRun(events, servers.calls_since(mark), finished), f"qwen ({mode})")
