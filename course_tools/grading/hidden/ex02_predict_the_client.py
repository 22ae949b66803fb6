"""Hidden cases of exercise 2, "Predict the client" (exercises/02_predict_the_client.ipynb)."""

from __future__ import annotations

from typing import Any

from course_lib.clients import CLAUDE_CODE_VERSION
from course_lib.decisions import Trust
from course_lib.exercises.content import (
    PREDICT_SCENARIOS,
    RULE_CASES,
    STATEMENT_HINTS,
    TRUE_STATEMENTS,
)
from course_lib.feedback import decision_hint, reference_pair
from course_lib.i18n import N_
from course_lib.phrase import Phrase
from course_lib.rule_judges import FILE_OPS as HONEST
from course_lib.rule_judges import (
    LATER,
    RuleCase,
    all_of,
    asked,
    everywhere,
    hidden,
    never_silent,
    parse_rules,
    ran,
)

from ..cases import Case, Exercise
from ._common import decision_pair, plain_string


def _case_hint(trusted: bool) -> Phrase:
    """The hint shown when there is no answer to diagnose (missing, timed out): the case's rule."""
    if not trusted:
        return Phrase(
            N_(
                "an untrusted server's hints are ignored: judge the tool as if it had no "
                "annotations"
            )
        )
    return Phrase(
        N_(
            "a trusted server's hints count: apply the defaults to absent hints, then decide by "
            "profile before the call and by openWorld after it"
        )
    )


def _pair_judge(hints: dict[str, Any] | None, trusted: bool):
    """Judge a (before, after) pair; on a mistake, the hint names the rule that answer broke."""
    expected = reference_pair(hints, trusted)

    def judge(value: Any) -> tuple[Phrase, Phrase] | Phrase | None:
        got = decision_pair(value)
        if got is None:
            return Phrase(N_("not a (before, after) pair of decisions"))
        if got == expected:
            return None
        shown = Phrase(
            N_("expected {before} / {after}, got {got_before} / {got_after}"),
            before=str(expected[0]),
            after=str(expected[1]),
            got_before=str(got[0]),
            got_after=str(got[1]),
        )
        return shown, decision_hint(hints, trusted, got)

    return judge


def _scenario_label(key: str) -> Phrase:
    tool, _hints, trust = PREDICT_SCENARIOS[key]
    if trust is Trust.TRUSTED:
        return Phrase(N_("scenario {key}: {tool}, trusted server"), key=key, tool=tool)
    return Phrase(N_("scenario {key}: {tool}, untrusted server"), key=key, tool=tool)


def _scenario_judge(key: str):
    _tool, hints, trust = PREDICT_SCENARIOS[key]
    return _pair_judge(hints, trust is Trust.TRUSTED)


# Part 2b's hidden inputs: (id, label, declared hints or None, trusted?)
PREDICT_INPUTS = [
    ("empty_dict", N_("every hint absent, trusted server"), {}, True),
    ("no_annotations", N_("no annotations at all, trusted server"), None, True),
    (
        "read_only_destructive",
        N_("read-only that also says destructive, trusted server"),
        {"readOnlyHint": True, "destructiveHint": True},
        True,
    ),
    (
        "additive_closed",
        N_("additive closed-world write, trusted server"),
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
        N_("destructive and idempotent, trusted server"),
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
        N_("idempotent open-world write, trusted server"),
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
        N_("read-only closed-world tool, untrusted server"),
        {"readOnlyHint": True, "openWorldHint": False},
        False,
    ),
    (
        "additive_untrusted",
        N_("additive write, untrusted server"),
        {"readOnlyHint": False, "destructiveHint": False, "openWorldHint": False},
        False,
    ),
    (
        "only_not_destructive",
        N_("only destructiveHint false declared, trusted server"),
        {"destructiveHint": False},
        True,
    ),
    (
        "read_only_idempotent",
        N_("read-only with idempotentHint, trusted server"),
        {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False},
        True,
    ),
]


def _predict_judge(hints: dict[str, Any] | None, trusted: bool):
    return _pair_judge(hints, trusted)


def _statement_judge(letter: str):
    is_true = letter in TRUE_STATEMENTS

    def judge(value: Any) -> Phrase | None:
        if isinstance(value, dict) and set(value) == {"__set__"}:
            value = value["__set__"]
        if not isinstance(value, list):
            return Phrase(N_("not a set of letters"))
        chosen = {plain_string(v) for v in value}
        if None in chosen:
            return Phrase(N_("not a set of letters"))
        if not chosen:
            return Phrase(N_("no statement chosen"))
        if (letter in chosen) == is_true:
            return None
        if is_true:
            return Phrase(N_("statement {letter} is true"), letter=letter)
        return Phrase(N_("statement {letter} is false"), letter=letter)

    return judge


CASES = (
    [
        Case(
            id=f"2a.{key}",
            label=_scenario_label(key),
            target="PREDICTIONS",
            expr=f"PREDICTIONS[{key!r}]",
            judge=_scenario_judge(key),
            points=1.0,
            hint=_case_hint(PREDICT_SCENARIOS[key][2] is Trust.TRUSTED),
        )
        for key in PREDICT_SCENARIOS
    ]
    + [
        Case(
            id=f"2b.{case_id}",
            label=Phrase(N_("predict: {label}"), label=Phrase(label)),
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
            label=Phrase(N_("statement {letter}"), letter=letter),
            target="TRUE_STATEMENTS",
            expr="TRUE_STATEMENTS",
            judge=_statement_judge(letter),
            points=0.5,
            hint=Phrase(STATEMENT_HINTS[letter]),
        )
        for letter in STATEMENT_HINTS
    ]
)

