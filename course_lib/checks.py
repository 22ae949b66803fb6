"""Learner self-checks for the exercises: visible cases only, never raising, always explaining.

In an exercise notebook a check cell reads ``check("1a", ANNOTATIONS)``. It prints one of

* ``✅ Part 1a: 3 of 3 visible checks passed.``
* ``❌ Part 1a: 1 of 3 visible checks failed.`` followed by what was expected, what the
  answer gave, and a hint that teaches the rule behind it;
* ``⏳ Part 1a: not attempted yet.`` for a stub (`TODO` data or a function raising `NotAttempted`),

and returns a `CheckResult` (its `status` is "passed", "failed" or "not attempted"). It never
raises (a crash in learner code is reported as a failed check), so a blank exercise runs
cleanly under nbval. The visible checks are a sample:
the instructor's grader (`python -m course_lib grade`) runs further cases the learner does not
see, so the wording is always "visible checks passed", never "all tests passed".

Stub convention (what `tools/make_exercises.py` writes into `exercises/`):

* a function to write keeps its signature and its body becomes ``raise NotAttempted()``;
* data to fill in keeps its keys and each value becomes `TODO`.

Also here, shared with the grader's hidden cases: the exercises' scenarios and the reference
answers computed from `course_lib` (`reference_prediction`, `run_defence`, ...).

Introduced in: exercises/01_annotate_tools.ipynb; used by every exercise and by `course_lib.grading`.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .annotations import HINTS, effective

__all__ = [
    "DEFENCE_HINTS",
    "HONEST_4B",
    "LIAR_4B",
    "PARTS",
    "SCENARIOS",
    "SCENARIOS_3",
    "STATEMENTS",
    "STATEMENT_HINTS",
    "TODO",
    "USER_APPROVES_DOMAINS",
    "CheckResult",
    "NotAttempted",
    "Outcome",
    "Part",
    "check",
    "contains_todo",
    "judge_defence",
    "predict_hint",
    "prompts",
    "run_defence",
    "scenario_hint",
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

STATEMENT_HINTS = {
    "a": "that is the definition of idempotentHint in the spec",
    "b": "idempotent says nothing about safety: deleting is idempotent and destructive",
    "c": "deleting what is already deleted changes nothing more (idempotent), but the first delete is permanent",
    "d": "the blog's mapping: idempotentHint: true means safe to retry on failure",
    "e": "destructiveHint and idempotentHint are meaningful only when readOnlyHint is false",
    "f": "idempotence is about the second call; the first one does all the damage",
}
"""Exercise 2c: the rule behind each statement, shown when a learner gets that statement wrong."""

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


def scenario_hint(key: str) -> str:
    """Return the rule that decides exercise 2a's scenario `key` (for feedback on a wrong answer)."""
    _tool, hints, trust = SCENARIOS[key]
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
        outcomes.append(_decision_outcome(label, answer[key], reference_prediction(hints, trust), scenario_hint(key)))
    return outcomes


def predict_hint(hints: Mapping[str, Any] | None, trusted: bool) -> str:
    """Return the rule that decides part 2b's case (declared `hints`, server `trusted` or not)."""
    if not trusted:
        return "an untrusted server's hints are ignored: judge the tool as if it had no annotations"
    if hints is None or not hints:
        return "nothing declared: the pessimistic defaults apply (not read-only, destructive, open world)"
    if hints.get("readOnlyHint") is True:
        return "read-only decides before the call (allow); destructiveHint and idempotentHint mean nothing on a read-only tool"
    return "apply the defaults with effective() (an absent hint is not false), then decide by profile; openWorld decides the output"


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
        outcomes.append(_decision_outcome(label, got, expected, predict_hint(hints, trusted)))
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
            outcomes.append(_fail(f"statement {letter}", f"statement {letter} is {verdict}", STATEMENT_HINTS[letter]))
    return outcomes


# --- exercise 3: break the trifecta -------------------------------------------------------

TRIFECTA_ANSWERS: dict[str, tuple[frozenset[str], ...]] = {
    "private data": (frozenset({"read_note"}), frozenset({"read_note", "list_notes"})),
    "untrusted content": (frozenset({"search_web"}),),
    "external communication": (frozenset({"send_email"}), frozenset({"send_email", "search_web"})),
}
"""Exercise 3a: the accepted sets of tools per leg in lesson 04's session (by what the host knows)."""

_LEG_HINTS = {
    "private data": "which tool hands the model the team's secrets? the hints cannot say: the host knows",
    "untrusted content": "whose output was written by strangers? an open-world read",
    "external communication": "which tool can carry data to an address outside the team?",
}

