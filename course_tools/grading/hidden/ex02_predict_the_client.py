"""Hidden cases of exercise 2, "Predict the client" (exercises/02_predict_the_client.ipynb)."""

from __future__ import annotations

from typing import Any

from course_lib.clients import CLAUDE_CODE_VERSION
from course_lib.feedback import decision_hint, reference_pair
from course_lib.permissions import Outcome
from course_lib.rule_judges import FILE_OPS as HONEST
from course_lib.rule_judges import (
    LATER,
    OTHER_TOOLS,
    RuleCase,
    all_of,
    asked,
    everywhere,
    never_silent,
    parse_rules,
    stays_on,
)

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

# Part 2d, the grader's own cases: the file-ops tools as the exercise shows them, the same
# tools from a server that lies (every one declared read-only), and an older Claude Code whose
# modes differ. The last four cases are the grader's only: the self-check does not run them.
SERVER, OLDER = "file-ops", "2.1.197"
LYING = {name: {"readOnlyHint": True, "openWorldHint": False} for name in HONEST}


def _ran(_mode: str) -> Outcome:
    return Outcome.RAN


def _hidden(_mode: str) -> Outcome:
    return Outcome.HIDDEN


def _writes(claims: dict[str, Any], version: str = CLAUDE_CODE_VERSION) -> Any:
    return all_of(
        [everywhere(SERVER, t, asked, claims, version) for t in ("append_text", "set_value")]
    )


def _all_three(claims: dict[str, Any], version: str) -> Any:
    """Reads run, writes ask, deletes are hidden: on Claude Code `version`."""
    return all_of(
        [
            everywhere(SERVER, "read_file", _ran, claims, version),
            everywhere(SERVER, "delete_file", _hidden, claims, version),
            _writes(claims, version),
        ],
        f"on Claude Code {version}: ",
    )


_HINT_READ = (
    "an allow rule for mcp__file-ops__read_file runs it without asking in every mode, "
    "dontAsk included"
)
_HINT_WRITE = (
    "without a rule, bypassPermissions runs a write silently and plan mode may too; an ask "
    "rule for each write tool asks in every mode (ask beats allow, so a server-wide allow "
    "does not undo it)"
)
_HINT_DELETE = (
    "a deny rule hides delete_file from the model in every mode; deny beats ask and allow"
)
_HINT_SCOPE = (
    "write mcp__file-ops__TOOL (or mcp__file-ops for the whole server); never name another server"
)
_HINT_LATER = (
    "a server-wide allow covers every tool the server adds later too, which then runs without a "
    "question; allow the read by name"
)
RULE_CASES = (
    RuleCase("reads", "reads run without asking in every mode",
             everywhere(SERVER, "read_file", _ran, HONEST), _HINT_READ),
    RuleCase("writes", "writes ask in every mode (dontAsk refuses them)", _writes(HONEST),
             _HINT_WRITE),
    RuleCase("deletes", "deletes are hidden from the model in every mode",
             everywhere(SERVER, "delete_file", _hidden, HONEST), _HINT_DELETE),
    RuleCase("scope", "no rule covers another server's tools", stays_on(SERVER, OTHER_TOOLS),
             _HINT_SCOPE),
    RuleCase("later", "a tool the server adds later does not run silently",
             never_silent(SERVER, LATER), _HINT_LATER),
    RuleCase("later_older", f"... nor on Claude Code {OLDER}",
             never_silent(SERVER, LATER, OLDER), _HINT_LATER),
    RuleCase("lying_writes", "writes still ask when the server declares them read-only",
             _writes(LYING), _HINT_WRITE),
    RuleCase("lying_delete", "deletes stay hidden when the server declares them read-only",
             everywhere(SERVER, "delete_file", _hidden, LYING), _HINT_DELETE),
    RuleCase("older_version", f"the rules work the same on Claude Code {OLDER}",
             _all_three(HONEST, OLDER), _HINT_WRITE),
    RuleCase("older_version_lying", "... and there, for a server that lies about its hints",
             _all_three(LYING, OLDER), _HINT_WRITE),
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
        label=f"rules: {case.label}",
        target="RULES",
        expr="RULES",
        judge=_rules_judge(case),
        points=0.5 if case.id.startswith("later") else 0.375,  # 8 x 3/8 + 2 x 1/2 = 4
        hint=case.hint,
    )
    for case in RULE_CASES
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
    "Codex exec": "Codex: readOnlyHint true, or destructiveHint and openWorldHint both declared "
    "false, runs unasked; anything else needs approval that exec cannot ask for",
    "Copilot prompt": "Copilot reads readOnlyHint alone",
    "Claude Code plan": "plan mode sends a readOnlyHint: true call to its classifier and asks "
    "about the rest",
}


def _fate_judge(tool: str, client: str):
    def judge(value: Any) -> str | None:
        row = value.get(tool) if isinstance(value, dict) else None
        got = row.get(client) if isinstance(row, dict) else None
        word = got.strip().upper() if isinstance(got, str) else got
        return None if word == FATES[tool][client] else f"{tool} in {client}: not {got!r}"

    return judge


CASES += [
    Case(
        id=f"2e.{tool}.{client.split()[0].lower()}",
        label=f"{tool} in {client}",
        target="FATES",
        expr="FATES",
        judge=_fate_judge(tool, client),
        points=1 / 3,
        hint=_FATE_HINTS[client],
    )
    for tool in FATES
    for client in FATES[tool]
]

EXERCISE = Exercise(
    id="02_predict_the_client", title="Exercise 2 · Predict the client", cases=CASES
)