# Part 2d, the grader's own cases: the file-ops tools as the exercise shows them, the same
# tools from a server that lies (every one declared read-only), and an older Claude Code whose
# modes differ. The last four cases are the grader's only: the self-check does not run them.
SERVER, OLDER = "file-ops", "2.1.197"
LYING = {name: {"readOnlyHint": True, "openWorldHint": False} for name in HONEST}


def _writes(claims: dict[str, Any], version: str = CLAUDE_CODE_VERSION) -> Any:
    return all_of(
        [everywhere(SERVER, t, asked, claims, version) for t in ("append_text", "set_value")]
    )


def _all_three(claims: dict[str, Any], version: str) -> Any:
    """Reads run, writes ask, deletes are hidden: on Claude Code `version`."""
    return all_of(
        [
            everywhere(SERVER, "read_file", ran, claims, version),
            everywhere(SERVER, "delete_file", hidden, claims, version),
            _writes(claims, version),
        ],
        f"on Claude Code {version}: ",  # the instructor's detail only: never shown
    )


_HINT = {case.id: case.hint for case in RULE_CASES}
RULE_CASES_HIDDEN = (
    *RULE_CASES,  # the five the exercise shows, then the grader's own
    RuleCase("later_older", Phrase(N_("... nor on Claude Code {version}"), version=OLDER),
             never_silent(SERVER, LATER, OLDER), _HINT["later"]),
    RuleCase("lying_writes",
             Phrase(N_("writes still ask when the server declares them read-only")),
             _writes(LYING), _HINT["writes"]),
    RuleCase("lying_delete",
             Phrase(N_("deletes stay hidden when the server declares them read-only")),
             everywhere(SERVER, "delete_file", hidden, LYING), _HINT["deletes"]),
    RuleCase("older_version",
             Phrase(N_("the rules work the same on Claude Code {version}"), version=OLDER),
             _all_three(HONEST, OLDER), _HINT["writes"]),
    RuleCase("older_version_lying",
             Phrase(N_("... and there, for a server that lies about its hints")),
             _all_three(LYING, OLDER), _HINT["writes"]),
)  # fmt: skip


def _rules_judge(case: RuleCase):
    def judge(value: Any) -> str | None:
        try:
            rules = parse_rules(value)
        except ValueError as exc:
            return str(exc)
        return case.judge(rules)

    return judge


CASES += [
    Case(
        id=f"2d.{case.id}",
        label=Phrase(N_("rules: {label}"), label=case.label),
        target="RULES",
        expr="RULES",
        judge=_rules_judge(case),
        points=0.5 if case.id.startswith("later") else 0.375,  # 8 x 3/8 + 2 x 1/2 = 4
        hint=case.hint,
    )
    for case in RULE_CASES_HIDDEN
]

# Part 2e, the grader's own answer key: what each measured client did with a tool declaring what
# these new tools declare (Codex CLI 0.171.0, Copilot CLI 1.0.102, Claude Code 2.1.332 plan mode;
# course_lib/data/clients/).
FATES = {
    "rotate_keys": {"Codex exec": "ASK-H", "Copilot prompt": "ASK-H", "Claude Code plan": "ASK"},
    "purge_cache": {"Codex exec": "RAN", "Copilot prompt": "RAN", "Claude Code plan": "RAN*"},
    "tag_release": {"Codex exec": "RAN", "Copilot prompt": "ASK-H", "Claude Code plan": "ASK"},
}
_FATE_HINTS = {
    "Codex exec": N_(
        "Codex: readOnlyHint true, or destructiveHint and openWorldHint both declared "
        "false, runs unasked; anything else needs approval that exec cannot ask for"
    ),
    "Copilot prompt": N_("Copilot reads readOnlyHint alone"),
    "Claude Code plan": N_(
        "plan mode sends a readOnlyHint: true call to its classifier and asks about the rest"
    ),
}


def _fate_judge(tool: str, client: str):
    def judge(value: Any) -> Phrase | None:
        row = value.get(tool) if isinstance(value, dict) else None
        got = row.get(client) if isinstance(row, dict) else None
        word = got.strip().upper() if isinstance(got, str) else got
        if word == FATES[tool][client]:
            return None
        return Phrase(N_("{tool} in {client}: not {got}"), tool=tool, client=client, got=repr(got))

    return judge


CASES += [
    Case(
        id=f"2e.{tool}.{client.split()[0].lower()}",
        label=Phrase(N_("{tool} in {client}"), tool=tool, client=client),
        target="FATES",
        expr="FATES",
        judge=_fate_judge(tool, client),
        points=1 / 3,
        hint=Phrase(_FATE_HINTS[client]),
    )
    for tool in FATES
    for client in FATES[tool]
]

EXERCISE = Exercise(
    id="02_predict_the_client", title=N_("Exercise 2 · Predict the client"), cases=CASES
)
