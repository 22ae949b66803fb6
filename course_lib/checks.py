"""The self-check engine: run an exercise part's visible checks, never raise, always explain.

In an exercise notebook a check cell reads ``check("1a", ANNOTATIONS)`` (`check` lives in
`course_lib.exercises`, which holds each exercise's content). It prints one of

* ``✅ PASS · Part 1a (...): 8 of 8 tools right.`` (the count says what was covered);
* ``❌ FAIL · Part 1a (...): 1 of 8 tools wrong.`` followed by what was expected, what the
  answer gave, and a hint that teaches the rule behind it;
* ``⏳ TO DO · Part 1a (...): not attempted yet.`` for a stub (`TODO` data or `NotAttempted`),

(each icon has its word beside it: a browser without an emoji font draws the icon as a box)

and returns a `CheckResult`. A visible check covers every item the learner wrote in that
part; the instructor's grader (`python -m course_tools grade`) checks again with cases of its own.

Stub convention (what `tools/make_exercises.py` writes into `exercises/`): a function to write
keeps its signature and its body becomes ``raise NotAttempted()``; data to fill in keeps its
keys and each value becomes `TODO`.

Introduced in: exercises/01_annotate_tools.ipynb; used by every exercise.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from .i18n import N_
from .i18n import gettext_ as _

__all__ = [
    "TODO",
    "CheckResult",
    "Mark",
    "NotAttempted",
    "Part",
    "Status",
    "contains_todo",
    "crashed",
    "failed",
    "name_set",
    "not_attempted",
    "passed",
    "run_part",
    "show",
]


class NotAttempted(NotImplementedError):
    """Raised by an exercise stub not answered yet (a learner replaces the `raise`)."""

    def __init__(self, message: str = "") -> None:
        super().__init__(
            message or _("not attempted yet: replace `raise NotAttempted()` with your answer")
        )


class _Todo:
    """The placeholder for a value a learner still has to fill in (there is one: `TODO`)."""

    __course_todo__ = True  # how the grader's probe recognises it, without naming this module
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


class Status(Enum):
    """How a visible check went: one item of a part, or the whole part (`CheckResult.status`)."""

    PASSED = "passed"
    FAILED = "failed"
    NOT_ATTEMPTED = "not attempted"

    def __str__(self) -> str:
        return self.value

    @property
    def label(self) -> str:
        """The icon and the word a check prints for this status (``✅ PASS``): the word is there
        for a screen without an emoji font, which draws the icon as an empty box."""
        return _(_LABELS[self])


_LABELS = {
    Status.PASSED: N_("✅ PASS ·"),
    Status.FAILED: N_("❌ FAIL ·"),
    Status.NOT_ATTEMPTED: N_("⏳ TO DO ·"),
}


@dataclass(frozen=True)
class Mark:
    """How one item of a part (a tool, an input, a scenario) did in its visible check."""

    label: str
    status: Status
    message: str = ""  # what was expected and what the answer gave
    hint: str = ""  # the rule behind it


@dataclass(frozen=True)
class Part:
    """One exercise part: its visible checks, and the unit they count ("tools", "inputs", ...)."""

    id: str
    title: str
    run: Callable[[Any], list[Mark]] = field(repr=False)
    not_attempted_help: str = ""
    unit: str = "checks"
    graded: bool = True  # False for a lesson's own questions: no grader checks them again
    heading: str = N_("Part {id} ({title})")  # how the report names it; {id} and {title}


def passed(label: str) -> Mark:
    """A check that passed."""
    return Mark(label, Status.PASSED)


def failed(label: str, message: str, hint: str = "") -> Mark:
    """A check that failed: what was expected and what came, and the rule behind it."""
    return Mark(label, Status.FAILED, message, hint)


def not_attempted(label: str) -> Mark:
    """A check whose answer is still a stub."""
    return Mark(label, Status.NOT_ATTEMPTED)


def crashed(label: str, exc: BaseException) -> Mark:
    """A check whose answer raised: a stub's `NotAttempted`, or a learner's bug (a failure)."""
    if isinstance(exc, NotImplementedError):
        return not_attempted(label)
    where = traceback.extract_tb(exc.__traceback__)
    name = type(exc).__name__
    if where:
        message = _("your code raised {error} (line {line}): {text}").format(
            error=name, line=where[-1].lineno, text=exc
        )
    else:
        message = _("your code raised {error}: {text}").format(error=name, text=exc)
    return failed(
        label,
        message,
        _("run the cell that defines your answer again, then read the error: it names the problem"),
    )


def show(value: Any) -> str:
    """Show a hint value as a learner writes it: true, false or absent (未声明 in Chinese)."""
    if value is None:
        return _("absent")
    return str(value).lower() if isinstance(value, bool) else repr(value)


def name_set(value: Any) -> set[str] | None:
    """Return a set of names from a set, list or tuple of strings; None for anything else."""
    if isinstance(value, (set, frozenset, list, tuple)) and all(isinstance(v, str) for v in value):
        return set(value)
    return None


@dataclass(frozen=True)
class CheckResult:
    """What `check` found for a part (`Status.PASSED`, `FAILED` or `NOT_ATTEMPTED`), with the
    `Mark` of each item it checked.

    True in an `if` only when every visible check passed. It shows nothing in a notebook
    (the printed report is the display), so a check cell needs no trailing semicolon.
    """

    part: str
    status: Status
    marks: tuple[Mark, ...] = ()

    def __bool__(self) -> bool:
        return self.status is Status.PASSED

    def _ipython_display_(self) -> None:
        pass


_SHOWN_FAILURES = 5  # a function wrong on many inputs: show the first few, count the rest


def _report(part: Part, marks: list[Mark]) -> CheckResult:
    good = sum(o.status is Status.PASSED for o in marks)
    bad = [o for o in marks if o.status is Status.FAILED]
    todo = [o for o in marks if o.status is Status.NOT_ATTEMPTED]
    total = len(marks)
    head = _(part.heading).format(id=part.id, title=_(part.title))
    unit = _(part.unit)
    if todo and not good and not bad:
        help_ = _(part.not_attempted_help)
        print(
            _("{label} {head}: not attempted yet.").format(
                label=Status.NOT_ATTEMPTED.label, head=head
            )
        )
        print(_("   To start: {help}, then run this cell again.").format(help=help_))
        return CheckResult(part.id, Status.NOT_ATTEMPTED, tuple(marks))
    counts = {"head": head, "good": good, "bad": len(bad), "total": total, "unit": unit}
    if bad:
        print(
            _("{label} {head}: {bad} of {total} {unit} wrong.").format(
                label=Status.FAILED.label, **counts
            )
        )
    elif todo:
        print(
            _("{label} {head}: {good} of {total} {unit} right; {todo} not attempted yet.").format(
                label=Status.NOT_ATTEMPTED.label, todo=len(todo), **counts
            )
        )
    else:
        print(
            _("{label} {head}: {good} of {total} {unit} right.").format(
                label=Status.PASSED.label, **counts
            )
        )
        if part.graded:
            print(
                _(
                    "   The grader checks again with cases of its own: "
                    "re-read the task before you hand it in."
                )
            )
        return CheckResult(part.id, Status.PASSED, tuple(marks))
    _print_marks(marks, total, unit)
    status = Status.FAILED if bad else Status.NOT_ATTEMPTED
    return CheckResult(part.id, status, tuple(marks))


def _print_marks(marks: list[Mark], total: int, unit: str) -> None:
    shown = 0
    for mark in marks:
        if mark.status is Status.FAILED:
            shown += 1
            if shown > _SHOWN_FAILURES:
                continue
            print(_("   ✗ {label}: {message}").format(label=mark.label, message=mark.message))
            if mark.hint:
                # TRANSLATORS: not 提示 (the course's word for annotation hints): 小贴士.
                print(_("     Hint: {hint}.").format(hint=mark.hint))
        elif mark.status is Status.NOT_ATTEMPTED:
            print(_("   … {label}: not attempted yet").format(label=mark.label))
        elif total <= 12:
            print(f"   ✓ {mark.label}")
    if shown > _SHOWN_FAILURES:
        print(
            _("   … and {more} more wrong {unit} like these.").format(
                more=shown - _SHOWN_FAILURES, unit=unit
            )
        )


def run_part(part: Part, answer: Any) -> CheckResult:
    """Run one part's visible checks on `answer`, print the report and return it. Never raises."""
    if answer is TODO:
        return _report(part, [not_attempted(part.id)])
    try:
        marks = part.run(answer)
    except (Exception, SystemExit) as exc:
        marks = [crashed(part.id, exc)]
    return _report(part, marks)
