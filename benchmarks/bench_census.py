"""Benchmark: the census of real servers: install from the lock files, then one offline run.

Usage:
    python benchmarks/bench_census.py [--root DIR] [--only LABEL ...] [--runs 1]

Prints the wall time of `census install` into DIR (default: a fresh folder under build/, so the
install is cold for the course but uses npm's and pip's own download caches, as a CI machine
does on its second run) and of each `census run --check` after it (installs are then skipped by
their lock-file hash). Target (issue 21): install + run within 30 minutes on a 2-core machine
with warm registry caches, and a run within 5 minutes, so the peers tier fits a 90-minute CI.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(argv: list[str]) -> tuple[float, int]:
    started = time.monotonic()
    done = subprocess.run(argv, cwd=ROOT, check=False)
    return time.monotonic() - started, done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT / "build" / "bench-census")
    parser.add_argument("--only", nargs="+", metavar="LABEL")
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    shutil.rmtree(args.root, ignore_errors=True)
    base = [sys.executable, "-m", "course_tools", "census"]
    only = ["--only", *args.only] if args.only else []
    seconds, status = timed([*base, "install", "--root", str(args.root), *only])
    print(f"install: {seconds:.0f} s (exit {status})")
    for run in range(args.runs):
        seconds, status = timed([*base, "run", "--check", "--root", str(args.root), *only])
        print(f"run {run + 1}: {seconds:.0f} s (exit {status})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
