"""Write the grading results: the gradebook CSV, the results JSONL and per-student feedback.

All three are written from the grader's memory after every submission has run, each to a
temporary file then renamed over the target, so nothing a submission wrote into the output
folder survives. Feedback names cases by label and, for an attempted case that failed, gives
the hint (and the judge's message when the case marks it safe to show); it never prints a hidden
case's inputs or expected values, though labels and hints say what a case tests.
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from pathlib import Path

from course_lib.i18n import ENGLISH, N_, using
from course_lib.i18n import gettext_ as _
from course_lib.safe_text import printable

from .cases import Exercise
from .inert_markdown import inline
from .output_files import replace_file, spreadsheet_text
from .results import ISOLATION_NOTE, STATUSES, CaseResult, ExerciseResult

__all__ = [
    "feedback_language",
    "feedback_names",
    "student_row",
    "write_feedback",
    "write_gradebook",
    "write_results",
]


def _points(value: float) -> str:
    return f"{value:g}"


def student_row(
    student: str,
    results: Sequence[ExerciseResult],
    exercises: dict[str, Exercise],
    notes: Sequence[str] = (),
) -> dict[str, str]:
    """Return one gradebook row: per-exercise points, total, maximum, status, notes, seconds."""
    by_exercise = {r.exercise: r for r in results}
    row = {
        "student": printable(student)
    }  # a name is the learner's text: no control character in the file
    for exercise_id in exercises:
        result = by_exercise.get(exercise_id)
        row[exercise_id] = _points(result.score if result else 0.0)
    row["total"] = _points(round(sum(r.score for r in results), 2))
    row["max"] = _points(sum(e.max_points for e in exercises.values()))
    statuses = {r.status for r in results} or {"missing"}
    if statuses <= {"missing", "not attempted"}:
        row["status"] = "not attempted" if "not attempted" in statuses else "missing"
    else:
        row["status"] = next(s for s in STATUSES if s in statuses)
    all_notes = list(notes)
    # A note every exercise shares (grading without isolation) comes first, once.
    shared = [
        n.english()
        for n in dict.fromkeys(n for r in results for n in r.notes)
        if n.template == ISOLATION_NOTE
    ]
    all_notes = shared + all_notes
    for result in results:
        # One entry per exercise: its status (unless graded) and its notes, each said once.
        english = dict.fromkeys(n.english() for n in result.notes)
        said = [n for n in english if n != result.status and n not in shared]
        if result.status != "graded":
            all_notes.append(
                f"{result.exercise}: {result.status}" + (f": {'; '.join(said)}" if said else "")
            )
        else:
            all_notes += [f"{result.exercise}: {n}" for n in said]
    # What the kernel said (its stderr) is for the instructor only: the gradebook and the JSONL.
    all_notes += [f"{r.exercise}: kernel said: {t}" for r in results for t in r.kernel_log]
    row["notes"] = printable(" | ".join(all_notes))
    row["seconds"] = f"{sum(r.seconds for r in results):.1f}"
    return row


def write_gradebook(
    path: Path,
    rows: Iterable[dict[str, str]],
    exercises: dict[str, Exercise],
    extra: Sequence[str] = (),
) -> None:
    """Write the gradebook: one row per student (csv.DictWriter, so commas in names are safe).

    `extra` columns (hand-in times, with --deadline) come after the status. A cell that a
    spreadsheet would read as a formula is written with a leading ' (the results JSONL keeps
    the exact text).
    """
    import io

    fields = ["student", *exercises, "total", "max", "status", *extra, "notes", "seconds"]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=fields)
    writer.writeheader()
    for row in rows:
        writer.writerow({k: spreadsheet_text(v) for k, v in row.items()})
    replace_file(Path(path), buffer.getvalue())


# Characters JSON leaves raw that a terminal acts on (C1 controls such as U+009B, bidi overrides,
# line and paragraph separators): written as \\uXXXX escapes, so the file reads back unchanged.
_RAW_IN_JSON = re.compile("[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def json_line(value: object) -> str:
    """One JSON line that is safe to print: non-ASCII text kept, every control character escaped."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return _RAW_IN_JSON.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


def write_results(path: Path, results: Iterable[ExerciseResult]) -> None:
    """Write one JSON line per (student, exercise): every case and its detail (instructor only)."""
    lines = [json_line(r.as_dict()) for r in results]
    replace_file(Path(path), "\n".join(lines) + ("\n" if lines else ""))


_UNSAFE_IN_NAME = re.compile(r'[\x00-\x1f\x7f-\x9f/\\:*?"<>|]+')
_MAX_NAME_BYTES = 200


def _file_stem(student: str) -> str:
    stem = unicodedata.normalize("NFC", student)
    stem = "".join(
        "_" if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") else c
        for c in stem
    )
    stem = _UNSAFE_IN_NAME.sub("_", stem).strip(" .") or "student"
    while len(stem.encode("utf-8")) > _MAX_NAME_BYTES:
        stem = stem[:-1]
    return stem


