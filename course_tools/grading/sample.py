"""A sample class to try the grader's outputs on (``grade --sample-class DIR``).

Built like ``grade --self-test``'s class, from the course's ``solutions/`` and ``exercises/``,
with the mistakes learners make most (``docs/instructor.md`` section 3): an ``openWorldHint``
left out on a closed tool, "idempotent means safe", trusting an untrusted server's hints, a
defence that denies the work too. Six students hand in 14 notebooks with written answers
(one with markup in it, one written in a cell of its own); the roster names five of them
and one who handed in nothing; ``hub collect`` ran at the deadline and again a day later,
when one student's changed notebook was late; one notebook came in by other means and is
timed by its file.

Introduced in: docs/instructor.md (section 8, after grading)
"""

from __future__ import annotations

import csv
import io
import os
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import nbformat

from ..handin import record_collection

__all__ = ["DEADLINE", "SampleClass", "write_sample_class"]

DEADLINE = datetime(2026, 12, 4, 17, 0, tzinfo=timezone.utc)
EX1, EX2, EX3, EX4, EX5 = (
    "01_annotate_tools",
    "02_predict_the_client",
    "03_break_the_trifecta",
    "04_catch_the_liar",
    "05_your_own_server",
)
_MARKER = re.compile(r"^\s*(### (BEGIN|END) SOLUTION|#> ).*$\n?", re.MULTILINE)

# The mistakes: (exercise, text in the solution, what the student wrote instead).
OPEN_WORLD_LEFT_OUT = (
    EX1,
    '"read_runbook": ToolAnnotations(read_only_hint=True, open_world_hint=False),',
    '"read_runbook": ToolAnnotations(read_only_hint=True),',
)
ALSO_FOR_QUERIES = (
    EX1,
    '"query_incidents": ToolAnnotations(read_only_hint=True, open_world_hint=False),',
    '"query_incidents": ToolAnnotations(read_only_hint=True),',
)
IDEMPOTENT_IS_SAFE = (
    EX2,
    'TRUE_STATEMENTS = {"a", "c", "d", "f"}',
    'TRUE_STATEMENTS = {"a", "b", "c", "d", "f"}',
)
TRUSTS_UNTRUSTED = (
    EX2,
    '"B": (PreCall.WARN, PostCall.UNTRUSTED),',
    '"B": (PreCall.ALLOW, PostCall.TRUST),',
)
DENIES_THE_WORK = (EX3, '"on_taint": PreCall.CONFIRM,', '"on_taint": PreCall.DENY,')

ANSWERS = {  # (student, exercise): the written answer, as the student typed it
    ("ada", EX1): "Once the model can act on what a page says: a page can tell it to post the "
    "runbooks. The host can show the output to the user first, and ask before any open-world "
    "write after a search.",
    ("ada", EX2): "Both can be repeated, so a client may retry either. But deleting logs cannot "
    "be undone, so it gets a strong warning, while set_oncall only records who is on call.",
    ("ada", EX3): "Deny also stops the summary to the colleague, so the work stops. Confirm "
    "relies on the user reading the prompt and refusing a stranger's address.",
    ("ada", EX4): "A tool that writes to a remote API the auditor does not watch. A read-only "
    "database user would still hold.",
    ("ada", EX5): "A tool that runs curl, or writes to another folder: neither shows in the "
    "folder's snapshot. Trust its hints only if you trust the server.",
    ("ben", EX1): "It is dangerous when the model trusts it. The host could just not use "
    "search_web.",
    ("dan", EX1): "When it comes from the internet. I'd *always* <b>deny</b> it.",
    ("dan", EX3): "Deny is safer: no mail can leave after a search.",
    ("eve", EX2): "set_oncall is idempotent, so it is safe and allowed; delete_old_logs is not "
    "idempotent.",
    ("eve", EX4): "Writing to a file outside the sandbox. Pinning the tool's definition helps.",
    ("finn", EX1): "When it feeds the model text written by strangers. Mark it untrusted and "
    "confirm before anything is sent out.",
}

ROSTER = [  # student, Canvas name, Canvas ID, SIS User ID, SIS Login ID, section, email
    ("ada", "Lovelace, Ada", "101", "S1001", "ada", "Monday", "ada@example.edu"),
    ("ben", "Okafor, Ben", "102", "S1002", "ben", "Monday", "ben@example.edu"),
    ("cleo", "Martin, Cleo", "103", "S1003", "cleo", "Monday", "cleo@example.edu"),
    ("dan", "Wu, Dan", "104", "S1004", "dan", "Tuesday", "dan@example.edu"),
    ("eve", "Haddad, Eve", "105", "S1005", "eve", "Tuesday", "eve@example.edu"),
    ("gia", "Rossi, Gia", "106", "S1006", "gia", "Tuesday", "gia@example.edu"),
]


