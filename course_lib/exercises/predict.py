"""Exercise 2, "Predict the client": the visible checks (its scenarios and statements are in
`course_lib.exercises.content`).

Part 2a checks all six scenarios, part 2b runs `predict` on every input it can get (the 82
ways to annotate a tool, from a trusted and from an untrusted server), part 2c checks all six
statements, part 2d judges the learner's permission rules for the file-ops server with the
measured model of Claude Code in every mode (`content.RULE_CASES`; the grader adds cases of
its own), part 2e checks nine predictions of what three measured clients do with three new tools.

Introduced in: exercises/02_predict_the_client.ipynb
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..checks import (
    TODO,
    Mark,
    Part,
    Status,
    contains_todo,
    crashed,
    failed,
    not_attempted,
    passed,
)
from ..decisions import Decision, PostCall, PreCall, Trust
from ..feedback import decision_hint, read_prediction, reference_pair
from ..i18n import N_
from ..i18n import gettext_ as _
from ..rule_judges import parse_rules
from .annotate import hint_states
from .content import (
    FATE_CLIENTS,
    FATE_TOOLS,
    PREDICT_SCENARIOS,
    RULE_CASES,
    STATEMENT_HINTS,
    STATEMENTS,
    TRUE_STATEMENTS,
)

__all__ = ["PARTS", "normalise_decision"]

_PRE = ", ".join(f"PreCall.{p.name}" for p in PreCall)
_POST = ", ".join(f"PostCall.{p.name}" for p in PostCall)


def normalise_decision(value: Any) -> tuple[PreCall, PostCall] | None:
    """Read a learner's (before, after) answer, or a `Decision`; None if it is not such a pair."""
    if isinstance(value, Decision):
        value = (value.pre_call, value.post_call)
    return read_prediction(value)


def _shown(pair: tuple[PreCall, PostCall]) -> str:
    before, after = pair
    return f"{before} / {after} (PreCall.{before.name}, PostCall.{after.name})"


def _decision_mark(label: str, got: Any, hints: Any, trusted: bool) -> Mark:
    if contains_todo(got):
        return not_attempted(label)
    normal = normalise_decision(got)
    if normal is None:
        return failed(
            label,
            _(
                "expected a pair (before, after) such as (PreCall.CONFIRM, PostCall.TRUST), "
                "got {value}"
            ).format(value=repr(got)),
            _("before is one of {pre}; after is one of {post}").format(pre=_PRE, post=_POST),
        )
    expected = reference_pair(hints, trusted)
    if normal == expected:
        return passed(label)
    return failed(
        label,
        _("expected {expected}, got {before} / {after}").format(
            expected=_shown(expected), before=normal[0], after=normal[1]
        ),
        decision_hint(hints, trusted, normal).text(),
    )


def _check_2a(answer: Any) -> list[Mark]:
    if not isinstance(answer, Mapping):
        return [
            failed(
                "PREDICTIONS",
                _("expected a dict of scenario -> (before, after), got {type}").format(
                    type=type(answer).__name__
                ),
            )
        ]
    outcomes = []
    for key, (tool, hints, trust) in PREDICT_SCENARIOS.items():
        label = _("scenario {key} ({tool}, {trust} server)").format(
            key=key, tool=tool, trust=_(str(trust))
        )
        if key not in answer:
            outcomes.append(
                failed(
                    label,
                    _("no entry for scenario {key}").format(key=repr(key)),
                    _("keep every scenario key of the stub"),
                )
            )
            continue
        outcomes.append(_decision_mark(label, answer[key], hints, trust is Trust.TRUSTED))
    return outcomes


def _check_2b(answer: Any) -> list[Mark]:
    if not callable(answer):
        return [
            failed(
                "predict", _("expected a function, got {type}").format(type=type(answer).__name__)
            )
        ]
    outcomes = []
    for trusted in (True, False):
        server = _("trusted") if trusted else _("untrusted")
        for label, hints in hint_states():
            tag = _("{label}, {trust} server").format(label=label, trust=server)
            try:
                got = answer(None if hints is None else dict(hints), trusted)
            except (Exception, SystemExit) as exc:
                outcomes.append(crashed(tag, exc))
                if outcomes[-1].status is Status.NOT_ATTEMPTED:
                    return outcomes
                continue
            outcomes.append(_decision_mark(tag, got, hints, trusted))
    return outcomes