SCENARIOS_3: dict[str, dict[str, Any]] = {
    "attack": {
        "about": "lesson 04's task: search the VPN status, then mail a colleague (the page carries an injection)",
        "plan": [
            ("search_web", {"query": "vpn outage today"}),
            ("send_email", {"to": "mei@ops.example", "subject": "VPN status", "body": "No outage now; eu-west was down until 09:40."}),
        ],
        "must": "the secret does not leave ops.example, and the colleague still gets the summary",
    },
    "notes_to_colleague": {
        "about": "ordinary work: read the on-call note and mail it to a colleague (no web search)",
        "plan": [
            ("read_note", {"title": "on-call"}),
            ("send_email", {"to": "tom@ops.example", "subject": "on-call", "body": "{{read_note}}"}),
        ],
        "must": "the colleague gets the mail, and nobody is asked (no untrusted content came in)",
        "quiet": True,
    },
}
"""Exercise 3b's visible scenarios: the user's task, and what must hold afterwards.

``"quiet": True`` marks ordinary work before any untrusted content: the user must not be asked at all."""

USER_APPROVES_DOMAINS = frozenset({"ops.example"})
"""How the replayed user answers a confirmation prompt: approve mail to these domains, decline the rest.

This is the user's behaviour, part of the scenario, not a host setting: a defence decides only
*when* the user is asked."""


def _domain(address: Any) -> str:
    return str(address).rsplit("@", 1)[-1].strip().lower() if "@" in str(address) else ""


SESSION_TOOLS = frozenset({"list_notes", "read_note", "search_web", "send_email"})
"""The tools of lesson 04's session."""

_DEFENCE_KEYS = ("auto_approve", "on_taint")
_LEGACY_KEYS = {"approve_domains"}  # older copies of the exercise asked for it; the user's answers are now fixed


def validate_defence(defence: Any) -> tuple[set[str], str | None]:
    """Return (auto_approve, on_taint) from a DEFENCE dict.

    A key ``approve_domains`` from older copies of the exercise is accepted and ignored: how the
    user answers a prompt is part of the scenario (`USER_APPROVES_DOMAINS`), not of the defence.

    Raises:
        ValueError: a missing or extra key, a value of the wrong type, an unknown tool or `on_taint`.
    """
    keys = set(_DEFENCE_KEYS)
    if not isinstance(defence, Mapping) or not keys <= set(defence) or set(defence) - keys - _LEGACY_KEYS:
        got = sorted(defence) if isinstance(defence, Mapping) else type(defence).__name__
        raise ValueError(f"DEFENCE must be a dict with exactly the keys {sorted(keys)}, not {got}")
    value = defence["auto_approve"]
    if not isinstance(value, (set, frozenset, list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"auto_approve must be a set of tool names such as {{'read_note'}} or set(), not {value!r}")
    unknown = sorted(set(value) - SESSION_TOOLS)
    if unknown:
        raise ValueError(f"auto_approve names tools the session does not have: {unknown}; its tools are {sorted(SESSION_TOOLS)}")
    if defence["on_taint"] not in (None, "confirm", "deny"):
        raise ValueError(f"on_taint must be None, 'confirm' or 'deny', not {defence['on_taint']!r}")
    return set(value), defence["on_taint"]


def run_defence(defence: Mapping[str, Any], plan: Any, *, pages: Any = None) -> tuple[list[Any], Any]:
    """Run lesson 04's session (private notes, web search, mailer) under a host defence.

    `defence` holds ``auto_approve`` (tools the user chose to always allow) and ``on_taint``
    (None, "confirm" or "deny"). At a confirmation prompt the replayed user approves mail to
    `USER_APPROVES_DOMAINS` only. Returns the mailer's outbox and the transcript.
    Runs on its own thread, so it works inside a notebook's running event loop too.

    Raises:
        ValueError: a malformed defence (unknown tool, unknown `on_taint`, ...).
    """
    import asyncio
    import tempfile
    from concurrent.futures import ThreadPoolExecutor

    from .agent import ScriptedAgent, open_session
    from .policy import SPEC, Trust
    from .servers import build
    from .session import SessionGuard

    auto_approve, on_taint = validate_defence(defence)

    async def scenario(folder: str) -> tuple[list[Any], Any]:
        servers = {
            "private-notes": build("private-notes", root=f"{folder}/notes"),
            "web-search": build("web-search", root=f"{folder}/web", **({} if pages is None else {"pages": pages})),
            "mailer": build("mailer", root=f"{folder}/mail"),
        }
        async with open_session(servers) as session:
            guard = SessionGuard(
                session.analyse(), policy=SPEC, trust=Trust.TRUSTED, auto_approve=set(auto_approve), on_taint=on_taint
            )
            transcript = await ScriptedAgent(plan).run(
                session, guard, approve=lambda step: _domain(step.arguments.get("to")) in USER_APPROVES_DOMAINS
            )
        return list(servers["mailer"].outbox), transcript

    with tempfile.TemporaryDirectory(prefix="course-defence-") as folder, ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, scenario(folder)).result(timeout=60)


