"""Red team: the ops-db SQL server against statements that run long, return too much or leak."""

from __future__ import annotations

import time

import anyio

from course_lib import connect
from course_lib.servers import ops_db


def run_sql(server, sql: str):
    async def main():
        with anyio.fail_after(60):
            async with connect(server) as client:
                return await client.call_tool("execute_query", {"sql": sql})

    return anyio.run(main)


def test_one_like_over_a_megabyte_stops_near_the_time_limit():
    server = ops_db.ops_db_server(variant="engine")
    big = "printf('%.*c', 999000, 'a')"
    sql = f"SELECT {big} LIKE '%' || printf('%.*c', 40000, 'a') || 'b%'"
    started = time.monotonic()
    result = run_sql(server, sql)
    assert time.monotonic() - started < ops_db.TIME_LIMIT + 1.5
    assert result.is_error and "pattern is 40003 characters long" in result.content[0].text


def test_a_like_over_a_megabyte_on_every_row_is_interrupted_near_the_time_limit():
    server = ops_db.ops_db_server(variant="engine")
    pattern = "'%' || printf('%.*c', 90, 'a') || 'b%'"
    sql = (
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) "
        f"SELECT count(*) FROM c WHERE printf('%.*c', 999000 - x % 2, 'a') LIKE {pattern}"
    )
    started = time.monotonic()
    result = run_sql(server, sql)
    assert time.monotonic() - started < ops_db.TIME_LIMIT + 1.5
    assert result.is_error and "longer than" in result.content[0].text


def test_one_instr_or_replace_call_cannot_outlast_the_time_limit():
    server = ops_db.ops_db_server(variant="engine")
    haystack, needle = "printf('%.*c', 999000, 'a')", "printf('%.*c', 300000, 'a') || 'b'"
    for sql, expected in [(f"SELECT instr({haystack}, {needle})", "0"), (f"SELECT length(replace({haystack}, {needle}, ''))", "999000")]:
        started = time.monotonic()
        result = run_sql(server, sql)
        assert time.monotonic() - started < ops_db.TIME_LIMIT + 1.5
        assert result.content[0].text.splitlines()[-1] == expected


def test_a_result_is_bounded_in_characters_not_only_rows():
    server = ops_db.ops_db_server(variant="engine")
    columns = ", ".join(f"printf('%.*c', 999000, 'x') AS c{i}" for i in range(50))
    result = run_sql(server, f"SELECT {columns}")
    assert not result.is_error
    assert len(result.content[0].text) <= ops_db.MAX_RESULT_CHARS + 500
    assert "result cut at" in result.content[0].text


def test_fts3_tokenizer_cannot_leak_a_native_address():
    server = ops_db.ops_db_server(variant="worst-case")
    result = run_sql(server, "SELECT hex(fts3_tokenizer('simple'))")
    assert result.is_error and "fts3_tokenizer" in result.content[0].text


def test_load_extension_refusal_names_load_extension_not_attach():
    server = ops_db.ops_db_server(variant="worst-case")
    result = run_sql(server, "SELECT load_extension('/tmp/evil.so')")
    assert result.is_error
    assert "load_extension" in result.content[0].text and "ATTACH" not in result.content[0].text
