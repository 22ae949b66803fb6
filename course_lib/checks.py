"""Learner self-checks for the exercises: visible cases only, never raising, always explaining.

In an exercise notebook a check cell reads ``check("1a", ANNOTATIONS)``. It prints one of

* ``✅ Part 1a: 3 of 3 visible checks passed.``
* ``❌ Part 1a: 1 of 3 visible checks failed.`` followed by what was expected, what the
  answer gave, and a hint that teaches the rule behind it;
* ``⏳ Part 1a: not attempted yet.`` for a stub (`TODO` data or a function raising `NotAttempted`),

and returns True, False or None. It never raises (a crash in learner code is reported as a
failed check), so a blank exercise runs cleanly under nbval. The visible checks are a sample:
the instructor's grader (`python -m course_lib grade`) runs further cases the learner does not
see, so the wording is always "visible checks passed", never "all tests passed".

Stub convention (what `tools/make_exercises.py` writes into `exercises/`):

* a function to write keeps its signature and its body becomes ``raise NotAttempted()``;
* data to fill in keeps its keys and each value becomes `TODO`.

Introduced in: exercises/01_annotate_tools.ipynb
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .annotations import HINTS, effective

__all__ = [
    "PARTS",
    "SCENARIOS",
    "STATEMENTS",
    "TODO",
    "NotAttempted",
    "Outcome",
    "Part",
    "check",
    "contains_todo",
]


class NotAttempted(NotImplementedError):
    """Raised by an exercise stub that has not been answered yet (a learner replaces the `raise`)."""

    def __init__(self, message: str = "not attempted yet: replace `raise NotAttempted()` with your answer") -> None:
        super().__init__(message)


class _Todo:
    """The placeholder for a value a learner still has to fill in (there is one: `TODO`)."""

    _instance: _Todo | None = None

    def __new__(cls) -> _Todo:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "TODO"

    def __reduce__(self) -> str:
        return "TODO"


TODO = _Todo()
"""Placeholder in exercise stubs: ``"read_runbook": TODO`` means "your answer goes here"."""


def contains_todo(value: Any, _depth: int = 0) -> bool:
    """Return True if `value` is `TODO` or a list/tuple/set/dict holding it (at any depth)."""
    if value is TODO:
        return True
    if _depth > 20:
        return False
    if isinstance(value, Mapping):
        return any(contains_todo(v, _depth + 1) for v in value.values())
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(contains_todo(v, _depth + 1) for v in value)
    return False


@dataclass(frozen=True)
class Outcome:
    """The result of one visible check."""

    label: str
    status: str  # "pass", "fail" or "not attempted"
    message: str = ""  # what was expected and what the answer gave
    hint: str = ""  # the rule behind it


@dataclass(frozen=True)
class Part:
    """One exercise part and its visible checks."""

    id: str
    title: str
    run: Callable[[Any], list[Outcome]] = field(repr=False)
    not_attempted_help: str = ""


def _pass(label: str) -> Outcome:
    return Outcome(label, "pass")


def _fail(label: str, message: str, hint: str = "") -> Outcome:
    return Outcome(label, "fail", message, hint)


def _todo(label: str) -> Outcome:
    return Outcome(label, "not attempted")


def _crash(label: str, exc: BaseException) -> Outcome:
    if isinstance(exc, NotImplementedError):
        return _todo(label)
    where = traceback.extract_tb(exc.__traceback__)
    line = f" (line {where[-1].lineno})" if where else ""
    return _fail(
        label,
        f"your code raised {type(exc).__name__}{line}: {exc}",
        "run the cell that defines your answer again, then read the error: it names the problem",
    )


def _show(value: Any) -> str:
    return "absent" if value is None else str(value).lower() if isinstance(value, bool) else repr(value)


# --- exercise 1: annotate the assistant's tools -------------------------------------------

# The visible sample of exercise 1's tools: effective values a correct annotation gives.
_EX1_VISIBLE = {
    "read_runbook": {"readOnlyHint": True, "destructiveHint": "n/a", "idempotentHint": "n/a", "openWorldHint": False},
    "append_incident_note": {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": False},
    "search_web": {"readOnlyHint": True, "destructiveHint": "n/a", "idempotentHint": "n/a", "openWorldHint": True},
}

_HINT_RULES = {
    "readOnlyHint": "a tool that only looks (reads, queries, searches) declares read_only_hint=True; "
    "absent means false, so the client treats it as a write",
    "destructiveHint": "destructive_hint=False only if the tool never deletes or overwrites anything; "
    "absent means true (possibly destructive)",
    "idempotentHint": "idempotent_hint=True only if repeating the same call changes nothing more; "
    "appending twice adds twice, so appending is not idempotent; absent means false",
    "openWorldHint": "open_world_hint=True when the tool reaches beyond the team's own systems (the web, "
    "customers); declare False for closed ones, because absent means true",
}


def compare_hints(label: str, annotations: Any, expected: Mapping[str, Any]) -> Outcome:
    """Compare one tool's annotations with the expected effective values (wire names)."""
    if annotations is TODO:
        return _todo(label)
    try:
        got = effective(annotations).as_wire()
    except ValueError as exc:
        return _fail(label, str(exc), "use ToolAnnotations(read_only_hint=..., ...) with True or False values")
    wrong = [h for h in HINTS if got[h] != expected[h]]
    if not wrong:
        return _pass(label)
    details = "; ".join(f"{h}: expected {_show(expected[h])}, your annotations give {_show(got[h])}" for h in wrong)
    return _fail(label, details, _HINT_RULES[wrong[0]])


