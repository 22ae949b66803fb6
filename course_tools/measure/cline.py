"""Measure Cline CLI: act and plan mode, with auto-approval on (its default) and off.

Cline (``cline --json PROMPT``) is configured in the private HOME with the files its own
``cline auth -p openai -k KEY -b URL`` and ``cline mcp add NAME --transport streamable-http URL
--header ... --yes`` write (``~/.cline/data/settings/providers.json`` and
``cline_mcp_settings.json``): the ``openai-compatible`` provider points at the stand-in, its
key the measurement's secret, and each measurement server gets the secret as a header. Written
directly, so the secret is never on a command line, where another local user could read it.
Cline offers an MCP tool to the model as ``mcp__SERVER__TOOL`` or as ``SERVER__TOOL`` (both
seen). It leaves a detached
``--cline-hub-daemon`` behind, which the contained run kills (`process.run_contained`).

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

__all__ = ["Cline"]

MODES: dict[str, tuple[str, ...]] = {
    "act": (),
    "act, auto-approve false": ("--auto-approve", "false"),
    "plan": ("--plan",),
    "plan, auto-approve false": ("--plan", "--auto-approve", "false"),
}


def wire_names() -> dict[str, str]:
    """Cline's other name for a planned tool, ``SERVER__TOOL`` (it offers ``mcp__SERVER__TOOL``
    in some runs and this in others)."""
    return {planned.removeprefix("mcp__"): planned for planned in PLAN}


class Cline(TabledAdapter):
    """Cline CLI (``cline --json``), act and plan, auto-approve on and off."""

    pin = Pin("cline", "Cline CLI", "cline", "3.0.65", "cline", "cline")
    headless_phrases = ("requires approval in a tty session", "non-interactive", "cannot prompt")

    mode_args = MODES
    command_shown = "cline --json {args} PROMPT"
    concurrency_mode = "act"

    def _setup(self, servers: MeasurementServers, work: Workspace, url: str) -> None:
        """Write what ``cline auth`` and ``cline mcp add`` would (the same files), so the secret
        never appears on a command line."""
        settings = work.home / ".cline" / "data" / "settings"
        settings.mkdir(mode=0o700, parents=True)
        provider = {
            "provider": "openai-compatible",
            "apiKey": servers.token,
            "model": "stand-in",
            "baseUrl": f"{url}/v1",
        }
        providers = {
            "version": 1,
            "lastUsedProvider": "openai-compatible",
            "modes": {},
            "providers": {
                "openai-compatible": {
                    "settings": provider,
                    "updatedAt": "2026-12-01T00:00:00.000Z",  # without it Cline resets the file
                    "tokenSource": "manual",
                }
            },
        }
        (settings / "providers.json").write_text(json.dumps(providers), encoding="utf-8")
        transport = {"type": "streamableHttp", "headers": servers.headers}
        mcp = {
            name: {"transport": {**transport, "url": servers.url(name)}} for name in servers.names
        }
        (settings / "cline_mcp_settings.json").write_text(
            json.dumps({"mcpServers": mcp}), encoding="utf-8"
        )

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
            self._setup(servers, work, stand_in.url)
            env = scratch_env(work.home)
            args = [cli, "--json", *MODES[mode], PROMPT]
            finished = run_contained(args, cwd=work.project, env=env, timeout=self.timeout)
            events = stand_in.events
        return require_turns(CliRun(events, servers.calls_since(mark), finished), f"cline ({mode})")
