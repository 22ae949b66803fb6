"""Exercise 5, "Your own server": the visible checks of its annotations and of its behaviour.

Part 5a lists the learner's tools: at least two, each annotated, none with a finding of
`python -m course_lib inspect`'s annotation check. Part 5b runs every tool twice in a fresh
sandbox (`course_lib.observation.run_tools`) and judges its hints against what it did.

Introduced in: exercises/05_your_own_server.ipynb
"""

from __future__ import annotations

from typing import Any

from ..checks import TODO, Mark, Part, failed, not_attempted, passed
from ..lint import check_annotations
from ..observation import behaviour_problems, run_tools
from .content import MIN_OWN_TOOLS

__all__ = ["PARTS"]

_START = "write two or three tools in my_server.py, run its cell and the import cell again"


def _check_5a(answer: Any) -> list[Mark]:
    if not callable(answer):
        return [failed("build_server", f"expected a function, got {type(answer).__name__}")]
    runs = run_tools(answer, {})  # NotAttempted while the server has no tools
    marks = [
        passed("two or more tools")
        if len(runs) >= MIN_OWN_TOOLS
        else failed("two or more tools", "your server has one tool", "add one or two more")
    ]
    for run in runs:
        if run.annotations is None:
            marks.append(
                failed(
                    run.tool,
                    "it has no annotations",
                    "add annotations=ToolAnnotations(...) to @server.tool",
                )
            )
            continue
        findings = check_annotations({"name": run.tool, "annotations": run.annotations})
        marks += [
            failed(run.tool, f"[{f.severity}] {f.message}", f"fix {f.field}") for f in findings
        ]
        if not findings:
            marks.append(passed(f"{run.tool}: annotated, no finding"))
    return marks


def _check_5b(answer: Any) -> list[Mark]:
    if not (isinstance(answer, tuple) and len(answer) == 2):
        return [
            failed(
                "5b",
                f"expected (my_server.build_server, EXAMPLES), got {type(answer).__name__}",
            )
        ]
    build, examples = answer
    if examples is TODO:
        return [not_attempted("EXAMPLES")]
    runs = run_tools(build, examples)
    marks = []
    for run in runs:
        problems = behaviour_problems(run)
        marks += [failed(run.tool, problem, hint) for _, problem, hint in problems]
        if not problems:
            marks.append(passed(f"{run.tool}: its hints match what it did"))
    return marks


PARTS = (
    Part("5a", "your server's annotations", _check_5a, _START, "checks"),
    Part(
        "5b",
        "annotations against behaviour",
        _check_5b,
        "replace TODO with one example call per tool",
        "checks",
    ),
)
