"""``python -m course_tools grade SUBMISSIONS_DIR --out gradebook.csv``: grade exercise notebooks.

Exit status: 0 when grading completed (whatever the students scored); 1 when ``--self-test``
found the course's solutions or blank exercises graded wrongly; 2 for a usage error (no such
folder, broken cases); 3 when grading itself cannot run (no kernel, outputs not writable).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import os
import sys
import tempfile
import time
from pathlib import Path

from course_lib.safe_text import printable

from . import after as after_grading
from .announce import announce, no_sandbox
from .batch import grade_all
from .cases import Exercise, load_exercises
from .discover import Submission, discover
from .leftovers import clean_stale_folders
from .report import feedback_names, student_row, write_feedback, write_gradebook, write_results
from .results import ExerciseResult, Limits
from .runner import preflight
from .sandbox import MODES, SandboxUnavailable, choose_isolation

HELP = (
    "grade exercise notebooks: SUBMISSIONS/<student>/<exercise>.ipynb -> gradebook CSV, "
    "results JSONL, feedback"
)

EXIT_OK, EXIT_SELF_TEST_FAILED, EXIT_USAGE, EXIT_INFRASTRUCTURE = 0, 1, 2, 3


def _default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS, Windows
        return max(1, os.cpu_count() or 1)


def _course_root() -> Path:
    """The checkout the course is installed from (editable install), else the current folder."""
    here = Path(__file__).resolve().parents[2]
    return here if (here / "solutions").is_dir() else Path.cwd()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "submissions", nargs="?", type=Path, help="folder of submissions (see docs/instructor.md)"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("gradebook.csv"),
        help="gradebook CSV (default: gradebook.csv)",
    )
    parser.add_argument(
        "--results",
        type=Path,
        help="machine-readable results, one JSON per line (default: next to --out, .jsonl)",
    )
    parser.add_argument(
        "--feedback",
        type=Path,
        help="folder for one Markdown feedback file per student (default: feedback/ next to --out)",
    )
    parser.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=_default_jobs(),
        help="notebooks graded at once (default: the number of cores)",
    )
    parser.add_argument(
        "--cell-timeout", type=float, default=15.0, help="seconds per code cell (default 15)"
    )
    parser.add_argument(
        "--probe-timeout", type=float, default=5.0, help="seconds per hidden case (default 5)"
    )
    parser.add_argument(
        "--notebook-timeout",
        type=float,
        default=120.0,
        help="seconds per notebook for its cells and probes "
        "(default 120; a rerun after a killed kernel gets it again)",
    )
    parser.add_argument(
        "--exercise",
        action="append",
        default=[],
        metavar="NN",
        help="grade only this exercise "
        "(its number or id; repeatable; default: every exercise found in the submissions)",
    )
    parser.add_argument(
        "--cases",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="extra folder of hidden-case modules (replaces exercises with the same number)",
    )
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="grade solutions/ (must score full marks) "
        "and exercises/ (must score 0, not attempted)",
    )
    parser.add_argument(
        "--course-root",
        type=Path,
        default=None,
        help="checkout holding solutions/ and exercises/ "
        "(for --self-test, --written, --sample-class)",
    )
    parser.add_argument(
        "--isolation",
        choices=MODES,
        default="bwrap",
        help="how each kernel runs: bwrap (a bubblewrap sandbox; default: grading stops where it "
        "cannot start), none (with your rights, said in every row)",
    )
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress lines")
    after_grading.add_arguments(parser)


def _write_outputs(
    args: argparse.Namespace,
    submissions: list[Submission],
    by_student: dict[str, list[ExerciseResult]],
    exercises: dict[str, Exercise],
    after: after_grading.AfterGrading,
) -> list[str]:
    """Write the gradebook, results, feedback and the after-grading files; return what to say."""
    extra = after_grading.annotate(after, submissions, by_student, exercises, args.submissions)
    out = args.out
    results_path = args.results or out.with_suffix(".jsonl")
    feedback_dir = args.feedback or out.parent / "feedback"
    rows = [student_row(s.student, by_student[s.student], exercises, s.notes) for s in submissions]
    rows = [{**row, **extra.cells.get(s.student, {})} for row, s in zip(rows, submissions)]
    write_gradebook(out, rows, exercises, extra.columns)
    write_results(results_path, [r for s in submissions for r in by_student[s.student]])
    names = feedback_names([s.student for s in submissions])
    for sub in submissions:
        write_feedback(
            feedback_dir, sub.student, by_student[sub.student], exercises, names[sub.student]
        )
    print(f"gradebook: {out}  results: {results_path}  feedback: {feedback_dir}/", file=sys.stderr)
    return after_grading.finish(after, extra, submissions, by_student, exercises, args.submissions)


def _outputs(args: argparse.Namespace) -> list[Path]:
    """The instructor's folders a kernel must not see: outputs, cases, submissions."""
    out = args.out
    folders = [
        out.parent,
        (args.results or out).parent,
        args.feedback or out.parent / "feedback",
        *args.cases,
        *after_grading.hidden_folders(args),
    ]
    if args.submissions is not None:
        folders.append(args.submissions)
    return [Path(f).absolute() for f in folders]


