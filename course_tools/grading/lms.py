"""The gradebook in the import format of an LMS (``--lms canvas|moodle FILE --roster ROSTER``).

A roster CSV maps each student's name in the submissions folder (its ``student`` column, or
the column ``--roster-key`` names) to their identity in the LMS, in the columns the LMS's own
export uses:

* **Canvas** (Gradebook > Import): ``Student``, ``ID``, ``SIS User ID``, ``SIS Login ID``,
  ``Section``, then one column per assignment, and a ``Points Possible`` row under the header.
  Canvas matches a row by ``ID`` (its user id), then ``SIS User ID``, then ``SIS Login ID``.
  Instructure's Instructor Guide, "How do I import grades in the Gradebook?"; the columns
  are those Canvas's importer reads (canvas-lms, ``app/models/gradebook_importer.rb``).
* **Moodle** (Grades > Import > CSV file): any columns; at import one column is mapped to
  identify the user (``Email address`` or ``ID number``, as Moodle's export names them) and
  each grade column to a grade item (or a new one). An empty cell means "no grade". MoodleDocs,
  "Grade import"; Moodle's ``grade/import/csv/classes/load_data.php``.

One row per rostered student, in roster order: a student with nothing handed in gets empty
marks. A student not in the roster cannot be imported and a roster row with no LMS identity
cannot be matched: both are named (in the terminal, and in the course gradebook's notes),
never silently dropped. Cells a spreadsheet would run as a formula start with ' as in the
course gradebook.

Introduced in: docs/instructor.md (section 8, after grading)
"""

from __future__ import annotations

import csv
import io
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from course_lib.safe_text import printable

from .cases import Exercise
from .output_files import replace_file, spreadsheet_text
from .results import ExerciseResult

__all__ = [
    "FORMATS",
    "Lms",
    "LmsFormat",
    "Mapping",
    "Roster",
    "lms_csv",
    "map_roster",
    "mapping_lines",
    "read_roster",
    "write_lms",
]

MAX_ROSTER_BYTES = 5_000_000


class Lms(Enum):
    CANVAS = "canvas"
    MOODLE = "moodle"


@dataclass(frozen=True)
class LmsFormat:
    """What an LMS's import file holds before the marks, and what identifies a student."""

    lms: Lms
    columns: tuple[str, ...]  # the student columns, in the order written
    identity: tuple[str, ...]  # a row is matched by the first of these it has
    points_row: str = ""  # Canvas: a row naming each assignment's maximum
    # Moodle maps one column to the user, for every row, and a row whose cell in it is empty
    # keeps the user of the row above: so one identity column, filled on every row written.
    one_identity: bool = False


FORMATS = {
    Lms.CANVAS: LmsFormat(
        Lms.CANVAS,
        columns=("Student", "ID", "SIS User ID", "SIS Login ID", "Section"),
        identity=("ID", "SIS User ID", "SIS Login ID"),
        points_row="Points Possible",
    ),
    Lms.MOODLE: LmsFormat(
        Lms.MOODLE,
        columns=("First name", "Last name", "ID number", "Email address"),
        identity=("Email address", "ID number"),
        one_identity=True,
    ),
}


@dataclass(frozen=True)
class RosterEntry:
    """One roster row: the course's name for the student and their LMS columns."""

    row: int  # line in the roster file (for messages)
    student: str  # as in the submissions folder ("" when the roster leaves it blank)
    fields: dict[str, str]  # by the LMS's column name

    def shown(self) -> str:
        name = self.student or self.fields.get("Student", "") or self.fields.get("Email address")
        return printable(name or f"roster row {self.row}")


@dataclass(frozen=True)
class Roster:
    path: Path
    entries: tuple[RosterEntry, ...]


def _key(text: str) -> str:
    return unicodedata.normalize("NFC", text).strip().casefold()


