"""Hidden cases of exercise 1, "Annotate the assistant's tools" (exercises/01_annotate_tools)."""

from __future__ import annotations

from typing import Any

from course_lib.annotations import HINTS, effective
from course_lib.exercises.content import EXPECTED_HINTS
from course_lib.i18n import N_
from course_lib.phrase import Phrase

from ..cases import Case, Exercise
from ._common import annotations_value, canonical_names, wire_call

LABELS = {
    "read_runbook": N_("read_runbook: reads the team's runbooks"),
    "query_incidents": N_("query_incidents: read-only database queries"),
    "append_incident_note": N_("append_incident_note: adds a note"),
    "set_oncall": N_("set_oncall: sets who is on call"),
    "delete_old_logs": N_("delete_old_logs: deletes old logs"),
    "deploy_release": N_("deploy_release: replaces the running version"),
    "search_web": N_("search_web: searches the public web"),
    "post_status_update": N_("post_status_update: posts to the public status page"),
}

HINTS_BY_TOOL = {
    "read_runbook": N_(
        "a tool that only reads declares read_only_hint=True, and a closed one "
        "open_world_hint=False"
    ),
    "query_incidents": N_(
        "a read-only database user makes the tool read-only; the database is the team's own"
    ),
    "append_incident_note": N_(
        "appending never deletes (not destructive) but twice adds twice (not idempotent)"
    ),
    "set_oncall": N_(
        "setting the same value again changes nothing more: idempotent; history is "
        "kept: not destructive"
    ),
    "delete_old_logs": N_(
        "deleting is destructive, and deleting what is gone changes nothing more: idempotent"
    ),
    "deploy_release": N_(
        "replacing the running version overwrites it: destructive; the same version "
        "twice: idempotent"
    ),
    "search_web": N_(
        "reading the public web is read-only and open world: its output is untrusted content"
    ),
    "post_status_update": N_(
        "customers see the post: open world; each call adds a post: additive, not idempotent"
    ),
}


def _tool_judge(tool: str):
    expected = EXPECTED_HINTS[tool]

    def judge(value: Any) -> Phrase | None:
        got = effective(annotations_value(value)).as_wire()
        wrong = tuple(
            Phrase(
                N_("{hint}: expected {expected}, got {got}"),
                hint=h,
                expected=str(expected[h]),
                got=str(got[h]),
            )
            for h in HINTS
            if got[h] != expected[h]
        )
        return Phrase.listing(wrong) if wrong else None

    return judge


# Part 1b: which tools' output must the host treat as untrusted? Inputs stay here.
UNTRUSTED_INPUTS: dict[str, tuple[str, dict[str, Any]]] = {
    "open_and_closed": (
        N_("a closed and an open read-only tool"),
        {
            "search_web": {"readOnlyHint": True, "openWorldHint": True},
            "query_incidents": {"readOnlyHint": True, "openWorldHint": False},
        },
    ),
    "open_world_absent": (N_("openWorldHint left absent"), {"fetch_page": {"readOnlyHint": True}}),
    "no_annotations": (
        N_("a tool with no annotations at all"),
        {
            "mystery_tool": None,
            "append_incident_note": {
                "readOnlyHint": False,
                "destructiveHint": False,
                "openWorldHint": False,
            },
        },
    ),
    "open_world_write": (
        N_("an open-world write next to a closed write"),
        {
            "post_status_update": {
                "readOnlyHint": False,
                "destructiveHint": False,
                "openWorldHint": True,
            },
            "set_oncall": {"idempotentHint": True, "openWorldHint": False},
        },
    ),
    "no_tools": (N_("no tools at all"), {}),
}


def _untrusted_judge(tools: dict[str, Any]):
    expected = {name for name, hints in tools.items() if effective(hints).open_world}

    def judge(value: Any) -> Phrase | None:
        got = canonical_names(value)
        if got == expected:
            return None
        return Phrase(
            N_("expected {expected}, got {got}"),
            expected=str(sorted(expected)),
            got=str(sorted(got)),
        )

    return judge


def _untrusted_expr(tools: dict[str, Any]) -> str:
    items = ", ".join(f"{name!r}: {wire_call(hints)}" for name, hints in tools.items())
    return f"untrusted_outputs({{{items}}})"


CASES = [
    Case(
        id=f"1a.{tool}",
        label=Phrase(LABELS[tool]),
        target="ANNOTATIONS",
        expr=f"ANNOTATIONS[{tool!r}]",
        judge=_tool_judge(tool),
        points=1.0,
        hint=Phrase(HINTS_BY_TOOL[tool]),
    )
    for tool in EXPECTED_HINTS
] + [
    Case(
        id=f"1b.{key}",
        label=Phrase(N_("untrusted_outputs: {label}"), label=Phrase(label)),
        target="untrusted_outputs",
        expr=_untrusted_expr(tools),
        judge=_untrusted_judge(tools),
        points=0.8,
        hint=Phrase(
            N_("output is untrusted when the effective openWorldHint is true; absent means true")
        ),
    )
    for key, (label, tools) in UNTRUSTED_INPUTS.items()
]

EXERCISE = Exercise(
    id="01_annotate_tools", title=N_("Exercise 1 · Annotate the assistant's tools"), cases=CASES
)
