"""Measure the Codex CLI: `codex exec`, plain and with approvals bypassed.

Update checks are off in the scratch config. Seen with strace (2026-11-30): Codex 0.171.0 still
sends one DNS query for github.com at start; no connection follows, and nothing else leaves
127.0.0.1.

Introduced in: README.md, section "Measure a real client".
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from course_lib.measured import Measurement

from .openai_standin import OpenAIStandIn
from .run import (
    PROMPT,
    MeasureError,
    _measure_cells,
    _measurement,
    _Run,
    _run_cli,
    _scratch_env,
    _Servers,
    cli_version,
)
from .standins import Script

__all__ = ["CODEX_MODES", "measure_codex"]

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
                "check_for_update_on_startup = false",
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
