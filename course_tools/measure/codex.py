"""Measure the Codex CLI: `codex exec`, plain and with approvals bypassed.

Codex reads its configuration from ``CODEX_HOME/config.toml`` (a private folder per run):
the stand-in as a model provider speaking the Responses API (its API key, the measurement's
secret, comes from an environment variable), and each measurement server as a required
Streamable HTTP server whose bearer token also comes from an environment variable
(``bearer_token_env_var``). Update checks are off.

Introduced in: docs/measure.md; results in lesson 03.
"""

from __future__ import annotations

from typing import Any

from .adapter import ClientAdapter, CliRun, Pin
from .findings import combinations
from .harness import PROMPT, require_turns
from .process import run_contained
from .responses_standin import ResponsesStandIn
from .scratch import Workspace, scratch_env
from .servers import MeasurementServers
from .standin import Script

__all__ = ["CODEX_MODES", "Codex"]

CODEX_MODES = {"exec": [], "bypass": ["--dangerously-bypass-approvals-and-sandbox"]}
"""Each measured mode and the `codex exec` options that choose it."""


def _config(stand_in_url: str, servers: MeasurementServers, setting: dict[str, Any]) -> str:
    lines = [
        'model = "stand-in"',
        "check_for_update_on_startup = false",
        'model_provider = "standin"',
        "",
        "[model_providers.standin]",
        'name = "stand-in"',
        f'base_url = "{stand_in_url}/v1"',
        'env_key = "STANDIN_API_KEY"',
        'wire_api = "responses"',
        "",
    ]
    for name in servers.names:
        lines += [
            f"[mcp_servers.{name}]",
            f'url = "{servers.url(name)}"',
            'bearer_token_env_var = "MEASURE_SERVER_TOKEN"',
            "required = true",
            "",
        ]
        for tool, approval in setting.get(name, {}).items():
            lines += [f"[mcp_servers.{name}.tools.{tool}]", f'approval_mode = "{approval}"', ""]
    return "\n".join(lines)


class Codex(ClientAdapter):
    """The Codex CLI (``codex exec``), whose approval policy in exec mode is "never"."""

    pin = Pin("codex", "Codex CLI", "@openai/codex", "0.171.0", "codex", "codex", node="16")
    # exec's approval policy is "never": a call that needs approval fails with this text
    headless_phrases = ("approval policy is never",)

    def modes(self, cli: str) -> list[str]:
        return list(CODEX_MODES)

    def notes(self, cli: str, servers: MeasurementServers) -> dict[str, Any]:
        """What ``codex exec`` does with each of the 81 hint combinations."""
        return {"combinations (exec)": combinations(self, cli, "exec")}

    def mode_commands(self) -> dict[str, str]:
        return {m: " ".join(["codex exec", *a]) for m, a in CODEX_MODES.items()}

    def run_turn(
        self,
        cli: str,
        servers: MeasurementServers,
        work: Workspace,
        mode: str,
        setting: dict[str, Any],
        script: Script,
    ) -> CliRun:
        codex_home = work.home / ".codex"
        codex_home.mkdir(mode=0o700)
        mark = servers.mark()
        with ResponsesStandIn(script, token=servers.token) as stand_in:
            config = _config(stand_in.url, servers, setting)
            (codex_home / "config.toml").write_text(config, encoding="utf-8")
            env = scratch_env(work.home)
            env.update(
                CODEX_HOME=str(codex_home),
                STANDIN_API_KEY=servers.token,
                MEASURE_SERVER_TOKEN=servers.token,
            )
            args = [cli, "exec", "--json", "--skip-git-repo-check", *CODEX_MODES[mode], PROMPT]
            finished = run_contained(args, cwd=work.project, env=env, timeout=self.timeout)
            events = stand_in.events
        return require_turns(CliRun(events, servers.calls_since(mark), finished), f"codex ({mode})")
