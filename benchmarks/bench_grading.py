"""Benchmark the grader: a class of 30 submissions, graded with --jobs 1 and --jobs 2.

Usage: python benchmarks/bench_grading.py [--count 30] [--jobs 1 2]
           [--isolation bwrap none] [--keep DIR]

The class mixes correct, wrong and blank notebooks of all five exercises and one infinite loop,
built from the committed solutions/ and exercises/. Targets (docs/instructor.md): 30 submissions
graded in at most 90 s on a 2-core machine, and --jobs 2 at least 1.8 times faster than --jobs 1.
Not a timed test: it prints the figures and whether the targets were met; exit status 0 either way
unless grading itself failed. With several --isolation modes, each job count is graded in each
mode, alternating, and the ratio to "none" is printed: the cost of the sandbox
(target: at most 1.3×).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from course_tools.__main__ import main as course_main  # noqa: E402

EXERCISES = [
    "01_annotate_tools",
    "02_predict_the_client",
    "03_break_the_trifecta",
    "04_catch_the_liar",
    "05_your_own_server",
]
# One plausible mistake per exercise (old text -> new text in the solution's code cells).
MISTAKES = {
    "01_annotate_tools": ("open_world_hint=False", "open_world_hint=True"),
    "02_predict_the_client": ('"B": (PreCall.WARN,', '"B": (PreCall.CONFIRM,'),
    "03_break_the_trifecta": ('"on_taint": PreCall.CONFIRM', '"on_taint": None'),
    "04_catch_the_liar": ('if hints["readOnlyHint"] is True and effects:', "if False:"),
    # the delete tool claims it destroys nothing
    "05_your_own_server": (
        "read_only_hint=False, destructive_hint=True,",
        "read_only_hint=False, destructive_hint=False,",
    ),
}
LOOP = ("    # YOUR CODE HERE\n    raise NotAttempted()", "    while True:\n        pass")


def _edited(nb: nbformat.NotebookNode, old: str, new: str) -> nbformat.NotebookNode:
    for cell in nb.cells:
        if cell.cell_type == "code" and old in cell.source:
            cell.source = cell.source.replace(old, new)
            return nb
    raise SystemExit(f"benchmark corpus: {old!r} not found; update MISTAKES")


def build_class(folder: Path, count: int) -> dict[str, int]:
    """Write `count` submissions (one notebook per student) into `folder`.

    Return how many of each kind were written."""
    kinds = {"correct": 0, "wrong": 0, "blank": 0, "infinite loop": 0}
    for n in range(count):
        exercise = EXERCISES[n % len(EXERCISES)]
        if n == 0:
            kind = "infinite loop"
            nb = _edited(
                nbformat.read(ROOT / "exercises" / "01_annotate_tools.ipynb", as_version=4), *LOOP
            )
            exercise = "01_annotate_tools"
        elif n % 3 == 1:
            kind, nb = (
                "correct",
                nbformat.read(ROOT / "solutions" / f"{exercise}.ipynb", as_version=4),
            )
        elif n % 3 == 2:
            kind = "wrong"
            nb = _edited(
                nbformat.read(ROOT / "solutions" / f"{exercise}.ipynb", as_version=4),
                *MISTAKES[exercise],
            )
        else:
            kind, nb = (
                "blank",
                nbformat.read(ROOT / "exercises" / f"{exercise}.ipynb", as_version=4),
            )
        kinds[kind] += 1
        path = folder / f"student{n:02d}" / f"{exercise}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, path)
    return kinds


def grade(
    submissions: Path, out: Path, jobs: int, isolation: str = "bwrap"
) -> tuple[float, list[dict[str, str]]]:
    started = time.monotonic()
    argv = [
        "grade",
        str(submissions),
        "--out",
        str(out),
        "--jobs",
        str(jobs),
        "--quiet",
        "--isolation",
        isolation,
    ]
    with contextlib.redirect_stderr(io.StringIO()):
        status = course_main(argv)
    seconds = time.monotonic() - started
    if status != 0:
        raise SystemExit(f"grading failed with exit status {status}")
    with out.open(encoding="utf-8", newline="") as handle:
        return seconds, list(csv.DictReader(handle))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--count", type=int, default=30, help="submissions in the class (default 30)"
    )
    parser.add_argument(
        "--jobs", type=int, nargs="+", default=[1, 2], help="job counts to compare (default: 1 2)"
    )
    parser.add_argument(
        "--isolation",
        nargs="+",
        default=["bwrap"],
        help="isolation modes to compare (default: bwrap)",
    )
    parser.add_argument(
        "--keep", type=Path, help="build the class here and keep it (default: a temporary folder)"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        base = args.keep or Path(tmp)
        submissions = base / "submissions"
        kinds = build_class(submissions, args.count)
        print(
            f"class: {args.count} submissions ({', '.join(f'{v} {k}' for k, v in kinds.items())})"
        )
        times: dict[int, float] = {}
        by_mode: dict[tuple[int, str], float] = {}
        for jobs in args.jobs:
            for mode in args.isolation:
                seconds, rows = grade(
                    submissions, base / f"gradebook-jobs{jobs}-{mode}.csv", jobs, mode
                )
                statuses = sorted({r["status"] for r in rows})
                by_mode[jobs, mode] = seconds
                times.setdefault(jobs, seconds)
                print(
                    f"--jobs {jobs} --isolation {mode}: {seconds:6.1f} s for {len(rows)} students "
                    f"(statuses: {', '.join(statuses)})",
                    flush=True,
                )
            if "none" in args.isolation:
                for mode in args.isolation:
                    if mode != "none":
                        ratio = by_mode[jobs, mode] / by_mode[jobs, "none"]
                        verdict = "met" if ratio <= 1.3 else "NOT met"
                        print(
                            f"--jobs {jobs}: {mode} takes {ratio:.2f}× the time of none "
                            f"(target ≤ 1.3×: {verdict})"
                        )
    if 2 in times:
        print(
            f"target ≤ 90 s with --jobs 2: {'met' if times[2] <= 90 else 'NOT met'} "
            f"({times[2]:.1f} s)"
        )
    if 1 in times and 2 in times:
        speedup = times[1] / times[2]
        print(
            f"target --jobs 2 ≥ 1.8× faster than --jobs 1: "
            f"{'met' if speedup >= 1.8 else 'NOT met'} ({speedup:.2f}×)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
