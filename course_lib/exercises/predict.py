"""Exercise 2, "Predict the client": the scenarios, the statements and the visible checks.

Part 2a checks all six scenarios, part 2b runs `predict` on every input it can get (the 82
ways to annotate a tool, from a trusted and from an untrusted server), part 2c checks all six
statements, part 2d judges the learner's permission rules for the file-ops server with the
measured model of Claude Code in every mode (`RULE_CASES`; the grader adds cases of its own),
part 2e checks nine predictions of what three measured clients do with three new tools.

Introduced in: exercises/02_predict_the_client.ipynb
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..checks import TODO, Outcome, Part, contains_todo, crashed, failed, not_attempted, passed
from ..decisions import PostCall, PreCall
from ..feedback import decision_hint, reference_pair
from ..permissions import Outcome as RuleOutcome
from ..rule_judges import (
    FILE_OPS,
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
from .annotate import hint_states

__all__ = [
    "FATE_CLIENTS",
    "FATE_TOOLS",
    "PARTS",
    "RULE_CASES",
    "SCENARIOS",
    "STATEMENTS",
    "STATEMENT_HINTS",
    "TRUE_STATEMENTS",
    "normalise_decision",
]

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
"""Exercise 2a's scenarios: id -> (tool, declared hints or None if unannotated, server trust)."""

STATEMENTS: dict[str, str] = {
    "a": "Calling an idempotent tool twice with the same arguments has no further effect.",
    "b": "An idempotent tool is safe, so a client may run it without asking.",
    "c": "delete_old_logs is both idempotent and destructive.",
    "d": "idempotentHint: true tells a client it may retry the call after a failure.",
    "e": "idempotentHint: true on a read-only tool changes what a spec-following client does.",
    "f": "The first call of an idempotent tool can still delete data for good.",
}
"""Exercise 2c's statements about idempotence."""

TRUE_STATEMENTS = frozenset({"a", "c", "d", "f"})
"""Exercise 2c: the true statements."""

STATEMENT_HINTS = {
    "a": "that is the definition of idempotentHint in the spec",
    "b": "idempotent says nothing about safety: deleting is idempotent and destructive",
    "c": "deleting what is already deleted changes nothing more (idempotent), but the first "
    "delete is permanent",
    "d": "the blog's mapping: idempotentHint: true means safe to retry on failure",
    "e": "destructiveHint and idempotentHint are meaningful only when readOnlyHint is false",
    "f": "idempotence is about the second call; the first one does all the damage",
}
"""Exercise 2c: the rule behind each statement, shown when a learner gets that statement wrong."""

_PRE = ", ".join(p.value for p in PreCall)
_POST = ", ".join(p.value for p in PostCall)


def normalise_decision(value: Any) -> tuple[str, str] | None:
    """Turn a learner's (before, after) answer into lower-case strings, or None if malformed."""
    if hasattr(value, "pre_call") and hasattr(value, "post_call"):
        value = (value.pre_call, value.post_call)
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        return None
    out = []
    for item in value:
        item = getattr(item, "value", item)
        if not isinstance(item, str):
            return None
        out.append(" ".join(item.lower().split()))
    return out[0], out[1]


def _decision_outcome(label: str, got: Any, hints: Any, trusted: bool) -> Outcome:
    if contains_todo(got):
        return not_attempted(label)
    normal = normalise_decision(got)
    if normal is None:
        return failed(
            label,
            f"expected a pair (before, after) such as ('confirm', 'trust output'), got {got!r}",
            f"before is one of {_PRE}; after is one of {_POST}",
        )
    before, after = reference_pair(hints, trusted)
    expected = (before.value, after.value)
    if normal == expected:
        return passed(label)
    return failed(
        label, f"expected {expected}, got {normal}", decision_hint(hints, trusted, normal)
    )


def _check_2a(answer: Any) -> list[Outcome]:
    if not isinstance(answer, Mapping):
        return [
            failed(
                "PREDICTIONS",
                f"expected a dict of scenario -> (before, after), got {type(answer).__name__}",
            )
        ]
    outcomes = []
    for key, (tool, hints, trust) in SCENARIOS.items():
        label = f"scenario {key} ({tool}, {trust} server)"
        if key not in answer:
            outcomes.append(
                failed(
                    label, f"no entry for scenario {key!r}", "keep every scenario key of the stub"
                )
            )
            continue
        outcomes.append(_decision_outcome(label, answer[key], hints, trust == "trusted"))
    return outcomes


