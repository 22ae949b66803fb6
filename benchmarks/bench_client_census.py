"""Time the client census: seconds per run and per profile cell for each client, and the whole.

    python benchmarks/bench_client_census.py                    # every client .ci/peers installed
    python benchmarks/bench_client_census.py gemini copilot --full

For each client it measures one mode with no trust or rule setting, one run, and prints the
seconds per CLI run and per profile cell (a run calls every measurement tool once). From the
number of runs a full measurement needs (modes x settings, plus the classifier's refusing cells)
it estimates the whole census at one run per cell, which is what the peers tier does; with
`--full` it times that whole census instead. Needs the CLIs (.ci/peers installs them); contacts
nothing but 127.0.0.1. Give the figures with the machine and its load: never from a busy one.
"""

from __future__ import annotations

import argparse
import sys
import time

from course_tools.measure.adapter import ClientAdapter
from course_tools.measure.errors import MeasureError
from course_tools.measure.harness import PLAN, measure
from course_tools.measure.registry import ADAPTERS


def _runs_needed(adapter: ClientAdapter, cli: str) -> int:
    """Runs of one full measurement at one run per cell (a classifier mode counts twice)."""
    modes = adapter.modes(cli)
    classifier = sum(m in {"auto"} for m in modes)  # measured approving, then refusing
    return (len(modes) + classifier) * len(adapter.settings())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clients", nargs="*", default=sorted(ADAPTERS), help="clients to time")
    parser.add_argument("--full", action="store_true", help="time the whole census, one run a cell")
    args = parser.parse_args()
    total_estimate = total_wall = 0.0
    print(f"{'client':12} {'version':9} {'s/run':>7} {'s/cell':>7} {'runs':>5} {'census s':>9}")
    for name in args.clients:
        adapter = ADAPTERS[name]
        cli = adapter.find(None)
        if cli is None:
            print(f"{name:12} not installed (run .ci/peers)", file=sys.stderr)
            continue
        modes = None if args.full else adapter.modes(cli)[:1]
        started = time.monotonic()
        try:
            m = measure(adapter, cli, repeats=1, modes=modes)
        except MeasureError as exc:
            print(f"{name:12} failed: {exc}", file=sys.stderr)
            continue
        wall = time.monotonic() - started
        per_run = float(m.timing["seconds_per_run"])
        runs = _runs_needed(adapter, cli)
        estimate = wall if args.full else per_run * runs
        total_estimate += estimate
        total_wall += wall
        print(
            f"{name:12} {m.version:9} {per_run:7.2f} {per_run / len(PLAN):7.2f} {runs:5d} "
            f"{estimate:9.0f}"
        )
    what = "measured" if args.full else "estimated from one mode each"
    print(
        f"whole census at one run per cell: {total_estimate / 60:.1f} min ({what}); "
        f"this run took {total_wall / 60:.1f} min"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
