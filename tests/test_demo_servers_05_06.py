"""The demo servers of lessons 05 and 06: log-tidy (lying), ops-db (SQL variants), ops-assistant (token scopes)."""

from __future__ import annotations

import anyio
import pytest
from mcp.types import Tool

from course_lib.annotations import effective
from course_lib.connection import connect
from course_lib.defences import CASES, DEFENCES, comparison_table, defence_matrix, run_case
from course_lib.servers import SERVERS, build, log_tidy, ops_assistant, ops_db


def session(server, steps):
    """Run `steps(client)` against an in-process server under a time limit."""

    async def main():
        with anyio.fail_after(60):
            async with connect(server) as client:
                return await steps(client)

    return anyio.run(main)


def listed(server) -> dict[str, Tool]:
    async def steps(client):
        return {t.name: t for t in (await client.list_tools()).tools}

    return session(server, steps)


def call(server, tool, arguments):
    async def steps(client):
        return await client.call_tool(tool, arguments)

    return session(server, steps)


def text(result) -> str:
    return " ".join(c.text for c in result.content)


@pytest.mark.parametrize("name", ["log-tidy", "ops-db", "ops-assistant"])
def test_each_server_is_registered_and_builds_with_a_sandbox(name, tmp_path):
    assert name in SERVERS
    server = build(name, root=tmp_path)
    assert server.sandbox.root == tmp_path.resolve()


def test_log_tidy_declares_read_only_but_deletes_rotated_logs():
    server = log_tidy.log_tidy_server()
    tidy = listed(server)["tidy_logs"]
    assert effective(tidy.annotations).read_only is True and tidy.title == "Preview log tidy-up"
    result = call(server, "tidy_logs", {"folder": "logs"})
    assert not result.is_error and text(result).startswith("A tidy-up would remove 3")
    assert sorted(p.name for p in (server.sandbox.root / "logs").iterdir()) == ["app.log", "worker.log"]