def _check_2b(answer: Any) -> list[Outcome]:
    if not callable(answer):
        return [failed("predict", f"expected a function, got {type(answer).__name__}")]
    outcomes = []
    for trusted in (True, False):
        server = "trusted" if trusted else "untrusted"
        for label, hints in hint_states():
            tag = f"{label}, {server} server"
            try:
                got = answer(None if hints is None else dict(hints), trusted)
            except (Exception, SystemExit) as exc:
                outcomes.append(crashed(tag, exc))
                if outcomes[-1].status.value == "not attempted":
                    return outcomes
                continue
            outcomes.append(_decision_outcome(tag, got, hints, trusted))
    return outcomes


def _check_2c(answer: Any) -> list[Outcome]:
    if answer is TODO or contains_todo(answer):
        return [not_attempted(f"statement {letter}") for letter in STATEMENTS]
    if not isinstance(answer, (set, frozenset, list, tuple)) or not all(
        isinstance(x, str) for x in answer
    ):
        return [
            failed(
                "TRUE_STATEMENTS", f"expected a set of letters such as {{'a', 'b'}}, got {answer!r}"
            )
        ]
    chosen = {x.strip().lower() for x in answer}
    unknown = sorted(chosen - set(STATEMENTS))
    if unknown:
        return [
            failed(
                "TRUE_STATEMENTS", f"unknown statement letters {unknown}", "use the letters a to f"
            )
        ]
    outcomes = []
    for letter in STATEMENTS:
        is_true = letter in TRUE_STATEMENTS
        if (letter in chosen) == is_true:
            outcomes.append(passed(f"statement {letter}"))
        else:
            verdict = "true" if is_true else "false"
            outcomes.append(
                failed(
                    f"statement {letter}",
                    f"statement {letter} is {verdict}",
                    STATEMENT_HINTS[letter],
                )
            )
    return outcomes


RULE_CASES: tuple[RuleCase, ...] = (
    RuleCase(
        "reads",
        "reads run without asking in every mode",
        everywhere("file-ops", "read_file", lambda _m: RuleOutcome.RAN, FILE_OPS),
        "an allow rule for mcp__file-ops__read_file runs it without asking in every mode, "
        "dontAsk included",
    ),
    RuleCase(
        "writes",
        "writes ask in every mode (dontAsk refuses them)",
        all_of([everywhere("file-ops", t, asked, FILE_OPS) for t in ("append_text", "set_value")]),
        "without a rule, bypassPermissions runs a write silently and plan mode may too; an ask "
        "rule for each write tool asks in every mode (ask beats allow, so a server-wide allow "
        "does not undo it)",
    ),
    RuleCase(
        "deletes",
        "deletes are hidden from the model in every mode",
        everywhere("file-ops", "delete_file", lambda _m: RuleOutcome.HIDDEN, FILE_OPS),
        "a deny rule hides delete_file from the model in every mode; deny beats ask and allow",
    ),
    RuleCase(
        "scope",
        "no rule covers another server's tools",
        stays_on("file-ops", OTHER_TOOLS),
        "write mcp__file-ops__TOOL (or mcp__file-ops for the whole server); "
        "never name another server",
    ),
    RuleCase(
        "later",
        "a tool the server adds later does not run silently",
        never_silent("file-ops", LATER),
        "a server-wide allow (mcp__file-ops or mcp__file-ops__*) also covers every tool the "
        "server adds tomorrow, which then runs without a question: allow each read by name",
    ),
)
"""Exercise 2d's visible checks: what the rules must do for the file-ops server as it declares
its tools. The grader also tries a server that lies about its hints, and an older Claude Code."""


def _check_2d(answer: Any) -> list[Outcome]:
    try:
        rules = parse_rules(answer)
    except ValueError as exc:
        return [
            failed(
                "RULES is a valid set of rules", str(exc), "write each rule as mcp__file-ops__TOOL"
            )
        ]
    outcomes = []
    for case in RULE_CASES:
        problem = case.judge(rules)
        outcomes.append(
            passed(case.label) if problem is None else failed(case.label, problem, case.hint)
        )
    return outcomes


