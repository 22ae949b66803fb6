"""The measurement harness without a real CLI: stand-in endpoints, servers, classification, the command."""

from __future__ import annotations

import asyncio
import sys
import json
import urllib.error
import urllib.request

import pytest
from mcp import Client

from course_tools.__main__ import main
from course_tools.measure.cli import render
from course_lib.measured import Cell, Measurement, Result, committed, committed_files, differences
from course_tools.measure.profiles import build, file_ops_tools, read_log
from course_tools.measure.adapter import CliRun
from course_tools.measure.anthropic_standin import AnthropicStandIn
from course_tools.measure.harness import PLAN, classify
from course_tools.measure.responses_standin import ResponsesStandIn
from course_tools.measure.standin import Script
from course_lib.decisions import Outcome

TOOLS = [{"name": "Bash"}, {"name": "mcp__profiles__read_closed"}, {"name": "mcp__profiles__delete"}]


TOKEN = "t" * 32


def _post(url: str, body: dict) -> tuple[str, bytes]:
    headers = {"Content-Type": "application/json", "x-api-key": TOKEN}
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers)
    with urllib.request.urlopen(request, timeout=10) as answer:
        return answer.headers["Content-Type"], answer.read()


def _sse_data(payload: bytes) -> list[dict]:
    return [json.loads(line[len("data: "):]) for line in payload.decode().splitlines() if line.startswith("data: ")]


def test_anthropic_stand_in_binds_loopback_only_and_scripts_one_tool_per_turn():
    script = Script.one_per_turn(["mcp__profiles__read_closed", "mcp__profiles__missing", "mcp__profiles__delete"])
    with AnthropicStandIn(script, token=TOKEN) as stand_in:
        assert stand_in.url.startswith("http://127.0.0.1:")
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(urllib.request.Request(stand_in.url + "/", headers={"x-api-key": TOKEN}), timeout=10)
        assert caught.value.code == 404
        caught.value.close()
        kind, payload = _post(stand_in.url + "/v1/messages?beta=true", {"stream": True, "tools": TOOLS, "messages": []})
        events = _sse_data(payload)
        assert kind == "text/event-stream"
        assert [e["type"] for e in events][0] == "message_start" and events[-1]["type"] == "message_stop"
        first = next(e for e in events if e["type"] == "content_block_start")["content_block"]
        assert first["type"] == "tool_use" and first["name"] == "mcp__profiles__read_closed"
        history = [{"role": "assistant", "content": [first]},
                   {"role": "user", "content": [{"type": "tool_result", "tool_use_id": first["id"], "content": "ok"}]}]
        _, payload = _post(stand_in.url + "/v1/messages", {"stream": True, "tools": TOOLS, "messages": history})
        second = next(e for e in _sse_data(payload) if e["type"] == "content_block_start")["content_block"]
        assert second["name"] == "mcp__profiles__delete"  # the tool not offered is skipped
        stop = next(e for e in _sse_data(payload) if e["type"] == "message_delta")["delta"]["stop_reason"]
        assert stop == "tool_use"


@pytest.mark.parametrize(("answer", "block", "severity"), [("approve", "<block>no", "<severity>5<"), ("refuse", "<block>yes", "<severity>95<")])
def test_the_classifier_is_answered_as_scripted_in_both_request_formats(answer, block, severity):
    with AnthropicStandIn(Script.one_per_turn([], classifier=answer), token=TOKEN) as stand_in:
        _, old = _post(stand_in.url + "/v1/messages", {"stop_sequences": ["</block>"], "max_tokens": 64, "messages": []})
        new_request = {"messages": [{"role": "user", "content": [{"type": "text", "text": "<transcript>x</transcript> <severity>N</severity>"}]}]}
        _, new = _post(stand_in.url + "/v1/messages", new_request)
        assert json.loads(old)["content"][0]["text"] == block
        assert severity in json.loads(new)["content"][0]["text"]
        assert [e["answer"] for e in stand_in.events if e["kind"] == "classifier"] == [answer, answer]


