"""Result types of grading: limits, one case's and one exercise's result, and judging a probe.

What a result shows the learner (a case's label, hint and the judge's message) stays a `Phrase`
until the feedback is written in the student's language; the instructor's files (the results
JSONL, the summary) hold it in English, whatever the student's language: the judges run in
English, and a rule the course says itself (`course_lib.feedback`, `course_lib.replay`) is a
`Phrase` too.

Introduced in: docs/instructor.md
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from course_lib.i18n import N_
from course_lib.phrase import Phrase, as_phrase

from .cases import Case, Exercise

__all__ = ["STATUSES", "CaseResult", "ExerciseResult", "Limits", "judge", "missing_result"]

# Exercise statuses, most severe first (the gradebook's student status picks the first present).
STATUSES = (
    "invalid notebook",
    "kernel died",
    "timed out",
    "review",  # a "write it yourself" part seems to use the course's reference: read it
    "missing",
    "not attempted",
    "graded",
)


@dataclass(frozen=True)
class Limits:
    """Time and size limits for one submission (seconds, characters)."""

    cell_timeout: float = 15.0
    probe_timeout: float = 5.0
    notebook_timeout: float = 120.0
    max_output_chars: int = 200_000

    def __post_init__(self) -> None:
        for name in ("cell_timeout", "probe_timeout", "notebook_timeout"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name.replace('_', '-')} must be a positive number of seconds")


@dataclass
class CaseResult:
    """How one hidden case went. `detail` is for the instructor, in English; `label`, `hint` and
    `feedback` may be shown to learners, in their language.

    A plain string given for those (a results JSONL read back) is a phrase without values.
    """

    id: str
    label: Phrase
    # passed, failed, not attempted, missing, error, timed out, no result, tampered, not run
    status: str
    points: float
    max_points: float
    detail: str = ""
    hint: Phrase | None = None
    # what went wrong, for the learner: the judge's message when its case allows showing it
    feedback: Phrase | None = None

    def __post_init__(self) -> None:
        self.label = as_phrase(self.label)
        self.hint = as_phrase(self.hint) if self.hint else None
        self.feedback = as_phrase(self.feedback) if self.feedback else None

    def as_dict(self) -> dict[str, Any]:
        """As the results JSONL holds it: the learner's texts in English, "" where there is none."""
        plain = {f.name: getattr(self, f.name) for f in fields(self)}
        for name in ("label", "hint", "feedback"):
            said = plain[name]
            plain[name] = said.english() if isinstance(said, Phrase) else ""
        return plain


@dataclass
class ExerciseResult:
    """One student's result for one exercise."""

    student: str
    exercise: str
    status: str
    score: float
    max_score: float
    cases: list[CaseResult] = field(default_factory=list)
    # what the grader says about the run (a cell that raised, a time limit), said in the
    # student's language in their feedback and in English in the instructor's files
    notes: list[Phrase] = field(default_factory=list)
    # Text the kernel produced (its stderr): the student's code chose it, and while a probe runs
    # it can see that probe's inputs, so it goes to the instructor's files, never to feedback.
    kernel_log: list[str] = field(default_factory=list)
    seconds: float = 0.0
    sha256: str = ""
    path: str = ""
    language: str = "en"  # the notebook's (metadata "language"): the feedback's language

    def as_dict(self) -> dict[str, Any]:
        """As the results JSONL holds it: every text in English."""
        plain = asdict(replace(self, cases=[], notes=[]))
        notes = [n.english() for n in self.notes]
        return {**plain, "notes": notes, "cases": [c.as_dict() for c in self.cases]}


NOT_HANDED_IN = Phrase(N_("no notebook handed in"))
# The note on every result whose kernels ran without isolation (`runner.isolation_note`).
ISOLATION_NOTE = N_("graded WITHOUT isolation ({reason}): the code ran with the grader's rights")


def missing_result(
    student: str, exercise: Exercise, note: Phrase = NOT_HANDED_IN
) -> ExerciseResult:
    """Return the result for an exercise the student did not hand in."""
    cases = [CaseResult(c.id, c.label, "not run", 0.0, c.points) for c in exercise.cases]
    return ExerciseResult(student, exercise.id, "missing", 0.0, exercise.max_points, cases, [note])


def judge(case: Case, payload: dict[str, Any]) -> CaseResult:
    base: dict[str, Any] = dict(
        id=case.id, label=case.label, max_points=case.points, hint=case.hint
    )
    status = payload.get("status")
    if status == "missing":
        return CaseResult(
            status="missing", points=0.0, detail=f"{case.target} is not defined", **base
        )
    if status == "not_attempted":
        return CaseResult(
            status="not attempted", points=0.0, detail="the stub still raises NotAttempted", **base
        )
    if status == "error":
        return CaseResult(
            status="error", points=0.0, detail=f"raised {payload.get('error', '')}", **base
        )
    if status != "ok":
        return CaseResult(
            status=str(status), points=0.0, detail="the probe returned no readable result", **base
        )
    value = payload.get("value")
    if _has_todo(value):
        return CaseResult(
            status="not attempted", points=0.0, detail="the answer still contains TODO", **base
        )
    try:
        problem = case.judge(value)
    except Exception as exc:  # noqa: BLE001 - an answer of an unexpected shape is a wrong answer
        # The exception's text may repeat the answer (kernel-produced): the instructor only.
        detail = f"answer of an unexpected shape ({type(exc).__name__}: {exc})"
        return CaseResult(
            status="failed",
            points=0.0,
            detail=detail,
            feedback=Phrase(N_("answer of an unexpected shape")) if case.show_detail else None,
            **base,
        )
    if problem is None:
        return CaseResult(status="passed", points=case.points, **base)
    if (
        isinstance(problem, tuple) and len(problem) == 2
    ):  # (message, the hint for this way of going wrong)
        problem, hint = problem
        base["hint"] = as_phrase(hint)
    said = as_phrase(problem)
    shown = said if case.show_detail else None
    return CaseResult(status="failed", points=0.0, detail=said.english(), feedback=shown, **base)


def _has_todo(value: Any) -> bool:
    if isinstance(value, dict):
        return value.get("__todo__") is True or any(_has_todo(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_todo(v) for v in value)
    return False
