"""`python -m course_lib inspect`: real stdio servers, a legacy (1.x-style) server, and commands that fail."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap

import pytest
from processes import gone

from course_lib.__main__ import main
from course_lib.inspect_cmd import EXIT_OK, EXIT_TRIFECTA, EXIT_UNREACHABLE, EXIT_USAGE, split_commands

PY = sys.executable

# What an `mcp` 1.x server (FastMCP, mcp 1.30.0) sends, recorded on the wire: it rejects the
# 2026 `server/discover` probe with -32602 and answers the pre-2026 `initialize` handshake.
LEGACY_SERVER = textwrap.dedent(
    """
    import json, sys
    TOOLS = [
        {"name": "get_note", "description": "Read a note.", "inputSchema": {"type": "object"},
         "annotations": {"readOnlyHint": True, "openWorldHint": False}},
        {"name": "send_message", "description": "Send.", "inputSchema": {"type": "object"}},
        {"name": "list_rooms", "description": "List rooms.", "inputSchema": {"type": "object"},
         "annotations": {"openWorldHint": False}},
        {"name": "read_config", "description": "Read config.", "inputSchema": {"type": "object"},
         "annotations": {"readOnlyHint": True, "destructiveHint": True, "openWorldHint": False}},
    ]
    TOOLS = [t for t in TOOLS if len(sys.argv) < 2 or t["name"] in sys.argv[1:]]  # serve only the named tools
    for line in sys.stdin:
        request = json.loads(line)
        if "id" not in request:
            continue  # a notification
        if request["method"] == "initialize":
            reply = {"result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {"listChanged": False}},
                                "serverInfo": {"name": "old-notes", "version": "1.30.0"}}}
        elif request["method"] == "tools/list":
            reply = {"result": {"tools": TOOLS}}
        else:
            reply = {"error": {"code": -32602, "message": "Invalid request parameters", "data": ""}}
        print(json.dumps({"jsonrpc": "2.0", "id": request["id"], **reply}), flush=True)
    """
)


def legacy_server(tmp_path, *tools: str) -> list[str]:
    script = tmp_path / "legacy_server.py"
    script.write_text(LEGACY_SERVER)
    return ["--", PY, str(script), *tools]


def serve(name: str, root) -> list[str]:
    return ["--", PY, "-m", "course_lib", "serve", name, "--root", str(root / name)]


def inspect(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["inspect", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_inspects_the_three_demo_servers_as_one_session(tmp_path, capsys):
    status, out, _ = inspect(capsys, "--timeout", "30", *serve("private-notes", tmp_path), *serve("web-search", tmp_path), *serve("mailer", tmp_path))
    assert status == EXIT_OK
    assert "protocol 2026-07-28 via server/discover" in out
    assert "send_email  Send an e-mail  false" in out
    assert "lethal trifecta COMPLETE" in out


def test_json_output_is_machine_readable(tmp_path, capsys):
    status, out, _ = inspect(capsys, "--json", "--mode", "legacy", *serve("file-ops", tmp_path))
    document = json.loads(out)
    assert status == document["exit_status"] == EXIT_OK
    (server,) = document["servers"]
    assert server["ok"] and server["server_info"]["name"] == "annotated-file-ops"
    assert (server["protocol"], server["handshake"]) == ("2025-11-25", "initialize (legacy handshake)")
    read_file = server["tools"][0]
    assert read_file["declared"]["readOnlyHint"] is True
    assert read_file["effective"]["destructiveHint"] == "n/a"
    assert document["session"]["legs"]["private data"]["present"] is True


def test_legacy_server_is_inspected_through_the_initialize_fallback(tmp_path, capsys):
    status, out, _ = inspect(capsys, "--timeout", "30", *legacy_server(tmp_path))
    assert status == EXIT_OK
    assert "server old-notes 1.30.0; protocol 2025-11-25 via initialize (legacy handshake)" in out
    assert "send_message  send_message  - → false" in out  # absent hints shown with their defaults
    assert "[missing] openWorldHint is absent" in out


def test_findings_name_missing_contradictory_and_ignored_hints(tmp_path, capsys):
    status, out, _ = inspect(capsys, *legacy_server(tmp_path, "list_rooms", "read_config"))
    assert status == EXIT_OK
    assert "list_rooms: [missing] 'list_rooms' sounds read-only but lacks readOnlyHint: true" in out
    assert "read_config: [contradiction] declared read-only and destructive at once" in out
    assert "read_config: [ignored] destructiveHint=True is ignored" in out
    assert "read_config  read_config  true       true (n/a)" in out  # declared, but meaningless


def test_fail_on_trifecta_sets_exit_status_one(tmp_path, capsys):
    # get_note reads a closed world (private data, guessed); unannotated send_message is open world by default
    assert inspect(capsys, "--fail-on-trifecta", *legacy_server(tmp_path))[0] == EXIT_TRIFECTA
    # alone, an unannotated tool is the worst case: every leg, by the spec's defaults
    assert inspect(capsys, "--fail-on-trifecta", *legacy_server(tmp_path, "send_message"))[0] == EXIT_TRIFECTA
    # closed-world tools only: no untrusted content, no way out
    assert inspect(capsys, "--fail-on-trifecta", *legacy_server(tmp_path, "get_note", "list_rooms"))[0] == EXIT_OK
    assert inspect(capsys, *legacy_server(tmp_path))[0] == EXIT_OK  # without the flag, a trifecta is a finding


def test_program_that_is_not_an_mcp_server_gets_one_paragraph_and_status_three(capsys):
    status, out, err = inspect(capsys, "--timeout", "20", "--", PY, "-c", "print('hello')")
    assert status == EXIT_UNREACHABLE
    assert "is not an MCP server" in out
    assert "Traceback" not in out + err


def test_cat_echoing_requests_back_is_not_an_mcp_server(capsys):
    status, out, _ = inspect(capsys, "--timeout", "20", "--", "cat")
    assert status == EXIT_UNREACHABLE
    assert "`cat` is not an MCP server" in out


def test_json_output_reports_a_failed_server_and_no_session(capsys):
    status, out, _ = inspect(capsys, "--json", "--timeout", "20", "--", "cat")
    document = json.loads(out)
    assert status == document["exit_status"] == EXIT_UNREACHABLE
    (server,) = document["servers"]
    assert server["ok"] is False and "is not an MCP server" in server["error"]
    assert server["tools"] == [] and document["session"] is None


def test_cat_is_told_apart_from_a_server_that_answers_wrongly(capsys):
    _, out, _ = inspect(capsys, "--timeout", "20", "--", "cat")
    assert "not an MCP reply" in out and "echo" in out
    assert "it answered" not in out


def test_server_crashing_at_start_shows_its_stderr_and_its_command_once(capsys):
    status, out, _ = inspect(capsys, "--timeout", "20", "--", PY, "-c", "import sys; sys.exit('missing API key')")
    assert status == EXIT_UNREACHABLE
    assert "Its last lines on stderr: missing API key" in out
    assert out.count("sys.exit") == 1  # in the header only, not again in the error


def test_this_python_is_shown_as_python_in_the_report(tmp_path, capsys):
    _, out, _ = inspect(capsys, *serve("mailer", tmp_path))
    assert "== mailer: python -m course_lib serve mailer" in out
    assert PY not in out.replace(str(tmp_path), "")


def test_servers_are_reported_in_command_order(tmp_path, capsys):
    status, out, _ = inspect(capsys, "--timeout", "20", *serve("mailer", tmp_path), "--", "cat", *serve("web-search", tmp_path))
    assert status == EXIT_UNREACHABLE
    assert out.index("== mailer") < out.index("== cat") < out.index("== web-search")


# A server that never answers: it notes that it started, waits until the other one has started
# too, notes that it saw it, and leaves once both have seen each other. Started one after the
# other, the first never sees the second (it is stopped at the timeout before the second starts).
MEETING_SERVER = textwrap.dedent(
    """
    import pathlib, sys, time
    folder, me, other = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    (folder / f"{me}.started").touch()
    while not (folder / f"{other}.started").exists():
        time.sleep(0.02)
    (folder / f"{me}.saw-{other}").touch()
    while not (folder / f"{other}.saw-{me}").exists():
        time.sleep(0.02)
    """
)


def test_servers_are_started_concurrently_so_waits_do_not_add_up(tmp_path, capsys):
    script = tmp_path / "meet.py"
    script.write_text(MEETING_SERVER)
    meet = [["--", PY, str(script), str(tmp_path), me, other] for me, other in (("a", "b"), ("b", "a"))]
    status, out, _ = inspect(capsys, "--timeout", "30", *meet[0], *meet[1])
    assert status == EXIT_UNREACHABLE and out.count("is not an MCP server") == 2  # both left unanswered
    events = sorted(p.name for p in tmp_path.iterdir() if p.suffix != ".py")
    assert events == ["a.saw-b", "a.started", "b.saw-a", "b.started"], (
        f"the two servers never ran at the same time (events: {events})"
    )


def test_missing_program_did_not_start(capsys):
    status, out, _ = inspect(capsys, "--", "no-such-mcp-server-program")
    assert status == EXIT_UNREACHABLE
    assert "did not start" in out


def test_hanging_command_is_stopped_at_the_timeout_without_a_traceback(tmp_path):
    pidfile = tmp_path / "hang.pid"
    hang = f"import os, time; open({str(pidfile)!r}, 'w').write(str(os.getpid())); time.sleep(600)"
    done = subprocess.run(
        [PY, "-m", "course_lib", "inspect", "--timeout", "1", "--", PY, "-c", hang],
        capture_output=True,
        text=True,
        timeout=300,  # a guard against a hang only: the command itself would sleep for 600 s
    )
    assert done.returncode == EXIT_UNREACHABLE
    assert "did not answer within 1 s" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr
    assert gone(int(pidfile.read_text())), "the hanging server was left running"



def test_one_failing_server_does_not_hide_the_others(tmp_path, capsys):
    status, out, _ = inspect(capsys, "--timeout", "20", "--server", "no-such-program", *legacy_server(tmp_path))
    assert status == EXIT_UNREACHABLE
    assert "send_message" in out and "(1 not inspected)" in out


def test_commands_split_on_double_dash_and_server_strings():
    assert split_commands(["--", "a", "-x", "--", "b"], ["c 'd e'"]) == [["c", "d e"], ["a", "-x"], ["b"]]
    assert split_commands(["a", "b"], []) == [["a", "b"]]


@pytest.mark.parametrize("argv", [[], ["--timeout", "0", "--", "cat"], ["--server", "'unclosed"]])
def test_bad_command_lines_exit_with_status_two(capsys, argv):
    status, _, err = inspect(capsys, *argv)
    assert status == EXIT_USAGE
    assert err.startswith("course_lib inspect: ")


HAN = re.compile(r"[\u4e00-\u9fff]")
LINT_ENGLISH = ("sounds read-only", "declared read-only", "is ignored", "is absent", "findings", "protocol")


def test_a_chinese_learner_reads_the_report_and_its_findings_in_chinese(tmp_path, capsys, monkeypatch):
    args = legacy_server(tmp_path, "list_rooms", "read_config")
    _, english, _ = inspect(capsys, *args)
    assert not HAN.search(english)  # English unless COURSE_LANG says otherwise
    monkeypatch.setenv("COURSE_LANG", "zh_CN")
    status, out, _ = inspect(capsys, *args)
    assert status == EXIT_OK
    server = out.split("\n== ")[0]  # the session's status and caveats after it are English still
    findings = [line for line in server.splitlines() if line.startswith("  - ")]
    assert len(findings) == 3 and all(HAN.search(line) for line in findings), out
    assert not [word for word in LINT_ENGLISH if word in server], out
    assert "list_rooms：【未声明】'list_rooms'" in out  # the tool's name, as the server sent it
    assert "read_config  true       true (n/a)" in out  # values stay values
    assert "只读 (read-only)" in out  # a profile as the course's tables show it
    # --json is data: the same English texts whatever the language
    document = json.loads(inspect(capsys, "--json", *args)[1])
    messages = [f["message"] for f in document["servers"][0]["findings"]]
    assert "declared read-only and destructive at once" in messages


def test_a_hostile_tool_name_stays_escaped_in_the_chinese_report(tmp_path, capsys, monkeypatch):
    script = tmp_path / "hostile_names.py"
    script.write_text(LEGACY_SERVER.replace('"name": "list_rooms"', '"name": "list_\\x1b[2J\\u202erooms"'))
    monkeypatch.setenv("COURSE_LANG", "zh_CN")
    status, out, _ = inspect(capsys, "--", PY, str(script))
    assert status == EXIT_OK
    assert "\x1b" not in out and "\u202e" not in out
    (line,) = [line for line in out.splitlines() if "【未声明】" in line and "list_" in line and "readOnlyHint" in line]
    assert "\\x1b[2J" in line and HAN.search(line)
