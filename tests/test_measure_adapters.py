"""The census adapters without a real CLI: registry, stand-ins per wire format, module shape."""

from __future__ import annotations

import ast
import json
import urllib.request
from pathlib import Path

import pytest

from course_tools.__main__ import main
from course_tools.measure.chat_standin import ChatStandIn
from course_tools.measure.gemini_standin import GeminiStandIn
from course_tools.measure.registry import ADAPTERS, NOT_DRIVABLE
from course_tools.measure.standin import Script

ROOT = Path(__file__).resolve().parents[1]
MEASURE = ROOT / "course_tools" / "measure"
TOKEN = "k" * 32
CENSUS = {"claude-code", "codex", "gemini", "qwen-code", "opencode", "kilo", "copilot", "cline", "continue"}


def _post(url: str, body: dict, **headers: str) -> bytes:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers)
    with urllib.request.urlopen(request, timeout=10) as answer:
        return answer.read()


def _chunks(payload: bytes) -> list[dict]:
    lines = [line[len("data: "):] for line in payload.decode().splitlines() if line.startswith("data: ")]
    return [json.loads(line) for line in lines if line != "[DONE]"]


def test_every_census_client_has_an_adapter_pinned_by_a_lock_file():
    assert set(ADAPTERS) == CENSUS
    for name, adapter in ADAPTERS.items():
        package = json.loads((ROOT / "tests" / "peers" / f"npm-{adapter.pin.folder}" / "package.json").read_text())
        assert package["dependencies"] == {adapter.pin.package: adapter.pin.version}, name
        assert (ROOT / "tests" / "peers" / f"npm-{adapter.pin.folder}" / "package-lock.json").exists(), name


def test_no_measure_module_imports_another_modules_private_names():
    for path in MEASURE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                private = [a.name for a in node.names if a.name.startswith("_")]
                assert not private, f"{path.name} imports {private} from .{node.module}"


@pytest.mark.parametrize("client", sorted(NOT_DRIVABLE))
def test_a_client_that_cannot_be_driven_says_why_and_exits_non_zero(client, capsys):
    assert main(["measure-client", client]) == 2
    assert "cannot be measured here" in capsys.readouterr().err


@pytest.mark.parametrize("client", sorted(CENSUS))
def test_a_missing_cli_names_the_pinned_package_and_the_peers_script(client, tmp_path, capsys):
    assert main(["measure-client", client, "--cli", str(tmp_path / "missing")]) == 3
    err = capsys.readouterr().err
    pin = ADAPTERS[client].pin
    assert f"{pin.package}@{pin.version}" in err and ".ci/peers" in err and "never globally" in err


