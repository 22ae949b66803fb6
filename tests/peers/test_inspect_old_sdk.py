"""A real server on an old SDK: `mcp-server-time` 0.6.2 on `mcp` 1.2.0 (tests/peers/requirements-mcp1old-time.txt).

Servers on `mcp` 1.9.3 and older crash on the 2026 `server/discover` request instead of
answering it with an error. `inspect`'s default auto mode must notice the closed
connection, start the server again with the legacy `initialize` handshake, read its tools,
and say in the report that it did.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from peerlib import venv_mcp_version, venv_program

pytestmark = pytest.mark.peers


def _inspect(*args: str) -> subprocess.CompletedProcess[str]:
    server = [str(venv_program("mcp1old-time", "mcp-server-time")), "--local-timezone", "UTC"]
    return subprocess.run(
        [sys.executable, "-m", "course_lib", "inspect", "--timeout", "60", *args, "--", *server],
        capture_output=True, text=True, timeout=180, check=False,
    )


def test_the_peer_runs_an_sdk_that_crashes_on_discover():
    major, minor, patch = (int(part) for part in venv_mcp_version("mcp1old-time").split(".")[:3])
    assert (major, minor, patch) <= (1, 9, 3)


def test_inspect_falls_back_to_the_legacy_handshake_and_says_so():
    done = _inspect()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "via initialize (legacy handshake)" in done.stdout
    assert "closed the connection on `server/discover`" in done.stdout
    assert "get_current_time" in done.stdout and "convert_time" in done.stdout


def test_inspect_json_marks_the_fallback():
    done = _inspect("--json")
    (server,) = json.loads(done.stdout)["servers"]
    assert server["ok"] and server["fallback"] and server["handshake"] == "initialize (legacy handshake)"
    assert sorted(t["name"] for t in server["tools"]) == ["convert_time", "get_current_time"]
