"""Time `measure-client` per cell: one Claude Code permission mode, every rule set, one run each.

    python benchmarks/bench_measure.py --cli .peers/claude/node_modules/.bin/claude [--modes manual]

Prints the seconds per CLI run and per profile cell (a run calls eight tools). Needs the CLI
(.ci/peers installs it); contacts nothing but 127.0.0.1.
"""

from __future__ import annotations

import argparse
import sys
import time

from course_tools.measure.claude_code import measure_claude_code
from course_tools.measure.run import PLAN, find_cli


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", help="the claude executable (default: PATH, else .peers/claude)")
    parser.add_argument("--modes", nargs="+", default=["manual", "default"])
    args = parser.parse_args()
    cli = find_cli("claude-code", args.cli)
    if cli is None:
        print("bench_measure: Claude Code not found; run .ci/peers or pass --cli", file=sys.stderr)
        return 3
    started = time.monotonic()
    m = measure_claude_code(cli, repeats=1, modes=args.modes)
    wall = time.monotonic() - started
    runs = int(m.timing["runs"])
    modes = ", ".join(m.modes)
    print(f"Claude Code {m.version}, modes {modes}: {runs} runs + 3 extra, {wall:.1f} s wall")
    print(f"  per CLI run:       {m.timing['seconds_per_run']:.2f} s")
    print(f"  per profile cell:  {m.timing['seconds_per_cell']:.2f} s ({len(PLAN)} calls per run)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
