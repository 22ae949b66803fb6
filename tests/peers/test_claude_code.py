"""Claude Code and the committed `.mcp.json`: the project-scoped demo server, as a learner uses it.

- The command in `.mcp.json` runs verbatim from the repository root (with the README's `.venv`)
  and serves the file-ops tools to the MCP Inspector, which reads the same file.
- The `claude mcp add ... --scope project` line of docs/connect.md writes exactly the committed file.
- `claude mcp list` reports the server pending approval in a fresh project, and connected once
  the project is approved (the step docs/connect.md documents).
Claude Code runs with a throwaway HOME, so no real user configuration is read or changed.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from peerlib import PEERS, ROOT, need, run_inspector

pytestmark = pytest.mark.peers

CLAUDE = PEERS / "claude" / "node_modules" / ".bin" / "claude"
FILE_OPS_TOOLS = {"read_file", "append_text", "set_value", "delete_file"}


@pytest.fixture(scope="module")
def claude() -> str:
    return str(need(CLAUDE, "the Claude Code CLI (npm @anthropic-ai/claude-code, tests/peers/npm-claude)"))


def _claude_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "ANTHROPIC"))}
    env.update(
        HOME=str(home),
        DISABLE_TELEMETRY="1",
        DISABLE_AUTOUPDATER="1",
        DISABLE_ERROR_REPORTING="1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
    )
    return env


def _run_claude(claude: str, args: list[str], project: Path, home: Path) -> str:
    done = subprocess.run(
        [claude, *args], cwd=project, env=_claude_env(home), capture_output=True, text=True, timeout=120,
        stdin=subprocess.DEVNULL, check=False,
    )
    assert done.returncode == 0, f"claude {' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def _project(tmp_path: Path) -> Path:
    """A copy of the project as Claude Code sees it: `.mcp.json` and the README's `.venv`."""
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(ROOT / ".mcp.json", project / ".mcp.json")
    venv = ROOT / ".venv" if (ROOT / ".venv" / "bin" / "python").exists() else Path(sys.prefix)
    (project / ".venv").symlink_to(venv, target_is_directory=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True, timeout=30)
    return project


def test_mcp_json_command_runs_verbatim_from_the_repository_root(inspector):
    python = ROOT / ".venv" / "bin" / "python"
    if not python.exists():
        pytest.fail(f"{python} is missing: make it with the README's install command, then run .ci/peers", pytrace=False)
    answer = run_inspector(inspector, ["--config", ".mcp.json", "--server", "file-ops", "--method", "tools/list"], cwd=ROOT)
    listed = {t["name"]: t.get("annotations") for t in answer["tools"]}
    assert set(listed) == FILE_OPS_TOOLS, f"the server in .mcp.json lists {sorted(listed)}"
    assert listed["delete_file"] == {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": False}
    assert (ROOT / "claude-sandbox" / "files").is_dir(), "the server should use claude-sandbox/files as its sandbox"


def _documented_add_command() -> list[str]:
    guide = (ROOT / "docs" / "connect.md").read_text(encoding="utf-8")
    lines = [line.strip() for line in guide.splitlines() if re.match(r"\s*claude mcp add .*--scope project", line)]
    assert lines, "docs/connect.md should give the `claude mcp add ... --scope project` line"
    return shlex.split(lines[0])


def test_documented_claude_mcp_add_line_writes_the_committed_mcp_json(claude, tmp_path):
    project, home = tmp_path / "fresh", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True, timeout=30)
    _run_claude(claude, _documented_add_command()[1:], project, home)
    written = json.loads((project / ".mcp.json").read_text(encoding="utf-8"))
    committed = json.loads((ROOT / ".mcp.json").read_text(encoding="utf-8"))
    assert written == committed, f"docs/connect.md's line writes {written}, the repository commits {committed}"


def test_claude_lists_the_project_server_pending_until_approved_then_connected(claude, tmp_path):
    project, home = _project(tmp_path), tmp_path / "home"
    home.mkdir()
    before = _run_claude(claude, ["mcp", "list"], project, home)
    assert re.search(r"^file-ops: .*[Pp]ending approval", before, flags=re.MULTILINE), f"before approval:\n{before}"
    assert not (project / "claude-sandbox").exists(), "an unapproved project server must not be started"

    details = _run_claude(claude, ["mcp", "get", "file-ops"], project, home)
    assert "Project config" in details and ".mcp.json" in details, f"file-ops should come from .mcp.json:\n{details}"

    # What approving in `claude` records: the folder is trusted and file-ops is enabled for it.
    state_file = home / ".claude.json"
    state = json.loads(state_file.read_text(encoding="utf-8")) if state_file.exists() else {}
    state.setdefault("projects", {})[str(project)] = {"hasTrustDialogAccepted": True, "enabledMcpjsonServers": ["file-ops"]}
    state_file.write_text(json.dumps(state), encoding="utf-8")

    after = _run_claude(claude, ["mcp", "list"], project, home)
    assert re.search(r"^file-ops: \.venv/bin/python -m course_lib serve file-ops .*Connected", after, flags=re.MULTILINE), (
        f"after approval claude mcp list should report file-ops connected:\n{after}"
    )
    assert (project / "claude-sandbox" / "files").is_dir(), "the approved server runs in claude-sandbox/files"
    assert sorted(p.name for p in (project / "claude-sandbox" / "files").iterdir()) == [], "listing must not write files"
