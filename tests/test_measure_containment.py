"""What a hostile local process or a hostile CLI can do to a measurement, and what holds.

Each test is an attack: a forged call to a measurement server or a stand-in by another local
process (a plain `mcp` client without the run's secret), a CLI that leaves a detached double
fork behind, a CLI that floods its output, a settings file that is a FIFO, too deep or too big.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from mcp import Client

from course_tools.__main__ import main
from course_tools.measure.process import OUTPUT_TAIL_BYTES, run_contained
from course_tools.measure.servers import MeasurementServers
from course_tools.measure.anthropic_standin import AnthropicStandIn
from course_tools.measure.standin import Script


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in {b"Z", b"X"}


async def _call(url: str, tool: str, headers: dict[str, str] | None = None) -> str:
    import httpx2

    async with httpx2.AsyncClient(headers=headers or {}) as http:
        from mcp.client.streamable_http import streamable_http_client

        async with Client(streamable_http_client(url, http_client=http)) as client:
            result = await client.call_tool(tool, {})
            return result.content[0].text


def test_a_forged_call_without_the_runs_secret_is_refused_and_logged_as_forged(tmp_path):
    with MeasurementServers(tmp_path, ("profiles",)) as servers:
        url = servers.url("profiles")
        with pytest.raises(Exception):
            asyncio.run(_call(url, "delete"))
        assert [e for e in servers.calls_since(0) if e["event"] == "start"] == []
        forged = servers.forged()
        assert forged and forged[0]["server"] == "profiles" and forged[0]["method"] == "POST"
        # the secret, as a header or in the path, is what the measured CLI is given
        assert asyncio.run(_call(url, "delete", servers.headers)) == "delete ran"
        assert asyncio.run(_call(servers.secret_url("profiles"), "read_closed")) == "read_closed ran"
        ran = [e["tool"] for e in servers.calls_since(0) if e["event"] == "start"]
        assert ran == ["delete", "read_closed"]


def test_a_forged_request_to_the_model_stand_in_is_refused_and_never_counts_as_a_turn():
    tools = [{"name": "mcp__profiles__delete"}]
    with AnthropicStandIn(Script.one_per_turn(["mcp__profiles__delete"]), token="s" * 32) as stand_in:
        body = json.dumps({"stream": True, "tools": tools, "messages": []}).encode()
        request = urllib.request.Request(stand_in.url + "/v1/messages", data=body, method="POST")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 401
        refused.value.close()
        assert [e["kind"] for e in stand_in.events] == ["forged"]
        request.add_header("x-api-key", "s" * 32)
        with urllib.request.urlopen(request, timeout=10) as answer:
            assert b"tool_use" in answer.read()
        assert [e["kind"] for e in stand_in.events] == ["forged", "turn", "tool_use"]


HOSTILE_CLI = r"""
import os, sys, time
pid_file = sys.argv[1]
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        with open(pid_file, "w") as f:
            f.write(str(os.getpid()))
        time.sleep(600)
        os._exit(0)
    os._exit(0)
