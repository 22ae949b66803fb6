"""Benchmark: connect + list_tools in-process versus over stdio, and the lessons' wall time.

Usage:
    python benchmarks/bench_connect.py [--in-process-runs 200] [--stdio-runs 10] [--nbval]

Prints medians (ms) and their ratio; with --nbval, also the wall time of
`pytest notebooks/` (every lesson under strict nbval). Targets (issue 2):
in-process median <= 10 ms and >= 30x faster than stdio; lesson 00 <= 10 s.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio

from course_lib import connect, python_command
from course_lib.servers.file_ops import file_ops_server

ROOT = Path(__file__).resolve().parent.parent


async def one_session(target) -> float:
    start = time.perf_counter()
    async with connect(target) as client:
        await client.list_tools()
    return time.perf_counter() - start


async def measure(target, runs: int) -> list[float]:
    return [await one_session(target) for _ in range(runs)]


def timed_command(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--in-process-runs", type=int, default=200)
    parser.add_argument("--stdio-runs", type=int, default=10)
    parser.add_argument(
        "--nbval", action="store_true", help="also time the strict nbval run of notebooks/"
    )
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as root:
        server = file_ops_server(root)
        anyio.run(measure, server, 5)  # warm-up: imports, first-call caches
        in_process = anyio.run(measure, server, args.in_process_runs)
        command = python_command("-m", "course_lib", "serve", "file-ops", "--root", root)
        stdio = anyio.run(measure, command, args.stdio_runs)

    in_ms, stdio_ms = statistics.median(in_process) * 1000, statistics.median(stdio) * 1000
    print(f"in-process connect + list_tools: median {in_ms:8.2f} ms over {len(in_process)} runs")
    print(f"stdio      connect + list_tools: median {stdio_ms:8.2f} ms over {len(stdio)} runs")
    print(f"ratio stdio / in-process:        {stdio_ms / in_ms:8.1f}x")

    if args.nbval:
        pytest = [sys.executable, "-m", "pytest", "-q", "-n", "0"]
        lesson00 = timed_command([*pytest, "notebooks/00_start_here.ipynb"])
        print(f"lesson 00 under strict nbval:    {lesson00:8.1f} s wall")
        lessons = timed_command([*pytest, "notebooks/"])
        print(f"all lessons under strict nbval:  {lessons:8.1f} s wall (serial)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
