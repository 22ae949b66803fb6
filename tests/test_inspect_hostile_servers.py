"""`inspect` and `connect` against hostile stdio servers (tests/hostile/server.py, nested.py).

A server controls its name, version, tool names, titles, descriptions, error messages, every
nested field of what it lists (input schema keys, `_meta`, icons, error data) and its stderr;
none of it may reach the terminal raw, and none of it may make `inspect` use unbounded memory,
leave processes behind (a grandchild, even one in a session of its own), or misreport an old
server as "not MCP".
"""

from __future__ import annotations

import json
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from processes import gone

from course_lib.connection import ConnectError, list_tools_sync

PY = sys.executable
SERVER = str(Path(__file__).parent / "hostile" / "server.py")
NESTED = str(Path(__file__).parent / "hostile" / "nested.py")
BIDI = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
HIDDEN = ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn")  # controls, invisible formats, line breaks, ...


def raw_controls(text: str) -> set[str]:
    """Every character in `text` a terminal acts on or a reader cannot see (newlines and tabs
    excepted): controls, bidi overrides, invisible format characters, line and paragraph
    separators."""
    return {c for c in text if c not in "\n\t" and (c in BIDI or unicodedata.category(c) in HIDDEN)}


def run_inspect(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PY, "-m", "course_lib", "inspect", "--timeout", "30", *args],
        capture_output=True, text=True, timeout=timeout, check=False, encoding="utf-8", errors="surrogateescape",
    )


def hostile(attack: str, *extra: str) -> list[str]:
    return ["--", PY, SERVER, attack, *extra]


