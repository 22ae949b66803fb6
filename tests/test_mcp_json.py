"""The committed `.mcp.json`: the project-scoped server Claude Code (and the MCP Inspector) start.

The shape is checked against what `claude mcp add --scope project` writes; then the command
in it is run, from the repository root as Claude Code runs it, and must answer `tools/list`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import StdioServerParameters

from course_lib.annotations import declared
from course_lib.connection import connect, list_tools_sync, run_sync
from course_lib.servers import SERVERS, build

ROOT = Path(__file__).resolve().parents[1]
MCP_JSON = ROOT / ".mcp.json"
VENV_PYTHON = ".venv/bin/python"  # what the README's install creates; Claude Code runs the command from the repo root


def _config() -> dict:
    assert MCP_JSON.is_file(), f"{MCP_JSON} is missing: it is the project-scoped server config Claude Code reads"
    try:
        return json.loads(MCP_JSON.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        pytest.fail(f".mcp.json is not valid JSON: {exc}")


def _entry() -> dict:
    return _config()["mcpServers"]["file-ops"]


def test_mcp_json_declares_only_stdio_servers_with_valid_names():
    config = _config()
    assert set(config) == {"mcpServers"}, f".mcp.json should hold only 'mcpServers', not {sorted(config)}"
    servers = config["mcpServers"]
    assert isinstance(servers, dict) and servers, "'mcpServers' must be a non-empty object of name -> server"
    for name, entry in servers.items():
        assert re.fullmatch(r"[A-Za-z0-9_-]+", name), f"server name {name!r}: use letters, digits, '-' and '_' only"
        assert entry.get("type") == "stdio", f"{name}: 'type' must be 'stdio' (the course's servers speak stdio)"
        assert set(entry) <= {"type", "command", "args", "env"}, f"{name}: unexpected keys {sorted(set(entry) - {'type', 'command', 'args', 'env'})}"
        assert isinstance(entry.get("command"), str) and entry["command"], f"{name}: 'command' must be a non-empty string"
        args = entry.get("args", [])
        assert isinstance(args, list) and all(isinstance(a, str) for a in args), f"{name}: 'args' must be a list of strings"
        env = entry.get("env", {})
        assert isinstance(env, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()), (
            f"{name}: 'env' must map names to string values"
        )


def test_mcp_json_runs_the_file_ops_demo_server_with_the_readme_virtualenv():
    entry = _entry()
    assert entry["command"] == VENV_PYTHON, (
        f"the command should be {VENV_PYTHON!r}, the interpreter the README's install creates, "
        f"so the server finds course_lib; it is {entry['command']!r}"
    )
    args = entry["args"]
    assert args[:4] == ["-m", "course_lib", "serve", "file-ops"], f"args should start '-m course_lib serve file-ops', not {args}"
    assert args[3] in SERVERS, f"{args[3]!r} is not a demo server the course ships ({sorted(SERVERS)})"
    assert "--root" in args, "the server must be given a sandbox folder (--root DIR) inside the repository"


def test_mcp_json_sandbox_is_inside_the_repository_and_git_ignored():
    args = _entry()["args"]
    root = Path(args[args.index("--root") + 1])
    assert not root.is_absolute() and ".." not in root.parts, f"--root {root} must be a relative folder inside the repository"
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: cannot check that the sandbox folder is ignored")
    probe = root / "any-file-a-learner-writes.txt"
    ignored = subprocess.run(["git", "check-ignore", "-q", str(probe)], cwd=ROOT, check=False).returncode == 0
    assert ignored, f"files the server writes under {root}/ would show up in git status: ignore that folder"


def test_mcp_json_command_starts_a_server_that_answers_tools_list(tmp_path):
    """Run the entry as Claude Code does (cwd = repo root), with this interpreter if .venv is not there yet."""
    entry = _entry()
    command = entry["command"]
    if not (ROOT / command).exists():
        # The README's `.venv` does not exist in this checkout (a developer environment elsewhere);
        # the arguments are still the committed ones. tests/peers runs the command exactly as written.
        command = sys.executable
    args = list(entry["args"])
    args[args.index("--root") + 1] = str(tmp_path / "sandbox")  # keep the committed sandbox untouched
    params = StdioServerParameters(command=command, args=args, env={**os.environ, **entry.get("env", {})}, cwd=str(ROOT))

    async def listed():
        with anyio.fail_after(60):
            async with connect(params) as client:
                return list((await client.list_tools()).tools)

    tools = run_sync(listed)
    expected = {t.name: declared(t) for t in list_tools_sync(build("file-ops", root=tmp_path / "in-process"))}
    assert {t.name: declared(t) for t in tools} == expected, (
        f"the server started by .mcp.json lists {[t.name for t in tools]}; the in-process file-ops server "
        f"lists {sorted(expected)} (names and annotations must agree)"
    )
