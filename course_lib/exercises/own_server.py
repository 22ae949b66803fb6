"""Exercise 5, "Your own server": the visible checks of its annotations and of its behaviour.

Part 5a lists the learner's tools: at least two, each annotated, none with a finding of
`python -m course_lib inspect`'s annotation check. Part 5b runs every tool twice in a fresh
sandbox (`course_lib.observation.run_tools`) and judges its hints against what it did.

Introduced in: exercises/05_your_own_server.ipynb
"""

from __future__ import annotations

from typing import Any

from ..checks import TODO, Mark, Part, failed, not_attempted, passed
from ..i18n import N_
from ..i18n import gettext_ as _
from ..lint import check_annotations
from ..observation import behaviour_problems, run_tools
from .content import MIN_OWN_TOOLS

__all__ = ["PARTS"]

_START = N_("write two or three tools in my_server.py, run its cell and the import cell again")


def _check_5a(answer: Any) -> list[Mark]:
    if not callable(answer):
        return [
            failed(
                "build_server",
                _("expected a function, got {type}").format(type=type(answer).__name__),
            )
        ]
    runs = run_tools(answer, {})  # NotAttempted while the server has no tools
    label = _("two or more tools")
    marks = [
        passed(label)
        if len(runs) >= MIN_OWN_TOOLS
        else failed(label, _("your server has one tool"), _("add one or two more"))
    ]
    for run in runs:
        if run.annotations is None:
            marks.append(
                failed(
                    run.tool,
                    _("it has no annotations"),
                    _("add annotations=ToolAnnotations(...) to @server.tool"),
                )
            )
            continue
        findings = check_annotations({"name": run.tool, "annotations": run.annotations})
        marks += [
            failed(
                run.tool,
                _("{severity} {message}").format(severity=f.shown_severity, message=f.message),
                _("fix {field}").format(field=f.field),
            )
            for f in findings
        ]
        if not findings:
            marks.append(passed(_("{tool}: annotated, no finding").format(tool=run.tool)))
    return marks


def _check_5b(answer: Any) -> list[Mark]:
    if not (isinstance(answer, tuple) and len(answer) == 2):
        return [
            failed(
                "5b",
                _("expected (my_server.build_server, EXAMPLES), got {type}").format(
                    type=type(answer).__name__
                ),
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
            marks.append(passed(_("{tool}: its hints match what it did").format(tool=run.tool)))
    return marks


PARTS = (
    Part("5a", N_("your server's annotations"), _check_5a, _START, N_("checks")),
    Part(
        "5b",
        N_("annotations against behaviour"),
        _check_5b,
        N_("replace TODO with one example call per tool"),
        N_("checks"),
    ),
)
