"""Tests for course_lib.permissions: Claude Code's rule shapes, precedence and each mode's fallback."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from mcp import Client

from course_lib.permissions import (
    PermissionRule,
    Permissions,
    ClaudeCodeSetup,
    claude_code_outcome,
)
from course_lib.rule_tables import rules_matrix
from course_lib.decisions import Outcome, PreCall
from course_lib.servers.file_ops import file_ops_server

ROOT = Path(__file__).resolve().parents[1]
READ_ONLY = {"readOnlyHint": True, "openWorldHint": False}
DESTRUCTIVE = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": False}


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("mcp__file-ops", PermissionRule("file-ops")),
        ("mcp__file-ops__*", PermissionRule("file-ops")),
        ("mcp__file-ops__delete_file", PermissionRule("file-ops", "delete_file")),
        ("mcp__my_server__read", PermissionRule("my_server", "read")),
    ],
)
def test_the_three_rule_shapes_parse(text, rule):
    assert PermissionRule.parse(text) == rule


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("Bash(rm -rf *)", "not an MCP rule"),
        ("mcp__", "names no valid server"),
        ("mcp__file ops__read_file", "names no valid server"),
        ("mcp__file-ops__read*", "partial wildcard"),
        ("mcp__file-ops__read file", "names no valid tool"),
        ("mcp__*", "names no valid server"),
    ],
)
def test_a_bad_rule_is_a_value_error_that_names_it(text, named):
    with pytest.raises(ValueError) as caught:
        PermissionRule.parse(text)
    assert repr(text) in str(caught.value) and named in str(caught.value)


def test_a_bad_rule_inside_settings_is_named_too():
    with pytest.raises(ValueError, match="'mcp__file-ops__del\\*'"):
        Permissions.from_settings({"permissions": {"deny": ["mcp__file-ops__del*"]}})
    with pytest.raises(ValueError, match="must be a list"):
        Permissions(allow="mcp__file-ops")


def test_a_real_settings_file_keeps_its_mcp_rules_and_sets_the_others_aside(tmp_path):
    settings = {
        "permissions": {
            "allow": ["Bash(ls)", "mcp__file-ops__read_file", "Read(./src/**)"],
            "ask": ["mcp__file-ops__delete_file"],
            "deny": ["WebFetch", "Bash(rm -rf *)"],
            "defaultMode": "plan",
        },
        "model": "sonnet",
    }
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(settings), encoding="utf-8")
    for source in (settings, path, str(path)):
        rules = Permissions.from_settings(source)
        assert rules.allow == (PermissionRule("file-ops", "read_file"),)
        assert rules.ask == (PermissionRule("file-ops", "delete_file"),) and rules.deny == ()
        assert rules.ignored == ("Bash(ls)", "Read(./src/**)", "WebFetch", "Bash(rm -rf *)")
        assert rules.as_settings() == {
            "permissions": {"allow": ["mcp__file-ops__read_file"], "ask": ["mcp__file-ops__delete_file"]}
        }


def test_a_malformed_mcp_rule_among_other_rules_is_still_named():
    settings = {"permissions": {"allow": ["Bash(ls)", "mcp__file-ops__read*"]}}
    with pytest.raises(ValueError, match="'mcp__file-ops__read\\*'.*partial wildcard"):
        Permissions.from_settings(settings)
    with pytest.raises(ValueError, match="is a string"):
        Permissions.from_settings({"permissions": {"allow": ["Bash(ls)", 7]}})


def test_a_non_mcp_rule_given_directly_is_still_an_error():
    with pytest.raises(ValueError, match="'Bash\\(ls\\)' is not an MCP rule"):
        Permissions(allow=["Bash(ls)"])
    assert Permissions(allow=["mcp__s"]).ignored == ()


def test_server_wide_rules_cover_every_tool_of_that_server_and_no_other():
    for text in ("mcp__file-ops", "mcp__file-ops__*"):
        rule = PermissionRule.parse(text)
        assert rule.covers("file-ops", "delete_file") and rule.covers("file-ops", "read_file")
        assert not rule.covers("file-ops-2", "read_file") and not rule.covers("mailer", "send_email")


def test_precedence_is_deny_then_ask_then_allow():
    rules = Permissions(allow=["mcp__s"], ask=["mcp__s__t"], deny=["mcp__s__u"])
    assert rules.matching("s", "t")[0] == "ask"
    assert rules.matching("s", "u")[0] == "deny"
    assert rules.matching("s", "v")[0] == "allow"
    assert rules.matching("other", "t") is None


@pytest.mark.parametrize("mode", ["manual", "plan", "acceptEdits", "auto", "bypassPermissions", "dontAsk"])
def test_rules_beat_hints_in_every_mode(mode):
    rules = Permissions(allow=["mcp__s__delete", "mcp__s__look"], ask=["mcp__s__read"], deny=["mcp__s__gone"])
    assert claude_code_outcome(rules, "s", "look", READ_ONLY, mode=mode) is Outcome.RAN
    allowed_write = claude_code_outcome(rules, "s", "delete", DESTRUCTIVE, mode=mode)
    assert allowed_write is (Outcome.ASK if mode == "plan" else Outcome.RAN)
    assert claude_code_outcome(rules, "s", "read", READ_ONLY, mode=mode) is (Outcome.DENY if mode == "dontAsk" else Outcome.ASK)
    assert claude_code_outcome(rules, "s", "gone", READ_ONLY, mode=mode) is Outcome.HIDDEN


def test_plan_mode_of_2_1_332_lets_an_allow_rule_run_only_read_only_tools():
    rules = Permissions(allow=["mcp__s"])
    assert claude_code_outcome(rules, "s", "w", DESTRUCTIVE, mode="plan") is Outcome.ASK
    assert claude_code_outcome(rules, "s", "w", DESTRUCTIVE, mode="plan", version="2.1.197") is Outcome.RAN
    reason = ClaudeCodeSetup(rules, "plan").decide("s", "w", DESTRUCTIVE).reason
    assert "plan mode lets an allow rule run only read-only tools" in reason


def test_after_two_refusals_the_classifier_falls_back_to_asking():
    calls = [("s", f"t{i}", READ_ONLY) for i in range(4)]
    auto = ClaudeCodeSetup(Permissions(), "auto")
    outcomes = auto.session(calls, classifier="refuse")
    assert outcomes == [Outcome.DENY, Outcome.DENY, Outcome.ASK, Outcome.ASK]
    assert auto.session(calls) == [Outcome.RAN] * 4


def test_an_unmatched_call_gets_what_the_mode_does():
    none = Permissions()
    assert claude_code_outcome(none, "s", "t", READ_ONLY, mode="manual") is Outcome.ASK
    assert claude_code_outcome(none, "s", "t", READ_ONLY, mode="bypassPermissions") is Outcome.RAN
    assert claude_code_outcome(none, "s", "t", READ_ONLY, mode="dontAsk") is Outcome.DENY
    assert claude_code_outcome(none, "s", "t", READ_ONLY, mode="plan", version="2.1.197") is Outcome.ASK
    with pytest.raises(ValueError, match="no measured mode 'default'"):
        claude_code_outcome(none, "s", "t", READ_ONLY, mode="default")


def test_an_ask_rule_on_delete_holds_whatever_the_server_declares():
    rules = Permissions(ask=["mcp__file-ops__delete_file"])
    lies = [None, READ_ONLY, {"readOnlyHint": True, "destructiveHint": False}, DESTRUCTIVE]
    for hints in lies:
        decision = ClaudeCodeSetup(rules, "bypassPermissions").decide("file-ops", "delete_file", hints)
        assert decision.pre_call is PreCall.CONFIRM and "ask rule mcp__file-ops__delete_file" in decision.reason


def test_the_committed_example_settings_allow_reads_and_always_ask_before_deletes():
    rules = Permissions.from_settings(ROOT / ".claude" / "settings.json")
    async def listed():
        async with Client(file_ops_server().server) as client:
            return (await client.list_tools()).tools

    tools = asyncio.run(listed())
    table = rules_matrix(rules, "file-ops", tools, ["manual", "plan", "bypassPermissions"])
    assert list(table.loc["read_file"]) == ["ran", "ran", "ran"]
    assert list(table.loc["delete_file"]) == ["asked", "asked", "asked"]
    assert all(r.server == "file-ops" for r in rules.allow + rules.ask + rules.deny)
    assert json.loads((ROOT / ".claude" / "settings.json").read_text()) == rules.as_settings()


def test_rules_matrix_defaults_to_the_modes_of_the_version_the_course_describes():
    table = rules_matrix(Permissions(allow=["mcp__file-ops__read_file"]), "file-ops", {"read_file": READ_ONLY})
    assert list(table.columns) == ["manual", "plan", "bypassPermissions", "dontAsk"]
    assert set(table.loc["read_file"]) == {"ran"}


def test_a_setup_is_one_version_mode_and_rule_set_and_names_a_wrong_one():
    setup = ClaudeCodeSetup(Permissions(allow=["mcp__s__look"]), "dontAsk")
    assert setup.outcome("s", "look", None) is Outcome.RAN and setup.outcome("s", "other", None) is Outcome.DENY
    with pytest.raises(ValueError, match="no measured mode 'default'"):
        ClaudeCodeSetup(Permissions(), "default")
    with pytest.raises(ValueError, match="permissions must be a Permissions"):
        ClaudeCodeSetup({"allow": ["mcp__s"]}, "plan")  # type: ignore[arg-type]
