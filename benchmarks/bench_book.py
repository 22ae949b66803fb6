"""Benchmark: build the static book in both languages; print wall time, CPU time and site size.

Usage:
    python benchmarks/bench_book.py [--runs 3]

Each run is ``python tools/build_book.py`` from scratch (English, Chinese and the gettext check,
run side by side), printed as soon as it is over with the date and the load average before and
after it; the last lines give min and median over the runs. Target (issue 14): both languages
in under 30 s on a 2-core machine. CPU time (all Sphinx processes) is printed too: it depends
far less on other load than wall time does, but not at all on nothing: on a busy machine both
grow, so publish figures measured on a quiet one, with their load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "build" / "book" / "site"
TARGET_SECONDS = 30


@dataclass(frozen=True)
class Build:
    wall: float
    cpu: float
    load_before: float
    load_after: float


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def build_once() -> Build:
    """One build from scratch; exits with the build's output if it fails."""
    load_before = os.getloadavg()[0]
    before = os.times()
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "tools/build_book.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    after = os.times()
    if done.returncode != 0:
        print(done.stdout, done.stderr, file=sys.stderr)
        raise SystemExit(1)
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return Build(wall, cpu, load_before, os.getloadavg()[0])


def spread(values: list[float]) -> str:
    return f"min {min(values):.1f} s, median {statistics.median(values):.1f} s"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(
        f"{datetime.now(timezone.utc).isoformat(timespec='seconds')}: {os.cpu_count()} cores, "
        f"{args.runs} runs",
        flush=True,
    )
    builds = []
    for number in range(1, args.runs + 1):
        build = build_once()
        builds.append(build)
        print(
            f"run {number}: {build.wall:.1f} s wall, {build.cpu:.1f} s CPU; load average "
            f"{build.load_before:.1f} before, {build.load_after:.1f} after",
            flush=True,
        )
    walls, cpus = [b.wall for b in builds], [b.cpu for b in builds]
    pages = {lang: sum(1 for _ in (SITE / lang).rglob("*.html")) for lang in ("en", "zh-CN")}
    print(
        f"build, both languages (wall): {spread(walls)} (target < {TARGET_SECONDS} s: "
        f"{'met' if statistics.median(walls) < TARGET_SECONDS else 'NOT met'})"
    )
    print(f"build, both languages (CPU):  {spread(cpus)}")
    print(
        f"load average (1 minute): {min(b.load_before for b in builds):.1f} to "
        f"{max(b.load_after for b in builds):.1f}"
    )
    print(
        f"site: {_size(SITE) / 1e6:.1f} MB; "
        f"en {_size(SITE / 'en') / 1e6:.1f} MB ({pages['en']} pages), "
        f"zh-CN {_size(SITE / 'zh-CN') / 1e6:.1f} MB ({pages['zh-CN']} pages); "
        f"of which Mermaid {_size(SITE / 'en' / '_static' / 'mermaid') / 1e6:.1f} MB per language"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