def feedback_names(students: Iterable[str]) -> dict[str, str]:
    """A feedback file name for each student: unique, and telling whose it is.

    The name is the student's own (non-ASCII letters kept). Where it had to change (a character
    a file name cannot hold) or would clash with another's on a case-insensitive disk, a short
    hash of the full name is added: José, Jos and 李雷 get José.md, Jos.md and 李雷.md, while
    "a/b" and "a_b" both get "a_b-" and eight hex digits of their hash.
    """
    students = list(dict.fromkeys(students))
    stems = {s: _file_stem(s) for s in students}
    clashes: dict[str, int] = {}
    for stem in stems.values():
        clashes[stem.casefold()] = clashes.get(stem.casefold(), 0) + 1
    names = {}
    for student, stem in stems.items():
        if stem != student or clashes[stem.casefold()] > 1:
            stem = (
                f"{stem}-{hashlib.sha256(student.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"
            )
        names[student] = f"{stem}.md"
    taken = [n.casefold() for n in names.values()]
    for student, name in names.items():  # a literal name that equals another's hashed one
        if taken.count(name.casefold()) > 1:
            digest = hashlib.sha256(student.encode("utf-8", "surrogatepass")).hexdigest()[:16]
            names[student] = f"{stems[student]}-{digest}.md"
    return names


_MARK = {"passed": "✓", "not attempted": "…", "missing": "…", "not run": "…"}
_UNANSWERED = {
    "not attempted": N_("not attempted"),
    "missing": N_("not defined in your notebook"),
    "not run": N_("not run"),
}
_ATTEMPTED_WRONG = {
    "failed",
    "error",
}  # only these get the judge's message and the hint: a blank case gets no answer-revealing hint
# The statuses a result or a case can have, for the catalog (shown in the student's language).
_STATUS_WORDS = (
    N_("graded"),
    N_("passed"),
    N_("failed"),
    N_("error"),
    N_("timed out"),
    N_("no result"),
    N_("tampered"),
    N_("invalid notebook"),
    N_("missing"),
)


def feedback_language(results: Sequence[ExerciseResult]) -> str:
    """The language of a student's feedback: that of the notebooks they handed in (metadata
    ``language``, which the Chinese edition's notebooks carry); English if none says."""
    return next((r.language for r in results if r.language != ENGLISH), ENGLISH)


def _case_line(case: CaseResult) -> str:
    mark = _MARK.get(case.status, "✗")
    text = _("{label} ({points}/{max})").format(
        label=case.label.text(), points=_points(case.points), max=_points(case.max_points)
    )
    detail = ""
    if case.status in _UNANSWERED:
        detail = _(_UNANSWERED[case.status])
    elif case.status == "failed":
        detail = case.feedback.text() if case.feedback else ""
    elif case.status != "passed":
        detail = _(case.status)
    if detail:
        text = _("{case}: {detail}").format(case=text, detail=detail)
    if case.status in _ATTEMPTED_WRONG and case.hint:
        # TRANSLATORS: not 提示 (the course's word for annotation hints): 小贴士.
        text += _(". Hint: {hint}").format(hint=case.hint.text())
    return f"- {mark} {inline(text)}"


def feedback_text(
    student: str, results: Sequence[ExerciseResult], exercises: dict[str, Exercise]
) -> str:
    """Return a student's feedback as Markdown, in their language: scores, notes, each case.

    Every piece of text is data (`as_text`): a name such as ``<svg onload=...>`` is shown, never
    rendered. Text the kernel produced is not in it: its stderr and exact exception names are
    in `ExerciseResult.kernel_log`, for the instructor.
    """
    with using(feedback_language(results)):
        lines = [_("# Feedback for {student}").format(student=inline(student)), ""]
        by_exercise = {r.exercise: r for r in results}
        for exercise_id, exercise in exercises.items():
            result = by_exercise.get(exercise_id)
            if result is None:
                continue
            lines.append(
                _("## {title} ({id}): {score} / {max}, {status}").format(
                    title=inline(_(exercise.title)),
                    id=inline(exercise_id),
                    score=_points(result.score),
                    max=_points(result.max_score),
                    status=_(result.status),
                )
            )
            lines += [_("- note: {note}").format(note=inline(n.text())) for n in result.notes]
            if result.status == "missing":  # nothing handed in: no list of cases that did not run
                lines.append("")
                continue
            lines += [_case_line(case) for case in result.cases]
            lines.append("")
        lines.append(
            _(
                "Cases are named by what they check. "
                "This feedback does not print the grader's exact inputs or expected "
                "answers, but the names and hints say what each case tests."
            )
        )
    return "\n".join(lines) + "\n"


def write_feedback(
    folder: Path,
    student: str,
    results: Sequence[ExerciseResult],
    exercises: dict[str, Exercise],
    name: str | None = None,
) -> Path:
    """Write `folder/<name>` (default: the student's `feedback_names` name); return the path."""
    path = Path(folder) / (name or feedback_names([student])[student])
    replace_file(path, feedback_text(student, results, exercises))
    return path
