"""`inspect` against raw JSON-RPC servers shaped like the real ones that broke it (tests/wild/server.py).

The census of real servers (issue 21) found four: servers that read a key from the environment,
a tool whose `inputSchema` has no "type" (which hid the whole server), and servers crashing at
start for ordinary reasons, which were started a second time for nothing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from course_lib.__main__ import main
from course_lib.inspect_cmd import EXIT_OK, EXIT_UNREACHABLE, EXIT_USAGE

PY = sys.executable
SERVER = str(Path(__file__).parent / "wild" / "server.py")
SECRET = "s3cret-token-4242"


def wild(shape: str, *extra: str) -> list[str]:
    return [PY, SERVER, shape, *extra]


def inspect(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["inspect", "--timeout", "30", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_env_option_hands_the_variable_to_the_server(capsys):
    status, out, _ = inspect(capsys, "--env", f"WILD_KEY={SECRET}", "--", *wild("needs-env", "WILD_KEY"))
    assert status == EXIT_OK, out
    assert "get_status" in out
    assert "env: WILD_KEY (value not shown)" in out
    assert SECRET not in out


def test_a_server_missing_its_variable_is_told_how_to_pass_one(capsys):
    status, out, _ = inspect(capsys, "--", *wild("needs-env", "WILD_KEY"))
    assert status == EXIT_UNREACHABLE
    assert "WILD_KEY environment variable is required" in out
    assert "--env NAME=VALUE" in out


def test_env_file_sets_variables_and_skips_comments(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("WILD_KEY", SECRET)
    env_file = tmp_path / "servers.env"
    env_file.write_text("# keys for the census\n\nWILD_KEY\nOTHER=1\n")  # a bare name passes ours on
    status, out, _ = inspect(capsys, "--env-file", str(env_file), "--", *wild("needs-env", "WILD_KEY"))
    assert status == EXIT_OK, out
    assert "env: OTHER, WILD_KEY (values not shown)" in out
    assert SECRET not in out


@pytest.mark.parametrize("json_flag", [[], ["--json"]], ids=["text", "json"])
def test_a_value_the_server_echoes_in_its_error_is_hidden(capsys, json_flag):
    status, out, _ = inspect(capsys, *json_flag, "--env", f"WILD_KEY={SECRET}", "--", *wild("leaky-env", "WILD_KEY"))
    assert status == EXIT_UNREACHABLE
    assert "the key *** was rejected" in out
    assert SECRET not in out
    if json_flag:
        (server,) = json.loads(out)["servers"]
        assert server["env"] == ["WILD_KEY"] and "***" in server["error"]


@pytest.mark.parametrize(
    "argv, names",
    [
        (["--env", SECRET], "the 1st --env has no '='"),
        (["--env", "A=1", "--env", f"9X={SECRET}"], "the 2nd --env names '9X'"),
        (["--env-file", "no-such-file.env"], "no-such-file.env"),
    ],
)
def test_a_malformed_env_option_is_a_usage_error_that_never_echoes_a_value(capsys, argv, names):
    status, out, err = inspect(capsys, *argv, "--", *wild("needs-env", "WILD_KEY"))
    assert status == EXIT_USAGE
    assert names in err
    assert SECRET not in out + err


def test_a_bad_env_file_line_is_named_by_its_number_not_its_content(tmp_path, capsys):
    env_file = tmp_path / "bad.env"
    env_file.write_text(f"GOOD=1\n{SECRET}\n")
    status, _, err = inspect(capsys, "--env-file", str(env_file), "--", *wild("needs-env", "WILD_KEY"))
    assert status == EXIT_USAGE
    assert "line 2" in err and str(env_file) in err
    assert SECRET not in err


def test_env_and_assignment_words_are_not_the_servers_name(tmp_path, capsys):
    count = tmp_path / "starts"
    status, out, _ = inspect(
        capsys,
        "--", "env", f"WILD_KEY={SECRET}", *wild("needs-env", "WILD_KEY"),
        "--", "env", f"WILD_KEY={SECRET}", *wild("crash", str(count)),
    )
    assert status == EXIT_UNREACHABLE
    assert "== wild-needs-env: python " in out and "== python: python " in out
    assert "`python` is not an MCP server, or it stopped" in out
    assert f"== python: python {SERVER} crash {count}\n" in out  # no `env`, no assignment
    assert SECRET not in out


def test_a_server_string_may_start_with_assignments_as_in_a_shell(capsys):
    status, out, _ = inspect(capsys, "--server", f"WILD_KEY={SECRET} {PY} {SERVER} needs-env WILD_KEY")
    assert status == EXIT_OK, out
    assert SECRET not in out


def test_env_with_options_is_refused_with_what_to_use_instead(capsys):
    status, _, err = inspect(capsys, "--", "env", "-i", "A=1", *wild("needs-env", "A"))
    assert status == EXIT_USAGE
    assert "--env NAME=VALUE" in err


def test_one_malformed_tool_is_a_finding_and_the_others_are_still_read(capsys):
    status, out, _ = inspect(capsys, "--", *wild("malformed"))
    assert status == EXIT_OK, out
    assert "listing its tools failed" not in out
    assert "search_docs" in out and "delete_page" in out
    assert "get_page     Get a page       true" in out  # title and hints read from the raw JSON
    assert "get_page: [malformed] its tools/list entry does not validate" in out
    assert "inputSchema" in out


def test_json_reports_the_malformed_tool_with_its_declared_hints(capsys):
    _, out, _ = inspect(capsys, "--json", "--", *wild("malformed"))
    (server,) = json.loads(out)["servers"]
    assert server["ok"] and [t["name"] for t in server["tools"]] == ["search_docs", "get_page", "delete_page"]
    get_page = server["tools"][1]
    assert get_page["title"] == "Get a page"
    assert get_page["declared"]["readOnlyHint"] is True and get_page["declared"]["openWorldHint"] is False
    (malformed,) = [f for f in server["findings"] if f["severity"] == "malformed"]
    assert malformed["tool"] == "get_page" and malformed["field"] == "inputSchema"


def test_a_server_that_crashes_at_start_is_started_once(tmp_path, capsys):
    count = tmp_path / "starts"
    status, out, _ = inspect(capsys, "--", *wild("crash", str(count)))
    assert status == EXIT_UNREACHABLE
    assert "settings.toml not found" in out
    assert count.read_text().count("started") == 1
    assert "legacy" not in out


def test_a_server_that_crashes_on_discover_is_retried_once_with_the_legacy_handshake(tmp_path, capsys):
    count = tmp_path / "starts"
    status, out, _ = inspect(capsys, "--", *wild("discover-crash", str(count)))
    assert status == EXIT_OK, out
    assert "via initialize (legacy handshake)" in out
    assert "closed the connection on `server/discover`" in out
    assert count.read_text().count("started") == 2


def test_a_server_that_crashes_on_both_handshakes_says_both_failed(tmp_path, capsys):
    count = tmp_path / "starts"
    status, out, _ = inspect(capsys, "--", *wild("discover-then-initialize-crash", str(count)))
    assert status == EXIT_UNREACHABLE
    assert "legacy `initialize` handshake failed too" in out
    assert count.read_text().count("started") == 2


def test_a_hint_that_is_not_a_boolean_on_the_wire_is_a_finding(capsys):
    status, out, _ = inspect(capsys, "--", *wild("stringly"))
    assert status == EXIT_OK, out
    assert 'list_items: [malformed] readOnlyHint is "yes" on the wire, not true or false' in out
