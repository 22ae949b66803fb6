"""Hidden cases of exercise 2, "Predict the client" (exercises/02_predict_the_client.ipynb)."""

from __future__ import annotations

from typing import Any

from ...feedback import decision_hint, reference_pair
from ...rules_exercise import RULE_CASES, RuleCase, parse_answer
from ..cases import Case, Exercise
from ._common import decision_pair, plain_string

TRUE_STATEMENTS = {"a", "c", "d", "f"}

# The grader's own answer key: the scenarios of part 2a (as the exercise shows them).
SCENARIOS: dict[str, tuple[str, dict[str, bool] | None, str]] = {
    "A": ("read_runbook", {"readOnlyHint": True, "openWorldHint": False}, "trusted"),
    "B": ("read_runbook", {"readOnlyHint": True, "openWorldHint": False}, "untrusted"),
    "C": (
        "set_oncall",
        {
            "readOnlyHint": False,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        },
        "trusted",
    ),
    "D": (
        "delete_old_logs",
        {
            "readOnlyHint": False,
            "destructiveHint": True,
            "idempotentHint": True,
            "openWorldHint": False,
        },
        "trusted",
    ),
    "E": ("search_web", {"readOnlyHint": True}, "trusted"),
    "F": ("run_diagnostics", None, "trusted"),
}

STATEMENT_HINTS = {
    "a": "that is the definition of idempotentHint in the spec",
    "b": "idempotent says nothing about safety: deleting is idempotent and destructive",
    "c": "deleting what is already deleted changes nothing more (idempotent), but the first "
    "delete is permanent",
    "d": "the blog's mapping: idempotentHint: true means safe to retry on failure",
    "e": "destructiveHint and idempotentHint are meaningful only when readOnlyHint is false",
    "f": "idempotence is about the second call; the first one does all the damage",
}


def _case_hint(trusted: bool) -> str:
    """The hint shown when there is no answer to diagnose (missing, timed out): the case's rule."""
    if not trusted:
        return "an untrusted server's hints are ignored: judge the tool as if it had no annotations"
    return (
        "a trusted server's hints count: apply the defaults to absent hints, then decide by "
        "profile before the call and by openWorld after it"
    )


def _pair_judge(hints: dict[str, Any] | None, trusted: bool):
    """Judge a (before, after) pair; on a mistake, the hint names the rule that answer broke."""
    before, after = reference_pair(hints, trusted)
    expected = (before.value, after.value)

    def judge(value: Any) -> tuple[str, str] | str | None:
        got = decision_pair(value)
        if got is None:
            return "not a (before, after) pair of strings"
        if got == expected:
            return None
        return f"expected {expected}, got {got}", decision_hint(hints, trusted, got)

    return judge


def _scenario_judge(key: str):
    _tool, hints, trust = SCENARIOS[key]
    return _pair_judge(hints, trust == "trusted")


# Part 2b's hidden inputs: (id, label, declared hints or None, trusted?)
PREDICT_INPUTS = [
    ("empty_dict", "every hint absent, trusted server", {}, True),
    ("no_annotations", "no annotations at all, trusted server", None, True),
    (
        "read_only_destructive",
        "read-only that also says destructive, trusted server",
        {"readOnlyHint": True, "destructiveHint": True},
        True,
    ),
    (
        "additive_closed",
        "additive closed-world write, trusted server",
        {
            "readOnlyHint": False,
            "destructiveHint": False,
            "idempotentHint": False,
            "openWorldHint": False,
        },
        True,
    ),
    (
        "destructive_idempotent",
        "destructive and idempotent, trusted server",
        {
            "readOnlyHint": False,
            "destructiveHint": True,
            "idempotentHint": True,
            "openWorldHint": False,
        },
        True,
    ),
    (
        "idempotent_open",
        "idempotent open-world write, trusted server",
        {
            "readOnlyHint": False,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": True,
        },
        True,
    ),
    (
        "read_only_untrusted",
        "read-only closed-world tool, untrusted server",
        {"readOnlyHint": True, "openWorldHint": False},
        False,
    ),
    (
        "additive_untrusted",
        "additive write, untrusted server",
        {"readOnlyHint": False, "destructiveHint": False, "openWorldHint": False},
        False,
    ),
    (
        "only_not_destructive",
        "only destructiveHint false declared, trusted server",
        {"destructiveHint": False},
        True,
    ),
    (
        "read_only_idempotent",
        "read-only with idempotentHint, trusted server",
        {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False},
        True,
    ),
]


def _predict_judge(hints: dict[str, Any] | None, trusted: bool):
    return _pair_judge(hints, trusted)


def _statement_judge(letter: str):
    is_true = letter in TRUE_STATEMENTS

    def judge(value: Any) -> str | None:
        if isinstance(value, dict) and set(value) == {"__set__"}:
            value = value["__set__"]
        if not isinstance(value, list):
            return "not a set of letters"
        chosen = {plain_string(v) for v in value}
        if None in chosen:
            return "not a set of letters"
        if not chosen:
            return "no statement chosen"
        if (letter in chosen) == is_true:
            return None
        return f"statement {letter} is {'true' if is_true else 'false'}"

    return judge


CASES = (
    [
        Case(
            id=f"2a.{key}",
            label=f"scenario {key}: {SCENARIOS[key][0]}, {SCENARIOS[key][2]} server",
            target="PREDICTIONS",
            expr=f"PREDICTIONS[{key!r}]",
            judge=_scenario_judge(key),
            points=1.0,
            hint=_case_hint(SCENARIOS[key][2] == "trusted"),
        )
        for key in SCENARIOS
    ]
    + [
        Case(
            id=f"2b.{case_id}",
            label=f"predict: {label}",
            target="predict",
            expr=f"predict({hints!r}, {trusted!r})",
            judge=_predict_judge(hints, trusted),
            points=0.6,
            hint=_case_hint(trusted),
        )
        for case_id, label, hints, trusted in PREDICT_INPUTS
    ]
    + [
        Case(
            id=f"2c.{letter}",
            label=f"statement {letter}",
            target="TRUE_STATEMENTS",
            expr="TRUE_STATEMENTS",
            judge=_statement_judge(letter),
            points=0.5,
            hint=STATEMENT_HINTS[letter],
        )
        for letter in STATEMENT_HINTS
    ]
)

def _rules_judge(case: RuleCase):
    def judge(value: Any) -> str | None:
        try:
            rules = parse_answer(value)
        except ValueError as exc:
            return str(exc)
        return case.judge(rules)

    return judge


CASES += [
    Case(
        id=f"2d.{case.id}",
        label=f"rules: {case.label}",
        target="RULES",
        expr="RULES",
        judge=_rules_judge(case),
        points=0.5,
        hint=case.hint,
    )
    for case in RULE_CASES
]

EXERCISE = Exercise(
    id="02_predict_the_client", title="Exercise 2 · Predict the client", cases=CASES
)