FATE_TOOLS: dict[str, dict[str, bool] | None] = {
    "rotate_keys": {"readOnlyHint": False, "destructiveHint": False, "openWorldHint": True},
    "purge_cache": {"readOnlyHint": True, "destructiveHint": True},
    "tag_release": {"destructiveHint": False, "openWorldHint": False},
}
"""Part 2e's new tools and what their server declares (no tool is one of the measured profiles)."""

FATE_CLIENTS = ("Codex exec", "Copilot prompt", "Claude Code plan")
"""Part 2e's clients: Codex CLI 0.171.0 `codex exec`, Copilot CLI 1.0.102 `-p`, Claude Code
2.1.332 plan mode, each as measured headless (lesson 03's census)."""

_FATE_WORDS = ("RAN", "RAN*", "ASK", "ASK-H", "DENY", "HIDDEN")


def _fate(client: str, hints: dict[str, bool] | None) -> str:
    """What the measured models say `client` does with a new tool declaring `hints`."""
    from ..census import census_model
    from ..clients import CodexPolicy
    from ..measured import SHORT_OUTCOMES
    from ..permissions import Permissions, classifier_judges, claude_code_outcome

    if client == "Codex exec":
        return "ASK-H" if CodexPolicy.needs_approval(hints) else "RAN"
    if client == "Copilot prompt":
        outcome = census_model("copilot", "1.0.102").outcome(hints, mode="prompt")
        return SHORT_OUTCOMES[outcome]
    outcome = claude_code_outcome(Permissions(), "team", "tool", hints, mode="plan")
    judged = classifier_judges(Permissions(), "team", "tool", hints, mode="plan")
    return SHORT_OUTCOMES[outcome] + ("*" if judged else "")


def _fate_hint(client: str) -> str:
    return {
        "Codex exec": "Codex runs a call unasked when readOnlyHint is true, or when "
        "destructiveHint and openWorldHint are both declared false; anything else needs "
        "approval, which codex exec cannot ask for (ASK-H)",
        "Copilot prompt": "Copilot reads readOnlyHint alone: true runs unasked, whatever "
        "destructiveHint says; anything else would ask (ASK-H, headless)",
        "Claude Code plan": "plan mode hands a readOnlyHint: true call to the safety classifier "
        "(RAN*, it approved in the measurement) and asks about every other call (ASK)",
    }[client]


def _check_2e(answer: Any) -> list[Outcome]:
    if not isinstance(answer, Mapping):
        return [failed("FATES", f"expected a dict of tool -> {{client: outcome}}, got {answer!r}")]
    outcomes = []
    for tool, hints in FATE_TOOLS.items():
        row = answer.get(tool)
        for client in FATE_CLIENTS:
            label = f"{tool} in {client}"
            got = row.get(client, TODO) if isinstance(row, Mapping) else TODO
            if contains_todo(got):
                outcomes.append(not_attempted(label))
                continue
            word = got.strip().upper() if isinstance(got, str) else got
            if word not in _FATE_WORDS:
                outcomes.append(
                    failed(
                        label,
                        f"{got!r} is not an outcome",
                        f"write one of {', '.join(_FATE_WORDS)}",
                    )
                )
            elif word == _fate(client, hints):
                outcomes.append(passed(label))
            else:
                outcomes.append(failed(label, f"not {word}", _fate_hint(client)))
    return outcomes


PARTS = (
    Part(
        "2a",
        "predict the reference client",
        _check_2a,
        "replace each TODO with a (before, after) pair",
        "scenarios",
    ),
    Part(
        "2b", "the reference client as a function", _check_2b, "write the body of predict", "inputs"
    ),
    Part(
        "2c",
        "idempotent is not safe",
        _check_2c,
        "replace TODO with the set of true statements",
        "statements",
    ),
    Part(
        "2d",
        "rules over hints",
        _check_2d,
        "replace TODO with a dict of allow, ask and deny lists",
        "requirements",
    ),
    Part(
        "2e",
        "a new tool in three clients",
        _check_2e,
        "replace each TODO with an outcome such as 'RAN' or 'ASK-H'",
        "predictions",
    ),
)
