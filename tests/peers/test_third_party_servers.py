"""Real third-party MCP servers, read by `course_lib`'s tools table and `inspect` command.

Four servers the course did not write, installed by `.ci/peers`:
- `mcp-server-time` 2026.1.26, Python, on the 1.x SDK (declares no annotations at all);
- `mcp-server-git` 2026.10.19, Python, on the 2.x SDK;
- `@modelcontextprotocol/server-filesystem` and `server-memory`, TypeScript.
The MCP Inspector (an independent client) lists each server's raw tools; `course_lib` must list
every one of them, read every hint exactly as declared, apply the spec's defaults to absent
ones, and not crash on anything a real server sends.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp import StdioServerParameters
from peerlib import NPM, ROOT, need, run_inspector, venv_mcp_version, venv_program

from course_lib import classify, tools_table
from course_lib.annotations import HINTS
from course_lib.connection import list_tools_sync

pytestmark = pytest.mark.peers

SPEC_DEFAULTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}
SNAPSHOT = ROOT / "course_lib" / "data" / "server-filesystem-tools.json"
FILESYSTEM_PACKAGE = "@modelcontextprotocol/server-filesystem"


@dataclass
class ThirdParty:
    label: str
    language: str
    sdk: Callable[[], str]  # the MCP SDK version the server runs on
    command: Callable[[Path], list[str]]  # its command line, given a scratch folder
    env: Callable[[Path], dict[str, str]] = lambda scratch: {}


def _npm_script(package: str) -> str:
    return str(need(NPM / package / "dist" / "index.js", f"{package} (npm)"))


def _npm_sdk_version() -> str:
    manifest = need(NPM / "@modelcontextprotocol" / "sdk" / "package.json", "@modelcontextprotocol/sdk (npm)")
    return json.loads(manifest.read_text(encoding="utf-8"))["version"]


def _git_repository(scratch: Path) -> Path:
    repository = scratch / "repo"
    repository.mkdir(exist_ok=True)
    subprocess.run(["git", "init", "-q", str(repository)], check=True, timeout=30)
    return repository


SERVERS = [
    ThirdParty(
        "mcp-server-time (Python, SDK 1.x)",
        "python",
        lambda: venv_mcp_version("mcp1-time"),
        lambda scratch: [str(venv_program("mcp1-time", "mcp-server-time")), "--local-timezone", "UTC"],
    ),
    ThirdParty(
        "mcp-server-git (Python, SDK 2.x)",
        "python",
        lambda: venv_mcp_version("mcp2-git"),
        lambda scratch: [str(venv_program("mcp2-git", "mcp-server-git")), "--repository", str(_git_repository(scratch))],
    ),
    ThirdParty(
        "server-filesystem (TypeScript)",
        "typescript",
        _npm_sdk_version,
        lambda scratch: ["node", _npm_script(FILESYSTEM_PACKAGE), str(scratch)],
    ),
    ThirdParty(
        "server-memory (TypeScript)",
        "typescript",
        _npm_sdk_version,
        lambda scratch: ["node", _npm_script("@modelcontextprotocol/server-memory")],
        lambda scratch: {"MEMORY_FILE_PATH": str(scratch / "memory.jsonl")},
    ),
]
IDS = [s.label.split(" ")[0] for s in SERVERS]


def _raw_tools(inspector: list[str], server: ThirdParty, scratch: Path) -> list[dict[str, Any]]:
    """The tools as the MCP Inspector, an independent TypeScript client, receives them."""
    env_args = [arg for key, value in server.env(scratch).items() for arg in ("-e", f"{key}={value}")]
    return run_inspector(inspector, [*env_args, *server.command(scratch), "--method", "tools/list"])["tools"]


def _course_tools(server: ThirdParty, scratch: Path) -> list[Any]:
    """The tools as `course_lib` lists them over stdio (what a lesson or `tools_table(command)` does)."""
    program, *args = server.command(scratch)
    return list_tools_sync(StdioServerParameters(command=program, args=args, env={**os.environ, **server.env(scratch)}))


def test_the_peers_cover_sdk_1_sdk_2_and_typescript():
    majors = {s.label: s.sdk().split(".")[0] for s in SERVERS}
    assert "1" in {majors[s.label] for s in SERVERS if s.language == "python"}, f"no Python server on SDK 1.x: {majors}"
    assert "2" in {majors[s.label] for s in SERVERS if s.language == "python"}, f"no Python server on SDK 2.x: {majors}"
    assert any(s.language == "typescript" for s in SERVERS)


@pytest.mark.parametrize("server", SERVERS, ids=IDS)
def test_tools_table_lists_every_tool_and_reads_every_hint_as_declared(inspector, server, tmp_path):
    raw = {t["name"]: t for t in _raw_tools(inspector, server, tmp_path)}
    table = tools_table(_course_tools(server, tmp_path))

    assert sorted(table.index) == sorted(raw), f"{server.label}: tools_table rows {sorted(table.index)} != tools {sorted(raw)}"
    for name, tool in raw.items():
        declared = tool.get("annotations") or {}
        for hint in HINTS:
            got = table.loc[name, ("declared", hint)]
            assert got == declared.get(hint), f"{server.label}.{name}: declared {hint} read as {got!r}, server sent {declared.get(hint)!r}"
        read_only = declared.get("readOnlyHint", SPEC_DEFAULTS["readOnlyHint"])
        for hint in HINTS:
            expected = declared.get(hint, SPEC_DEFAULTS[hint])
            if read_only and hint in ("destructiveHint", "idempotentHint"):
                expected = "n/a"
            assert table.loc[name, ("effective", hint)] == expected, f"{server.label}.{name}: effective {hint} wrong"
        title = tool.get("title") or declared.get("title") or name
        assert table.loc[name, ("", "display title")] == title, f"{server.label}.{name}: display title should be {title!r}"
        assert table.loc[name, ("", "profile")] == str(classify(declared)), f"{server.label}.{name}: profile"


def test_an_sdk_1_server_without_annotations_gets_the_most_cautious_reading(inspector, tmp_path):
    server = SERVERS[0]
    raw = _raw_tools(inspector, server, tmp_path)
    assert raw and all("annotations" not in t for t in raw), "mcp-server-time 2026.1.26 was expected to declare no annotations"
    table = tools_table(_course_tools(server, tmp_path))
    assert set(table[("", "profile")]) == {"destructive"}, "an unannotated tool is possibly destructive by the spec's defaults"
    assert set(table[("effective", "openWorldHint")]) == {True}


def _inspect_json(server: ThirdParty, scratch: Path) -> tuple[int, dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-m", "course_lib", "inspect", "--json", "--timeout", "60", "--", *server.command(scratch)],
        capture_output=True, text=True, timeout=120, check=False, env={**os.environ, **server.env(scratch)}, cwd=scratch,
    )
    assert "Traceback" not in done.stderr, f"inspect crashed on {server.label}:\n{done.stderr[-3000:]}"
    try:
        return done.returncode, json.loads(done.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"inspect --json printed no JSON for {server.label}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")


@pytest.mark.parametrize("server", SERVERS, ids=IDS)
def test_inspect_command_reports_every_tool_of_a_real_server_with_its_hints(inspector, server, tmp_path):
    if not (ROOT / "course_lib" / "inspect_cmd.py").exists():
        pytest.fail("course_lib/inspect_cmd.py (python -m course_lib inspect) does not exist yet")
    raw = {t["name"]: t for t in _raw_tools(inspector, server, tmp_path)}
    status, document = _inspect_json(server, tmp_path)
    assert status == 0, f"inspect exited {status} on {server.label}: {document}"
    (report,) = document["servers"]
    assert report["ok"] is True, f"inspect could not read {server.label}: {report.get('error')}"
    tools = {t["name"]: t for t in report["tools"]}
    assert sorted(tools) == sorted(raw), f"{server.label}: inspect lists {sorted(tools)}, the server has {sorted(raw)}"
    for name, tool in raw.items():
        declared = tool.get("annotations") or {}
        assert {h: tools[name]["declared"][h] for h in HINTS} == {h: declared.get(h) for h in HINTS}, f"{server.label}.{name}"
        assert tools[name]["profile"] == str(classify(declared)), f"{server.label}.{name}: profile"


def _snapshot_of(tools: list[dict[str, Any]]) -> dict[str, Any]:
    lock = json.loads((ROOT / "tests" / "peers" / "npm" / "package-lock.json").read_text(encoding="utf-8"))
    version = lock["packages"][f"node_modules/{FILESYSTEM_PACKAGE}"]["version"]
    return {
        "about": (
            f"tools/list of {FILESYSTEM_PACKAGE} {version} (the official TypeScript filesystem server), "
            "as the MCP Inspector received it. Captured and kept current by "
            "tests/peers/test_third_party_servers.py; lessons show it offline."
        ),
        "server": {"npm": FILESYSTEM_PACKAGE, "version": version, "sdk": f"@modelcontextprotocol/sdk {_npm_sdk_version()}"},
        "tools": tools,
    }


def test_committed_snapshot_of_the_filesystem_server_matches_the_live_server(inspector, tmp_path):
    live = _snapshot_of(_raw_tools(inspector, SERVERS[2], tmp_path))
    if os.environ.get("COURSE_UPDATE_SNAPSHOT") == "1":
        SNAPSHOT.parent.mkdir(exist_ok=True)
        SNAPSHOT.write_text(json.dumps(live, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert SNAPSHOT.is_file(), f"{SNAPSHOT} is missing: run COURSE_UPDATE_SNAPSHOT=1 .ci/peers to capture it"
    committed = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    assert committed == live, (
        f"{SNAPSHOT.relative_to(ROOT)} no longer matches what {FILESYSTEM_PACKAGE} lists: "
        "re-capture it with COURSE_UPDATE_SNAPSHOT=1 .ci/peers and check the lessons that show it"
    )
    assert len(tools_table(committed["tools"])) == len(live["tools"])