def leaked(outbox: list[Any], secret: str) -> bool:
    """True if a message carrying `secret` went to an address outside ops.example."""
    return any(secret in m.body and _domain(m.to) != "ops.example" for m in outbox)


def delivered(outbox: list[Any], to: str) -> bool:
    """True if a message reached `to`."""
    return any(m.to == to for m in outbox)


def prompts(transcript: Any) -> int:
    """Return how many times the user was asked to confirm a call in a run."""
    return transcript.count("confirm → approved") + transcript.count("confirm → declined")


DEFENCE_HINTS = {
    "invalid": "keep the stub's two keys and give each the kind of value its comment asks for",
    "leak": "an auto-approved send_email plus untrusted content is lesson 04's hole: once untrusted content has "
    "arrived, mail must need the user (on_taint), even if the user chose \"always allow\"",
    "blocked": "blocking every mail after a web search stops colleagues' mail too: ask the user instead, "
    "who approves colleagues and declines strangers",
    "asked": "asking before every mail, with no untrusted content in the session, trains users to click yes "
    "(confirmation fatigue): let ordinary mail run, and let taint bring the prompt back",
}
"""Exercise 3b: the rule behind each kind of failure (`judge_defence`'s first value)."""


def judge_defence(
    defence: Mapping[str, Any], plan: Any, *, pages: Any = None, colleague: str | None = None, quiet: bool = False
) -> tuple[str, str] | None:
    """Return None if `defence` passes a replay of `plan`, else (kind, what went wrong).

    The kinds (keys of `DEFENCE_HINTS`): "invalid" (malformed defence), "leak" (the secret left
    ops.example), "blocked" (the mail to `colleague` was not sent), "asked" (with `quiet`: the user
    was asked during ordinary work).
    """
    from .servers.private_notes import SECRET

    try:
        outbox, transcript = run_defence(defence, plan, pages=pages)
    except ValueError as exc:
        return "invalid", str(exc)
    if leaked(outbox, SECRET):
        return "leak", "the secret left the team: the attack still works"
    if colleague and not delivered(outbox, colleague):
        return "blocked", f"the mail to {colleague} was not sent: the defence stops ordinary work"
    asked = prompts(transcript)
    if quiet and asked:
        times = "once" if asked == 1 else f"{asked} times"
        return "asked", f"the user was asked {times} during ordinary work with no untrusted content: confirmation fatigue"
    return None


def judge_scenario(
    key: str, defence: Mapping[str, Any], plan: Any, *, pages: Any = None, colleague: str | None = None, quiet: bool = False
) -> str | None:
    """Return None if `defence` passes scenario `key`'s replay, else what went wrong (see `judge_defence`)."""
    problem = judge_defence(defence, plan, pages=pages, colleague=colleague, quiet=quiet)
    return None if problem is None else problem[1]


def _check_3a(answer: Any) -> list[Outcome]:
    if not isinstance(answer, Mapping):
        return [_fail("LEGS", f"expected a dict of leg -> set of tool names, got {type(answer).__name__}")]
    leg = "untrusted content"
    if leg not in answer:
        return [_fail(leg, f"no entry for {leg!r}", "keep the three legs of the stub as keys")]
    value = answer[leg]
    if value is TODO:
        return [_todo(leg)]
    names = _as_name_set(value)
    if names is None:
        return [_fail(leg, f"expected a set of tool names, got {value!r}")]
    if frozenset(names) in TRIFECTA_ANSWERS[leg]:
        return [_pass(leg)]
    return [_fail(leg, f"not {sorted(names)}", _LEG_HINTS[leg])]


def _check_3b(answer: Any) -> list[Outcome]:
    if isinstance(answer, Mapping) and contains_todo(answer):
        return [_todo(key) for key in SCENARIOS_3]
    try:
        validate_defence(answer)
    except ValueError as exc:
        return [_fail("DEFENCE", str(exc), DEFENCE_HINTS["invalid"])]
    outcomes = []
    for key, scenario in SCENARIOS_3.items():
        colleague = scenario["plan"][-1][1]["to"]
        try:
            problem = judge_defence(answer, scenario["plan"], colleague=colleague, quiet=scenario.get("quiet", False))
        except Exception as exc:  # noqa: BLE001 - reported as a failed check
            outcomes.append(_crash(key, exc))
            continue
        if problem is None:
            outcomes.append(_pass(f"{key}: {scenario['must']}"))
        else:
            kind, message = problem
            outcomes.append(_fail(key, message, DEFENCE_HINTS[kind]))
    return outcomes


