"""Hidden cases of exercise 5, "Your own server" (exercises/05_your_own_server.ipynb).

The probes run the learner's tools in fresh sandboxes inside their kernel
(`course_lib.observation.run_tools`) and bring back plain values: each tool's declared
annotations, the side effects of two identical calls and the network addresses they tried to
reach (refused). The judging happens here: the
annotation check of `inspect` on the declarations, and the spec's meaning of each hint
against what the calls did.
"""

from __future__ import annotations

from typing import Any

from mcp.types import ToolAnnotations

from course_lib.audit import SideEffect
from course_lib.exercises.content import MIN_OWN_TOOLS
from course_lib.i18n import N_
from course_lib.lint import check_annotations
from course_lib.observation import ToolRun, behaviour_problems
from course_lib.phrase import Phrase

from ..cases import Case, Exercise
from ._common import annotations_value

_RUN = "__import__('course_lib.observation', fromlist=['run_tools']).run_tools"
LIST_EXPR = f"[r.as_plain() for r in {_RUN}(my_server.build_server, {{}})]"
RUN_EXPR = f"[r.as_plain() for r in {_RUN}(my_server.build_server, EXAMPLES)]"


def _effects(value: Any) -> tuple[SideEffect, ...]:
    if not isinstance(value, list):
        raise ValueError("expected a list of side effects")
    effects = []
    for item in value:
        if not (isinstance(item, list) and len(item) == 3 and isinstance(item[2], bool)):
            raise ValueError("expected [kind, target, destructive]")
        effects.append(SideEffect(str(item[0]), str(item[1]), "observed", item[2]))
    return tuple(effects)


def _runs(value: Any) -> list[ToolRun]:
    """The probe's plain values as `ToolRun`s (annotations validated as ToolAnnotations)."""
    if not isinstance(value, list):
        raise ValueError("expected a list of tool runs")
    runs = []
    for item in value:
        if not isinstance(item, dict) or not isinstance(item.get("tool"), str):
            raise ValueError("expected a tool run")
        hints = annotations_value(item.get("annotations"))
        annotations = None if hints is None else ToolAnnotations.model_validate(hints)
        error = item.get("error")
        reached = item.get("reached", [])
        if not (isinstance(reached, list) and all(isinstance(r, str) for r in reached)):
            raise ValueError("expected a list of addresses")
        runs.append(
            ToolRun(
                item["tool"],
                annotations,
                _effects(item.get("first", [])),
                _effects(item.get("again", [])),
                error if isinstance(error, str) else None,
                tuple(reached),
            )
        )
    return runs


NO_TOOLS = Phrase(N_("the server has no tools"))


def _two_tools(value: Any) -> Phrase | None:
    count = len(_runs(value))
    if count >= MIN_OWN_TOOLS:
        return None
    return Phrase.counted(
        "the server has {n} tool, not two or three",
        "the server has {n} tools, not two or three",
        count,
    )


def _annotated(value: Any) -> Phrase | None:
    runs = _runs(value)
    if not runs:
        return NO_TOOLS
    bare = [r.tool for r in runs if r.annotations is None]
    if not bare:
        return None
    return Phrase.counted(
        "{n} tool without annotations", "{n} tools without annotations", len(bare)
    )


def _no_findings(value: Any) -> Phrase | None:
    runs = _runs(value)
    if not runs:
        return NO_TOOLS
    findings = [
        f for r in runs for f in check_annotations({"name": r.tool, "annotations": r.annotations})
    ]
    if any(r.annotations is None for r in runs):
        return Phrase(N_("a tool has no annotations"))
    if not findings:
        return None
    return Phrase.counted(
        "{n} finding of inspect left", "{n} findings of inspect left", len(findings)
    )


def _behaviour(field: str):
    def judge(value: Any) -> Phrase | None:
        runs = _runs(value)
        if not runs:
            return NO_TOOLS
        wrong = [
            problem
            for run in runs
            for at, problem, _ in behaviour_problems(run)
            if at in (field, "annotations", "example")
        ]
        if not wrong:
            return None
        return Phrase.counted(
            "{n} tool: {field} disagrees with what it did",
            "{n} tools: {field} disagrees with what it did",
            len(wrong),
            field=field,
        )

    return judge


CASES = [
    Case(
        "5a.two_tools",
        Phrase(N_("the server has two or three tools")),
        "my_server",
        LIST_EXPR,
        _two_tools,
        1.0,
        Phrase(N_("write two or three tools, each under @server.tool(annotations=...)")),
        show_detail=True,
    ),
    Case(
        "5a.annotated",
        Phrase(N_("every tool is annotated")),
        "my_server",
        LIST_EXPR,
        _annotated,
        1.5,
        Phrase(N_("an unannotated tool gets the most cautious defaults and says nothing")),
        show_detail=True,
    ),
    Case(
        "5a.no_findings",
        Phrase(N_("inspect finds nothing to fix")),
        "my_server",
        LIST_EXPR,
        _no_findings,
        1.5,
        Phrase(N_("run python -m course_lib inspect on your server and fix every finding")),
        show_detail=True,
    ),
    Case(
        "5b.read_only",
        Phrase(N_("readOnlyHint matches what each tool changed")),
        "EXAMPLES",
        RUN_EXPR,
        _behaviour("readOnlyHint"),
        1.5,
        Phrase(N_("a call that changes anything is not read-only; one that changes nothing is")),
        show_detail=True,
    ),
    Case(
        "5b.destructive",
        Phrase(N_("destructiveHint matches what each tool removed or overwrote")),
        "EXAMPLES",
        RUN_EXPR,
        _behaviour("destructiveHint"),
        1.5,
        Phrase(N_("removing or overwriting data is destructive; only adding is not")),
        show_detail=True,
    ),
    Case(
        "5b.idempotent",
        Phrase(N_("idempotentHint matches what a second identical call did")),
        "EXAMPLES",
        RUN_EXPR,
        _behaviour("idempotentHint"),
        1.5,
        Phrase(N_("idempotent: the same call again changes nothing more")),
        show_detail=True,
    ),
]

CASES.append(
    Case(
        "5b.open_world",
        Phrase(N_("openWorldHint matches whether each tool reached the network")),
        "EXAMPLES",
        RUN_EXPR,
        _behaviour("openWorldHint"),
        1.5,
        Phrase(
            N_("a tool that reaches outside its folder is open-world; one that stays in it is not")
        ),
        show_detail=True,
    )
)

EXERCISE = Exercise(id="05_your_own_server", title=N_("Exercise 5 · Your own server"), cases=CASES)
