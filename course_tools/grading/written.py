"""The written answers of a class in one Markdown file: by exercise and question, one block each.

The questions are the course's: in its exercise notebooks (``exercises/NN_name.ipynb``), a
written answer is a markdown cell tagged ``written-answer`` right below the cell that asks the
question (``tools/make_exercises.py`` makes sure of it). In a learner's copy the answer is found
by that cell's id, or, where the ids were lost, just below the question's cell (matched by id or
text); the learner's text is that cell plus any markdown cells they added after it, up to the
next cell of the course's notebook. The placeholder ``*Your answer here.*`` is not an answer.

The learners' text reaches the file only through `inert_markdown`: rendered, it is text.

Introduced in: docs/instructor.md (section 8, after grading)
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

import nbformat

from course_lib.safe_text import truncated

from .cases import Exercise
from .discover import Submission
from .inert_markdown import inline, quoted
from .output_files import replace_file
from .submission import load

__all__ = [
    "Answer",
    "AnswerState",
    "Question",
    "Written",
    "collect_written",
    "questions",
    "written_markdown",
    "write_written",
]

WRITTEN_TAG = "written-answer"
PLACEHOLDER = "*Your answer here.*"
MAX_ANSWER_CHARS = 20_000  # a page or two; the rest is cut, saying how much


class AnswerState(Enum):
    """What a learner's notebook holds for one question."""

    WRITTEN = "written"
    BLANK = "left blank"
    NOT_FOUND = "the answer's cell is not in the notebook"
    UNREADABLE = "the notebook could not be read"


@dataclass(frozen=True)
class Question:
    """A written question of the course: its answer cell's id and the cell that asks it."""

    exercise: str
    key: str  # id of the answer cell in the course's exercise notebook
    position: int  # index of that cell in the course's notebook
    asked: str  # the question cell's markdown (the course's own words)


@dataclass(frozen=True)
class Answer:
    student: str
    state: AnswerState
    text: str = ""


@dataclass
class Written:
    """Every question's answers, and what could not be collected (for the instructor)."""

    answers: dict[Question, list[Answer]] = field(default_factory=dict)
    not_handed_in: dict[str, list[str]] = field(default_factory=dict)  # exercise -> students
    notes: list[str] = field(default_factory=list)


def _tags(cell: Any) -> list[str]:
    tags = cell.get("metadata", {}).get("tags", [])
    return [t for t in tags if isinstance(t, str)] if isinstance(tags, list) else []


def questions(reference: Any, exercise: str) -> list[Question]:
    """The written questions of a course exercise notebook, in order."""
    found = []
    for index, cell in enumerate(reference.cells):
        if WRITTEN_TAG in _tags(cell) and index > 0:
            asked = reference.cells[index - 1].get("source", "")
            found.append(Question(exercise, str(cell.get("id", index)), index, asked))
    return found


def _source(cell: Any) -> str:
    source = cell.get("source", "") if isinstance(cell, dict) else ""
    return source if isinstance(source, str) else ""


def _anchors(cells: list[Any], reference: Any) -> list[int | None]:
    """For each learner cell, the index of the course cell it is (by id, else by its text)."""
    by_id = {c.get("id"): i for i, c in enumerate(reference.cells) if c.get("id")}
    by_text = {
        _source(c).strip(): i
        for i, c in enumerate(reference.cells)
        if WRITTEN_TAG not in _tags(c) and _source(c).strip()
    }
    anchors: list[int | None] = []
    for cell in cells:
        index = by_id.get(cell.get("id")) if isinstance(cell, dict) else None
        anchors.append(index if index is not None else by_text.get(_source(cell).strip()))
    return anchors


def _start(anchors: list[int | None], question: Question) -> int | None:
    """The learner's answer cell: the course's answer cell, else the new cell below the question."""
    if question.position in anchors:
        return anchors.index(question.position)
    if question.position - 1 in anchors:
        below = anchors.index(question.position - 1) + 1
        if below < len(anchors) and anchors[below] is None:
            return below
    return None


def _answer_text(cells: list[Any], anchors: list[int | None], start: int) -> str:
    """The answer cell's text and that of the markdown cells the learner added below it."""
    parts = []
    for index in range(start, len(cells)):
        if index > start and anchors[index] is not None:
            break  # the next cell of the course's notebook
        cell = cells[index]
        if isinstance(cell, dict) and cell.get("cell_type") in ("markdown", "raw"):
            parts.append(_source(cell).replace(PLACEHOLDER, "").strip())
    return truncated("\n\n".join(p for p in parts if p), MAX_ANSWER_CHARS)


