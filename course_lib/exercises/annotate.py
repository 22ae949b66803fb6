"""Exercise 1, "Annotate the assistant's tools": the visible checks (the eight tools and their
answers are in `course_lib.exercises.content`).

Part 1a checks every tool's effective hints; part 1b runs the learner's function on a tool
for each of the 82 ways to annotate one (81 combinations, and no annotations at all).

Introduced in: exercises/01_annotate_tools.ipynb
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp.types import ToolAnnotations

from ..annotations import HINTS, AnnotationsLike, effective
from ..checks import (
    TODO,
    Mark,
    Part,
    crashed,
    failed,
    name_set,
    not_attempted,
    passed,
    show,
)
from ..combinations import all_combinations, combination_label
from ..i18n import N_
from ..i18n import gettext_ as _
from .content import EXPECTED_HINTS

__all__ = ["PARTS", "compare_hints", "hint_states", "untrusted_by_hints"]

_HINT_RULES = {
    "readOnlyHint": N_(
        "a tool that only looks (reads, queries, searches) declares "
        "read_only_hint=True; "
        "absent means false, so the client treats it as a write"
    ),
    "destructiveHint": N_(
        "destructive_hint=False only if the tool never deletes or overwrites "
        "anything (replacing a running version overwrites it); absent means true"
    ),
    "idempotentHint": N_(
        "idempotent_hint=True only if repeating the same call changes nothing more; "
        "appending twice adds twice, so appending is not idempotent; absent means false"
    ),
    "openWorldHint": N_(
        "open_world_hint=True when the tool reaches beyond the team's own systems "
        "(the web, customers); declare False for closed ones, because absent means true"
    ),
}


def compare_hints(label: str, annotations: AnnotationsLike, expected: Mapping[str, Any]) -> Mark:
    """Compare one tool's annotations with the expected effective values (wire names)."""
    if annotations is TODO:
        return not_attempted(label)
    try:
        got = effective(annotations).as_wire()
    except ValueError as exc:
        return failed(
            label, str(exc), _("use ToolAnnotations(read_only_hint=..., ...) with True or False")
        )
    wrong = [h for h in HINTS if got[h] != expected[h]]
    if not wrong:
        return passed(label)
    details = _("; ").join(
        _("{hint}: expected {expected}, your annotations give {got}").format(
            hint=h, expected=show(expected[h]), got=show(got[h])
        )
        for h in wrong
    )
    return failed(label, details, _(_HINT_RULES[wrong[0]]))


def _check_1a(answer: Any) -> list[Mark]:
    if not isinstance(answer, Mapping):
        return [
            failed(
                "ANNOTATIONS",
                _("expected a dict of tool name -> ToolAnnotations, got {type}").format(
                    type=type(answer).__name__
                ),
            )
        ]
    outcomes = []
    for name, expected in EXPECTED_HINTS.items():
        if name not in answer:
            outcomes.append(
                failed(
                    name,
                    _("no entry for {name}").format(name=repr(name)),
                    _("keep every tool name of the stub"),
                )
            )
        else:
            outcomes.append(compare_hints(name, answer[name], expected))
    extra = sorted(str(k) for k in answer if k not in EXPECTED_HINTS)
    if extra:
        outcomes.append(
            failed(
                "ANNOTATIONS", _("tools the exercise does not have: {extra}").format(extra=extra)
            )
        )
    return outcomes


def untrusted_by_hints(annotations: Mapping[str, Any]) -> set[str]:
    """Reference for part 1b: the tools whose output a host treats as untrusted content."""
    return {name for name, value in annotations.items() if effective(value).open_world}


def hint_states() -> list[tuple[str, dict[str, bool] | None]]:
    """Return the 82 ways to annotate one tool: (label, wire dict without absent hints, or None)."""
    states: list[tuple[str, dict[str, bool] | None]] = [(_("no annotations at all"), None)]
    for combo in all_combinations():
        present = {h: v for h, v in combo.items() if v is not None}
        states.append((combination_label(combo), present))
    return states


def _check_1b(answer: Any) -> list[Mark]:
    if not callable(answer):
        return [
            failed(
                "untrusted_outputs",
                _("expected a function, got {type}").format(type=type(answer).__name__),
            )
        ]
    no_tools, all_tools = _("no tools at all"), _("82 tools, one per way to annotate")
    tools = {
        f"tool_{n:02}": (None if hints is None else ToolAnnotations.model_validate(hints))
        for n, (_label, hints) in enumerate(hint_states(), start=1)
    }
    labels = {f"tool_{n:02}": label for n, (label, _hints) in enumerate(hint_states(), start=1)}
    outcomes = []
    try:
        empty = answer({})
    except (Exception, SystemExit) as exc:  # a learner's bug is a failed check, not a crash
        return [crashed(no_tools, exc)]
    got_empty = name_set(empty)
    if got_empty is None:
        return [
            failed(
                no_tools,
                _("expected a set of tool names, got {value}").format(value=repr(empty)),
                _("return e.g. set()"),
            )
        ]
    outcomes.append(
        passed(no_tools)
        if not got_empty
        else failed(no_tools, _("got {value}").format(value=sorted(got_empty)))
    )
    try:
        got = answer(dict(tools))
    except (Exception, SystemExit) as exc:
        return [*outcomes, crashed(all_tools, exc)]
    names = name_set(got)
    if names is None:
        return [
            *outcomes,
            failed(
                all_tools, _("expected a set of tool names, got {value}").format(value=repr(got))
            ),
        ]
    expected = untrusted_by_hints(tools)
    for name, label in labels.items():
        tag = _("a tool with {label}").format(label=label)
        if (name in names) == (name in expected):
            outcomes.append(passed(tag))
        else:
            said = (
                _("its output is untrusted, your function says the opposite")
                if name in expected
                else _("its output is trusted (closed world), your function says the opposite")
            )
            outcomes.append(
                failed(
                    tag,
                    said,
                    _(
                        "output is untrusted when the effective openWorldHint is true, and an "
                        "absent openWorldHint means true: use effective(annotations).open_world"
                    ),
                )
            )
    unknown = sorted(names - set(tools))
    if unknown:
        outcomes.append(
            failed(all_tools, _("names that were not passed in: {names}").format(names=unknown[:3]))
        )
    return outcomes


PARTS = (
    Part(
        "1a",
        N_("annotate the tools by behaviour"),
        _check_1a,
        N_("replace each TODO with ToolAnnotations(...)"),
        N_("tools"),
    ),
    Part(
        "1b",
        N_("untrusted output"),
        _check_1b,
        N_("write the body of untrusted_outputs"),
        N_("inputs"),
    ),
)
