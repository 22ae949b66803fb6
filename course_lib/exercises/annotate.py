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
from .content import EXPECTED_HINTS

__all__ = ["PARTS", "compare_hints", "hint_states", "untrusted_by_hints"]

_HINT_RULES = {
    "readOnlyHint": "a tool that only looks (reads, queries, searches) declares "
    "read_only_hint=True; "
    "absent means false, so the client treats it as a write",
    "destructiveHint": "destructive_hint=False only if the tool never deletes or overwrites "
    "anything (replacing a running version overwrites it); absent means true",
    "idempotentHint": "idempotent_hint=True only if repeating the same call changes nothing more; "
    "appending twice adds twice, so appending is not idempotent; absent means false",
    "openWorldHint": "open_world_hint=True when the tool reaches beyond the team's own systems "
    "(the web, customers); declare False for closed ones, because absent means true",
}


def compare_hints(label: str, annotations: AnnotationsLike, expected: Mapping[str, Any]) -> Mark:
    """Compare one tool's annotations with the expected effective values (wire names)."""
    if annotations is TODO:
        return not_attempted(label)
    try:
        got = effective(annotations).as_wire()
    except ValueError as exc:
        return failed(
            label, str(exc), "use ToolAnnotations(read_only_hint=..., ...) with True or False"
        )
    wrong = [h for h in HINTS if got[h] != expected[h]]
    if not wrong:
        return passed(label)
    details = "; ".join(
        f"{h}: expected {show(expected[h])}, your annotations give {show(got[h])}" for h in wrong
    )
    return failed(label, details, _HINT_RULES[wrong[0]])


def _check_1a(answer: Any) -> list[Mark]:
    if not isinstance(answer, Mapping):
        return [
            failed(
                "ANNOTATIONS",
                f"expected a dict of tool name -> ToolAnnotations, got {type(answer).__name__}",
            )
        ]
    outcomes = []
    for name, expected in EXPECTED_HINTS.items():
        if name not in answer:
            outcomes.append(
                failed(name, f"no entry for {name!r}", "keep every tool name of the stub")
            )
        else:
            outcomes.append(compare_hints(name, answer[name], expected))
    extra = sorted(str(k) for k in answer if k not in EXPECTED_HINTS)
    if extra:
        outcomes.append(failed("ANNOTATIONS", f"tools the exercise does not have: {extra}"))
    return outcomes


def untrusted_by_hints(annotations: Mapping[str, Any]) -> set[str]:
    """Reference for part 1b: the tools whose output a host treats as untrusted content."""
    return {name for name, value in annotations.items() if effective(value).open_world}


def hint_states() -> list[tuple[str, dict[str, bool] | None]]:
    """Return the 82 ways to annotate one tool: (label, wire dict without absent hints, or None)."""
    states: list[tuple[str, dict[str, bool] | None]] = [("no annotations at all", None)]
    for combo in all_combinations():
        present = {h: v for h, v in combo.items() if v is not None}
        states.append((combination_label(combo), present))
    return states


def _check_1b(answer: Any) -> list[Mark]:
    if not callable(answer):
        return [failed("untrusted_outputs", f"expected a function, got {type(answer).__name__}")]
    tools = {
        f"tool_{n:02}": (None if hints is None else ToolAnnotations.model_validate(hints))
        for n, (_label, hints) in enumerate(hint_states(), start=1)
    }
    labels = {f"tool_{n:02}": label for n, (label, _) in enumerate(hint_states(), start=1)}
    outcomes = []
    try:
        empty = answer({})
    except (Exception, SystemExit) as exc:  # a learner's bug is a failed check, not a crash
        return [crashed("no tools at all", exc)]
    got_empty = name_set(empty)
    if got_empty is None:
        return [
            failed(
                "no tools at all",
                f"expected a set of tool names, got {empty!r}",
                "return e.g. set()",
            )
        ]
    outcomes.append(
        passed("no tools at all")
        if not got_empty
        else failed("no tools at all", f"got {sorted(got_empty)}")
    )
    try:
        got = answer(dict(tools))
    except (Exception, SystemExit) as exc:
        return [*outcomes, crashed("82 tools, one per way to annotate", exc)]
    names = name_set(got)
    if names is None:
        return [*outcomes, failed("82 tools", f"expected a set of tool names, got {got!r}")]
    expected = untrusted_by_hints(tools)
    for name, label in labels.items():
        tag = f"a tool with {label}"
        if (name in names) == (name in expected):
            outcomes.append(passed(tag))
        else:
            should = "untrusted" if name in expected else "trusted (closed world)"
            outcomes.append(
                failed(
                    tag,
                    f"its output is {should}, your function says the opposite",
                    "output is untrusted when the effective openWorldHint is true, and an absent "
                    "openWorldHint means true: use effective(annotations).open_world",
                )
            )
    unknown = sorted(names - set(tools))
    if unknown:
        outcomes.append(failed("82 tools", f"names that were not passed in: {unknown[:3]}"))
    return outcomes


PARTS = (
    Part(
        "1a",
        "annotate the tools by behaviour",
        _check_1a,
        "replace each TODO with ToolAnnotations(...)",
        "tools",
    ),
    Part("1b", "untrusted output", _check_1b, "write the body of untrusted_outputs", "inputs"),
)