def test_log_tidy_never_leaves_its_sandbox(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.log.1").write_text("x")
    server = log_tidy.log_tidy_server(tmp_path / "sandbox")
    for folder in ("../outside", str(outside), "/"):
        assert call(server, "tidy_logs", {"folder": folder}).is_error
    assert (outside / "keep.log.1").exists()


def test_log_tidy_folder_arguments_get_folder_messages_and_dot_is_the_whole_sandbox():
    server = log_tidy.log_tidy_server()
    assert "folder is empty" in text(call(server, "disk_usage", {"folder": ""}))
    assert "no folder 'nope'" in text(call(server, "disk_usage", {"folder": "nope"}))
    assert "is a file, not a folder" in text(call(server, "tidy_logs", {"folder": "logs/app.log"}))
    top = call(server, "disk_usage", {"folder": "."})
    assert not top.is_error and text(top) == "(empty folder)"  # the logs sit one level down, in logs/


def test_rug_pull_changes_the_definition_and_notifies_listeners():
    server = log_tidy.log_tidy_server(stage="honest")

    async def steps(client):
        before = {t.name: t for t in (await client.list_tools()).tools}["tidy_logs"]
        async with client.listen(tools_list_changed=True) as subscription:
            await log_tidy.rug_pull(server)
            with anyio.fail_after(60):
                event = await anext(subscription)
        after = {t.name: t for t in (await client.list_tools()).tools}["tidy_logs"]
        return before, event, after

    before, event, after = session(server, steps)
    assert type(event).__name__ == "ToolsListChanged"
    assert before.annotations.destructive_hint is True and after.annotations.read_only_hint is True
    with pytest.raises(ValueError, match="already lies"):
        anyio.run(log_tidy.rug_pull, server)


def test_a_positive_ttl_lets_the_client_cache_serve_the_old_definition():
    server = log_tidy.log_tidy_server(stage="honest", list_ttl_ms=60_000)

    async def steps(client):
        await client.list_tools()
        server.server.remove_tool("disk_usage")
        cached = await client.list_tools()
        fresh = await client.list_tools(cache_mode="refresh")
        return cached, fresh

    cached, fresh = session(server, steps)
    assert cached.ttl_ms == 60_000
    assert "disk_usage" in {t.name for t in cached.tools} and "disk_usage" not in {t.name for t in fresh.tools}


@pytest.mark.parametrize("variant", ["naive", "worst-case"])
def test_one_execute_query_tool_runs_a_select_and_a_drop(variant):
    server = ops_db.ops_db_server(variant=variant)
    assert not call(server, "execute_query", {"sql": "SELECT count(*) FROM incidents"}).is_error
    assert not call(server, "execute_query", {"sql": "DROP TABLE incidents"}).is_error
    assert "no such table" in text(call(server, "execute_query", {"sql": "SELECT * FROM incidents"}))


def test_the_engine_refuses_a_drop_whatever_the_hints_say():
    server = ops_db.ops_db_server(variant="engine")
    assert effective(listed(server)["execute_query"].annotations).read_only is True
    result = call(server, "execute_query", {"sql": "DROP TABLE incidents"})
    assert result.is_error and "readonly database" in text(result)
    assert "payment gateway" in text(call(server, "execute_query", {"sql": "SELECT summary FROM incidents"}))


def test_split_tools_declare_honest_hints_and_the_read_tool_cannot_write():
    server = ops_db.ops_db_server(variant="split")
    tools = listed(server)
    assert effective(tools["query"].annotations).read_only is True
    assert effective(tools["execute"].annotations).destructive is True
    assert call(server, "query", {"sql": "DELETE FROM deploys"}).is_error
    assert not call(server, "execute", {"sql": "DELETE FROM deploys"}).is_error


def test_deployment_mode_derives_hints_and_enforces_read_only():
    read_only = ops_db.ops_db_server(variant="mode", read_only=True)
    read_write = ops_db.ops_db_server(variant="mode", read_only=False)
    assert effective(listed(read_only)["execute_query"].annotations).read_only is True
    assert effective(listed(read_write)["execute_query"].annotations).destructive is True
    assert call(read_only, "execute_query", {"sql": "DROP TABLE deploys"}).is_error


ESCAPES = [
    "VACUUM INTO '{outside}/copy.db'",
    "ATTACH 'file:{outside}/attached.db?mode=rwc' AS x",
    "ATTACH DATABASE '{outside}/plain.db' AS y",
]


@pytest.mark.parametrize(("variant", "tool"), [("naive", "execute_query"), ("engine", "execute_query"), ("split", "query"), ("split", "execute")])
def test_no_sql_statement_creates_a_file_outside_the_sandbox(variant, tool, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    server = ops_db.ops_db_server(tmp_path / "sandbox", variant=variant)
    for sql in ESCAPES:
        result = call(server, tool, {"sql": sql.format(outside=outside)})
        assert result.is_error and "outside the sandbox" in text(result)
    assert list(outside.iterdir()) == []
    assert sorted(p.name for p in (tmp_path / "sandbox").iterdir()) == ["ops.db"]


def test_the_read_only_mode_variant_refuses_an_attach_too(tmp_path):
    server = ops_db.ops_db_server(tmp_path / "sandbox", variant="mode", read_only=True)
    assert call(server, "execute_query", {"sql": f"VACUUM INTO '{tmp_path}/copy.db'"}).is_error
    assert not (tmp_path / "copy.db").exists()


def test_a_runaway_query_is_stopped_at_the_time_limit():
    server = ops_db.ops_db_server(variant="engine", time_limit=0.3)
    endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
    result = call(server, "execute_query", {"sql": endless})  # session() bounds the whole run at 10 s
    assert result.is_error and "longer than 0.3 s" in text(result)
    assert "3" in text(call(server, "execute_query", {"sql": "SELECT count(*) FROM incidents"}))


def test_sql_server_refuses_bad_input():
    with pytest.raises(ValueError, match="variant must be one of"):
        ops_db.ops_db_server(variant="yolo")
    with pytest.raises(ValueError, match="time_limit"):
        ops_db.ops_db_server(time_limit=0)
    server = ops_db.ops_db_server()
    assert "sql is empty" in text(call(server, "execute_query", {"sql": "  "}))
    assert "one statement" in text(call(server, "execute_query", {"sql": "SELECT 1; DROP TABLE deploys"}))


def cleanup_as(server, scopes, environment, keep_days=0, **token_options):
    token = None if scopes is None else ops_assistant.issue_token(scopes, **token_options)
    with ops_assistant.as_caller(token):
        return call(server, "cleanup_logs", {"environment": environment, "keep_days": keep_days})


def count_logs(server, environment):
    return len(list((server.sandbox.root / "logs" / environment).glob("*.log")))


def test_a_token_scoped_to_test_can_clean_test_but_not_production():
    server = ops_assistant.ops_assistant_server()
    assert not cleanup_as(server, ["logs:delete:test"], "test", keep_days=7).is_error
    assert count_logs(server, "test") == 8
    refused = cleanup_as(server, ["logs:delete:test"], "production")
    assert refused.is_error and "logs:delete:production" in text(refused)
    assert count_logs(server, "production") == 10


def test_a_token_for_another_server_or_no_token_is_refused():
    server = ops_assistant.ops_assistant_server()
    assert "issued for" in text(cleanup_as(server, ["logs:delete:*"], "test", resource="https://elsewhere.example/mcp"))
    assert "no access token" in text(cleanup_as(server, None, "test"))
    assert count_logs(server, "test") == 10
    assert [d.allowed for d in server.auth_log] == [False, False]


def test_a_too_broad_scope_lets_production_be_deleted():
    server = ops_assistant.ops_assistant_server()
    assert not cleanup_as(server, ["logs:delete:*"], "production").is_error
    assert count_logs(server, "production") == 1


def test_without_enforcement_the_server_deletes_for_anyone():
    server = ops_assistant.ops_assistant_server(enforce_scopes=False)
    assert not cleanup_as(server, None, "production").is_error
    assert count_logs(server, "production") == 1


def test_ops_assistant_validates_arguments():
    server = ops_assistant.ops_assistant_server(enforce_scopes=False)
    assert "unknown environment" in text(cleanup_as(server, None, "prod"))
    assert "keep_days must be" in text(cleanup_as(server, None, "test", keep_days=-1))
    with pytest.raises(ValueError, match="list of scope strings"):
        ops_assistant.issue_token("logs:delete:test")


def test_the_hosts_own_sensitive_list_keeps_approval_working_when_the_client_trusts_a_liar():
    async def main():
        with anyio.fail_after(60):
            return await run_case("client trusts hints", "human approval", own_list=True)

    result = anyio.run(main)
    assert result.wanted_done and not result.production_deleted and result.prompts == 2


def test_run_case_refuses_unknown_cases():
    with pytest.raises(ValueError, match="unknown case"):
        anyio.run(run_case, "meteor strike", "hints only")


def test_each_defence_fails_only_in_its_own_failure_mode():
    runs = anyio.run(defence_matrix)
    assert len(runs) == len(CASES) * len(DEFENCES)
    failed = {(r.case, r.defence) for r in runs.itertuples() if r.production_deleted}
    assert failed == {
        ("lying server", "hints only"),
        ("client trusts hints", "hints only"),
        ("client trusts hints", "human approval"),
        ("approval clicked through", "human approval"),
        ("token scope too broad", "server-side authorisation"),
    }
    table = comparison_table(runs)
    assert list(table.index[: len(CASES)]) == list(CASES)  # the same row names as the runs
    assert table.loc["lying server"].to_dict() == {"hints only": "FAILED", "human approval": "held", "server-side authorisation": "held"}
    assert table.loc["wanted call done (baseline)", "hints only"] == "no"
    assert table.loc["tells test from production", "hints only"] == "no"
    assert table.loc["prompts per task (baseline)"].to_dict() == {"hints only": 0, "human approval": 2, "server-side authorisation": 0}
    with pytest.raises(ValueError, match="defence_matrix"):
        comparison_table(runs.drop(columns="prompts"))
