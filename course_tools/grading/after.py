"""After grading: the class summary, the written answers, LMS gradebooks and hand-in times.

The options of ``python -m course_tools grade`` that turn a grading run into an instructor's
next steps: ``--summary``/``--summary-plot`` (what the class missed), ``--written`` (every
free-text answer), ``--lms``/``--roster`` (marks an LMS imports), ``--deadline`` (who was
late) and ``--sample-class`` (a class to try them on). Everything they need is checked before
grading starts, so a bad roster, deadline or path costs no grading time; the files are written
after the gradebook. The re-teach list is printed at the end of every class run.

Introduced in: docs/instructor.md (section 8, after grading)
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from course_lib.safe_text import printable

from .cases import Exercise
from .deadline import (
    HandIn,
    gradebook_cells,
    gradebook_columns,
    hand_ins,
    late_lines,
    parse_deadline,
)
from .discover import Submission
from .lms import Lms, Mapping, Roster, map_roster, mapping_lines, read_roster, write_lms
from .results import ExerciseResult
from .summary import reteach_lines, summarise, write_summary
from .written import collect_written, write_written

__all__ = [
    "AfterGrading",
    "Extra",
    "add_arguments",
    "annotate",
    "finish",
    "hidden_folders",
    "check_writable",
    "prepare",
]

PLOT_SUFFIXES = (".png", ".svg", ".pdf")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    after = parser.add_argument_group("after grading (docs/instructor.md, section 8)")
    after.add_argument(
        "--summary", type=Path, metavar="FILE.csv", help="one row per hidden case: who missed it"
    )
    after.add_argument(
        "--summary-plot",
        type=Path,
        metavar="FILE.png",
        help="figure of the parts by share missed, naming the most-missed cases (.png/.svg/.pdf)",
    )
    after.add_argument(
        "--written",
        type=Path,
        metavar="FILE.md",
        help="every free-text answer, by exercise and question (Markdown)",
    )
    after.add_argument(
        "--lms",
        nargs=2,
        action="append",
        default=[],
        metavar=("canvas|moodle", "FILE.csv"),
        help="the gradebook in that LMS's import format (needs --roster; repeatable)",
    )
    after.add_argument(
        "--roster",
        type=Path,
        metavar="ROSTER.csv",
        help="maps each student to their LMS identity (columns: docs/instructor.md)",
    )
    after.add_argument(
        "--roster-key",
        default="student",
        metavar="COLUMN",
        help="the roster column naming students as the submissions do (default: student)",
    )
    after.add_argument(
        "--deadline",
        metavar="ISO-TIME",
        help="e.g. 2026-12-04T17:00+01:00: record when each notebook was handed in, and if late",
    )
    after.add_argument(
        "--sample-class",
        type=Path,
        metavar="DIR",
        help="write a sample class (submissions, roster, hand-in record) into DIR and stop",
    )


@dataclass
class AfterGrading:
    """What to do after grading, checked before it starts."""

    summary: Path | None = None
    summary_plot: Path | None = None
    written: Path | None = None
    lms: list[tuple[Lms, Path]] = field(default_factory=list)
    rosters: dict[Lms, Roster] = field(default_factory=dict)  # the roster, read for each LMS
    deadline: datetime | None = None
    course_root: Path = Path(".")

    def files(self) -> list[tuple[str, Path]]:
        named = [("--summary", self.summary), ("--summary-plot", self.summary_plot)]
        named += [("--written", self.written)]
        named += [(f"--lms {lms.value}", path) for lms, path in self.lms]
        return [(option, path) for option, path in named if path is not None]


def _lms(pairs: list[list[str]]) -> list[tuple[Lms, Path]]:
    chosen = []
    for name, path in pairs:
        try:
            chosen.append((Lms(name.lower()), Path(path)))
        except ValueError:
            raise ValueError(
                f"--lms {printable(name)!r}: give canvas or moodle, then the file, "
                "e.g. --lms canvas canvas-import.csv"
            ) from None
    return chosen


def _check_files(after: AfterGrading, out: Path, results: Path | None) -> None:
    """Raises ValueError for two outputs on one path or a figure format matplotlib lacks."""
    paths = [("--out", out), ("--results", results or out.with_suffix(".jsonl")), *after.files()]
    for index, (option, path) in enumerate(paths):
        clash = [o for o, p in paths[:index] if p.absolute() == path.absolute()]
        if clash:
            raise ValueError(f"{option} {printable(str(path))} is also {clash[0]}: give another")
    plot = after.summary_plot
    if plot is not None and plot.suffix.lower() not in PLOT_SUFFIXES:
        raise ValueError(f"--summary-plot {printable(str(plot))}: name it .png, .svg or .pdf")


def prepare(args: argparse.Namespace, course_root: Path) -> AfterGrading:
    """Read and check the after-grading options.

    Raises:
        ValueError: a usage error: an unknown LMS, --lms without --roster, a roster without the
            columns it needs, a bad deadline, two outputs on one path (messages say what to do).
    """
    after = AfterGrading(
        summary=args.summary,
        summary_plot=args.summary_plot,
        written=args.written,
        lms=_lms(args.lms),
        course_root=course_root,
    )
    if args.self_test and (after.files() or args.deadline or args.roster):
        raise ValueError(
            "--self-test grades the course itself: leave out the after-grading options"
        )
    if after.lms and args.roster is None:
        raise ValueError("--lms needs --roster ROSTER.csv, mapping students to LMS identities")
    if args.roster is not None and not after.lms:
        raise ValueError("--roster is read for --lms canvas|moodle FILE.csv: add one")
    for lms, _path in after.lms:
        after.rosters[lms] = read_roster(args.roster, lms, args.roster_key)
    if args.deadline is not None:
        after.deadline = parse_deadline(args.deadline)
    _check_files(after, args.out, args.results)
    return after


def check_writable(after: AfterGrading) -> None:
    """Check, before grading, that every after-grading file can be written.

    Raises:
        ValueError: a path is a folder, or its folder cannot be written (the message names it).
    """
    for option, path in after.files():
        if path.is_dir():
            raise ValueError(f"{option} {printable(str(path))} is a folder: give a file name")
        parent = path.absolute().parent
        while not parent.exists() and parent != parent.parent:
            parent = parent.parent
        if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
            raise ValueError(
                f"{option} {printable(str(path))}: {printable(str(parent))} is not a folder "
                "you can write in; give another path"
            )


def hidden_folders(args: argparse.Namespace) -> list[Path]:
    """The folders of the after-grading files and the roster: a kernel must not see them."""
    paths = [args.summary, args.summary_plot, args.written, args.roster]
    paths += [Path(path) for _lms, path in args.lms]
    return [Path(p).absolute().parent for p in paths if p is not None]


@dataclass
class Extra:
    """What the after-grading options add to the gradebook, and what they found."""

    columns: list[str] = field(default_factory=list)
    cells: dict[str, dict[str, str]] = field(default_factory=dict)  # student -> column -> text
    hand_ins: dict[str, dict[str, HandIn]] = field(default_factory=dict)
    mappings: list[tuple[Lms, Path, Mapping]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # for the terminal


def annotate(
    after: AfterGrading,
    submissions: list[Submission],
    by_student: dict[str, list[ExerciseResult]],
    exercises: dict[str, Exercise],
    root: Path,
) -> Extra:
    """Hand-in times and roster matches, as gradebook columns and notes (before it is written)."""
    extra = Extra()
    if after.deadline is not None:
        extra.hand_ins = hand_ins(submissions, by_student, root, after.deadline, extra.notes)
        extra.columns = gradebook_columns(exercises)
        for sub in submissions:
            mine = extra.hand_ins.get(sub.student, {})
            extra.cells[sub.student] = gradebook_cells(mine, exercises, after.deadline)
            sub.notes += [h.why_not_collected for h in mine.values() if h.why_not_collected]
    students = [s.student for s in submissions]
    for lms, path in after.lms:
        mapping = map_roster(after.rosters[lms], lms, students)
        extra.mappings.append((lms, path, mapping))
        why = {s: "not in the roster" for s in mapping.not_rostered}
        why |= {e.student: "its roster row has no LMS identity" for e in mapping.no_identity}
        for sub in submissions:
            if sub.student in why:
                sub.notes.append(f"no row in the {lms.value} file: {why[sub.student]}")
    return extra


def finish(
    after: AfterGrading,
    extra: Extra,
    submissions: list[Submission],
    by_student: dict[str, list[ExerciseResult]],
    exercises: dict[str, Exercise],
    root: Path,
) -> list[str]:
    """Write the after-grading files; return what to print (the re-teach list last).

    Raises:
        OSError: a file cannot be written.
    """
    lines = [f"note: {printable(n)}" for n in extra.notes]
    summaries = summarise([r for rs in by_student.values() for r in rs], exercises)
    if after.summary is not None:
        write_summary(after.summary, summaries)
        lines.append(f"summary: {printable(str(after.summary))}")
    if after.summary_plot is not None:
        from .summary_plot import plot_summary  # matplotlib only when a figure is asked for

        plot_summary(after.summary_plot, summaries, len(submissions))
        lines.append(f"summary figure: {printable(str(after.summary_plot))}")
    if after.written is not None:
        written = collect_written(submissions, exercises, after.course_root, root)
        write_written(after.written, written, exercises)
        lines += [f"note: {printable(n)}" for n in written.notes]
        lines.append(f"written answers: {printable(str(after.written))}")
    for lms, path, mapping in extra.mappings:
        write_lms(path, mapping, lms, by_student, exercises)
        lines += mapping_lines(mapping, lms, path)
    review = sorted(
        {
            f"{printable(r.student)} ({r.exercise[:2]})"
            for rs in by_student.values()
            for r in rs
            if r.status == "review"
        }
    )
    if extra.mappings and review:
        lines.append(f"  read before importing (status review): {', '.join(review)}")
    if after.deadline is not None:
        lines += late_lines(extra.hand_ins, after.deadline)
    return lines + reteach_lines(summaries)


def sample_class(folder: Path, course_root: Path) -> int:
    """``--sample-class DIR``: write the sample class and say how to grade it; exit status."""
    from .sample import write_sample_class

    try:
        sample = write_sample_class(folder, course_root)
    except (ValueError, OSError) as exc:
        print(f"course_tools grade: {printable(str(exc))}", file=sys.stderr)
        return 2
    out = folder / "out"
    deadline = sample.deadline.isoformat().replace("+00:00", "Z")
    print(
        f"wrote a sample class into {printable(str(folder))}: {sample.notebooks} notebooks "
        f"in {printable(str(sample.submissions))}, a roster and hand-in times "
        f"(the deadline was {deadline}). Grade it with:\n"
        f"  python -m course_tools grade {printable(str(sample.submissions))} "
        f"--out {printable(str(out / 'gradebook.csv'))} --deadline {deadline} "
        f"--summary {printable(str(out / 'summary.csv'))} "
        f"--summary-plot {printable(str(out / 'summary.png'))} "
        f"--written {printable(str(out / 'written.md'))} "
        f"--roster {printable(str(sample.roster))} "
        f"--lms canvas {printable(str(out / 'canvas.csv'))} "
        f"--lms moodle {printable(str(out / 'moodle.csv'))}",
        file=sys.stderr,
    )
    return 0
