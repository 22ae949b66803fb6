"""Red team: `inspect` against hostile stdio servers the earlier corpus did not try.

The server below hides escapes, separators and invisible characters in nested fields (input
schema keys, `_meta`, icons, error data), and can leave a grandchild in a session of its own.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import unicodedata

import pytest

SERVER = r'''
import json, os, sys, time
ATTACK = sys.argv[1]
BAD = "\x1b[2J\x1b]0;pwned\x07\x9b31m\u202e\r\x85\u2028\u2029\u200b\U000e0041"
if ATTACK == "setsid" and os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for fd in (0, 1, 2):
            os.close(fd)
        with open(sys.argv[2] + ".tmp", "w") as handle:
            handle.write(str(os.getpid()))
        os.rename(sys.argv[2] + ".tmp", sys.argv[2])
        time.sleep(60)
    os._exit(0)
while ATTACK == "setsid" and not os.path.exists(sys.argv[2]):  # answer once the grandchild is there
    time.sleep(0.01)
for line in sys.stdin:
    request = json.loads(line)
    if "id" not in request:
        continue
    reply = {"error": {"code": -32601, "message": "no" + BAD, "data": {"k" + BAD: BAD}}}
    if request["method"] == "initialize":
        reply = {"result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "instructions": BAD,
                            "serverInfo": {"name": "n" + BAD, "version": "v" + BAD, "title": BAD}}}
    elif request["method"] == "tools/list":
        tool = {"name": "t" + BAD, "title": BAD, "description": BAD, "_meta": {BAD: BAD},
                "inputSchema": {"type": "object", "properties": {"p" + BAD: {"type": "string", "description": BAD}}},
                "icons": [{"src": "x" + BAD}],
                "annotations": {"title": BAD, "readOnlyHint": False, "destructiveHint": True, "x" + BAD: BAD}}
        reply = {"result": {"tools": [tool]}}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": request["id"], **reply}) + "\n")
    sys.stdout.flush()
'''


def inspect(tmp_path, *server_args: str, json_flag: bool = False) -> subprocess.CompletedProcess[str]:
    server = tmp_path / "server.py"
    server.write_text(SERVER)
    options = ["--timeout", "15", *(["--json"] if json_flag else [])]
    return subprocess.run(
        [sys.executable, "-m", "course_lib", "inspect", *options, "--", sys.executable, str(server), *server_args],
        capture_output=True, text=True, timeout=90,
    )


def raw_controls(text: str) -> list[str]:
    return [hex(ord(c)) for c in text
            if c not in "\n\t" and unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp", "Cs", "Co")]


@pytest.mark.parametrize("json_flag", [False, True])
def test_no_raw_control_character_from_nested_fields(tmp_path, json_flag):
    done = inspect(tmp_path, "nested", json_flag=json_flag)
    assert done.returncode == 0, done.stdout + done.stderr
    assert raw_controls(done.stdout) == [] and raw_controls(done.stderr) == []
    assert "Traceback" not in done.stderr
    assert "\\u2028" in done.stdout  # shown escaped, not dropped


def test_a_grandchild_in_a_session_of_its_own_does_not_survive(tmp_path):
    pidfile = tmp_path / "grandchild.pid"
    done = inspect(tmp_path, "setsid", str(pidfile))
    assert done.returncode == 0, done.stdout + done.stderr
    pid = int(pidfile.read_text())
    try:
        deadline = time.monotonic() + 60  # a guard only: the loop ends once the process is gone
        while time.monotonic() < deadline and _alive(pid):
            time.sleep(0.05)
        assert not _alive(pid), "the grandchild outlived inspect"
    finally:
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def test_inspect_run_in_process_kills_the_orphan_but_not_the_callers_own_children(tmp_path):
    from course_lib.__main__ import main

    server, pidfile = tmp_path / "server.py", tmp_path / "grandchild.pid"
    server.write_text(SERVER)
    own = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        status = main(["inspect", "--timeout", "15", "--", sys.executable, str(server), "setsid", str(pidfile)])
        assert status == 0
        assert own.poll() is None, "inspect killed a child it did not start"
        pid = int(pidfile.read_text())
        deadline = time.monotonic() + 60  # a guard only: the loop ends once the process is gone
        while time.monotonic() < deadline and _alive(pid):
            time.sleep(0.05)
        assert not _alive(pid), "the grandchild outlived inspect"
    finally:
        own.kill()
        own.wait()