def test_openai_stand_in_calls_tools_inside_the_mcp_namespace():
    tools = [{"type": "namespace", "name": "mcp__profiles__", "tools": [{"name": "read_closed"}]}, {"type": "function", "name": "exec_command"}]
    with ResponsesStandIn(Script.one_per_turn(["mcp__profiles__read_closed"]), token=TOKEN) as stand_in:
        _, payload = _post(stand_in.url + "/v1/responses", {"stream": True, "tools": tools, "input": []})
        items = [e["item"] for e in _sse_data(payload) if e["type"] == "response.output_item.done"]
        assert items[0]["type"] == "function_call" and items[0]["namespace"] == "mcp__profiles__" and items[0]["name"] == "read_closed"
        done = [{"type": "function_call", "namespace": "mcp__profiles__", "name": "read_closed", "call_id": "c"},
                {"type": "function_call_output", "call_id": "c", "output": "ran"}]
        _, payload = _post(stand_in.url + "/v1/responses", {"stream": True, "tools": tools, "input": done})
        items = [e["item"] for e in _sse_data(payload) if e["type"] == "response.output_item.done"]
        assert items[0]["type"] == "message"


def test_profile_tools_log_each_call_and_the_gate_logs_each_question(tmp_path):
    log = tmp_path / "calls.jsonl"

    async def exercise():
        async with Client(build("profiles", log)) as profiles, Client(build("gate", log)) as gate:
            listed = {t.name: t.annotations for t in (await profiles.list_tools()).tools}
            await profiles.call_tool("delete", {})
            answer = await gate.call_tool("approve", {"tool_name": "mcp__profiles__delete", "input": {}, "tool_use_id": "t1"})
            return listed, answer

    listed, answer = asyncio.run(exercise())
    assert listed["unannotated"] is None and listed["read_closed"].read_only_hint is True
    assert [e["event"] for e in read_log(log)] == ["start", "end", "asked"]
    assert len(answer.content) == 1 and json.loads(answer.content[0].text)["behavior"] == "deny"
    with pytest.raises(ValueError, match="unknown measurement server"):
        build("nope", log)


def test_calls_are_classified_from_the_logs_never_from_model_text():
    offered = [t for t in PLAN if not t.endswith("__delete")]
    events = [{"kind": "turn", "offered": offered}]
    for tool in offered:
        events.append({"kind": "tool_use", "tool": tool})
        if tool.endswith("read_closed"):
            events.append({"kind": "classifier", "answer": "approve"})
        events.append({"kind": "turn", "offered": offered})
    calls = [
        {"event": "start", "server": "profiles", "tool": "read_closed"},
        {"event": "asked", "tool_name": "mcp__profiles__append"},
        {"event": "start", "server": "other", "tool": "other_read"},
    ]
    results = classify(CliRun(events, calls), PLAN)
    assert results["read_closed"] == Result(Outcome.RAN, "approve")
    assert results["append"] == Result(Outcome.ASK)
    assert results["delete"] == Result(Outcome.HIDDEN)
    assert results["set_value"] == Result(Outcome.DENY)
    assert results["other_read"] == Result(Outcome.RAN)


def test_differences_name_every_changed_cell():
    before = committed("codex", "0.171.0")
    after = Measurement.from_json(before.to_json())
    cell = after.cells[0]
    results = dict(cell.results, delete=Result(Outcome.RAN))
    after.cells[0] = Cell(cell.mode, cell.rules, cell.classifier, results)
    assert differences(before, before) == []
    assert differences(before, after) == [f"{cell.key} tool=delete: committed ASK-H, measured now RAN"]


def test_differences_name_every_changed_result_outside_the_cells_too():
    before = committed("claude-code", "2.1.197")
    after = Measurement.from_json(json.loads(json.dumps(before.to_json())))
    after.notes["concurrency"]["read-only pair"]["concurrent"] = False
    after.notes["project_settings"]["project .claude/settings.json, folder not trusted"] = "ran"
    after.notes["new finding"] = {"ran": True}
    assert differences(before, after) == [
        "concurrency / read-only pair / concurrent: committed True, measured now False",
        "project_settings / project .claude/settings.json, folder not trusted: "
        "committed 'asked', measured now 'ran'",
        "new finding: committed missing, measured now {'ran': True}",
    ]


def test_differences_ignore_the_date_and_timings_of_a_re_measurement():
    before = committed("claude-code", "2.1.332")
    after = Measurement.from_json(json.loads(json.dumps(before.to_json())))
    after.date, after.timing = "2027-01-01", {"runs": 1, "seconds_total": 9.9}
    after.notes["concurrency"]["non-read-only pair"]["start_gap_seconds"] = 0.7
    assert differences(before, after) == []
    after.profiles[0] = dict(after.profiles[0], hints=None)
    assert differences(before, after) == [
        "profiles / 0 / hints: committed {'readOnlyHint': True, 'openWorldHint': False}, "
        "measured now None"
    ]


