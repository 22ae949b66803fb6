"""Red team: SQL built-ins that run in one uninterruptible C call, or build huge values in Python.

Each statement runs in a child process with a hard timeout, so a regression fails the test
in seconds instead of hanging the suite (the attacks below ran for hours, or used gigabytes).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

CHILD = """
import json, resource, sys, time
from course_lib.connection import call_tool_sync
from course_lib.servers import ops_db
server = ops_db.ops_db_server(variant="engine", time_limit=1.0)
started = time.monotonic()
result = call_tool_sync(server, "execute_query", {"sql": sys.argv[1]})
print(json.dumps({
    "error": result.is_error,
    "text": result.content[0].text[:300],
    "chars": len(result.content[0].text),
    "seconds": time.monotonic() - started,
    "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
}))
"""


def run_child(sql: str, timeout: float = 20) -> dict:
    started = time.monotonic()
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, sql], capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the statement still ran after {time.monotonic() - started:.0f} s: {sql[:80]}")
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


A = "printf('%.*c', 999000, 'a')"
B = "(printf('%.*c', 60000, 'b') || 'a')"  # SQLite refuses a character set over ~76k


@pytest.mark.parametrize("function", ["trim", "ltrim", "rtrim"])
def test_trim_with_a_long_character_set_stops_in_time(function):
    # SQLite compares every character of X with every character of Y: 6e10 steps in one call
    out = run_child(f"SELECT length({function}({A}, {B}))")
    assert out["seconds"] < 10
    assert not out["error"] and out["text"].splitlines()[-1] == "0"


def test_trim_keeps_sqlite_semantics():
    out = run_child("SELECT trim('xyabcyx', 'xy'), ltrim('xxa', 'x'), rtrim('axx', 'x'), trim(NULL, 'x')")
    assert out["text"].splitlines()[-1] == "abc | a | a | None"


def test_replace_cannot_build_gigabytes_in_python():
    # 3000 'a' each replaced by ~1 MB: Python would build 3 GB before SQLite's length limit saw it
    out = run_child(f"SELECT length(replace(printf('%.*c', 3000, 'a'), 'a', {A}))")
    assert out["error"] and "replace() would build a value over" in out["text"]
    assert out["rss_mb"] < 400


def test_a_row_of_a_hundred_megabyte_blobs_is_not_turned_into_half_a_gigabyte_of_text():
    columns = ", ".join(f"zeroblob(999999) AS c{i}" for i in range(100))
    out = run_child(f"SELECT {columns}")
    assert not out["error"] and out["chars"] <= 21_000
    assert out["rss_mb"] < 500  # was 925 MB: each 1 MB blob became a 4 MB repr before the cut


def call(server, sql: str):
    from course_lib.connection import call_tool_sync

    return call_tool_sync(server, "execute_query", {"sql": sql})


@pytest.mark.parametrize(
    "pragma", ["journal_mode=WAL", "temp_store_directory='/tmp'", "data_store_directory='/tmp'"]
)
def test_pragmas_that_move_sqlite_files_are_refused(tmp_path, pragma):
    # WAL adds ops.db-wal/-shm beside ops.db for good; temp_store_directory is process-wide and
    # sends every later connection's temporary files wherever the statement says
    from course_lib.servers import ops_db

    server = ops_db.ops_db_server(tmp_path, variant="worst-case")
    result = call(server, f"PRAGMA {pragma}")
    assert result.is_error and "PRAGMA changes where or how SQLite writes files" in result.content[0].text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ops.db"]
    assert call(server, "SELECT count(*) FROM deploys").content[0].text.endswith("2")


@pytest.mark.parametrize("planted", ["ops.db-wal", "ops.db-shm", "ops.db-journal"])
def test_a_link_planted_beside_ops_db_touches_nothing_outside_and_says_why(tmp_path, planted):
    from course_lib.servers import ops_db

    root, victim = tmp_path / "root", tmp_path / "victim"
    victim.write_text("SECRET" * 100)
    server = ops_db.ops_db_server(root, variant="worst-case")
    (root / planted).symlink_to(victim)
    for sql in ("INSERT INTO deploys VALUES (3, 'd', 's', 'v')", "SELECT count(*) FROM deploys"):
        result = call(server, sql)
        # was a bare "Error executing tool execute_query", with a traceback on the server's stderr
        assert not result.is_error or "SQLite could not open ops.db" in result.content[0].text
    assert victim.read_text() == "SECRET" * 100