def answer_in(student: str, notebook: Any, reference: Any, question: Question) -> Answer:
    """The learner's answer to `question` in their notebook."""
    cells = list(notebook.cells)
    anchors = _anchors(cells, reference)
    start = _start(anchors, question)
    if start is None:
        return Answer(student, AnswerState.NOT_FOUND)
    text = _answer_text(cells, anchors, start)
    return Answer(student, AnswerState.WRITTEN if text else AnswerState.BLANK, text)


def _references(
    exercises: dict[str, Exercise], course_root: Path, notes: list[str]
) -> dict[str, Any]:
    references = {}
    for exercise_id in exercises:
        path = course_root / "exercises" / f"{exercise_id}.ipynb"
        try:
            references[exercise_id] = nbformat.read(path, as_version=4)
        except (OSError, ValueError) as exc:
            notes.append(
                f"{exercise_id}: its questions are not known ({path} cannot be read: "
                f"{type(exc).__name__}); pass --course-root, the checkout holding exercises/"
            )
    return references


async def _read_all(
    submissions: Sequence[Submission], root: Path
) -> dict[tuple[str, str], Any | None]:
    async def one(sub: Submission, exercise: str, path: Path) -> Any | None:
        return (await load(path, root)).nb

    work = [(s, e, p) for s in submissions for e, p in s.notebooks.items()]
    read = await asyncio.gather(*(one(*w) for w in work))
    return {(s.student, e): r for (s, e, _p), r in zip(work, read)}


def collect_written(
    submissions: Sequence[Submission],
    exercises: dict[str, Exercise],
    course_root: Path,
    root: Path,
) -> Written:
    """Every learner's answer to every written question of `exercises`."""
    written = Written()
    references = _references(exercises, course_root, written.notes)
    notebooks = asyncio.run(_read_all(submissions, root))
    for exercise_id, reference in references.items():
        asked = questions(reference, exercise_id)
        written.not_handed_in[exercise_id] = [
            s.student for s in submissions if exercise_id not in s.notebooks
        ]
        for question in asked:
            answers = written.answers.setdefault(question, [])
            for sub in submissions:
                if exercise_id not in sub.notebooks:
                    continue
                notebook = notebooks[(sub.student, exercise_id)]
                if notebook is None:
                    answers.append(Answer(sub.student, AnswerState.UNREADABLE))
                else:
                    answers.append(answer_in(sub.student, notebook, reference, question))
    return written


def _question_block(question: Question, answers: list[Answer]) -> list[str]:
    asked = question.asked.strip()
    heading, _, body = asked.partition("\n")
    if not heading.startswith("#"):
        heading, body = "### Question", asked
    lines = [f"### {heading.lstrip('#').strip()}", "", body.strip(), ""]
    for answer in answers:
        lines += [f"#### {inline(answer.student)}", ""]
        if answer.state is AnswerState.WRITTEN:
            lines += [quoted(answer.text), ""]
        else:
            lines += [f"*({answer.state.value})*", ""]
    return lines


def written_markdown(written: Written, exercises: dict[str, Exercise]) -> str:
    """The written answers as Markdown: exercise, question, then one block per learner."""
    lines = [
        "# Written answers",
        "",
        "Every free-text answer of the class (not graded), by exercise and question, one block "
        "per student. A student's text is shown exactly as written and as text: any markup in "
        "it is escaped.",
        "",
    ]
    lines += [f"- note: {inline(n)}" for n in written.notes] + ([""] if written.notes else [])
    for exercise_id, exercise in exercises.items():
        asked = [q for q in written.answers if q.exercise == exercise_id]
        if not asked:
            continue
        lines += [f"## {exercise.title} ({exercise_id})", ""]
        missing = written.not_handed_in.get(exercise_id, [])
        if missing:
            lines += [f"Not handed in: {', '.join(inline(s) for s in missing)}.", ""]
        for question in asked:
            lines += _question_block(question, written.answers[question])
    return "\n".join(lines).rstrip("\n") + "\n"


def write_written(path: Path, written: Written, exercises: dict[str, Exercise]) -> None:
    replace_file(Path(path), written_markdown(written, exercises))