def _check_1a(answer: Any) -> list[Outcome]:
    if contains_todo(answer) and not isinstance(answer, Mapping):
        return [_todo(name) for name in _EX1_VISIBLE]
    if not isinstance(answer, Mapping):
        return [_fail("ANNOTATIONS", f"expected a dict of tool name -> ToolAnnotations, got {type(answer).__name__}")]
    outcomes = []
    for name, expected in _EX1_VISIBLE.items():
        if name not in answer:
            outcomes.append(_fail(name, f"no entry for {name!r}", "keep every tool name of the stub as a key"))
        else:
            outcomes.append(compare_hints(name, answer[name], expected))
    return outcomes


def untrusted_by_hints(annotations: Mapping[str, Any]) -> set[str]:
    """Reference for part 1b: the tools whose output a host treats as untrusted content (trusted server)."""
    return {name for name, value in annotations.items() if effective(value).open_world}


def _as_name_set(value: Any) -> set[str] | None:
    if isinstance(value, (set, frozenset, list, tuple)) and all(isinstance(v, str) for v in value):
        return set(value)
    return None


def _check_1b(answer: Any) -> list[Outcome]:
    from mcp.types import ToolAnnotations

    if not callable(answer):
        return [_fail("untrusted_outputs", f"expected a function, got {type(answer).__name__}")]
    cases = [
        (
            "a closed read-only tool and an open-world one",
            {
                "read_runbook": ToolAnnotations(read_only_hint=True, open_world_hint=False),
                "search_web": ToolAnnotations(read_only_hint=True, open_world_hint=True),
            },
        ),
        ("a tool that declares nothing", {"fetch_url": None, "read_runbook": ToolAnnotations(open_world_hint=False)}),
    ]
    outcomes = []
    for label, tools in cases:
        try:
            got = answer(tools)
        except (Exception, SystemExit) as exc:  # a learner's bug is a failed check, not a crash
            outcomes.append(_crash(label, exc))
            continue
        names = _as_name_set(got)
        expected = untrusted_by_hints(tools)
        if names is None:
            outcomes.append(_fail(label, f"expected a set of tool names, got {got!r}", "return e.g. {'search_web'}"))
        elif names == expected:
            outcomes.append(_pass(label))
        else:
            outcomes.append(
                _fail(
                    label,
                    f"expected {sorted(expected)}, got {sorted(names)}",
                    "output is untrusted when the effective openWorldHint is true, and an absent "
                    "openWorldHint means true: use effective(annotations).open_world",
                )
            )
    return outcomes


# --- exercise 2: predict the client ---------------------------------------------------------