time.sleep(float(sys.argv[2]))
"""


@pytest.mark.parametrize("seconds", [0.5, 30.0], ids=["exits", "times-out"])
def test_a_detached_double_fork_left_by_the_cli_is_killed_on_exit_and_on_timeout(tmp_path, seconds):
    pid_file = tmp_path / "daemon.pid"
    cli = tmp_path / "cli.py"
    cli.write_text(HOSTILE_CLI, encoding="utf-8")
    finished = run_contained(
        [sys.executable, str(cli), str(pid_file), str(seconds)],
        cwd=tmp_path, env=dict(os.environ), timeout=3,
    )
    assert finished.timed_out is (seconds > 3)
    daemon = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while _alive(daemon) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(daemon), "the detached grandchild outlived the measurement"


def test_a_cli_flooding_its_output_costs_a_bounded_tail(tmp_path):
    flood = "import sys\nline = b'x' * 1023 + b'\\n'\nfor _ in range(200_000): sys.stdout.buffer.write(line)\n"
    finished = run_contained([sys.executable, "-c", flood], cwd=tmp_path, env=dict(os.environ), timeout=120)
    assert finished.output_bytes == 200_000 * 1024
    assert len(finished.stdout) <= OUTPUT_TAIL_BYTES


def _settings_status(tmp_path: Path, path: Path, capsys) -> tuple[int, str]:
    status = main(["measure-client", "claude-code", "--cli", sys.executable, "--settings", str(path)])
    return status, capsys.readouterr().err


def test_a_fifo_given_as_settings_is_refused_without_opening_it(tmp_path, capsys):
    fifo = tmp_path / "settings.json"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "course_tools", "measure-client", "claude-code", "--cli", sys.executable,
         "--settings", str(fifo)],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert "not a regular file" in done.stderr and "Traceback" not in done.stderr


def test_over_deep_settings_json_gets_a_clear_message_not_a_traceback(tmp_path, capsys):
    deep = tmp_path / "settings.json"
    deep.write_text("[" * 200_000 + "]" * 200_000, encoding="utf-8")
    status, err = _settings_status(tmp_path, deep, capsys)
    assert status == 2 and "nested" in err and "Traceback" not in err


def test_over_size_settings_json_is_refused_before_it_is_read(tmp_path, capsys):
    big = tmp_path / "settings.json"
    with open(big, "w", encoding="utf-8") as handle:
        handle.write('{"permissions": {"allow": [' + ",".join(['"mcp__a__b"'] * 200_000) + "]}}")
    status, err = _settings_status(tmp_path, big, capsys)
    assert status == 2 and "too large" in err


class _FakeServers:
    """What an adapter needs of the measurement servers, without starting any."""

    names = ("profiles", "other", "gate")
    token = "secret-" + "z" * 40

    def url(self, name):
        return f"http://127.0.0.1:9/{name}/mcp"

    def secret_url(self, name):
        return f"http://127.0.0.1:9/{self.token}/{name}/mcp"

    @property
    def headers(self):
        return {"Authorization": f"Bearer {self.token}"}

    def mark(self):
        return 0

    def calls_since(self, mark):
        return []


RECORD_ARGV = "import json, os, sys\nopen(os.environ['ARGV_LOG'], 'a').write(json.dumps(sys.argv) + '\\n')\n"


@pytest.mark.parametrize("client", ["claude-code", "codex", "gemini", "qwen-code", "opencode", "kilo", "copilot", "cline", "continue"])
def test_the_runs_secret_is_never_on_a_command_line_another_user_could_read(client, tmp_path, monkeypatch):
    from course_tools.measure import scratch
    from course_tools.measure.errors import MeasureError
    from course_tools.measure.registry import ADAPTERS
    from course_tools.measure.scratch import Workspace

    log = tmp_path / "argv.jsonl"
    cli = tmp_path / "fake-cli"
    cli.write_text(f"#!{sys.executable}\n{RECORD_ARGV}", encoding="utf-8")
    cli.chmod(0o755)
    real_env = scratch.scratch_env
    monkeypatch.setattr(scratch, "scratch_env", lambda home, keep=(): {**real_env(home, keep), "ARGV_LOG": str(log)})
    for module in ("claude_code", "codex", "gemini", "qwen_code", "opencode", "copilot", "cline", "continue_cli"):
        monkeypatch.setattr(f"course_tools.measure.{module}.scratch_env", scratch.scratch_env, raising=False)
    adapter = ADAPTERS[client]
    servers = _FakeServers()
    with pytest.raises(MeasureError):
        adapter.run_turn(str(cli), servers, Workspace(tmp_path / "work"), adapter.modes(str(cli))[0] if client != "claude-code" else "default", {}, Script.one_per_turn(["mcp__profiles__delete"]))
    runs = log.read_text(encoding="utf-8").splitlines()
    assert runs, "the fake CLI never ran"
    assert not [argv for argv in runs if servers.token in argv]