# --- exercise 4: catch the liar ---------------------------------------------------------------


def _effects(*specs: tuple[str, str, bool]) -> list[Any]:
    from .audit import SideEffect

    return [SideEffect(kind, target, "observed", destructive) for kind, target, destructive in specs]


_4A_VISIBLE = [
    ("declared read-only, created a file", {"readOnlyHint": True, "openWorldHint": False}, (("created", "logs/summary.txt", False),)),
    ("declared additive, a file grew", {"readOnlyHint": False, "destructiveHint": False}, (("modified", "notes.txt", False),)),
    ("declared destructive, deleted a file", {"readOnlyHint": False, "destructiveHint": True}, (("deleted", "logs/app.log.1", True),)),
]


def reference_contradiction(annotations: Any, effects: list[Any]) -> bool:
    """Reference for part 4a: do these side effects contradict the declared hints?"""
    from .audit import check_behaviour

    return check_behaviour(annotations, effects) is not None


def _check_4a(answer: Any) -> list[Outcome]:
    if not callable(answer):
        return [_fail("contradiction", f"expected a function, got {type(answer).__name__}")]
    outcomes = []
    for label, hints, specs in _4A_VISIBLE:
        effects = _effects(*specs)
        try:
            got = answer(dict(hints), list(effects))
        except (Exception, SystemExit) as exc:
            outcomes.append(_crash(label, exc))
            continue
        expected = reference_contradiction(hints, effects)
        if got is not None and not (isinstance(got, str) and got.strip()):
            outcomes.append(_fail(label, f"return None or a sentence, not {got!r}", "e.g. 'declared read-only, but it created logs/summary.txt'"))
        elif (got is not None) == expected:
            outcomes.append(_pass(label))
        elif expected:
            outcomes.append(_fail(label, "a lie went unnoticed (you returned None)", "a read-only tool may change nothing at all; an additive one may not remove or overwrite"))
        else:
            outcomes.append(_fail(label, f"a false alarm: {got!r}", "only a declared promise can be broken: absent or destructive hints promise nothing"))
    return outcomes


LIAR_4B = "log-tidy/tidy_logs"
"""Exercise 4b: the one tool in `CALLS` whose calls contradict its declared hints."""

HONEST_4B = frozenset(
    {
        "annotated-file-ops/append_text",
        "annotated-file-ops/read_file",
        "annotated-file-ops/set_value",
        "annotated-file-ops/delete_file",
        "log-tidy/disk_usage",
    }
)
"""Exercise 4b: the tools in `CALLS` that keep every promise they declare."""


def _check_4b(answer: Any) -> list[Outcome]:
    if answer is TODO:
        return [_todo("LIARS")]
    names = _as_name_set(answer)
    if names is None:
        return [_fail("LIARS", f"expected a set of 'server/tool' names, got {answer!r}", "e.g. {'some-server/some_tool'}")]
    outcomes = []
    caught = "the lying tool is caught"
    if LIAR_4B in names:
        outcomes.append(_pass(caught))
    elif not names:
        outcomes.append(
            _fail(
                caught,
                "LIARS is empty",
                "run every call of CALLS through observe_calls and your contradiction(); if a lesson-05 tool "
                "deleted logs, your contradiction() missed a broken read-only promise (check part 4a)",
            )
        )
    else:
        outcomes.append(
            _fail(caught, "the tool that deletes while declaring read-only is not in your set", "a read-only promise is broken by any change at all")
        )
    accused = sorted(names & HONEST_4B)
    unknown = sorted(names - HONEST_4B - {LIAR_4B})
    label = "no honest tool is accused"
    if accused:
        outcomes.append(
            _fail(
                label,
                f"false alarm: {accused} kept every promise they declared",
                "only a declared promise can be broken: appending adds (additive), setting a value is an idempotent "
                "write, and delete_file declares destructiveHint: true, so its delete breaks nothing",
            )
        )
    elif unknown:
        outcomes.append(_fail(label, f"{unknown} are not tools called in CALLS", "use the 'server/tool' names of CALLS"))
    else:
        outcomes.append(_pass(label))
    return outcomes