def test_chat_stand_in_searches_deferred_tools_then_calls_them_through_tool_call():
    tools = [{"type": "function", "function": {"name": n}} for n in ("tool_search", "tool_call", "read_file")]
    script = Script.one_per_turn(["mcp__profiles__delete"])
    with ChatStandIn(script, token=TOKEN) as stand_in:
        url = stand_in.url + "/v1/chat/completions"
        first = _chunks(_post(url, {"stream": True, "tools": tools, "messages": []}, Authorization=f"Bearer {TOKEN}"))
        call = first[0]["choices"][0]["delta"]["tool_calls"][0]
        assert call["function"]["name"] == "tool_search"
        assert json.loads(call["function"]["arguments"]) == {"query": "select:mcp__profiles__delete"}
        history = [
            {"role": "assistant", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": call["id"], "content": "found mcp__profiles__delete"},
        ]
        second = _chunks(_post(url, {"stream": True, "tools": tools, "messages": history}, Authorization=f"Bearer {TOKEN}"))
        via = second[0]["choices"][0]["delta"]["tool_calls"][0]["function"]
        assert via["name"] == "tool_call" and json.loads(via["arguments"])["name"] == "mcp__profiles__delete"
        assert second[-1]["choices"][0]["finish_reason"] == "tool_calls"
    turns = [e for e in stand_in.events if e["kind"] == "turn"]
    assert "mcp__profiles__delete" in turns[-1]["offered"]


@pytest.mark.parametrize("answer", ["approve", "refuse"])
def test_chat_stand_in_answers_the_classifier_in_its_schema(answer):
    schema = {"type": "object", "properties": {"shouldBlock": {"type": "boolean"}, "reason": {"type": "string"}}}
    tools = [{"type": "function", "function": {"name": "respond_in_schema", "parameters": schema}}]
    with ChatStandIn(Script.one_per_turn([], classifier=answer), token=TOKEN) as stand_in:
        body = {"tools": tools, "messages": []}
        reply = json.loads(_post(stand_in.url + "/v1/chat/completions", body, Authorization=f"Bearer {TOKEN}"))
    arguments = json.loads(reply["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"])
    assert arguments["shouldBlock"] is (answer == "refuse")
    assert [e["answer"] for e in stand_in.events if e["kind"] == "classifier"] == [answer]


def test_gemini_stand_in_calls_the_tool_by_gemini_clis_name_and_logs_its_response_once():
    names = {"mcp_profiles_delete": "mcp__profiles__delete"}
    tools = [{"functionDeclarations": [{"name": "mcp_profiles_delete"}, {"name": "read_file"}]}]
    script = Script.one_per_turn(["mcp__profiles__delete"])
    with GeminiStandIn(script, token=TOKEN, wire_names=names) as stand_in:
        url = stand_in.url + "/v1beta/models/m:streamGenerateContent?alt=sse"
        first = _chunks(_post(url, {"tools": tools, "contents": []}, **{"x-goog-api-key": TOKEN}))
        call = first[0]["candidates"][0]["content"]["parts"][0]["functionCall"]
        assert call["name"] == "mcp_profiles_delete"
        contents = [
            {"role": "model", "parts": [{"functionCall": call}]},
            {"role": "user", "parts": [{"functionResponse": {"name": call["name"], "id": call["id"], "response": {"output": "x"}}}]},
        ]
        for _ in range(2):
            last = _chunks(_post(url, {"tools": tools, "contents": contents}, **{"x-goog-api-key": TOKEN}))
        assert last[0]["candidates"][0]["content"]["parts"][0]["text"]
        router = json.loads(_post(stand_in.url + "/v1beta/models/m:generateContent", {"contents": []}, **{"x-goog-api-key": TOKEN}))
        assert "complexity_score" in router["candidates"][0]["content"]["parts"][0]["text"]
    assert [e["kind"] for e in stand_in.events].count("result") == 1


def test_strace_connects_outside_loopback_are_found_and_a_dns_query_is_named():
    from course_tools.measure.connections import _outside, _shown, parse_connects

    trace = "\n".join([
        'connect(3, {sa_family=AF_INET, sin_port=htons(41234), sin_addr=inet_addr("127.0.0.1")}, 16) = 0',
        'connect(4, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.1.2.3")}, 16) = 0',
        'connect(5, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), '
        'inet_pton(AF_INET6, "2001:db8::1", &sin6_addr), sin6_scope_id=0}, 28) = -1 ENETUNREACH',
        'connect(6, {sa_family=AF_UNIX, sun_path="/run/x.sock"}, 110) = 0',
    ])
    found = parse_connects(trace)
    assert set(found) == {"127.0.0.1:41234", "10.1.2.3:53", "2001:db8::1:443"}
    outside = sorted(_shown(t) for t in found if _outside(t))
    assert outside == ["2001:db8::1:443", "DNS query (port 53)"]


def test_a_captured_dialog_keeps_its_words_without_borders_paths_or_control_characters(tmp_path):
    from course_tools.measure.scratch import Workspace
    from course_tools.measure.tui import _cleaned

    work = Workspace(tmp_path)
    screen = (
        "╭────────╮\n"
        f"│ Don't ask again in {work.project} │\n"
        "│ Do you want to use this tool?\x1b]0;owned\x07 │\n"
        "╰────────╯\n"
    )
    lines = _cleaned(screen, work)
    assert lines[0] == "Don't ask again in PROJECT"
    assert lines[1].startswith("Do you want to use this tool?") and "\x1b" not in lines[1]
    assert len(lines) == 2
