"""Exercise 2 part 2d (rules over hints): the visible check and the hidden cases judge rules correctly."""

from __future__ import annotations

import pytest

from course_lib.checks import Status
from course_lib.exercises import check
from course_tools.grading.cases import load_exercises
from course_lib.exercises.content import RULE_CASES as VISIBLE_CASES
from course_lib.rule_judges import parse_rules as parse_answer

SOLUTION = {
    "allow": ["mcp__file-ops__read_file"],
    "ask": ["mcp__file-ops__append_text", "mcp__file-ops__set_value"],
    "deny": ["mcp__file-ops__delete_file"],
}
SERVER_WIDE = {**SOLUTION, "allow": ["mcp__file-ops"]}


def _hidden():
    exercise = next(e for e in load_exercises().values() if e.id == "02_predict_the_client")
    return {c.id: c for c in exercise.cases if c.id.startswith("2d.")}


@pytest.mark.parametrize("answer", [SOLUTION, {k: set(v) for k, v in SOLUTION.items()}])
def test_right_rules_pass_every_visible_and_hidden_case(answer, capsys):
    assert check("2d", answer).status is Status.PASSED
    hidden = _hidden()
    assert len(hidden) == 2 * len(VISIBLE_CASES) and sum(c.points for c in hidden.values()) == 4
    assert {cid: case.judge(answer) for cid, case in hidden.items() if case.judge(answer)} == {}


@pytest.mark.parametrize(
    ("answer", "failing"),
    [
        # no ask rule for the writes: bypassPermissions and auto run them silently
        ({"allow": SOLUTION["allow"], "deny": SOLUTION["deny"]}, {"writes", "lying_writes", "older_version", "older_version_lying"}),
        # asking about deletes instead of denying them
        ({**SOLUTION, "deny": [], "ask": [*SOLUTION["ask"], "mcp__file-ops__delete_file"]}, {"deletes", "lying_delete", "older_version", "older_version_lying"}),
        # a server-wide ask swallows the read
        ({**SOLUTION, "ask": ["mcp__file-ops"]}, {"reads", "older_version", "older_version_lying"}),
        # a rule for another server's tool
        ({**SOLUTION, "allow": [*SOLUTION["allow"], "mcp__files__read_file"]}, {"scope"}),
        # a server-wide allow: a tool the server adds later runs without a question
        (SERVER_WIDE, {"later", "later_older"}),
        ({**SOLUTION, "allow": ["mcp__file-ops__*"]}, {"later", "later_older"}),
    ],
)
def test_each_shortcut_fails_the_cases_it_should(answer, failing, capsys):
    assert check("2d", answer).status is Status.FAILED
    got = {cid.split(".", 1)[1] for cid, case in _hidden().items() if case.judge(answer)}
    assert got == failing


@pytest.mark.parametrize("answer", [["mcp__file-ops__read_file"], {"allow": "mcp__file-ops__read_file"}, {"permit": []}, {"deny": ["Bash(rm *)"]}])
def test_malformed_rules_fail_with_a_message_not_a_crash(answer, capsys):
    assert check("2d", answer).status is Status.FAILED
    assert "RULES" in capsys.readouterr().out or "not an MCP rule" in str(answer)
    for case in _hidden().values():
        assert isinstance(case.judge(answer), str)
    with pytest.raises(ValueError):
        parse_answer(answer)
