"""The census of real servers: its records, its check against the wire, its diff, and its data.

The census itself (60-odd real servers, offline) runs in the peers tier (tests/peers/test_census_reproduced.py);
here its parts run against raw JSON-RPC servers (tests/wild/server.py), and the committed data is
checked for what the lesson and the book say of it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from course_lib import HINTS, load_census
from course_lib.inspection import inspect_server
from course_tools.census.data import differences, write
from course_tools.census.locks import locked_version
from course_tools.census.servers import SERVERS, Registry
from course_tools.census.survey import CensusRun, command_for, server_row, tool_rows

PY = sys.executable
WILD = str(Path(__file__).parent / "wild" / "server.py")
BY_LABEL = {s.label: s for s in SERVERS}


def inspected(shape: str):
    return anyio.run(lambda: inspect_server([PY, WILD, shape], timeout=30))


def test_the_census_flags_a_hint_inspect_reads_differently_from_the_wire():
    (row,) = tool_rows("wild", inspected("stringly"))
    assert row.readOnlyHint == '"yes"'  # as sent
    assert "readOnlyHint" in row.mismatch  # the SDK made it True
    assert row.other_keys == "category"
    assert "malformed:readOnlyHint" in row.findings


def test_the_census_reads_every_tool_of_a_server_with_a_malformed_one():
    found = inspected("malformed")
    rows = tool_rows("wild", found)
    assert [r.tool for r in rows] == ["search_docs", "get_page", "delete_page"]
    assert all(r.mismatch == "" for r in rows)
    get_page = rows[1]
    assert (get_page.annotations_title, get_page.readOnlyHint, get_page.other_keys) == ("Get a page", "true", "category")
    assert "malformed:inputSchema" in get_page.findings
    row = server_row(BY_LABEL["filesystem"], found, rows)
    assert (row.status, row.tools, row.annotated, row.malformed, row.mismatches) == ("listed", 3, 2, 1, 0)


def test_a_server_that_does_not_start_is_recorded_with_inspects_reason():
    found = anyio.run(lambda: inspect_server([PY, WILD, "needs-env", "CENSUS_KEY"], timeout=30))
    row = server_row(BY_LABEL["filesystem"], found, [])
    assert row.status == "failed" and "CENSUS_KEY environment variable is required" in row.reason


def test_differences_name_each_change(tmp_path):
    found = inspected("malformed")
    census = CensusRun([server_row(BY_LABEL["filesystem"], found, tool_rows("filesystem", found))], tool_rows("filesystem", found))
    write(tmp_path, census, {"date": "2026-12-01"})
    assert differences(tmp_path, census) == []
    census.tools[0].readOnlyHint = ""
    census.tools.pop()
    census.servers[0].status = "failed"
    changes = differences(tmp_path, census)
    assert "tool filesystem/search_docs: readOnlyHint 'true' -> ''" in changes
    assert "tool filesystem/delete_page: gone" in changes
    assert "server filesystem: status 'listed' -> 'failed'" in changes


def test_a_command_is_filled_in_with_its_install_sandbox_and_home(tmp_path):
    command = command_for(BY_LABEL["git"], tmp_path / "root", tmp_path / "sandbox")
    assert command.argv == (str(tmp_path / "root/venvs/mcp-server-git/bin/mcp-server-git"), "--repository", str(tmp_path / "sandbox/gitrepo"))
    assert command.env["HOME"] == str(tmp_path / "root/home")
    memory = command_for(BY_LABEL["memory"], tmp_path, tmp_path / "sandbox")
    assert memory.env["MEMORY_FILE_PATH"] == str(tmp_path / "sandbox/memory.jsonl")


def test_versions_come_from_the_lock_files():
    assert locked_version(BY_LABEL["filesystem"]).count(".") == 2
    assert locked_version(BY_LABEL["git"]).count(".") == 2
    assert locked_version(BY_LABEL["heroku"]) == "1.2.8"  # not started: the version last seen


@pytest.fixture(scope="module")
def census():
    return load_census()


def test_the_committed_census_has_sixty_servers_from_both_registries(census):
    listed = census.listed()
    assert len(listed) >= 60
    assert set(listed["registry"]) == {str(Registry.NPM), str(Registry.PYPI)}
    assert census.date and census.about["isolation"].startswith("network namespace")


def test_inspect_read_every_listed_tool_as_the_wire_says(census):
    assert census.listed()["mismatches"].sum() == 0
    assert (census.tools["mismatch"] == "").all()


def test_every_server_that_did_not_list_tools_says_why(census):
    others = census.servers[census.servers["status"] != "listed"]
    assert (others["reason"].str.len() > 10).all()


def test_hints_load_as_true_false_or_absent(census):
    for hint in HINTS:
        assert set(census.tools[hint].map(repr)) <= {"True", "False", "None"}, hint


def test_where_no_network_namespace_can_be_made_the_census_says_why_and_what_to_do(monkeypatch, tmp_path, capsys):
    from course_tools.census import offline
    from course_tools.census.cli import EXIT_FAILED
    from course_tools.__main__ import main

    monkeypatch.setattr(offline.shutil, "which", lambda name: None)
    with pytest.raises(offline.NamespaceError, match="network namespaces need Linux"):
        offline.run_offline(tmp_path, tmp_path, ["time"], isolate=True)
    monkeypatch.setattr("course_tools.census.cli._install_all", lambda root, only: None)
    monkeypatch.setattr("course_tools.__main__.missing_extra", lambda extra: "")  # uv: [census]
    status = main(["census", "run", "--root", str(tmp_path), "--only", "time"])
    assert status == EXIT_FAILED
    out = capsys.readouterr().out
    assert "unshare" in out and "--no-isolation" in out and "Traceback" not in out


def test_the_book_page_is_written_from_the_committed_data():
    from course_tools.census.page import PAGE, render

    assert PAGE.read_text(encoding="utf-8") == render(), "run: python -m course_tools census page"


def test_lesson_02_names_as_many_servers_as_the_census_listed(census):
    text = (Path(__file__).parents[1] / "notebooks" / "02_defaults.ipynb").read_text(encoding="utf-8")
    assert f"the tools of {len(census.listed())} real servers" in text
