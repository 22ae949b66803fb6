"""Tests for course_lib.policy: every client rule, the 81 combinations, and bad input."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest
from mcp.types import Tool, ToolAnnotations

from course_lib.clients import CLAUDE_CODE_PLAN
from course_lib import (
    CLAUDE_CODE_DEFAULT,
    CURSOR_ASK,
    SPEC,
    TRUST_EVERYTHING,
    VSCODE,
    PostCall,
    PreCall,
    Trust,
    combinations_table,
    decide,
    decision_matrix,
    decisions_table,
)
from course_lib.clients import POLICIES
from course_lib.combinations import all_combinations
from course_lib.decisions import Decision
from course_lib.policy import ReadOnlyModePolicy
from course_lib.combinations import combination_label
from course_lib.servers.file_ops import file_ops_server

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
ADDITIVE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
IDEMPOTENT_WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
DESTRUCTIVE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)
WEB_SEARCH = ToolAnnotations(read_only_hint=True, open_world_hint=True)


def tool(name: str, annotations: ToolAnnotations | None) -> Tool:
    return Tool(name=name, input_schema={"type": "object"}, annotations=annotations)


# --- the reference client (spec) -------------------------------------------------------------


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        (READ_ONLY, PreCall.ALLOW),
        (ADDITIVE, PreCall.CONFIRM),
        (IDEMPOTENT_WRITE, PreCall.CONFIRM),
        (DESTRUCTIVE, PreCall.WARN),
        (None, PreCall.WARN),
    ],
)
def test_spec_policy_decides_before_the_call_by_profile_for_a_trusted_server(annotations, expected):
    assert SPEC.decide(annotations, trust=Trust.TRUSTED).pre_call is expected


def test_spec_policy_ignores_every_hint_of_an_untrusted_server():
    decision = SPEC.decide(READ_ONLY, trust=Trust.UNTRUSTED)
    assert (decision.pre_call, decision.post_call) == (PreCall.WARN, PostCall.UNTRUSTED)
    assert "untrusted" in decision.reason and "ignored" in decision.reason
    assert decision.retry_safe is False


def test_spec_policy_treats_servers_as_untrusted_unless_told_otherwise():
    assert SPEC.decide(READ_ONLY) == SPEC.decide(READ_ONLY, trust=Trust.UNTRUSTED)
    assert decide(SPEC, READ_ONLY).pre_call is PreCall.WARN


def test_spec_policy_treats_open_world_output_as_untrusted_and_closed_world_output_as_trusted():
    assert SPEC.decide(WEB_SEARCH, trust=Trust.TRUSTED).post_call is PostCall.UNTRUSTED
    assert SPEC.decide(READ_ONLY, trust=Trust.TRUSTED).post_call is PostCall.TRUST


def test_spec_policy_applies_the_open_world_default_to_an_absent_open_world_hint():
    decision = SPEC.decide({"readOnlyHint": True}, trust=Trust.TRUSTED)
    assert (decision.pre_call, decision.post_call) == (PreCall.ALLOW, PostCall.UNTRUSTED)


def test_spec_policy_applies_the_destructive_default_when_destructive_hint_is_absent():
    assert SPEC.decide({"readOnlyHint": False, "openWorldHint": False}, trust=Trust.TRUSTED).pre_call is PreCall.WARN


def test_spec_policy_ignores_destructive_hint_on_a_read_only_tool():
    assert SPEC.decide({"readOnlyHint": True, "destructiveHint": True}, trust=Trust.TRUSTED).pre_call is PreCall.ALLOW


def test_idempotent_destructive_tool_is_safe_to_retry_but_still_gets_the_strong_warning():
    decision = SPEC.decide(DESTRUCTIVE, trust=Trust.TRUSTED)
    assert decision.retry_safe is True
    assert decision.pre_call is PreCall.WARN


def test_additive_tool_is_not_safe_to_retry_and_read_only_tool_is():
    assert SPEC.decide(ADDITIVE, trust=Trust.TRUSTED).retry_safe is False
    assert SPEC.decide(READ_ONLY, trust=Trust.TRUSTED).retry_safe is True


def test_spec_policy_reason_names_the_policy_and_both_questions():
    reason = SPEC.decide(DESTRUCTIVE, trust=Trust.TRUSTED).reason
    assert reason.startswith(SPEC.name)
    assert "delete or overwrite" in reason and "output" in reason


def test_trust_everything_policy_believes_hints_even_from_an_untrusted_server():
    decision = TRUST_EVERYTHING.decide(READ_ONLY, trust=Trust.UNTRUSTED)
    assert (decision.pre_call, decision.post_call) == (PreCall.ALLOW, PostCall.TRUST)
    assert TRUST_EVERYTHING.decide(DESTRUCTIVE, trust=Trust.UNTRUSTED).pre_call is PreCall.WARN


# --- VS Code ---------------------------------------------------------------------------------


def test_vscode_runs_a_read_only_tool_without_confirmation_whatever_the_trust_level():
    assert VSCODE.decide(READ_ONLY, trust=Trust.UNTRUSTED).pre_call is PreCall.ALLOW
    assert VSCODE.decide(READ_ONLY, trust=Trust.TRUSTED).pre_call is PreCall.ALLOW


@pytest.mark.parametrize("annotations", [ADDITIVE, IDEMPOTENT_WRITE, DESTRUCTIVE, None])
def test_vscode_confirms_every_tool_not_declared_read_only_without_a_stronger_warning(annotations):
    assert VSCODE.decide(annotations).pre_call is PreCall.CONFIRM


def test_vscode_does_not_read_destructive_or_idempotent_hints():
    base = {"readOnlyHint": False, "openWorldHint": False}
    decisions = {VSCODE.decide({**base, "destructiveHint": d, "idempotentHint": i}) for d in (True, False, None) for i in (True, False, None)}
    assert len({(d.pre_call, d.post_call) for d in decisions}) == 1


def test_vscode_reviews_output_only_when_open_world_hint_is_true():
    assert VSCODE.decide({"openWorldHint": True}).post_call is PostCall.UNTRUSTED
    assert VSCODE.decide({"openWorldHint": False}).post_call is PostCall.TRUST


def test_vscode_reads_an_absent_open_world_hint_as_false_against_the_spec_default():
    assert VSCODE.decide({"readOnlyHint": True}).post_call is PostCall.TRUST
    assert SPEC.decide({"readOnlyHint": True}, trust=Trust.TRUSTED).post_call is PostCall.UNTRUSTED


# --- read-only modes and hint-blind clients --------------------------------------------------


@pytest.mark.parametrize("policy", [CURSOR_ASK, CLAUDE_CODE_PLAN])
def test_read_only_modes_run_tools_declared_read_only(policy):
    assert policy.decide(READ_ONLY).pre_call is PreCall.ALLOW


@pytest.mark.parametrize("annotations", [ADDITIVE, IDEMPOTENT_WRITE, DESTRUCTIVE, None, {"readOnlyHint": False}])
def test_cursor_ask_mode_denies_every_tool_not_declared_read_only(annotations):
    decision = CURSOR_ASK.decide(annotations)
    assert decision.pre_call is PreCall.DENY
    assert "refuses" in decision.reason


def test_claude_code_plan_mode_asks_instead_of_denying():
    assert CLAUDE_CODE_PLAN.decide(None).pre_call is PreCall.CONFIRM
    assert CLAUDE_CODE_PLAN.decide(DESTRUCTIVE).pre_call is PreCall.CONFIRM


def test_read_only_mode_rejects_an_otherwise_that_would_admit_everything_or_is_unknown():
    with pytest.raises(ValueError, match="admit every tool"):
        ReadOnlyModePolicy("x", otherwise=PreCall.ALLOW)
    with pytest.raises(ValueError, match="otherwise must be PreCall.ALLOW, PreCall.CONFIRM, PreCall.WARN or PreCall.DENY"):
        ReadOnlyModePolicy("x", otherwise="maybe")
    with pytest.raises(ValueError, match="non-empty name"):
        ReadOnlyModePolicy("  ")


def test_read_only_mode_takes_otherwise_as_a_decision_value_not_its_text():
    assert ReadOnlyModePolicy("m", otherwise=PreCall.CONFIRM).decide(None).pre_call is PreCall.CONFIRM
    with pytest.raises(ValueError, match="not the string 'confirm': write PreCall.CONFIRM"):
        ReadOnlyModePolicy("m", otherwise="confirm")


def test_hint_blind_client_confirms_even_a_read_only_tool():
    decision = CLAUDE_CODE_DEFAULT.decide(READ_ONLY, trust=Trust.TRUSTED)
    assert decision.pre_call is PreCall.CONFIRM
    assert "not read" in decision.reason


def test_same_annotations_give_different_decisions_in_different_clients():
    pre = {p.name: p.decide(None, trust=Trust.TRUSTED).pre_call for p in (SPEC, VSCODE, CURSOR_ASK)}
    assert pre == {SPEC.name: PreCall.WARN, VSCODE.name: PreCall.CONFIRM, CURSOR_ASK.name: PreCall.DENY}


# --- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize("policy", [SPEC, TRUST_EVERYTHING, VSCODE, CURSOR_ASK, CLAUDE_CODE_PLAN, CLAUDE_CODE_DEFAULT])
def test_every_policy_rejects_an_unknown_trust_level(policy):
    with pytest.raises(ValueError, match=r"trust must be Trust.TRUSTED or Trust.UNTRUSTED, not the string 'sort of'"):
        policy.decide(READ_ONLY, trust="sort of")


@pytest.mark.parametrize("policy", [SPEC, TRUST_EVERYTHING, VSCODE, CURSOR_ASK, CLAUDE_CODE_PLAN, CLAUDE_CODE_DEFAULT])
def test_every_policy_rejects_malformed_annotations_even_from_an_untrusted_server(policy):
    with pytest.raises(ValueError, match="readOnlyHint must be true, false or absent"):
        policy.decide({"readOnlyHint": "yes"}, trust=Trust.UNTRUSTED)
    with pytest.raises(ValueError, match="unknown annotation field 'egressHint'"):
        policy.decide({"egressHint": True})


def test_trust_level_must_not_be_a_boolean():
    with pytest.raises(ValueError, match="trust must be Trust.TRUSTED or Trust.UNTRUSTED, not True"):
        decide(SPEC, READ_ONLY, trust=True)


def test_trust_given_as_text_is_refused_with_the_value_to_write():
    """The vocabularies are plain Enums: the text of a value is not the value, and the message says what to write."""
    assert Trust.TRUSTED != "trusted" and PreCall.ALLOW != "allow"
    with pytest.raises(ValueError, match=r"not the string ' Trusted ': write Trust.TRUSTED"):
        decide(SPEC, READ_ONLY, trust=" Trusted ")


def test_decide_explains_swapped_arguments():
    with pytest.raises(ValueError, match=r"decide\(policy, annotations\)"):
        decide(READ_ONLY, SPEC)  # type: ignore[arg-type]


def test_decision_is_immutable_and_prints_both_answers():
    decision = SPEC.decide(DESTRUCTIVE, trust=Trust.TRUSTED)
    with pytest.raises(dataclasses.FrozenInstanceError):
        decision.pre_call = PreCall.ALLOW  # type: ignore[misc]
    assert str(decision) == "confirm with warning / trust output"
    assert isinstance(decision, Decision)


# --- the 81 combinations ---------------------------------------------------------------------


def test_all_combinations_yields_each_of_the_81_settings_once():
    combos = list(all_combinations())
    assert len(combos) == 81
    assert len({tuple(c.values()) for c in combos}) == 81
    assert all(set(c) == {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} for c in combos)
    assert combos[0] == {"readOnlyHint": True, "destructiveHint": True, "idempotentHint": True, "openWorldHint": True}
    assert combos[-1] == dict.fromkeys(combos[0], None)


def test_combinations_table_sorts_the_81_combinations_into_four_profiles():
    table = combinations_table()
    assert len(table) == 81 and list(table.index) == list(range(1, 82))
    assert Counter(table[("", "profile")]) == {
        "read-only": 27,
        "destructive": 36,
        "additive": 12,
        "idempotent write": 6,
    }


def test_combinations_table_marks_destructive_and_idempotent_not_meaningful_exactly_when_read_only():
    table = combinations_table()
    read_only = table[("effective", "readOnlyHint")] == True  # noqa: E712 (object column)
    assert (table.loc[read_only, ("effective", "destructiveHint")] == "n/a").all()
    assert (table.loc[~read_only, ("effective", "destructiveHint")] != "n/a").all()
    assert read_only.sum() == 27


def test_combinations_table_shows_absent_as_none_and_applies_defaults():
    last = combinations_table().loc[81]
    assert last[("declared", "readOnlyHint")] is None
    assert last[("effective", "readOnlyHint")] is False
    assert last[("effective", "destructiveHint")] is True
    assert last[("effective", "openWorldHint")] is True
    assert last[("", "profile")] == "destructive"


def test_spec_decision_matrix_for_a_trusted_server_counts_each_decision():
    matrix = decision_matrix(SPEC, trust=Trust.TRUSTED)
    assert len(matrix) == 81
    assert Counter(matrix["before call"]) == {"allow": 27, "confirm": 18, "confirm with warning": 36}
    assert Counter(matrix["after call"]) == {"treat as untrusted": 54, "trust output": 27}


def test_spec_decision_matrix_for_an_untrusted_server_is_the_worst_case_everywhere():
    matrix = decision_matrix(SPEC)
    assert set(matrix["before call"]) == {"confirm with warning"}
    assert set(matrix["after call"]) == {"treat as untrusted"}


def test_decision_matrix_rejects_a_non_policy():
    with pytest.raises(ValueError, match="expected a Policy"):
        decision_matrix("spec")  # type: ignore[arg-type]


def test_combination_label_spells_out_absent_hints():
    assert combination_label({"readOnlyHint": True}) == "readOnly true · destructive absent · idempotent absent · openWorld absent"
    assert combination_label({"openWorldHint": False}, only=["openWorldHint"]) == "openWorld false"
    with pytest.raises(ValueError, match="not hints"):
        combination_label({}, only=["title"])


# --- decisions for a tool list ---------------------------------------------------------------


def test_decisions_table_compares_policies_for_the_demo_servers_tools():
    import anyio
    from mcp import Client

    async def listed() -> list[Tool]:
        with anyio.fail_after(60):
            async with Client(file_ops_server().server) as client:
                return list((await client.list_tools()).tools)

    tools = anyio.run(listed)
    table = decisions_table(tools, [SPEC, VSCODE, CURSOR_ASK], trust=Trust.TRUSTED)
    assert list(table.index) == ["read_file", "append_text", "set_value", "delete_file"]
    assert list(table[(SPEC.name, "before call")]) == ["allow", "confirm", "confirm", "confirm with warning"]
    assert list(table[(VSCODE.name, "before call")]) == ["allow", "confirm", "confirm", "confirm"]
    assert list(table[(CURSOR_ASK.name, "before call")]) == ["allow", "deny", "deny", "deny"]
    assert set(table[(SPEC.name, "after call")]) == {"trust output"}


def test_decisions_table_accepts_a_dict_of_names_to_annotations_and_uses_the_trust_level():
    table = decisions_table({"search": WEB_SEARCH, "mystery": None}, [SPEC], trust=Trust.UNTRUSTED)
    assert list(table.index) == ["search", "mystery"]
    assert list(table[(SPEC.name, "before call")]) == ["confirm with warning", "confirm with warning"]


def test_decisions_table_accepts_wire_dicts_and_a_single_policy():
    table = decisions_table([{"name": "get", "annotations": {"readOnlyHint": True}}], VSCODE)
    assert table.loc["get", (VSCODE.name, "before call")] == "allow"


def test_decisions_table_defaults_to_the_standard_line_up():
    table = decisions_table([tool("t", READ_ONLY)])
    assert [name for name, _ in table.columns[::2]] == [p.name for p in POLICIES]


@pytest.mark.parametrize(
    ("tools", "policies", "message"),
    [
        ([], [SPEC], "no tools given"),
        ([tool("t", None)], [], "no policies given"),
        ([tool("t", None)], ["spec"], "expected a Policy"),
        (file_ops_server, [SPEC], "expected tools: a ListToolsResult"),
        ([42], [SPEC], "expected tools: a ListToolsResult"),
        ({"t": {"readOnlyHint": 1}}, [SPEC], "readOnlyHint must be true, false or absent"),
    ],
)
def test_decisions_table_rejects_bad_input_with_a_clear_message(tools, policies, message):
    with pytest.raises(ValueError, match=message):
        decisions_table(tools, policies)


@pytest.mark.parametrize(
    ("annotations", "message"),
    [
        ({"read_only": True}, "unknown annotation field 'read_only'"),
        ({"readOnlyHint": "yes"}, "readOnlyHint must be true, false or absent"),
    ],
)
def test_decisions_table_checks_tool_dicts_before_the_sdk_can_drop_or_coerce_a_hint(annotations, message):
    with pytest.raises(ValueError, match=message):
        decisions_table([{"name": "list_incidents", "annotations": annotations}], [SPEC])


def test_trust_output_means_no_review_for_untrusted_content_not_a_verified_output():
    reason = SPEC.decide(READ_ONLY, trust=Trust.TRUSTED).reason
    assert "not treated as untrusted content" in reason and "is trusted" not in reason
    assert "no output review" in CURSOR_ASK.decide(READ_ONLY).reason
    assert "without review" in (PostCall.__doc__ or "")


def test_policies_cite_their_real_sources_not_only_the_course_brief():
    assert "mcpLanguageModelToolContribution.ts" in VSCODE.source
    assert "blog post" in SPEC.source and "server/tools.mdx" in SPEC.source
    assert "measured offline on Claude Code 2.1.332" in CLAUDE_CODE_DEFAULT.source
    assert "claude-code-2.1.332.json" in CLAUDE_CODE_PLAN.source
    assert "codegraph#1018" in CURSOR_ASK.source
    for policy in (*POLICIES, CLAUDE_CODE_DEFAULT):
        assert "facts §" not in policy.source and "facts §" not in (type(policy).__doc__ or "")