@pytest.mark.parametrize("json_flag", [[], ["--json"]], ids=["text", "json"])
def test_escape_sequences_in_every_server_string_are_shown_escaped(json_flag):
    done = run_inspect(*json_flag, *hostile("ansi"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert not raw_controls(done.stdout + done.stderr), "raw control characters reached the terminal"
    assert "\\x1b[2J" in done.stdout and ("\\x9b" in done.stdout)  # shown, visibly escaped
    if json_flag:
        document = json.loads(done.stdout)
        assert not raw_controls(json.dumps(document, ensure_ascii=False))  # C1 too, after decoding
        (server,) = document["servers"]
        assert server["server_info"]["name"].startswith("srv\\x1b")


@pytest.mark.parametrize("json_flag", [[], ["--json"]], ids=["text", "json"])
def test_escape_sequences_on_stderr_of_a_failing_server_are_quoted_escaped(json_flag):
    done = run_inspect(*json_flag, *hostile("ansi-crash"))
    assert done.returncode == 3
    assert not raw_controls(done.stdout + done.stderr)
    shown = json.loads(done.stdout)["servers"][0]["error"] if json_flag else done.stdout
    assert "fatal\\x1b[2J" in shown


def test_connect_error_quotes_stderr_escaped():
    with pytest.raises(ConnectError) as caught:
        list_tools_sync([PY, SERVER, "ansi-crash"], timeout=30)
    assert not raw_controls(str(caught.value)) and "fatal\\x1b" in str(caught.value)


def test_a_huge_tool_name_and_2000_tools_give_a_bounded_report():
    for flag in ([], ["--json"]):
        done = run_inspect(*flag, *hostile("huge"))
        assert done.returncode == 0, done.stderr[-2000:]
        assert len(done.stdout) < 2_000_000, f"report is {len(done.stdout)} characters"
        assert "n" * 10_000 not in done.stdout
    assert "characters cut" in done.stdout  # the long name says it was cut
    text = run_inspect(*hostile("huge")).stdout
    assert "more tools not shown" in text and max(len(line) for line in text.splitlines()) < 400


MEASURE = (
    "import resource, sys\n"
    "from course_lib.__main__ import main\n"
    "status = main(sys.argv[1:])\n"
    "print('MAXRSS_KB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(status)\n"
)


def _inspect_peak_mb(flood_mb: int) -> tuple[subprocess.CompletedProcess, float]:
    done = subprocess.run(
        [PY, "-c", MEASURE, "inspect", "--timeout", "60", *hostile("stderr-flood", str(flood_mb))],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 3, done.stderr[-2000:]
    return done, int(done.stderr.split("MAXRSS_KB")[-1].split()[0]) / 1024


def test_a_300_mb_stderr_is_not_read_into_memory():
    _, baseline_mb = _inspect_peak_mb(1)  # the same inspect, with a 1 MB flood
    done, peak_mb = _inspect_peak_mb(300)
    assert "last words of the flood" in done.stdout
    assert len(done.stdout) < 20_000
    # Reading the flood would add about 300 MB; keeping its tail adds nearly nothing.
    assert peak_mb - baseline_mb < 60, f"inspect peaked at {peak_mb:.0f} MB, {baseline_mb:.0f} MB without the flood"


def test_grandchildren_of_an_inspected_server_do_not_survive(tmp_path):
    pidfile = tmp_path / "grandchild.pid"
    done = run_inspect(*hostile("grandchild", str(pidfile)))
    assert done.returncode == 0, done.stdout + done.stderr
    assert gone(int(pidfile.read_text())), "the server's grandchild outlived the inspection"


def test_grandchildren_of_a_connected_server_do_not_survive(tmp_path):
    pidfile = tmp_path / "grandchild.pid"
    assert [t.name for t in list_tools_sync([PY, SERVER, "grandchild", str(pidfile)], timeout=30)] == ["get_time"]
    assert gone(int(pidfile.read_text())), "the server's grandchild outlived the connection"


def test_auto_mode_retries_a_server_that_crashes_on_discover_with_the_legacy_handshake():
    done = run_inspect(*hostile("discover-crash"))
    assert done.returncode == 0, done.stdout
    assert "via initialize (legacy handshake)" in done.stdout
    assert "closed the connection on `server/discover`" in done.stdout
    assert "retried once with the legacy `initialize` handshake" in done.stdout
    document = json.loads(run_inspect("--json", *hostile("discover-crash")).stdout)
    (server,) = document["servers"]
    assert server["ok"] and server["fallback"] and server["tools"][0]["name"] == "get_time"


def test_a_server_that_crashes_at_start_for_another_reason_is_not_retried():
    done = run_inspect("--json", *hostile("ansi-crash"))
    (server,) = json.loads(done.stdout)["servers"]
    assert not server["ok"] and "legacy" not in server["error"]


@pytest.mark.parametrize("json_flag", [[], ["--json"]], ids=["text", "json"])
def test_no_raw_control_character_from_nested_fields(json_flag):
    done = run_inspect(*json_flag, "--", PY, NESTED, "nested")
    assert done.returncode == 0, done.stdout + done.stderr
    assert not raw_controls(done.stdout) and not raw_controls(done.stderr)
    assert "Traceback" not in done.stderr
    assert "\\u2028" in done.stdout  # shown escaped, not dropped


def test_a_grandchild_in_a_session_of_its_own_does_not_survive(tmp_path):
    pidfile = tmp_path / "grandchild.pid"
    done = run_inspect("--", PY, NESTED, "setsid", str(pidfile))
    assert done.returncode == 0, done.stdout + done.stderr
    assert gone(int(pidfile.read_text())), "the grandchild outlived inspect"


def test_inspect_run_in_process_kills_the_orphan_but_not_the_callers_own_children(tmp_path):
    from course_lib.__main__ import main

    pidfile = tmp_path / "grandchild.pid"
    own = subprocess.Popen([PY, "-c", "import time; time.sleep(60)"])
    try:
        status = main(["inspect", "--timeout", "30", "--", PY, NESTED, "setsid", str(pidfile)])
        assert status == 0
        assert own.poll() is None, "inspect killed a child it did not start"
        assert gone(int(pidfile.read_text())), "the grandchild outlived inspect"
    finally:
        own.kill()
        own.wait()
