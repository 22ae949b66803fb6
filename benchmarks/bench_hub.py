"""Benchmark a class on one JupyterHub: N simulated learners spawn and run lesson 00.

Usage:
    python benchmarks/bench_hub.py [--users 30] [--runs 3] [--load 0] [--json FILE]
    python benchmarks/bench_hub.py --summarize FILE [FILE ...]

Needs the `.[hub]` extra and configurable-http-proxy (docs/hub.md). Each run writes a hub with
`course_tools.hub.config` into a new temporary folder, listening on 127.0.0.1 only, starts it,
prestarts every learner's server through the REST API (`course_tools.hub.prestart`, as an
instructor does), then has every learner run lesson 00 at once over the kernel protocol
(`course_tools.hub.learner`: a session, the notebook read through the contents API, one
execute_request per code cell), and stops everything, deleting the folder, whatever happens
(an error, Ctrl-C, SIGTERM).

Each run prints, as soon as it is over: time until every server is up, time until every
learner has finished lesson 00 (from the first spawn request), failures (named), CPU-seconds
per learner (all processes under the hub, split by kind: servers, kernels, stdio MCP servers,
hub, proxy), peak memory per learner (PSS above idle), and the date and load average, since
another job on the machine slows every figure. Several runs end with min and median.

Before each run it waits (up to --settle-wait s) for the 1-minute load average to fall below
--settle (default: the number of cores). --load K adds K busy processes for the whole
benchmark: "under load", the same way every time. --json appends each run to a JSON-lines
file; --summarize prints docs/hub.md's table rows from such files.

Target (issue 25): 30 learners through lesson 00 within 120 s on an idle 2-core machine, at
most 6 CPU-s per learner. Not a timed test: exit status 0 unless the hub could not run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from course_tools.hub.api import HubError  # noqa: E402
from course_tools.hub.config import HubSettings, learner_names, write  # noqa: E402
from course_tools.hub.prestart import Pace, prestart  # noqa: E402
from course_tools.hub.process import RunningHub, descendants, free_port, still_running  # noqa: E402
from course_tools.hub.requirements import find_proxy, missing  # noqa: E402
from course_tools.hub.runtime import build_font_cache  # noqa: E402
from course_tools.hub.usage import Kind, TreeSampler, cpu_seconds, pss_mb  # noqa: E402

LESSON = "notebooks/00_start_here.ipynb"
TARGET_SECONDS = 120
TARGET_CPU = 6.0
SHOWN_KINDS = list(Kind)


@dataclass
class Run:
    """One run's figures (what --json writes, one object a line)."""

    date: str
    users: int
    cores: int
    background_load: int
    load_before: list[float]
    load_after: list[float] = field(default_factory=list)
    servers_up: float = 0.0
    all_done: float = 0.0
    lesson_min: float = 0.0
    lesson_max: float = 0.0
    failures: list[str] = field(default_factory=list)
    cpu_per_learner: float = 0.0
    cpu_by_kind: dict[str, float] = field(default_factory=dict)  # per learner
    other_programs: list[str] = field(default_factory=list)  # what "other" counts
    browser_cpu: float = 0.0
    mb_per_learner: float = 0.0
    idle_mb: float = 0.0
    left_running: int = 0
    versions: dict[str, str] = field(default_factory=dict)


def versions() -> dict[str, str]:
    import jupyterhub

    found = {"python": platform.python_version(), "jupyterhub": jupyterhub.__version__}
    chp = ROOT / "hub/proxy/node_modules/configurable-http-proxy/package.json"
    if chp.is_file():
        found["configurable-http-proxy"] = json.loads(chp.read_text())["version"]
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    if commit:
        found["course"] = commit
    return found


@contextmanager
def background_load(processes: int) -> Iterator[None]:
    """`processes` busy loops at normal priority for the duration (none when 0)."""
    burners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(processes)
    ]
    try:
        yield
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


def settle(below: float, wait: float) -> None:
    """Wait until the 1-minute load average is below `below`, at most `wait` seconds."""
    deadline = time.monotonic() + wait
    said = False
    while below > 0 and os.getloadavg()[0] >= below and time.monotonic() < deadline:
        if not said:
            print(
                f"  waiting for the load average ({os.getloadavg()[0]:.1f}) to fall below "
                f"{below:g} (at most {wait:.0f} s)",
                flush=True,
            )
            said = True
        time.sleep(5)


async def everyone_runs_lesson_00(url: str, token: str, names: list[str], cell_timeout: float):
    from tornado.httpclient import AsyncHTTPClient

    from course_tools.hub.learner import run_notebook

    # tornado's default is 10 requests at a time: the 11th learner would queue behind them
    AsyncHTTPClient.configure(None, max_clients=max(10, 2 * len(names)))
    return await asyncio.gather(
        *(run_notebook(url, n, token, LESSON, cell_timeout=cell_timeout) for n in names)
    )