def _compile_course(package: Path | None = None) -> None:
    """Write course_lib's bytecode once, here: kernels see the package read-only (or may not write
    bytecode), so without it every kernel would compile the modules it imports again.

    First remove bytecode whose source is gone (a `__pycache__` entry of a deleted module, or a
    sourceless `.pyc`): a kernel sees these folders, and a deleted module's bytecode may hold what
    it should not (hidden cases did, once)."""
    import compileall

    import course_lib

    folder = package or Path(course_lib.__file__).parent
    for pyc in folder.rglob("*.pyc"):
        home = pyc.parent.parent if pyc.parent.name == "__pycache__" else None
        if home is None or not (home / f"{pyc.name.split('.')[0]}.py").is_file():
            try:
                pyc.unlink()
            except OSError as exc:
                print(f"warning: cannot remove stale bytecode {pyc}: {exc}", file=sys.stderr)
    with contextlib.redirect_stdout(io.StringIO()):
        compileall.compile_dir(str(folder), quiet=2, workers=1)


def _self_test(args: argparse.Namespace, exercises: dict[str, Exercise], limits: Limits) -> int:
    root = args.course_root or _course_root()
    problems: list[str] = []
    groups = []
    for folder, expect_full in (("solutions", True), ("exercises", False)):
        path = root / folder
        if not path.is_dir():
            print(
                f"course_tools grade --self-test: no {folder}/ folder in {root}; "
                "pass --course-root",
                file=sys.stderr,
            )
            return EXIT_USAGE
        sub = Submission(folder)
        for exercise_id in exercises:
            notebook = path / f"{exercise_id}.ipynb"
            if notebook.is_file():
                sub.notebooks[exercise_id] = notebook
            else:
                problems.append(f"{folder}/{exercise_id}.ipynb is missing")
        groups.append((sub, expect_full))
    started = time.monotonic()
    by_student = asyncio.run(
        grade_all(
            [g[0] for g in groups], exercises, limits, args.jobs, args.quiet, args.isolation_chosen
        )
    )
    for sub, expect_full in groups:
        for result in by_student[sub.student]:
            if result.exercise not in sub.notebooks:
                continue
            where = f"{sub.student}/{result.exercise}"
            if expect_full and (result.score != result.max_score or result.status != "graded"):
                failed = [
                    f"{c.id} ({c.status}: {c.detail})" for c in result.cases if c.status != "passed"
                ]
                problems.append(
                    f"{where}: {result.score:g}/{result.max_score:g} {result.status}; "
                    f"{'; '.join(failed)}; {' | '.join(n.english() for n in result.notes)}"
                )
            if not expect_full and (result.score != 0 or result.status != "not attempted"):
                odd = [f"{c.id} ({c.status})" for c in result.cases if c.status != "not attempted"]
                answered = [c.id for c in result.cases if c.status in ("passed", "failed")]
                plain = (
                    f"{where} is not blank: {len(answered)} case(s) have an answer "
                    f"({', '.join(answered)}). "
                    "Someone filled in or ran the exercise; "
                    "regenerate it with `python tools/make_exercises.py`. "
                    if answered
                    else ""
                )
                problems.append(
                    f"{plain}{where}: {result.score:g}/{result.max_score:g} {result.status}; "
                    f"{'; '.join(odd)}; {' | '.join(n.english() for n in result.notes)}"
                )
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "gradebook.csv"
        rows = [student_row(g[0].student, by_student[g[0].student], exercises) for g in groups]
        write_gradebook(out, rows, exercises)
    seconds = time.monotonic() - started
    if problems:
        print("self-test FAILED:", file=sys.stderr)
        for problem in problems:
            print(f"  - {printable(problem)}", file=sys.stderr)
        return EXIT_SELF_TEST_FAILED
    print(
        f"self-test passed in {seconds:.1f} s: solutions/ score full marks "
        "and exercises/ score 0 (not attempted) "
        f"on {len(exercises)} exercises ({', '.join(exercises)})",
        file=sys.stderr,
    )
    return EXIT_OK