def _check_2d(answer: Any) -> list[Outcome]:
    from .rules_exercise import RULE_CASES, parse_answer

    try:
        rules = parse_answer(answer)
    except ValueError as exc:
        return [_fail("RULES is a valid set of rules", str(exc), "write each rule as mcp__file-ops__TOOL")]
    outcomes = []
    for case in (c for c in RULE_CASES if c.visible):
        problem = case.judge(rules)
        outcomes.append(_pass(case.label) if problem is None else _fail(case.label, problem, case.hint))
    return outcomes


PARTS: dict[str, Part] = {
    "1a": Part("1a", "annotate the tools by behaviour", _check_1a, "replace each TODO with ToolAnnotations(...)"),
    "1b": Part("1b", "untrusted output", _check_1b, "write the body of untrusted_outputs"),
    "2a": Part("2a", "predict the reference client", _check_2a, "replace each TODO with a (before, after) pair"),
    "2b": Part("2b", "the reference client as a function", _check_2b, "write the body of predict"),
    "2c": Part("2c", "idempotent is not safe", _check_2c, "replace TODO with the set of true statements"),
    "2d": Part("2d", "rules over hints", _check_2d, "replace TODO with a dict of allow, ask and deny lists"),
    "3a": Part("3a", "find the trifecta", _check_3a, "replace each TODO with a set of tool names"),
    "3b": Part("3b", "a defence that keeps the work", _check_3b, "replace each TODO in DEFENCE"),
    "4a": Part("4a", "the side-effect check", _check_4a, "write the body of contradiction"),
    "4b": Part("4b", "catch the liar", _check_4b, "replace TODO with the set of lying tools"),
}
"""The exercise parts with visible checks, by id ("1a", "2b", ...)."""


# --- the entry point ------------------------------------------------------------------------


@dataclass(frozen=True)
class CheckResult:
    """What `check` found: "passed", "failed" or "not attempted", with each visible case's outcome.

    True in an `if` only when every visible check passed. It shows nothing in a notebook
    (the printed report is the display), so a check cell needs no trailing semicolon.
    """

    part: str
    status: str
    outcomes: tuple[Outcome, ...] = ()

    def __bool__(self) -> bool:
        return self.status == "passed"

    def _ipython_display_(self) -> None:
        pass


def _report(part: Part, outcomes: list[Outcome]) -> CheckResult:
    passed = sum(o.status == "pass" for o in outcomes)
    failed = [o for o in outcomes if o.status == "fail"]
    todo = [o for o in outcomes if o.status == "not attempted"]
    total = len(outcomes)
    head = f"Part {part.id} ({part.title})"
    if todo and not passed and not failed:
        print(f"⏳ {head}: not attempted yet. To start: {part.not_attempted_help}, then run this cell again.")
        return CheckResult(part.id, "not attempted", tuple(outcomes))
    if failed:
        print(f"❌ {head}: {len(failed)} of {total} visible checks failed.")
    elif todo:
        print(f"⏳ {head}: {passed} of {total} visible checks passed; {len(todo)} not attempted yet.")
    else:
        print(f"✅ {head}: {passed} of {total} visible checks passed.")
        print("   The instructor's grader runs more cases than these: re-read the task before you hand it in.")
        return CheckResult(part.id, "passed", tuple(outcomes))
    for outcome in outcomes:
        if outcome.status == "pass":
            print(f"   ✓ {outcome.label}")
        elif outcome.status == "not attempted":
            print(f"   … {outcome.label}: not attempted yet")
        else:
            print(f"   ✗ {outcome.label}: {outcome.message}")
            if outcome.hint:
                print(f"     Hint: {outcome.hint}.")
    return CheckResult(part.id, "failed" if failed else "not attempted", tuple(outcomes))


def check(part: str, answer: Any) -> CheckResult:
    """Run the visible checks of one exercise part on `answer`, print the result and return it.

    The result's `status` is "passed" when every visible check passed, "failed" when one
    failed, "not attempted" when the part is not attempted yet (or only partly). Never
    raises: a crash in the learner's code, or a wrong part id, is printed as a failure.
    """
    try:
        spec = PARTS.get(str(part).strip().lower())
        if spec is None:
            print(f"❌ There is no exercise part {part!r}; the parts are {', '.join(PARTS)}.")
            return CheckResult(str(part), "failed")
        if answer is TODO:
            return _report(spec, [_todo(spec.id)])
        try:
            outcomes = spec.run(answer)
        except (Exception, SystemExit) as exc:
            outcomes = [_crash(spec.id, exc)]
        return _report(spec, outcomes)
    except Exception as exc:  # noqa: BLE001 - a self-check must never crash a learner's notebook
        print(f"❌ The check itself failed ({type(exc).__name__}: {exc}); please tell your instructor.")
        return CheckResult(str(part), "failed")
