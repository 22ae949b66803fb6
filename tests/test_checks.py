"""Learner self-checks: pass, fail with a teaching hint, or "not attempted"; never raise."""

from __future__ import annotations

from mcp.types import ToolAnnotations

from course_lib.checks import TODO, NotAttempted, Status, contains_todo
from course_lib.decisions import PostCall, PreCall, Trust
from course_lib.exercises import PARTS, check
from course_lib.exercises.content import EXPECTED_HINTS as EXPECTED
from course_lib.exercises.content import PREDICT_SCENARIOS as SCENARIOS
from course_lib.feedback import reference_pair


def reference_prediction(hints, trust):
    return reference_pair(hints, trust is Trust.TRUSTED)

GOOD_1A = {
    name: ToolAnnotations.model_validate({h: v for h, v in hints.items() if v != "n/a"})
    for name, hints in EXPECTED.items()
}


def _stub(*args, **kwargs):
    raise NotAttempted()


def test_a_correct_answer_reports_visible_checks_passed_not_all_tests(capsys):
    result = check("1a", GOOD_1A)
    out = capsys.readouterr().out
    assert result.status is Status.PASSED and bool(result)
    assert "8 of 8 tools right" in out
    assert "all tests passed" not in out.lower()


def test_a_todo_answer_is_not_attempted(capsys):
    result = check("1a", {name: TODO for name in GOOD_1A})
    assert result.status is Status.NOT_ATTEMPTED and not result
    assert "not attempted yet" in capsys.readouterr().out


def test_a_stub_function_is_not_attempted_rather_than_an_error(capsys):
    assert check("1b", _stub).status is Status.NOT_ATTEMPTED
    assert check("2b", _stub).status is Status.NOT_ATTEMPTED
    assert "⏳" in capsys.readouterr().out


def test_a_wrong_hint_says_what_was_expected_and_teaches_the_default(capsys):
    answer = dict(GOOD_1A, read_runbook=ToolAnnotations(read_only_hint=True))
    result = check("1a", answer)
    out = capsys.readouterr().out
    assert result.status is Status.FAILED
    assert "openWorldHint: expected false, your annotations give true" in out
    assert "absent means true" in out


def test_a_partly_filled_answer_reports_what_is_left(capsys):
    result = check("1a", dict(GOOD_1A, search_web=TODO))
    out = capsys.readouterr().out
    assert result.status is Status.NOT_ATTEMPTED
    assert "7 of 8 tools right; 1 not attempted yet" in out


def test_a_crashing_answer_is_a_failed_check_not_an_exception(capsys):
    def broken(annotations, trusted):
        return {}["missing"]

    result = check("2b", broken)
    out = capsys.readouterr().out
    assert result.status is Status.FAILED
    assert "KeyError" in out


def test_answers_of_the_wrong_shape_fail_with_a_clear_message(capsys):
    assert check("1a", ["read_runbook"]).status is Status.FAILED
    assert check("2a", {"A": "allow", "C": ("confirm", "trust output")}).status is Status.FAILED
    assert check("2c", "acdf").status is Status.FAILED
    out = capsys.readouterr().out
    assert "expected a dict" in out and "expected a pair" in out and "set of letters" in out


def test_an_unknown_part_is_reported_not_raised(capsys):
    assert check("9z", None).status is Status.FAILED
    assert "There is no exercise part '9z'" in capsys.readouterr().out


def test_predictions_are_the_decision_values_or_their_text_in_any_case(capsys):
    """The exercise teaches PreCall.ALLOW; an older copy's "allow" (any case) keeps working."""
    answer = {k: reference_prediction(h, t) for k, (_, h, t) in SCENARIOS.items()}
    assert answer["A"] == (PreCall.ALLOW, PostCall.TRUST)
    assert check("2a", answer).status is Status.PASSED
    answer.update({"A": ("allow", "trust output"), "C": ("Confirm", "TRUST OUTPUT")})
    assert check("2a", answer).status is Status.PASSED
    assert check("2a", dict(answer, A=(PreCall.ALLOW, PreCall.ALLOW))).status is Status.FAILED


def test_the_idempotent_statements_check_catches_the_safety_myth(capsys):
    result = check("2c", {"a", "b", "c"})
    out = capsys.readouterr().out
    assert result.status is Status.FAILED
    assert "statement b is false" in out and "deleting is idempotent and destructive" in out


def test_every_part_handles_todo_and_never_raises(capsys):
    for part in PARTS:
        assert check(part, TODO).status is Status.NOT_ATTEMPTED
        check(part, object())  # nonsense: reported, not raised


def test_todo_is_found_at_any_depth():
    assert contains_todo({"a": [1, (TODO,)]})
    assert not contains_todo({"a": [1, ("TODO",)]})


def test_the_scenarios_reference_answers_follow_the_spec_client():
    assert reference_prediction(*SCENARIOS["B"][1:]) == (PreCall.WARN, PostCall.UNTRUSTED)
    assert reference_prediction(*SCENARIOS["E"][1:]) == (PreCall.ALLOW, PostCall.UNTRUSTED)


