"""Benchmark: build the static book in both languages; print wall time, CPU time and site size.

Usage:
    python benchmarks/bench_book.py [--runs 3]

Each run is ``python tools/build_book.py`` from scratch (English, Chinese and the gettext check,
run side by side). Target (issue 14): both languages in under 30 s on a 2-core machine.
CPU time (all Sphinx processes) is printed too: unlike wall time, it barely depends on other load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "build" / "book" / "site"


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    walls, cpus = [], []
    for _ in range(args.runs):
        before = os.times()
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "tools/build_book.py"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        walls.append(time.perf_counter() - start)
        after = os.times()
        cpus.append(
            (after.children_user - before.children_user)
            + (after.children_system - before.children_system)
        )
        if done.returncode != 0:
            print(done.stdout, done.stderr, file=sys.stderr)
            return 1
    pages = {lang: sum(1 for _ in (SITE / lang).rglob("*.html")) for lang in ("en", "zh-CN")}
    print(f"cores: {os.cpu_count()}, load average: {os.getloadavg()[0]:.1f}, runs: {args.runs}")
    print(
        f"build, both languages (wall, median): {statistics.median(walls):.1f} s"
        f"  (min {min(walls):.1f} s; target < 30 s)"
    )
    print(f"build, both languages (CPU, median):  {statistics.median(cpus):.1f} s")
    print(
        f"site: {_size(SITE) / 1e6:.1f} MB; "
        f"en {_size(SITE / 'en') / 1e6:.1f} MB ({pages['en']} pages), "
        f"zh-CN {_size(SITE / 'zh-CN') / 1e6:.1f} MB ({pages['zh-CN']} pages); "
        f"of which Mermaid {_size(SITE / 'en' / '_static' / 'mermaid') / 1e6:.1f} MB per language"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
