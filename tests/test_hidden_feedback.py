"""The grader's hidden cases name the actual mistake, and carry their own answer key."""

from __future__ import annotations

from course_tools.grading import load_exercises


def _cases():
    return {c.id: c for e in load_exercises().values() for c in e.cases}


def test_an_idempotent_write_predicted_allow_is_told_idempotent_is_not_read_only():
    case = _cases()["2b.idempotent_open"]
    problem = case.judge(["allow", "treat as untrusted"])
    assert isinstance(problem, tuple)
    message, hint = problem
    assert "expected confirm / treat as untrusted" in message.english()
    assert "idempotent is not read-only" in hint.english() and "defaults" not in hint.english()


def test_a_prediction_written_with_the_decision_values_is_judged_like_its_text():
    """The probe sends PreCall.CONFIRM as {"__enum__": ..., "value": ...}; the text of older copies also counts."""
    case = _cases()["2b.idempotent_open"]
    confirm = {"__enum__": "PreCall", "value": "confirm"}
    untrusted = {"__enum__": "PostCall", "value": "treat as untrusted"}
    assert case.judge([confirm, untrusted]) is None
    assert case.judge(["confirm", "treat as untrusted"]) is None
    assert case.judge([untrusted, confirm]).english() == "not a (before, after) pair of decisions"


def test_a_missed_untrusted_rule_is_told_the_trust_rule():
    _message, hint = _cases()["2a.B"].judge(["allow", "trust output"])
    assert "untrusted" in hint.english()


def test_a_wrong_open_world_is_told_the_absent_default():
    _message, hint = _cases()["2a.E"].judge(["allow", "trust output"])
    assert "absent openWorldHint means true" in hint.english()


def test_a_missed_additive_lie_and_a_false_alarm_get_different_rules():
    cases = _cases()
    _m, missed = cases["4a.additive_deleted"].judge(None)
    _m, alarm = cases["4a.destructive_deleted"].judge("it deleted a file")
    assert "destructiveHint: false" in missed.english()
    assert "promise nothing" in alarm.english()


def test_right_answers_pass_the_hidden_judges():
    cases = _cases()
    assert cases["2b.idempotent_open"].judge(["confirm", "treat as untrusted"]) is None
    assert cases["4a.additive_deleted"].judge("declared additive, but it deleted b.txt") is None
