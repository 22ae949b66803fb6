"""Hidden cases: what the grader probes in a submission, and how it judges the answer.

A `Case` names an object the learner defines (`target`), a Python expression evaluated in
the learner's kernel after their code has run (`expr`, e.g.
``predict({"readOnlyHint": True}, False)``), and a `judge` that runs here, in the
grading process, on the canonical JSON value the expression produced. The kernel never
sees the expected answer.

What a case shows the learner (its label, its hint, the judge's message) is a
`course_lib.phrase.Phrase`: a catalog template and its values, said in the student's language
when the feedback is written. A plain string is taken as it is (translated if the catalog has
it), so an instructor's own cases may use strings.

An exercise's cases live in a module defining ``EXERCISE = Exercise(...)``: the course's own
are in `course_tools/grading/hidden/`; an instructor can add or replace them with ``--cases DIR``
(a folder of such modules, e.g. with inputs kept secret across years).
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from course_lib.phrase import Phrase, as_phrase

__all__ = ["Case", "Exercise", "load_exercises"]

Judge = Callable[[Any], "Phrase | str | tuple[Phrase | str, Phrase | str] | None"]
"""Takes the decoded canonical value; returns None when right, else a message for the instructor,
or (message, hint) when the rule to show the learner depends on how the answer went wrong."""


@dataclass(frozen=True)
class Case:
    """One hidden case: probe `expr` after the learner's code, judge the value in the grader."""

    id: str  # stable, unique within the exercise; shown to learners
    label: Phrase  # what the case is about, in words; shown to learners (never the inputs)
    target: str  # the learner's name the case needs (missing -> "not defined")
    expr: str  # evaluated in the learner's namespace; may hold hidden inputs; never shown
    judge: Judge = field(repr=False)
    points: float = 1.0
    hint: Phrase | None = None  # shown to learners on failure: the rule, not the answer
    # True: the judge's message is safe to show learners (it names no hidden input or answer)
    show_detail: bool = False

    def __post_init__(self) -> None:
        # an instructor's cases may give strings: each is then a phrase without values
        object.__setattr__(self, "label", as_phrase(self.label))
        object.__setattr__(self, "hint", as_phrase(self.hint) if self.hint else None)
        if not re.fullmatch(r"[A-Za-z0-9_.\-]+", self.id):
            raise ValueError(f"case id {self.id!r}: use letters, digits, '_', '-', '.' only")
        if not self.target.isidentifier():
            raise ValueError(f"case {self.id}: target {self.target!r} is not a Python name")
        if self.points <= 0:
            raise ValueError(f"case {self.id}: points must be positive, not {self.points}")
        compile(
            self.expr, f"<case {self.id}>", "eval"
        )  # a typo in a case is the instructor's error: fail early


@dataclass(frozen=True)
class Exercise:
    """An exercise: its notebook name (without .ipynb) and its hidden cases."""

    id: str  # e.g. "01_annotate_tools", the notebook's stem in solutions/ and exercises/
    title: str
    cases: Sequence[Case]

    def __post_init__(self) -> None:
        if not re.fullmatch(r"\d\d_[a-z0-9_]+", self.id):
            raise ValueError(f"exercise id {self.id!r} must look like '01_annotate_tools'")
        ids = [c.id for c in self.cases]
        if len(ids) != len(set(ids)) or not ids:
            raise ValueError(
                f"exercise {self.id}: case ids must be unique and there must be at least one"
            )

    @property
    def number(self) -> str:
        return self.id[:2]

    @property
    def max_points(self) -> float:
        return round(float(sum(c.points for c in self.cases)), 2)


def _exercises_in_module(module: Any, origin: str) -> list[Exercise]:
    exercise = getattr(module, "EXERCISE", None)
    if not isinstance(exercise, Exercise):
        raise ValueError(f"{origin} defines no EXERCISE = Exercise(...)")
    return [exercise]


def load_exercises(extra_dirs: Sequence[Path] = ()) -> dict[str, Exercise]:
    """Return every exercise's hidden cases by exercise id: the course's own, then `extra_dirs`.

    A module in an extra folder replaces the course's exercise with the same id.

    Raises:
        ValueError: a cases module is broken, or two exercises share a number.
    """
    from . import hidden

    found: dict[str, Exercise] = {}
    for info in sorted(pkgutil.iter_modules(hidden.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{hidden.__name__}.{info.name}")
        for exercise in _exercises_in_module(module, module.__name__):
            found[exercise.id] = exercise
    for folder in extra_dirs:
        folder = Path(folder)
        if not folder.is_dir():
            raise ValueError(f"--cases {folder}: no such folder")
        for path in sorted(folder.glob("*.py")):
            if path.name.startswith("_"):
                continue
            spec = importlib.util.spec_from_file_location(f"_course_cases_{path.stem}", path)
            if spec is None or spec.loader is None:
                raise ValueError(f"cannot load cases from {path}")
            module = importlib.util.module_from_spec(spec)
            try:
                spec.loader.exec_module(module)
            except Exception as exc:
                raise ValueError(
                    f"cases file {path} failed to load: {type(exc).__name__}: {exc}"
                ) from exc
            for exercise in _exercises_in_module(module, str(path)):
                found = {k: v for k, v in found.items() if v.number != exercise.number}
                found[exercise.id] = exercise
    numbers = [e.number for e in found.values()]
    duplicated = sorted({n for n in numbers if numbers.count(n) > 1})
    if duplicated:
        raise ValueError(
            f"two exercises share the number(s) {duplicated}; give each exercise its own NN_ prefix"
        )
    return dict(sorted(found.items()))
