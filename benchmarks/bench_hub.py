"""Benchmark a class on one JupyterHub: N simulated learners spawn and run lesson 00.

Usage: python benchmarks/bench_hub.py [--users 30] [--proxy PATH] [--keep DIR]

Needs the `.[hub]` extra and configurable-http-proxy (docs/hub.md). Writes a hub with
`course_tools.hub.config` into a temporary folder, listening on 127.0.0.1 only, starts it,
prestarts every learner's server through the REST API, then has every learner run lesson 00 at
once over the kernel protocol (`course_tools.hub.learner`: a session, the notebook read through
the contents API, one execute_request per code cell), and stops everything.

Prints: time until every server is up, time until every learner has finished lesson 00 (from
the first spawn request), failures, CPU-seconds per learner (all processes under the hub,
hub and proxy at idle subtracted), peak memory per learner (PSS of all processes under the hub,
idle subtracted), and the load average, since another job on the machine slows every figure.
Target (issue 15): 30 learners through lesson 00 within 120 s on 2 cores. Not a timed test:
exit status 0 unless the hub could not run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from course_tools.hub.config import HubSettings, learner_names, write  # noqa: E402
from course_tools.hub.learner import run_notebook  # noqa: E402
from course_tools.hub.prestart import prestart  # noqa: E402
from course_tools.hub.process import RunningHub, descendants, free_port  # noqa: E402
from course_tools.hub.requirements import find_proxy, missing  # noqa: E402

LESSON = "notebooks/00_start_here.ipynb"
TARGET_SECONDS = 120
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU of `pids` and of their children already waited for."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
    return total / TICKS


def pss_mb(pids: list[int]) -> float:
    total_kb = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total_kb += int(line.split()[1])
                    break
        except OSError:
            continue
    return total_kb / 1024


class PeakMemory(threading.Thread):
    def __init__(self, root: int) -> None:
        super().__init__(daemon=True)
        self.root, self.peak, self.running = root, 0.0, True

    def run(self) -> None:
        while self.running:
            self.peak = max(self.peak, pss_mb([self.root, *descendants(self.root)]))
            time.sleep(0.5)


async def everyone_runs_lesson_00(url: str, token: str, names: list[str]):
    return await asyncio.gather(*(run_notebook(url, name, token, LESSON) for name in names))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=30)
    parser.add_argument(
        "--proxy", help="configurable-http-proxy (default: hub/proxy's npm install, or PATH)"
    )
    parser.add_argument(
        "--keep", type=Path, help="keep the hub folder and homes here (default: a temporary folder)"
    )
    args = parser.parse_args()

    proxy = find_proxy(ROOT, args.proxy)
    problems = missing(ROOT, Path(sys.executable).parent, proxy)
    if problems:
        for problem in problems:
            print(problem, file=sys.stderr)
        return 3
    base = args.keep or Path(tempfile.mkdtemp(prefix="bench-hub-"))
    settings = HubSettings(
        hub_dir=base / "hub",
        course=ROOT,
        homes=base / "homes",
        proxy=str(proxy),
        port=free_port(),
        hub_port=free_port(),
        proxy_api_port=free_port(),
        users=args.users,
    )
    write(settings)
    names = learner_names(settings.prefix, args.users)
    load_before = os.getloadavg()
    print(
        f"{args.users} learners, {os.cpu_count()} cores, load average {load_before[0]:.2f} "
        f"before start; hub in {base}"
    )
    with RunningHub(settings) as hub:
        assert hub.process is not None
        time.sleep(2)
        idle = [hub.process.pid, *descendants(hub.process.pid)]
        idle_cpu, idle_mb = cpu_seconds(idle), pss_mb(idle)
        peak = PeakMemory(hub.process.pid)
        peak.start()
        client_cpu = time.process_time()
        started = time.monotonic()
        up = prestart(
            hub.api, names, timeout=300, progress=lambda line: print(f"  {line}", flush=True)
        )
        servers_up = time.monotonic() - started
        runs = asyncio.run(everyone_runs_lesson_00(settings.url, hub.api.token, up.ready))
        all_done = time.monotonic() - started
        client_cpu = time.process_time() - client_cpu
        tree = [hub.process.pid, *descendants(hub.process.pid)]
        used_cpu = cpu_seconds(tree) - idle_cpu
        peak.running = False
        peak.join()
        load_after = os.getloadavg()
    failures = len(up.failed) + len(up.waiting) + sum(1 for run in runs if run.errors)
    lesson_seconds = sorted(run.seconds for run in runs)
    extra_mb = peak.peak - idle_mb
    print(f"servers up:              {len(up.ready)}/{args.users} in {servers_up:.1f} s")
    if lesson_seconds:
        print(
            f"lesson 00 per learner:   {lesson_seconds[0]:.1f}-{lesson_seconds[-1]:.1f} s (all "
            "at once)"
        )
    print(
        f"all through lesson 00:   {all_done:.1f} s (target <= {TARGET_SECONDS} s: "
        f"{'met' if all_done <= TARGET_SECONDS and not failures else 'NOT met'})"
    )
    print(f"failures:                {failures}")
    for run in runs:
        for error in run.errors:
            print(f"  {run.learner}: {error}")
    print(
        f"CPU under the hub:       {used_cpu:.0f} CPU-s, {used_cpu / args.users:.1f} CPU-s per "
        "learner "
        f"(+ {client_cpu:.0f} CPU-s in this simulated browser)"
    )
    print(
        f"memory under the hub:    peak {peak.peak:.0f} MB PSS, {extra_mb:.0f} MB above idle, "
        f"{extra_mb / args.users:.0f} MB per learner"
    )
    print(
        f"load average:            {load_before[0]:.2f} before, {load_after[0]:.2f} at the end "
        "(1 minute)"
    )
    print(
        "hub stopped; processes left: "
        f"{sum(1 for pid in hub.stopped if Path(f'/proc/{pid}').exists())}"
    )
    if not args.keep:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