def _rows(path: Path) -> list[tuple[int, list[str]]]:
    """The roster's non-blank rows with their line numbers (the header first)."""
    shown = printable(str(path))
    try:
        with Path(path).open("rb") as handle:
            data = handle.read(MAX_ROSTER_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"--roster {shown}: cannot be read ({exc.strerror})") from None
    if len(data) > MAX_ROSTER_BYTES:
        raise ValueError(f"--roster {shown}: larger than 5 MB; is it a roster?")
    try:
        reader = csv.reader(io.StringIO(data.decode("utf-8-sig")))
        rows = [(reader.line_num, row) for row in reader if any(c.strip() for c in row)]
    except UnicodeDecodeError:
        raise ValueError(f"--roster {shown}: not UTF-8 text; save it as CSV UTF-8") from None
    except csv.Error as exc:
        raise ValueError(f"--roster {shown}: not a CSV file ({exc})") from None
    if not rows:
        raise ValueError(f"--roster {shown}: empty; it needs a header row")
    return rows


def _column(header: list[str], name: str, taken: int | None = None) -> int | None:
    """The index of column `name`: spelt exactly, else the one column equal ignoring case."""
    exact = [i for i, h in enumerate(header) if h.strip() == name and i != taken]
    if exact:
        return exact[0]
    loose = [i for i, h in enumerate(header) if _key(h) == _key(name) and i != taken]
    return loose[0] if len(loose) == 1 else None


def _skipped(cells: dict[str, str]) -> bool:
    """Rows of a Canvas gradebook export that are not students (points, posting policy)."""
    if "Points Possible" in cells.get("Student", ""):
        return True
    policy = all(v in ("", "Muted") or v.startswith("Manual Posting") for v in cells.values())
    return policy and not cells.get("ID")


def _check_header(path: Path, header: list[str], lms: Lms, key: str) -> int:
    """The key column's index, once the header has what `lms` needs.

    Raises:
        ValueError: no `key` column spelt exactly so, or none of the identity columns.
    """
    shown = printable(", ".join(header))
    where = f"--roster {printable(str(path))}"
    index = next((i for i, h in enumerate(header) if h.strip() == key), None)
    if index is None:
        raise ValueError(
            f"{where} has no {key!r} column (its columns: {shown}). Add a column {key!r} "
            "naming each student as their folder in the submissions is named, or name the "
            "roster column that does so with --roster-key, e.g. --roster-key 'SIS Login ID'"
        )
    form = FORMATS[lms]
    if all(_column(header, c, index) is None for c in form.identity):
        raise ValueError(
            f"{where} has none of the columns {lms.value} identifies a student by "
            f"({', '.join(form.identity)}); its columns: {shown}. Export the class list "
            f"from {lms.value.capitalize()} and add the {key!r} column to it"
        )
    return index


def read_roster(path: Path, lms: Lms, key: str = "student") -> Roster:
    """Read a roster CSV: the `key` column, and the LMS's columns (their case aside).

    Raises:
        ValueError: unreadable, no `key` column, none of the LMS's identity columns, or one
            student named twice (each message says what to change).
    """
    rows = _rows(path)
    header = rows[0][1]
    key_index = _check_header(path, header, lms, key)
    columns = {c: _column(header, c, key_index) for c in FORMATS[lms].columns}
    entries: list[RosterEntry] = []
    seen: dict[str, int] = {}
    for line, row in rows[1:]:
        cells = {c: row[i].strip() for c, i in columns.items() if i is not None and i < len(row)}
        if _skipped(cells):
            continue
        student = row[key_index].strip() if key_index < len(row) else ""
        if student and _key(student) in seen:
            raise ValueError(
                f"--roster {printable(str(path))}: {printable(student)!r} is on lines "
                f"{seen[_key(student)]} and {line}; name each student once"
            )
        if student:
            seen[_key(student)] = line
        entries.append(RosterEntry(line, student, cells))
    return Roster(Path(path), tuple(entries))


@dataclass
class Mapping:
    """How the graded students and the roster met: who is in the file and who is named."""

    rows: list[tuple[RosterEntry, str | None]]  # (entry, graded student or None), roster order
    not_rostered: list[str]  # graded students the roster does not name
    no_identity: list[RosterEntry]  # roster rows the LMS cannot match: left out of the file
    nothing_handed_in: list[RosterEntry]
    identity: tuple[str, ...]  # the columns the LMS matches by (Moodle: the one to map)


