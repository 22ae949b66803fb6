"""The ops-db SQL server contains hostile statements: long runs, huge values and results, leaks, files.

Statements that once ran for hours (one SQLite C call no timer can interrupt) or built gigabytes run
in a child process with a hard timeout, so a regression fails the test instead of hanging the suite.
Time is asserted as the mechanism, never as a wall-clock bound: what stopped the statement (a guard
refused it, the timer interrupted it) and the CPU seconds the child spent on it, which other load on
the machine does not inflate. How fast the server answers is a benchmark's business, not a test's.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from course_lib.connection import call_tool_sync
from course_lib.servers import ops_db

CHILD = """
import json, resource, sys, time
from course_lib.connection import call_tool_sync
from course_lib.servers import ops_db
sql, variant, limit = sys.argv[1], sys.argv[2], sys.argv[3]
options = {} if limit == "default" else {"time_limit": float(limit)}
server = ops_db.ops_db_server(variant=variant, **options)
cpu = time.process_time()
result = call_tool_sync(server, "execute_query", {"sql": sql})
print(json.dumps({
    "error": result.is_error,
    "text": result.content[0].text[:300],
    "chars": len(result.content[0].text),
    "cpu_seconds": time.process_time() - cpu,
    "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
}))
"""
HANG_GUARD = 300  # seconds: only a statement that hangs gets near it
LONG = 60.0  # a time limit no statement that must finish can reach, however busy the machine
CHEAP = 2.0  # CPU seconds: the guarded statements take milliseconds; unguarded, hours


def run_child(sql: str, *, time_limit: float | str = LONG, variant: str = "engine") -> dict:
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHILD, sql, variant, str(time_limit)],
            capture_output=True,
            text=True,
            timeout=HANG_GUARD,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the statement still ran after {HANG_GUARD} s: {sql[:80]}")
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


A = "printf('%.*c', 999000, 'a')"
B = "(printf('%.*c', 60000, 'b') || 'a')"  # SQLite refuses a character set over ~76k


def test_a_long_like_pattern_over_a_megabyte_is_refused_before_it_runs():
    # SQLite matches LIKE inside one C call: a 40k pattern over 1 MB ran far past any time limit
    out = run_child(f"SELECT {A} LIKE '%' || printf('%.*c', 40000, 'a') || 'b%'")
    assert out["error"] and "pattern is 40003 characters long" in out["text"]
    assert out["cpu_seconds"] < CHEAP


def test_a_slow_statement_is_interrupted_at_the_default_time_limit():
    # a short pattern on every one of 100,000 one-megabyte rows: each call is short, the whole is not
    pattern = "'%' || printf('%.*c', 90, 'a') || 'b%'"
    sql = (
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) "
        f"SELECT count(*) FROM c WHERE printf('%.*c', 999000 - x % 2, 'a') LIKE {pattern}"
    )
    out = run_child(sql, time_limit="default")
    assert out["error"], out["text"]
    assert f"ran longer than {ops_db.TIME_LIMIT:g} s and was stopped" in out["text"]
    # the timer fires after TIME_LIMIT seconds of wall time, so the statement spent at most that
    # much CPU; running to its end would have taken minutes
    assert out["cpu_seconds"] < ops_db.TIME_LIMIT + 1.5


def test_a_time_limit_given_to_the_server_is_the_one_it_applies():
    sql = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
    out = run_child(sql, time_limit=0.5)
    assert out["error"] and "ran longer than 0.5 s and was stopped" in out["text"]
    assert out["cpu_seconds"] < 0.5 + 1.5


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        (f"SELECT instr({A}, printf('%.*c', 300000, 'a') || 'b')", "0"),
        (f"SELECT length(replace({A}, printf('%.*c', 300000, 'a') || 'b', ''))", "999000"),
    ],
    ids=["instr", "replace"],
)
def test_one_instr_or_replace_call_is_linear_not_quadratic(sql, expected):
    out = run_child(sql)
    assert not out["error"] and out["text"].splitlines()[-1] == expected, out["text"]
    assert out["cpu_seconds"] < CHEAP


@pytest.mark.parametrize("function", ["trim", "ltrim", "rtrim"])
def test_trim_with_a_long_character_set_is_linear_not_quadratic(function):
    # SQLite compares every character of X with every character of Y: 6e10 steps in one call
    out = run_child(f"SELECT length({function}({A}, {B}))")
    assert not out["error"] and out["text"].splitlines()[-1] == "0", out["text"]
    assert out["cpu_seconds"] < CHEAP


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
    return call_tool_sync(server, "execute_query", {"sql": sql})


def test_a_result_is_bounded_in_characters_not_only_rows():
    # 50 megabytes to build take seconds on a busy machine: a limit no load reaches, so only the cut
    # is under test
    server = ops_db.ops_db_server(variant="engine", time_limit=LONG)
    columns = ", ".join(f"printf('%.*c', 999000, 'x') AS c{i}" for i in range(50))
    result = call(server, f"SELECT {columns}")
    assert not result.is_error
    assert len(result.content[0].text) <= ops_db.MAX_RESULT_CHARS + 500
    assert "result cut at" in result.content[0].text


def test_fts3_tokenizer_cannot_leak_a_native_address():
    server = ops_db.ops_db_server(variant="worst-case")
    result = call(server, "SELECT hex(fts3_tokenizer('simple'))")
    assert result.is_error and "fts3_tokenizer" in result.content[0].text


def test_load_extension_refusal_names_load_extension_not_attach():
    server = ops_db.ops_db_server(variant="worst-case")
    result = call(server, "SELECT load_extension('/tmp/evil.so')")
    assert result.is_error
    assert "load_extension" in result.content[0].text and "ATTACH" not in result.content[0].text


@pytest.mark.parametrize(
    "pragma", ["journal_mode=WAL", "temp_store_directory='/tmp'", "data_store_directory='/tmp'"]
)
def test_pragmas_that_move_sqlite_files_are_refused(tmp_path, pragma):
    # WAL adds ops.db-wal/-shm beside ops.db for good; temp_store_directory is process-wide and
    # sends every later connection's temporary files wherever the statement says
    server = ops_db.ops_db_server(tmp_path, variant="worst-case")
    result = call(server, f"PRAGMA {pragma}")
    assert result.is_error and "PRAGMA changes where or how SQLite writes files" in result.content[0].text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ops.db"]
    assert call(server, "SELECT count(*) FROM deploys").content[0].text.endswith("2")


@pytest.mark.parametrize("planted", ["ops.db-wal", "ops.db-shm", "ops.db-journal"])
def test_a_link_planted_beside_ops_db_touches_nothing_outside_and_says_why(tmp_path, planted):
    root, victim = tmp_path / "root", tmp_path / "victim"
    victim.write_text("SECRET" * 100)
    server = ops_db.ops_db_server(root, variant="worst-case")
    (root / planted).symlink_to(victim)
    for sql in ("INSERT INTO deploys VALUES (3, 'd', 's', 'v')", "SELECT count(*) FROM deploys"):
        result = call(server, sql)
        # was a bare "Error executing tool execute_query", with a traceback on the server's stderr
        assert not result.is_error or "SQLite could not open ops.db" in result.content[0].text
    assert victim.read_text() == "SECRET" * 100