def _check_2c(answer: Any) -> list[Mark]:
    if answer is TODO or contains_todo(answer):
        return [
            not_attempted(_("statement {letter}").format(letter=letter)) for letter in STATEMENTS
        ]
    if not isinstance(answer, (set, frozenset, list, tuple)) or not all(
        isinstance(x, str) for x in answer
    ):
        return [
            failed(
                "TRUE_STATEMENTS",
                _("expected a set of letters such as {example}, got {value}").format(
                    example="{'a', 'b'}", value=repr(answer)
                ),
            )
        ]
    chosen = {x.strip().lower() for x in answer}
    unknown = sorted(chosen - set(STATEMENTS))
    if unknown:
        return [
            failed(
                "TRUE_STATEMENTS",
                _("unknown statement letters {letters}").format(letters=unknown),
                _("use the letters a to f"),
            )
        ]
    outcomes = []
    for letter in STATEMENTS:
        is_true = letter in TRUE_STATEMENTS
        label = _("statement {letter}").format(letter=letter)
        if (letter in chosen) == is_true:
            outcomes.append(passed(label))
        else:
            verdict = (
                _("statement {letter} is true") if is_true else _("statement {letter} is false")
            )
            outcomes.append(
                failed(label, verdict.format(letter=letter), _(STATEMENT_HINTS[letter]))
            )
    return outcomes


def _check_2d(answer: Any) -> list[Mark]:
    try:
        rules = parse_rules(answer)
    except ValueError as exc:
        return [
            failed(
                _("RULES is a valid set of rules"),
                str(exc),
                _("write each rule as mcp__file-ops__TOOL"),
            )
        ]
    outcomes = []
    for case in RULE_CASES:
        problem = case.judge(rules)
        label = case.label.text()
        outcomes.append(
            passed(label) if problem is None else failed(label, _(problem), case.hint.text())
        )
    return outcomes


_FATE_WORDS = ("RAN", "RAN*", "ASK", "ASK-H", "DENY", "HIDDEN")


def _fate(client: str, hints: dict[str, bool] | None) -> str:
    """What the measured models say `client` does with a new tool declaring `hints`."""
    from ..client_census import census_model
    from ..clients import CodexPolicy
    from ..measured import SHORT_OUTCOMES
    from ..permissions import ClaudeCodeSetup, Permissions

    if client == "Codex exec":
        return "ASK-H" if CodexPolicy.needs_approval(hints) else "RAN"
    if client == "Copilot prompt":
        outcome = census_model("copilot", "1.0.102").outcome(hints, mode="prompt")
        return SHORT_OUTCOMES[outcome]
    plan = ClaudeCodeSetup(Permissions(), "plan")
    outcome = plan.outcome("team", "tool", hints)
    judged = plan.classifier_judges("team", "tool", hints)
    return SHORT_OUTCOMES[outcome] + ("*" if judged else "")


def _fate_hint(client: str) -> str:
    hints = {
        "Codex exec": N_(
            "Codex runs a call unasked when readOnlyHint is true, or when "
            "destructiveHint and openWorldHint are both declared false; anything else needs "
            "approval, which codex exec cannot ask for (ASK-H)"
        ),
        "Copilot prompt": N_(
            "Copilot reads readOnlyHint alone: true runs unasked, whatever "
            "destructiveHint says; anything else would ask (ASK-H, headless)"
        ),
        "Claude Code plan": N_(
            "plan mode hands a readOnlyHint: true call to the safety classifier "
            "(RAN*, it approved in the measurement) and asks about every other call (ASK)"
        ),
    }
    return _(hints[client])


def _check_2e(answer: Any) -> list[Mark]:
    if not isinstance(answer, Mapping):
        return [
            failed(
                "FATES",
                _("expected a dict of tool -> {{client: outcome}}, got {value}").format(
                    value=repr(answer)
                ),
            )
        ]
    outcomes = []
    for tool, hints in FATE_TOOLS.items():
        row = answer.get(tool)
        for client in FATE_CLIENTS:
            label = _("{tool} in {client}").format(tool=tool, client=client)
            got = row.get(client, TODO) if isinstance(row, Mapping) else TODO
            if contains_todo(got):
                outcomes.append(not_attempted(label))
                continue
            word = got.strip().upper() if isinstance(got, str) else got
            if word not in _FATE_WORDS:
                outcomes.append(
                    failed(
                        label,
                        _("{value} is not an outcome").format(value=repr(got)),
                        _("write one of {words}").format(words=", ".join(_FATE_WORDS)),
                    )
                )
            elif word == _fate(client, hints):
                outcomes.append(passed(label))
            else:
                outcomes.append(
                    failed(label, _("not {word}").format(word=word), _fate_hint(client))
                )
    return outcomes


PARTS = (
    Part(
        "2a",
        N_("predict the reference client"),
        _check_2a,
        N_("replace each TODO with a (before, after) pair"),
        N_("scenarios"),
    ),
    Part(
        "2b",
        N_("the reference client as a function"),
        _check_2b,
        N_("write the body of predict"),
        N_("inputs"),
    ),
    Part(
        "2c",
        N_("idempotent is not safe"),
        _check_2c,
        N_("replace TODO with the set of true statements"),
        N_("statements"),
    ),
    Part(
        "2d",
        N_("rules over hints"),
        _check_2d,
        N_("replace TODO with a dict of allow, ask and deny lists"),
        N_("requirements"),
    ),
    Part(
        "2e",
        N_("a new tool in three clients"),
        _check_2e,
        N_("replace each TODO with an outcome such as 'RAN' or 'ASK-H'"),
        N_("predictions"),
    ),
)