def _identity(roster: Roster, form: LmsFormat) -> tuple[str, ...]:
    """The identity columns used: all of them, or (Moodle) the one most rows have."""
    if not form.one_identity:
        return form.identity
    filled = [sum(1 for e in roster.entries if e.fields.get(c)) for c in form.identity]
    return (form.identity[filled.index(max(filled))],)


def _matcher(students: Sequence[str]):
    """Find a graded student by a roster name: exactly, else ignoring case when unique."""
    exact = set(students)
    folded: dict[str, list[str]] = {}
    for student in students:
        folded.setdefault(_key(student), []).append(student)

    def match(name: str) -> str | None:
        if name in exact:
            return name
        candidates = folded.get(_key(name), []) if name else []
        return candidates[0] if len(candidates) == 1 else None

    return match


def map_roster(roster: Roster, lms: Lms, students: Sequence[str]) -> Mapping:
    """Match graded students to roster rows (each graded student to one row at most)."""
    identity = _identity(roster, FORMATS[lms])
    match = _matcher(students)
    mapping = Mapping([], [], [], [], identity)
    used: set[str] = set()
    for entry in roster.entries:
        student = match(entry.student)
        if student in used:
            student = None  # two roster rows differ only in case: the second is not this one
        if student is not None:
            used.add(student)
        if not any(entry.fields.get(c) for c in identity):
            mapping.no_identity.append(entry)
            continue
        if student is None:
            mapping.nothing_handed_in.append(entry)
        mapping.rows.append((entry, student))
    mapping.not_rostered = [s for s in students if s not in used]
    return mapping


def _marks(results: list[ExerciseResult] | None, exercises: dict[str, Exercise]) -> list[str]:
    if results is None:
        return ["" for _ in exercises]
    by_exercise = {r.exercise: r.score for r in results}
    return [f"{by_exercise.get(e, 0.0):g}" for e in exercises]


def lms_csv(
    mapping: Mapping,
    lms: Lms,
    by_student: dict[str, list[ExerciseResult]],
    exercises: dict[str, Exercise],
) -> str:
    """The import file's text: header, (Canvas) points row, one row per rostered student."""
    form = FORMATS[lms]
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow([*form.columns, *(e.title for e in exercises.values())])
    if form.points_row:
        blanks = [""] * (len(form.columns) - 1)
        writer.writerow(
            [form.points_row, *blanks, *(f"{e.max_points:g}" for e in exercises.values())]
        )
    for entry, student in mapping.rows:
        cells = [entry.fields.get(c, "") for c in form.columns]
        if lms is Lms.CANVAS and not cells[0]:
            cells[0] = student or entry.student  # Canvas shows this name; it matches by the ids
        marks = _marks(by_student.get(student) if student else None, exercises)
        writer.writerow([spreadsheet_text(printable(c)) for c in cells] + marks)
    return buffer.getvalue()


def write_lms(
    path: Path,
    mapping: Mapping,
    lms: Lms,
    by_student: dict[str, list[ExerciseResult]],
    exercises: dict[str, Exercise],
) -> None:
    replace_file(Path(path), lms_csv(mapping, lms, by_student, exercises))


def mapping_lines(mapping: Mapping, lms: Lms, path: Path) -> list[str]:
    """For the terminal: where the file is, and every student who is not in it as they should."""
    name = lms.value
    lines = [f"{name}: {len(mapping.rows)} rostered students in {printable(str(path))}"]
    if mapping.not_rostered:
        lines.append(
            f"  not in the roster, so not in the {name} file (add them to the roster): "
            + ", ".join(printable(s) for s in mapping.not_rostered)
        )
    if mapping.nothing_handed_in:
        lines.append(
            "  in the roster, nothing handed in (their marks are empty): "
            + ", ".join(e.shown() for e in mapping.nothing_handed_in)
        )
    if FORMATS[lms].one_identity:
        column = mapping.identity[0]
        lines.append(f"  at import, map from {column!r} to the user's {column!r}")
    if mapping.no_identity:
        identity = " or ".join(mapping.identity)
        lines.append(
            f"  roster rows with no {identity}, left out of the {name} file (fill it in): "
            + ", ".join(f"{e.shown()} (row {e.row})" for e in mapping.no_identity)
        )
    return lines
