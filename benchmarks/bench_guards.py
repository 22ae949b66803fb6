"""Benchmark: how fast the guards act, in wall time (the tests assert only what stopped what).

Usage:
    python benchmarks/bench_guards.py [--runs 3] [--skip sql,inspect,shortcuts]

Three figures the test suite used to hold as wall-clock bounds, which a busy machine misses:

* sql: a slow statement on the ops-db server is interrupted at its time limit (`TIME_LIMIT`,
  2 s): the overshoot past the limit (target <= 1.5 s); and the guarded built-ins (`instr`,
  `replace`, `trim` over a megabyte) answer in milliseconds (target <= 1 s each).
* inspect: two servers that never answer, `--timeout 3`: inspect starts them together, so the
  whole run takes one timeout, not two (target < 5.5 s; one after the other takes at least 6 s).
* shortcuts: the grader's reader of a submission's code (which flags a part that calls the
  course's reference instead of the learner's own code) on code built to slow it down
  (target < 5 s per notebook; these inputs took 9.5 s to 262 s before it was bounded).

Prints the median of `--runs` runs of each. Run it on a quiet machine: the figures are wall time.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import time
from collections.abc import Callable

BIG = "printf('%.*c', 999000, 'a')"
SQL_SLOW = (
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000) "
    "SELECT count(*) FROM c WHERE printf('%.*c', 999000 - x % 2, 'a') LIKE "
    "'%' || printf('%.*c', 90, 'a') || 'b%'"
)
SQL_GUARDED = {
    "instr": f"SELECT instr({BIG}, printf('%.*c', 300000, 'a') || 'b')",
    "replace": f"SELECT length(replace({BIG}, printf('%.*c', 300000, 'a') || 'b', ''))",
    "trim": f"SELECT length(trim({BIG}, (printf('%.*c', 60000, 'b') || 'a')))",
}
HOSTILE_CODE = {
    "4 MB of code": ["a = 1\n" * 700_000],
    "deep expression": ["x = " + "+".join(["1"] * 60_000) + "\n"],
    "many globals": [
        "def F():\n    global "
        + ", ".join(f"g{i}" for i in range(6000))
        + "\n"
        + "".join(f"    g{i} = 1\n" for i in range(6000)),
        "def predict(a, t):\n    return [" + ", ".join(f"g{i}" for i in range(6000)) + "]\n",
    ],
    "long chains": [
        "import course_lib\ndef predict(a, t):\n"
        + "".join(f"    x{i} = a{'.a' * 900}\n" for i in range(100))
    ],
    "many magics": ["%time x\n" * 25_000],
}


def median_seconds(work: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def bench_sql(runs: int) -> None:
    from course_lib.connection import call_tool_sync
    from course_lib.servers import ops_db

    server = ops_db.ops_db_server(variant="engine")

    def slow() -> None:
        result = call_tool_sync(server, "execute_query", {"sql": SQL_SLOW})
        assert result.is_error, "the slow statement was not stopped"

    stopped = median_seconds(slow, runs)
    print(
        f"sql: slow statement stopped after {stopped:6.2f} s "
        f"(limit {ops_db.TIME_LIMIT:g} s, overshoot {stopped - ops_db.TIME_LIMIT:+.2f} s)"
    )
    for name, sql in SQL_GUARDED.items():
        seconds = median_seconds(
            lambda sql=sql: call_tool_sync(server, "execute_query", {"sql": sql}), runs
        )
        print(f"sql: {name:8} over a megabyte   {seconds * 1000:8.1f} ms")


def bench_inspect(runs: int) -> None:
    from course_lib.__main__ import main as course_main

    hang = ["--", sys.executable, "-c", "import time; time.sleep(600)"]
    argv = ["inspect", "--timeout", "3", *hang, *hang]

    def inspect() -> None:  # in this process, as a test would run it: no interpreter start-up
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            course_main(argv)

    seconds = median_seconds(inspect, runs)
    print(f"inspect: two silent servers, --timeout 3: {seconds:6.2f} s (one after the other: >= 6)")


def bench_shortcuts(runs: int) -> None:
    from course_tools.grading import load_exercises
    from course_tools.grading.results import CaseResult, ExerciseResult
    from course_tools.grading.shortcuts import apply_rules

    exercise = load_exercises()["02_predict_the_client"]

    def read(cells: list[str]) -> None:
        cases = [CaseResult(c.id, c.label, "passed", c.points, c.points) for c in exercise.cases]
        score = round(sum(c.points for c in cases), 2)
        result = ExerciseResult("learner", exercise.id, "graded", score, exercise.max_points, cases)
        apply_rules(result, exercise, cells)

    for name, cells in HOSTILE_CODE.items():
        seconds = median_seconds(lambda cells=cells: read(cells), runs)
        print(f"shortcuts: {name:16} {seconds:6.2f} s")


BENCHES = {"sql": bench_sql, "inspect": bench_inspect, "shortcuts": bench_shortcuts}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip", default="", help="comma-separated: " + ", ".join(BENCHES))
    args = parser.parse_args()
    skipped = {name.strip() for name in args.skip.split(",") if name.strip()}
    unknown = skipped - set(BENCHES)
    if unknown:
        parser.error(f"--skip names no benchmark: {', '.join(sorted(unknown))}")
    for name, bench in BENCHES.items():
        if name not in skipped:
            bench(args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