def settings_for(base: Path, users: int, proxy: str) -> HubSettings:
    return HubSettings(
        hub_dir=base / "hub",
        course=ROOT,
        homes=base / "homes",
        proxy=proxy,
        port=free_port(),
        hub_port=free_port(),
        proxy_api_port=free_port(),
        users=users,
    )


def measure(hub: RunningHub, run: Run, args: argparse.Namespace) -> None:
    """Prestart, run lesson 00 for everyone, and fill `run`'s figures (the hub is running)."""
    assert hub.process is not None
    names = learner_names(hub.settings.prefix, run.users)
    time.sleep(2)
    sampler = TreeSampler(hub.process.pid)
    idle = [hub.process.pid, *descendants(hub.process.pid)]
    idle_cpu, run.idle_mb = cpu_seconds(idle), pss_mb(idle)
    baseline = sampler.snapshot()
    sampler.start()
    browser_cpu = time.process_time()
    started = time.monotonic()
    pace = Pace(deadline=args.deadline, parallel=args.parallel)
    up = prestart(hub.api, names, pace, progress=lambda line: print(f"  {line}", flush=True))
    run.servers_up = time.monotonic() - started
    lessons = asyncio.run(
        everyone_runs_lesson_00(hub.settings.url, hub.api.token, up.ready, args.cell_timeout)
    )
    run.all_done = time.monotonic() - started
    run.browser_cpu = time.process_time() - browser_cpu
    total = cpu_seconds([hub.process.pid, *descendants(hub.process.pid)]) - idle_cpu
    sampler.stop()
    usage = sampler.usage(baseline)
    seen = sum(usage.cpu.values())
    usage.cpu[Kind.UNSEEN] = max(0.0, total - seen)
    run.cpu_per_learner = total / run.users
    run.cpu_by_kind = {kind.value: cpu / run.users for kind, cpu in usage.cpu.items()}
    run.other_programs = sorted(usage.others)
    run.mb_per_learner = (usage.peak_mb - run.idle_mb) / run.users
    run.failures = [f"{name}: {why}" for name, why in up.failed.items()]
    run.failures += [f"{name}: not ready after {pace.deadline:g} s" for name in up.waiting]
    run.failures += [f"{r.learner}: {error}" for r in lessons for error in r.errors]
    seconds = sorted(r.seconds for r in lessons)
    if seconds:
        run.lesson_min, run.lesson_max = seconds[0], seconds[-1]


def one_run(args: argparse.Namespace, proxy: str) -> Run:
    run = Run(
        date=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        users=args.users,
        cores=os.cpu_count() or 1,
        background_load=args.load,
        load_before=[round(x, 2) for x in os.getloadavg()],
        versions=versions(),
    )
    base = args.keep or Path(tempfile.mkdtemp(prefix="bench-hub-"))
    settings = settings_for(base, args.users, proxy)
    print(
        f"{run.date}: {args.users} learners, {run.cores} cores, load average "
        f"{run.load_before[0]:.2f} before start; hub in {base}",
        flush=True,
    )
    try:
        write(settings)
        build_font_cache(settings.resolved().hub_dir, Path(sys.executable))  # as `hub config`
        hub = RunningHub(settings, ready_timeout=180)
        try:
            with hub:
                measure(hub, run, args)
        finally:
            run.left_running = len(still_running(hub.stopped))
    finally:
        run.load_after = [round(x, 2) for x in os.getloadavg()]
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    return run


def show(run: Run) -> None:
    """Print one run's figures."""
    met = run.all_done <= TARGET_SECONDS and not run.failures
    kinds = " + ".join(
        f"{kind.value} {run.cpu_by_kind.get(kind.value, 0.0):.1f}" for kind in SHOWN_KINDS
    )
    lines = [
        f"servers up:              {run.servers_up:.1f} s",
        f"lesson 00 per learner:   {run.lesson_min:.1f}-{run.lesson_max:.1f} s (all at once)",
        f"all through lesson 00:   {run.all_done:.1f} s (target <= {TARGET_SECONDS} s: "
        f"{'met' if met else 'NOT met'})",
        f"failures:                {len(run.failures)}",
        *(f"  {failure}" for failure in run.failures),
        f"CPU per learner:         {run.cpu_per_learner:.1f} CPU-s (target <= {TARGET_CPU:g}) "
        f"= {kinds}",
        f"                         (+ {run.browser_cpu:.0f} CPU-s in this benchmark's process: "
        "the simulated browsers and the sampling)",
        *([f"  other: {', '.join(run.other_programs)[:300]}"] if run.other_programs else []),
        f"memory per learner:      {run.mb_per_learner:.0f} MB PSS above idle "
        f"(hub and proxy idle: {run.idle_mb:.0f} MB)",
        f"load average:            {run.load_before[0]:.2f} before, {run.load_after[0]:.2f} "
        f"at the end (1 minute); background load {run.background_load}",
        f"processes left running:  {run.left_running}",
    ]
    print("\n".join(lines), flush=True)