@dataclass(frozen=True)
class SampleClass:
    submissions: Path
    roster: Path
    deadline: datetime
    notebooks: int


class _Course:
    """The course's solutions and blank exercises, read once."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def solved(self, exercise: str, *mistakes: tuple[str, str, str]) -> Any:
        """The solution as a learner hands it in: no markers, no solution-only cells."""
        nb = nbformat.read(self.root / "solutions" / f"{exercise}.ipynb", as_version=4)
        nb.cells = [c for c in nb.cells if "solution-only" not in c.metadata.get("tags", [])]
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.source = _MARKER.sub("", cell.source)
            elif "written-answer" in cell.metadata.get("tags", []):
                cell.source = "*Your answer here.*"
        for _exercise, wrong, instead in mistakes:
            hits = [c for c in nb.cells if wrong in c.source]
            if not hits:
                raise ValueError(f"the sample class's mistake {wrong!r} is not in {exercise}")
            hits[0].source = hits[0].source.replace(wrong, instead)
        return nb

    def blank(self, exercise: str) -> Any:
        return nbformat.read(self.root / "exercises" / f"{exercise}.ipynb", as_version=4)


def _answer(nb: Any, text: str, own_cell: bool = False) -> Any:
    """Write `text` into the first written answer (or, `own_cell`, a new cell below it)."""
    index = next(
        i for i, c in enumerate(nb.cells) if "written-answer" in c.metadata.get("tags", [])
    )
    if own_cell:
        nb.cells.insert(index + 1, nbformat.v4.new_markdown_cell(text))
    else:
        nb.cells[index].source = text
    return nb


def _handed_in(course: _Course) -> dict[tuple[str, str], Any]:
    c = course
    work = {("ada", e): c.solved(e) for e in (EX1, EX2, EX3, EX4, EX5)} | {
        ("ben", EX1): c.solved(EX1, OPEN_WORLD_LEFT_OUT, ALSO_FOR_QUERIES),
        ("ben", EX2): c.solved(EX2, IDEMPOTENT_IS_SAFE),
        ("cleo", EX1): c.blank(EX1),
        ("cleo", EX2): c.blank(EX2),
        ("dan", EX1): c.solved(EX1, OPEN_WORLD_LEFT_OUT),
        ("dan", EX3): c.solved(EX3),  # on time; changed after the deadline (below)
        ("eve", EX2): c.solved(EX2, TRUSTS_UNTRUSTED, IDEMPOTENT_IS_SAFE),
        ("eve", EX4): c.solved(EX4),
        ("finn", EX1): c.solved(EX1),
    }
    for (student, exercise), text in ANSWERS.items():
        if (student, exercise) in work and (student, exercise) != ("dan", EX3):
            _answer(work[(student, exercise)], text, own_cell=student == "ben")
    return work


def _roster_csv() -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(
        [
            "student",
            "Student",
            "ID",
            "SIS User ID",
            "SIS Login ID",
            "Section",
            "First name",
            "Last name",
            "Email address",
            "ID number",
        ]
    )
    for student, name, canvas_id, sis, login, section, email in ROSTER:
        last, first = name.split(", ")
        writer.writerow([student, name, canvas_id, sis, login, section, first, last, email, sis])
    return buffer.getvalue()


def write_sample_class(folder: Path, course_root: Path) -> SampleClass:
    """Write the sample class into `folder` (submissions/ and roster.csv).

    Raises:
        ValueError: `folder` is not empty, or the course's notebooks are not in `course_root`.
    """
    folder = Path(folder)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ValueError(f"--sample-class {folder}: not an empty folder; give a new one")
    if not (course_root / "solutions").is_dir():
        raise ValueError(f"no solutions/ in {course_root}: pass --course-root, the checkout")
    course = _Course(course_root)
    work = _handed_in(course)
    submissions = folder / "submissions"
    for (student, exercise), nb in work.items():
        path = submissions / student / f"{exercise}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, path)
    collected = {s: [f"{e}.ipynb" for (t, e) in work if t == s] for s, *_ in ROSTER if s != "gia"}
    record_collection(submissions, collected, DEADLINE - timedelta(minutes=5))
    late = course.solved(EX3, DENIES_THE_WORK)  # dan kept working, and hub collect ran again
    nbformat.write(_answer(late, ANSWERS[("dan", EX3)]), submissions / "dan" / f"{EX3}.ipynb")
    record_collection(submissions, {"dan": [f"{EX3}.ipynb"]}, DEADLINE + timedelta(hours=26))
    emailed = (DEADLINE - timedelta(hours=3)).timestamp()  # finn's came by mail, on time
    os.utime(submissions / "finn" / f"{EX1}.ipynb", (emailed, emailed))
    roster = folder / "roster.csv"
    roster.write_text(_roster_csv(), encoding="utf-8")
    return SampleClass(submissions, roster, DEADLINE, len(work))