SCENARIOS: dict[str, tuple[str, dict[str, bool] | None, str]] = {
    "A": ("read_runbook", {"readOnlyHint": True, "openWorldHint": False}, "trusted"),
    "B": ("read_runbook", {"readOnlyHint": True, "openWorldHint": False}, "untrusted"),
    "C": ("set_oncall", {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}, "trusted"),
    "D": ("delete_old_logs", {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": False}, "trusted"),
    "E": ("search_web", {"readOnlyHint": True}, "trusted"),
    "F": ("run_diagnostics", None, "trusted"),
}
"""Exercise 2a's scenarios: id -> (tool, declared hints or None for no annotations, server trust)."""

STATEMENTS: dict[str, str] = {
    "a": "Calling an idempotent tool twice with the same arguments has no further effect.",
    "b": "An idempotent tool is safe, so a client may run it without asking.",
    "c": "delete_old_logs is both idempotent and destructive.",
    "d": "idempotentHint: true tells a client it may retry the call after a failure.",
    "e": "idempotentHint: true on a read-only tool changes what a spec-following client does.",
    "f": "The first call of an idempotent tool can still delete data for good.",
}
"""Exercise 2c's statements about idempotence; the true ones are a, c, d and f."""

_TRUE_STATEMENTS = {"a", "c", "d", "f"}

_STATEMENT_HINTS = {
    "a": "that is the definition of idempotentHint in the spec",
    "b": "idempotent says nothing about safety: deleting is idempotent and destructive",
    "c": "deleting what is already deleted changes nothing more (idempotent), but the first delete is permanent",
    "d": "the blog's mapping: idempotentHint: true means safe to retry on failure",
    "e": "destructiveHint and idempotentHint are meaningful only when readOnlyHint is false",
    "f": "idempotence is about the second call; the first one does all the damage",
}

PRE_VALUES = ("allow", "confirm", "confirm with warning", "deny")
POST_VALUES = ("trust output", "treat as untrusted")


def reference_prediction(annotations: Any, trust: str) -> tuple[str, str]:
    """Return the reference client's (before call, after call) decision as plain strings."""
    from .policy import SPEC

    decision = SPEC.decide(annotations, trust=trust)
    return decision.pre_call.value, decision.post_call.value


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


def _decision_outcome(label: str, got: Any, expected: tuple[str, str], hint: str) -> Outcome:
    if contains_todo(got):
        return _todo(label)
    normal = normalise_decision(got)
    if normal is None:
        return _fail(
            label,
            f"expected a pair (before, after) such as ('confirm', 'trust output'), got {got!r}",
            f"before is one of {', '.join(PRE_VALUES)}; after is one of {', '.join(POST_VALUES)}",
        )
    if normal == expected:
        return _pass(label)
    return _fail(label, f"expected {expected}, got {normal}", hint)


def _scenario_hint(key: str) -> str:
    tool, hints, trust = SCENARIOS[key]
    if trust == "untrusted":
        return "a spec-following client ignores the hints of an untrusted server: it judges the tool as if unannotated"
    if hints is None:
        return "no annotations: the pessimistic defaults apply (not read-only, destructive, open world)"
    if "openWorldHint" not in hints:
        return "an absent openWorldHint takes the default true: open world, so the output is untrusted"
    return "before the call: read-only -> allow, additive or idempotent write -> confirm, destructive -> confirm with warning"


def _check_2a(answer: Any) -> list[Outcome]:
    visible = ["A", "C"]
    if not isinstance(answer, Mapping):
        return [_fail("PREDICTIONS", f"expected a dict of scenario -> (before, after), got {type(answer).__name__}")]
    outcomes = []
    for key in visible:
        label = f"scenario {key} ({SCENARIOS[key][0]}, {SCENARIOS[key][2]} server)"
        if key not in answer:
            outcomes.append(_fail(label, f"no entry for scenario {key!r}", "keep every scenario key of the stub"))
            continue
        _tool, hints, trust = SCENARIOS[key]
        outcomes.append(_decision_outcome(label, answer[key], reference_prediction(hints, trust), _scenario_hint(key)))
    return outcomes


_2B_VISIBLE = [
    ("read-only, closed world, trusted server", {"readOnlyHint": True, "openWorldHint": False}, True),
    ("additive write, trusted server", {"readOnlyHint": False, "destructiveHint": False, "openWorldHint": False}, True),
    ("read-only, closed world, untrusted server", {"readOnlyHint": True, "openWorldHint": False}, False),
]


def _check_2b(answer: Any) -> list[Outcome]:
    if not callable(answer):
        return [_fail("predict", f"expected a function, got {type(answer).__name__}")]
    outcomes = []
    for label, hints, trusted in _2B_VISIBLE:
        try:
            got = answer(dict(hints), trusted)
        except (Exception, SystemExit) as exc:
            outcomes.append(_crash(label, exc))
            continue
        expected = reference_prediction(hints, "trusted" if trusted else "untrusted")
        hint = (
            "an untrusted server's hints are ignored: judge the tool as if it had no annotations"
            if not trusted
            else "apply the defaults with effective(), then decide by profile; openWorld decides the output"
        )
        outcomes.append(_decision_outcome(label, got, expected, hint))
    return outcomes


def _check_2c(answer: Any) -> list[Outcome]:
    if answer is TODO or contains_todo(answer):
        return [_todo("statement b"), _todo("statement c")]
    if not isinstance(answer, (set, frozenset, list, tuple)) or not all(isinstance(x, str) for x in answer):
        return [_fail("TRUE_STATEMENTS", f"expected a set of letters such as {{'a', 'b'}}, got {answer!r}")]
    chosen = {x.strip().lower() for x in answer}
    unknown = sorted(chosen - set(STATEMENTS))
    if unknown:
        return [_fail("TRUE_STATEMENTS", f"unknown statement letters {unknown}", "use the letters a to f")]
    outcomes = []
    for letter in ("b", "c"):
        is_true = letter in _TRUE_STATEMENTS
        if (letter in chosen) == is_true:
            outcomes.append(_pass(f"statement {letter}"))
        else:
            verdict = "true" if is_true else "false"
            outcomes.append(_fail(f"statement {letter}", f"statement {letter} is {verdict}", _STATEMENT_HINTS[letter]))
    return outcomes


PARTS: dict[str, Part] = {
    "1a": Part("1a", "annotate the tools by behaviour", _check_1a, "replace each TODO with ToolAnnotations(...)"),
    "1b": Part("1b", "untrusted output", _check_1b, "write the body of untrusted_outputs"),
    "2a": Part("2a", "predict the reference client", _check_2a, "replace each TODO with a (before, after) pair"),
    "2b": Part("2b", "the reference client as a function", _check_2b, "write the body of predict"),
    "2c": Part("2c", "idempotent is not safe", _check_2c, "replace TODO with the set of true statements"),
}
"""The exercise parts with visible checks, by id ("1a", "2b", ...)."""


# --- the entry point ------------------------------------------------------------------------


def _report(part: Part, outcomes: list[Outcome]) -> bool | None:
    passed = sum(o.status == "pass" for o in outcomes)
    failed = [o for o in outcomes if o.status == "fail"]
    todo = [o for o in outcomes if o.status == "not attempted"]
    total = len(outcomes)
    head = f"Part {part.id} ({part.title})"
    if todo and not passed and not failed:
        print(f"⏳ {head}: not attempted yet. To start: {part.not_attempted_help}, then run this cell again.")
        return None
    if failed:
        print(f"❌ {head}: {len(failed)} of {total} visible checks failed.")
    elif todo:
        print(f"⏳ {head}: {passed} of {total} visible checks passed; {len(todo)} not attempted yet.")
    else:
        print(f"✅ {head}: {passed} of {total} visible checks passed.")
        print("   The instructor's grader runs more cases than these: re-read the task before you hand it in.")
        return True
    for outcome in outcomes:
        if outcome.status == "pass":
            print(f"   ✓ {outcome.label}")
        elif outcome.status == "not attempted":
            print(f"   … {outcome.label}: not attempted yet")
        else:
            print(f"   ✗ {outcome.label}: {outcome.message}")
            if outcome.hint:
                print(f"     Hint: {outcome.hint}.")
    return False if failed else None


def check(part: str, answer: Any) -> bool | None:
    """Run the visible checks of one exercise part on `answer`, print the result and return it.

    Returns True when every visible check passed, False when one failed, None when the
    part is not attempted yet (or only partly). Never raises: a crash in the learner's
    code, or a wrong part id, is printed as a failure.
    """
    try:
        spec = PARTS.get(str(part).strip().lower())
        if spec is None:
            print(f"❌ There is no exercise part {part!r}; the parts are {', '.join(PARTS)}.")
            return False
        if answer is TODO:
            return _report(spec, [_todo(spec.id)])
        try:
            outcomes = spec.run(answer)
        except (Exception, SystemExit) as exc:
            outcomes = [_crash(spec.id, exc)]
        return _report(spec, outcomes)
    except Exception as exc:  # noqa: BLE001 - a self-check must never crash a learner's notebook
        print(f"❌ The check itself failed ({type(exc).__name__}: {exc}); please tell your instructor.")
        return False
