"""Each exercise's content and visible checks, one module per exercise, and `check()`.

`check("1a", ANNOTATIONS)` runs part 1a's visible checks (see `course_lib.checks` for what it
prints). The modules: `annotate` (exercise 1), `predict` (2), `trifecta` (3), `liar` (4),
`own_server` (5), `recap` (the closing questions of lesson 06), and
`content`: the tools, scenarios and answers an exercise shows, which the grader's hidden cases
import too (they import no other module of the self-check, and keep their own inputs).

Introduced in: exercises/01_annotate_tools.ipynb; used by every exercise.
"""

from __future__ import annotations

from typing import Any

from ..checks import CheckResult, Part, Status, run_part
from ..i18n import gettext_ as _
from . import annotate, liar, own_server, predict, recap, trifecta

__all__ = ["PARTS", "check"]

PARTS: dict[str, Part] = {
    part.id: part
    for module in (annotate, predict, trifecta, liar, own_server, recap)
    for part in module.PARTS
}
"""The exercise parts with visible checks, by id ("1a", "2b", ...), and lesson 06's "recap"."""


def check(part: str, answer: Any) -> CheckResult:
    """Run the visible checks of one exercise part on `answer`, print the result and return it.

    The result's `status` is `Status.PASSED` when every visible check passed, `Status.FAILED`
    when one failed, `Status.NOT_ATTEMPTED` when the part is not attempted yet (or only partly).
    Never raises: a crash in the learner's code, or a wrong part id, is printed as a failure.
    """
    try:
        spec = PARTS.get(str(part).strip().lower())
        if spec is None:
            print(
                _("{label} There is no exercise part {part}; the parts are {parts}.").format(
                    label=Status.FAILED.label, part=repr(part), parts=", ".join(PARTS)
                )
            )
            return CheckResult(str(part), Status.FAILED)
        return run_part(spec, answer)
    except Exception as exc:  # noqa: BLE001 - a self-check must never crash a learner's notebook
        print(
            _(
                "{label} The check itself failed ({error}: {text}); please tell your instructor."
            ).format(label=Status.FAILED.label, error=type(exc).__name__, text=exc)
        )
        return CheckResult(str(part), Status.FAILED)