def test_the_trifecta_defence_check_replays_the_attack_and_the_work(capsys):
    lesson_04 = {"auto_approve": {"send_email"}, "on_taint": None}
    assert check("3b", lesson_04).status is Status.FAILED
    assert "the attack still works" in capsys.readouterr().out
    assert check("3b", dict(lesson_04, on_taint=PreCall.CONFIRM)).status is Status.PASSED
    assert check("3b", dict(lesson_04, on_taint="confirm")).status is Status.PASSED  # an older copy
    assert check("3b", dict(lesson_04, on_taint=PreCall.DENY)).status is Status.FAILED
    assert "stops ordinary work" in capsys.readouterr().out


def test_confirming_every_mail_without_taint_tracking_fails_for_confirmation_fatigue(capsys):
    # the user's answers alone stop the attack, but the user is asked during ordinary work too
    confirm_everything = {"auto_approve": set(), "on_taint": None}
    result = check("3b", confirm_everything)
    out = capsys.readouterr().out
    assert result.status is Status.FAILED
    failed = [m for m in result.marks if m.status is Status.FAILED]
    assert [o.label for o in failed] == ["notes_to_colleague"]
    assert "the user was asked once during ordinary work" in out and "confirmation fatigue" in out
    assert check("3b", dict(confirm_everything, on_taint=PreCall.CONFIRM)).status is Status.FAILED


def test_how_the_user_answers_is_not_part_of_the_defence(capsys):
    from course_lib.replay import USER_APPROVES_DOMAINS, Defence, read_defence

    assert USER_APPROVES_DOMAINS == {"ops.example"}
    good = {"auto_approve": {"send_email"}, "on_taint": PreCall.CONFIRM}
    assert read_defence(good) == Defence(frozenset({"send_email"}), PreCall.CONFIRM)
    # an older copy of the exercise still carries approve_domains: accepted, and it changes nothing
    legacy = dict(good, approve_domains={"ops.example", "files-share.example"}, on_taint="confirm")
    assert read_defence(legacy) == Defence(frozenset({"send_email"}), PreCall.CONFIRM)
    assert check("3b", legacy).status is Status.PASSED


def test_a_malformed_defence_gets_one_clear_message(capsys):
    result = check("3b", {"auto_approve": {"send_mail"}, "on_taint": PreCall.CONFIRM})
    out = capsys.readouterr().out
    assert result.status is Status.FAILED and len(result.marks) == 1
    assert "['send_mail']" in out
    result = check("3b", {"auto_approve": set(), "on_taint": PreCall.CONFIRM, "allow_all": True})
    assert result.status is Status.FAILED and "exactly the keys" in capsys.readouterr().out
    result = check("3b", {"auto_approve": set(), "on_taint": PreCall.ALLOW})
    out = capsys.readouterr().out
    assert result.status is Status.FAILED and "PreCall.CONFIRM, PreCall.DENY or None" in out


def test_the_liar_check_catches_lies_and_flags_false_alarms(capsys):
    def flags_every_change(annotations, effects):
        return "changed" if effects else None

    def never(annotations, effects):
        return None

    assert check("4a", flags_every_change).status is Status.FAILED
    assert "a false alarm" in capsys.readouterr().out
    assert check("4a", never).status is Status.FAILED
    assert "a lie went unnoticed" in capsys.readouterr().out
    assert check("4b", {"log-tidy/tidy_logs"}).status is Status.PASSED


def test_a_false_alarm_on_an_honest_tool_fails_the_visible_liar_check(capsys):
    result = check("4b", {"log-tidy/tidy_logs", "annotated-file-ops/delete_file"})
    out = capsys.readouterr().out
    assert result.status is Status.FAILED
    assert [m.status for m in result.marks].count(Status.FAILED) == 1
    assert "annotated-file-ops/delete_file: false alarm" in out and "destructiveHint: true" in out
    assert check("4b", {"log-tidy/tidy_logs", "mailer/send_email"}).status is Status.FAILED
    assert "not tools called in CALLS" in capsys.readouterr().out


def test_an_empty_liar_set_points_at_the_contradiction_not_the_loop(capsys):
    result = check("4b", set())
    out = capsys.readouterr().out
    assert result.status is Status.FAILED and "a tool that broke its declared promise" in out and "part 4a" in out
    assert check("4b", TODO).status is Status.NOT_ATTEMPTED


def test_wrong_predictions_get_the_rule_of_their_own_scenario(capsys):
    right = {k: reference_prediction(h, t) for k, (_, h, t) in SCENARIOS.items()}
    check("2a", dict(right, B=(PreCall.ALLOW, PostCall.TRUST)))
    assert "the server is untrusted" in capsys.readouterr().out
    check("2a", dict(right, E=("allow", "trust output")))
    out = capsys.readouterr().out
    assert "absent openWorldHint means true" in out and "server is untrusted" not in out
