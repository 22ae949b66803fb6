"""Hidden cases of exercise 4, "Catch the liar" (exercises/04_catch_the_liar.ipynb)."""

from __future__ import annotations

from typing import Any

from course_lib.audit import SideEffect, check_behaviour
from course_lib.exercises.content import HONEST_TOOLS, LIAR
from course_lib.feedback import contradiction_hint
from course_lib.i18n import N_
from course_lib.phrase import Phrase

from ..cases import Case, Exercise
from ._common import canonical_names

# (id, label, declared hints or None, effects as (kind, target, destructive))
CONTRADICTION_INPUTS = [
    (
        "ro_nothing",
        N_("read-only tool that changed nothing"),
        {"readOnlyHint": True, "openWorldHint": False},
        [],
    ),
    (
        "ro_created",
        N_("read-only tool that created a file"),
        {"readOnlyHint": True},
        [("created", "cache/index.json", False)],
    ),
    (
        "ro_rows_added",
        N_("read-only tool that added table rows"),
        {"readOnlyHint": True, "openWorldHint": False},
        [("db-write", "ops.db:audit", False)],
    ),
    (
        "additive_grew",
        N_("additive tool that appended to a file"),
        {"readOnlyHint": False, "destructiveHint": False},
        [("modified", "notes.txt", False)],
    ),
    (
        "additive_deleted",
        N_("additive tool that deleted a file"),
        {"readOnlyHint": False, "destructiveHint": False, "openWorldHint": False},
        [("created", "a.txt", False), ("deleted", "b.txt", True)],
    ),
    (
        "additive_rows_removed",
        N_("additive tool that removed table rows"),
        {"readOnlyHint": False, "destructiveHint": False},
        [("db-write", "ops.db:incidents", True)],
    ),
    (
        "destructive_deleted",
        N_("destructive tool that deleted a file"),
        {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True},
        [("deleted", "logs/app.log.1", True)],
    ),
    (
        "unannotated_deleted",
        N_("tool without annotations that deleted a file"),
        None,
        [("deleted", "logs/app.log.2", True)],
    ),
    (
        "only_not_destructive",
        N_("only destructiveHint false declared, a file shrank"),
        {"destructiveHint": False},
        [("modified", "report.txt", True)],
    ),
    (
        "additive_overwrote",
        N_("additive tool that overwrote a file in place"),
        {"readOnlyHint": False, "destructiveHint": False, "openWorldHint": False},
        [("modified", "config/limits.yaml", True)],
    ),
    (
        "ro_grew",
        N_("read-only tool that appended to a log"),
        {"readOnlyHint": True, "openWorldHint": False},
        [("modified", "logs/access.log", False)],
    ),
    (
        "additive_created",
        N_("additive tool that created a file and a table"),
        {"readOnlyHint": False, "destructiveHint": False},
        [("created", "new.txt", False), ("db-write", "ops.db:notes", False)],
    ),
]


def _effects_source(effects: list[tuple[str, str, bool]]) -> str:
    make = "__import__('course_lib.audit', fromlist=['SideEffect']).SideEffect"
    return "[" + ", ".join(f"{make}({k!r}, {t!r}, 'observed', {d!r})" for k, t, d in effects) + "]"


def _contradiction_judge(hints: dict[str, Any] | None, effects: list[tuple[str, str, bool]]):
    expected = (
        check_behaviour(hints, [SideEffect(k, t, "observed", d) for k, t, d in effects]) is not None
    )

    def judge(value: Any) -> tuple[Phrase, Phrase] | Phrase | None:
        if value is not None and not (isinstance(value, str) and value.strip()):
            return Phrase(N_("returned neither None nor a sentence"))
        found = value is not None
        if found == expected:
            return None
        said = Phrase(N_("missed a lie")) if expected else Phrase(N_("false alarm"))
        return said, contradiction_hint(hints, expected)

    return judge


def _liar_caught(value: Any) -> Phrase | None:
    if LIAR in canonical_names(value):
        return None
    return Phrase(N_("the lying tool is not in LIARS"))


def _no_false_alarm(value: Any) -> Phrase | None:
    names = canonical_names(value)
    if not names:
        return Phrase(N_("LIARS is empty"))
    wrong = names - {LIAR}
    if not wrong:
        return None
    # Shown to the learner: only the session's own tool names, never the answer's other text.
    honest = sorted(wrong & HONEST_TOOLS)
    others = len(wrong) - len(honest)
    named = str(honest)
    if not others:
        return Phrase(N_("false alarms: {named}"), named=named)
    if not honest:
        return Phrase.counted(
            "false alarms and {n} name that no tool of the session has",
            "false alarms and {n} names that no tool of the session has",
            others,
        )
    return Phrase.counted(
        "false alarms: {named} and {n} name that no tool of the session has",
        "false alarms: {named} and {n} names that no tool of the session has",
        others,
        named=named,
    )


CASES = [
    Case(
        id=f"4a.{case_id}",
        label=Phrase(N_("contradiction: {label}"), label=Phrase(label)),
        target="contradiction",
        expr=f"contradiction({hints!r}, {_effects_source(effects)})",
        judge=_contradiction_judge(hints, effects),
        points=0.5,
        hint=Phrase(
            N_(
                "only a declared promise can be broken: read-only promises no change, additive "
                "promises no removal or overwrite"
            )
        ),
        show_detail=True,  # "missed a lie" or "false alarm": names no input
    )
    for case_id, label, hints, effects in CONTRADICTION_INPUTS
] + [
    Case(
        "4b.liar_caught",
        Phrase(N_("the lying tool is caught")),
        "LIARS",
        "LIARS",
        _liar_caught,
        2.0,
        Phrase(N_("a tool that deletes while declaring read-only")),
        show_detail=True,
    ),
    Case(
        "4b.no_false_alarm",
        Phrase(N_("no honest tool is accused")),
        "LIARS",
        "LIARS",
        _no_false_alarm,
        2.0,
        Phrase(N_("appending, setting and declared deletes break no promise")),
        show_detail=True,
    ),
]

EXERCISE = Exercise(id="04_catch_the_liar", title=N_("Exercise 4 · Catch the liar"), cases=CASES)