def _spread(values: list[float], digits: int = 1) -> str:
    if len(values) == 1:
        return f"{values[0]:.{digits}f}"
    return f"{min(values):.{digits}f} / {statistics.median(values):.{digits}f}"


def table(runs: list[Run]) -> str:
    """docs/hub.md's rows: one per (learners, background load), min / median over its runs."""
    groups: dict[tuple[int, int], list[Run]] = {}
    for run in runs:
        groups.setdefault((run.users, run.background_load), []).append(run)
    rows = [
        "| learners | runs | dates | load before → after | servers up (s) | all through "
        "lesson 00 (s) | failures | CPU-s per learner | MB per learner |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for (users, load), group in sorted(groups.items()):
        dates = sorted({run.date[:10] for run in group})
        loads = ", ".join(f"{r.load_before[0]:.1f} → {r.load_after[0]:.1f}" for r in group)
        condition = f" + {load} busy processes" if load else ""
        rows.append(
            f"| {users} | {len(group)}{condition} | {', '.join(dates)} | {loads} "
            f"| {_spread([r.servers_up for r in group])} "
            f"| {_spread([r.all_done for r in group])} "
            f"| {sum(len(r.failures) for r in group)} "
            f"| {_spread([r.cpu_per_learner for r in group])} "
            f"| {_spread([r.mb_per_learner for r in group], 0)} |"
        )
    return "\n".join(rows)


def summarize(paths: list[Path]) -> int:
    runs = [
        Run(**json.loads(line))
        for path in paths
        for line in path.read_text().splitlines()
        if line.strip()
    ]
    if not runs:
        print("no runs in " + ", ".join(map(str, paths)), file=sys.stderr)
        return 2
    print(table(runs))
    print("\n(one figure: one run; two: min / median)")
    by_kind = {kind.value: [r.cpu_by_kind.get(kind.value, 0.0) for r in runs] for kind in Kind}
    print(
        "CPU-s per learner by kind (median over all runs): "
        + ", ".join(f"{k} {statistics.median(v):.1f}" for k, v in by_kind.items() if any(v))
    )
    return 0


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=30)
    parser.add_argument("--runs", type=int, default=1, help="runs, each with a fresh hub")
    parser.add_argument(
        "--load", type=int, default=0, help="busy processes running meanwhile (default 0)"
    )
    parser.add_argument("--parallel", type=int, default=Pace().parallel, help="prestart's")
    parser.add_argument(
        "--deadline", type=float, default=900, help="prestart's deadline (default 900 s)"
    )
    parser.add_argument(
        "--cell-timeout", type=float, default=600, help="per cell, per learner (default 600 s)"
    )
    parser.add_argument(
        "--settle", type=float, default=float(os.cpu_count() or 1), help="see above"
    )
    parser.add_argument("--settle-wait", type=float, default=300)
    parser.add_argument("--json", type=Path, help="append each run to this JSON-lines file")
    parser.add_argument("--summarize", type=Path, nargs="+", help="print the table and stop")
    parser.add_argument(
        "--proxy", help="configurable-http-proxy (default: hub/proxy's npm install, or PATH)"
    )
    parser.add_argument(
        "--keep", type=Path, help="keep the hub folder and homes here (default: a temporary one)"
    )
    args = parser.parse_args(argv)
    if args.keep and args.runs > 1:
        parser.error("--keep keeps one run's folder: use it with --runs 1")
    return args


def _stop_on_sigterm(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # the same clean-up as Ctrl-C


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.summarize:
        return summarize(args.summarize)
    proxy = find_proxy(ROOT, args.proxy)
    problems = missing(ROOT, Path(sys.executable).parent, proxy)
    if problems or proxy is None:
        for problem in problems:
            print(problem, file=sys.stderr)
        return 3
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    runs: list[Run] = []
    try:
        settle(args.settle, args.settle_wait)
        with background_load(args.load):
            for number in range(1, args.runs + 1):
                if number > 1 and not args.load:
                    settle(args.settle, args.settle_wait)
                print(f"run {number} of {args.runs}", flush=True)
                run = one_run(args, proxy)
                show(run)
                runs.append(run)
                if args.json:
                    with args.json.open("a") as out:
                        out.write(json.dumps(asdict(run)) + "\n")
    except KeyboardInterrupt:
        print("interrupted: the hub is stopped and its folder deleted", file=sys.stderr)
        return 130
    except HubError as error:  # the hub did not start: its log is in the message
        print(f"bench_hub: {error}", file=sys.stderr)
        return 3
    if len(runs) > 1:
        print("\n" + table(runs), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