def _chosen(
    exercises: dict[str, Exercise], wanted: list[str], submissions: list[Submission]
) -> dict[str, Exercise]:
    """The exercises to grade: those named with --exercise, else every exercise anyone handed in.

    Raises:
        ValueError: --exercise names no known exercise.
    """
    if wanted:
        chosen = {}
        for name in wanted:
            match = [
                e for e in exercises.values() if name in {e.id, e.number, e.number.lstrip("0")}
            ]
            if not match:
                raise ValueError(
                    f"--exercise {name}: no such exercise; the exercises are {', '.join(exercises)}"
                )
            chosen[match[0].id] = match[0]
    else:
        found = {exercise for sub in submissions for exercise in sub.notebooks}
        chosen = {k: v for k, v in exercises.items() if k in found} or exercises
    for sub in submissions:
        for exercise in [e for e in sub.notebooks if e not in chosen]:
            del sub.notebooks[exercise]
            sub.notes.append(f"{exercise} not graded in this run (--exercise)")
    return dict(sorted(chosen.items()))


def run(args: argparse.Namespace) -> int:
    if args.sample_class is not None:
        return after_grading.sample_class(args.sample_class, args.course_root or _course_root())
    try:
        limits = Limits(args.cell_timeout, args.probe_timeout, args.notebook_timeout)
        if args.jobs < 1:
            raise ValueError("--jobs must be 1 or more")
        exercises = load_exercises(args.cases)
        if not exercises:
            raise ValueError("no exercises with hidden cases were found")
        if not args.self_test and args.submissions is None:
            raise ValueError(
                "give the submissions folder, "
                "e.g. `python -m course_tools grade submissions/ --out gradebook.csv`"
            )
        class_notes: list[str] = []
        submissions = [] if args.self_test else discover(args.submissions, exercises, class_notes)
        exercises = _chosen(exercises, args.exercise, submissions)
        after = after_grading.prepare(args, args.course_root or _course_root())
    except ValueError as exc:
        print(f"course_tools grade: {printable(str(exc), newlines=True)}", file=sys.stderr)
        return EXIT_USAGE
    try:
        after_grading.check_writable(after)
        isolation = choose_isolation(args.isolation).with_hidden(_outputs(args))
    except SandboxUnavailable as exc:
        print(no_sandbox(str(exc)), file=sys.stderr)
        return EXIT_INFRASTRUCTURE
    except ValueError as exc:  # an output that cannot be written
        print(f"course_tools grade: grading cannot run: {exc}", file=sys.stderr)
        return EXIT_INFRASTRUCTURE
    # A grader killed with SIGKILL could not remove its kernels' folders and cgroups: do it now.
    clean_stale_folders()
    if isolation.group is not None:
        isolation.group.clean_stale()
    _compile_course()
    problem = asyncio.run(preflight(isolation))
    if problem and isolation.isolated:
        # bubblewrap runs here, but a kernel cannot start inside it (an unusual Python layout,
        # say): stop, rather than grade unsandboxed by surprise
        print(no_sandbox(f"a kernel cannot start under bubblewrap: {problem}"), file=sys.stderr)
        return EXIT_INFRASTRUCTURE
    args.isolation_chosen = isolation
    announce(isolation)
    for note in class_notes:
        print(f"note: {printable(note)}", file=sys.stderr)
    if problem:
        print(f"course_tools grade: grading cannot run: {problem}", file=sys.stderr)
        return EXIT_INFRASTRUCTURE
    if args.self_test:
        return _self_test(args, exercises, limits)
    if not submissions:
        print(
            f"course_tools grade: no submissions found in {printable(str(args.submissions))} "
            "(expected <student>/<exercise>.ipynb)",
            file=sys.stderr,
        )
    started = time.monotonic()
    by_student = asyncio.run(
        grade_all(
            submissions, exercises, limits, args.jobs, args.quiet, isolation, args.submissions
        )
    )
    try:
        lines = _write_outputs(args, submissions, by_student, exercises, after)
    except OSError as exc:
        print(f"course_tools grade: cannot write the results: {exc}", file=sys.stderr)
        return EXIT_INFRASTRUCTURE
    count = sum(len(s.notebooks) for s in submissions)
    print(
        f"graded {count} notebooks from {len(submissions)} students "
        f"in {time.monotonic() - started:.1f} s",
        file=sys.stderr,
    )
    print("\n".join(lines), file=sys.stderr)
    return EXIT_OK