def test_every_committed_measurement_renders_with_version_and_date():
    assert committed_files(), "course_lib/data/clients/ should hold the committed measurements"
    for path in committed_files():
        m = Measurement.load(path)
        assert path.name == f"{m.client}-{m.version}.json"
        text = render(m)
        assert f"{m.version}, measured {m.date}" in text.splitlines()[0]


def test_a_missing_cli_gets_a_clear_message_and_a_non_zero_exit(tmp_path, capsys):
    status = main(["measure-client", "claude-code", "--cli", str(tmp_path / "no-claude")])
    err = capsys.readouterr().err
    assert status == 3
    assert "@anthropic-ai/claude-code@" in err and ".ci/peers" in err and "--cli" in err


def test_a_bad_repeat_count_is_refused(capsys):
    assert main(["measure-client", "codex", "--repeat", "0"]) == 2
    assert "--repeat" in capsys.readouterr().err


def test_a_bad_rule_in_the_learners_settings_is_named_before_anything_runs(tmp_path, capsys):
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"permissions": {"allow": ["mcp__file-ops__read*"]}}), encoding="utf-8")
    status = main(["measure-client", "claude-code", "--cli", sys.executable, "--settings", str(settings)])
    assert status == 2
    assert "'mcp__file-ops__read*'" in capsys.readouterr().err


def test_a_real_settings_file_is_measured_by_its_mcp_rules_and_says_how_many_it_ignored(
    tmp_path, capsys, monkeypatch
):
    import course_tools.measure.claude_code as claude_code

    seen = []

    def fake_measure(cli, permissions, *, modes=None, progress=None):
        seen.append(permissions)
        return "2.1.332", {"manual": {t.name: Result(Outcome.ASK) for t in file_ops_tools()}}

    monkeypatch.setattr(claude_code, "measure_settings", fake_measure)
    settings = tmp_path / "settings.json"
    rules = {"allow": ["Bash(ls)", "Read(./src/**)", "mcp__file-ops__read_file"], "deny": ["WebFetch"]}
    settings.write_text(json.dumps({"permissions": rules}), encoding="utf-8")
    status = main(["measure-client", "claude-code", "--cli", sys.executable, "--settings", str(settings)])
    captured = capsys.readouterr()
    assert status == 0
    assert seen == [{"allow": ["mcp__file-ops__read_file"]}]
    ignored = [line for line in captured.err.splitlines() if "ignored" in line]
    assert len(ignored) == 1 and "3 non-MCP rules" in ignored[0], captured.err
    assert "read_file" in captured.out


def test_the_file_ops_twin_has_the_real_tools_names_and_hints_and_only_logs(tmp_path):
    log = tmp_path / "calls.jsonl"

    server = build("file-ops", log)

    async def exercise():
        async with Client(server) as twin:
            listed = {t.name: t.annotations for t in (await twin.list_tools()).tools}
            await twin.call_tool("delete_file", {})
            return listed

    real = {t.name: t.annotations for t in file_ops_tools()}
    assert asyncio.run(exercise()) == real
    assert [(e["server"], e["tool"]) for e in read_log(log)] == [("file-ops", "delete_file")] * 2
    assert list(tmp_path.iterdir()) == [log]


def _pair_calls(read_gap: float, write_gap: float) -> list[dict]:
    """Log lines of the concurrency probe: each call lasts 0.5 s, the second starts `gap` later."""
    calls = []
    for (a, b), gap in ((("read_closed", "read_open"), read_gap), (("delete", "set_value"), write_gap)):
        for tool, start in ((a, 0.0), (b, gap)):
            calls += [{"event": "start", "tool": tool, "t": start}, {"event": "end", "tool": tool, "t": start + 0.5}]
    return calls


def test_a_client_that_once_starts_a_parallel_call_late_is_still_measured_concurrent(monkeypatch):
    """opencode ran its read-only pair 1.6 s apart once and together the next time: one overlap
    settles it, and a client that runs calls one by one (never overlapping) stays sequential."""
    from course_tools.measure import findings

    runs = iter([_pair_calls(1.6, 1.6), _pair_calls(0.1, 1.6), _pair_calls(1.6, 1.7)])
    monkeypatch.setattr(findings, "one_run", lambda *a, **k: CliRun([], next(runs)))
    adapter = type("A", (), {"settings": lambda self: {"none": {}}})()
    report = findings.concurrency(adapter, "cli", None, "mode")
    assert report["read-only pair"] == {"tools": ["read_closed", "read_open"], "concurrent": True, "start_gap_seconds": 0.1}
    assert report["non-read-only pair"]["concurrent"] is False  # three tries, never together
    assert next(runs, None) is None  # it tried three times: a pair never overlapped
