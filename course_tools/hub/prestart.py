"""Every learner's server started before class, with progress.

Starting 30 servers at once on 2 cores takes about a minute; done before class, learners who
log in find their JupyterLab already running. All servers are requested at once (each request
can wait up to 10 s for its server before the hub answers "pending", so requests made a few at a
time would hold back the last servers by tens of seconds), then polled until each is ready, has
failed, or time is up.

Introduced in: docs/hub.md
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from .api import HubAPI

__all__ = ["Prestarted", "prestart"]


@dataclass
class Prestarted:
    ready: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # the hub gave up on them (see its log)
    waiting: list[str] = field(default_factory=list)  # still starting when time ran out
    seconds: float = 0.0


def prestart(
    api: HubAPI,
    names: list[str],
    *,
    timeout: float = 300,
    poll: float = 2.0,
    parallel: int = 50,
    progress: Callable[[str], None] = print,
) -> Prestarted:
    """Create missing users, start every server, wait until all are ready or `timeout`."""
    started = time.monotonic()
    report = Prestarted()

    def request(name: str) -> None:
        api.ensure_user(name)
        api.start(name)

    with ThreadPoolExecutor(max_workers=max(1, min(parallel, len(names)))) as pool:
        list(pool.map(request, names))  # re-raises the first HubError
        progress(
            f"asked the hub to start {len(names)} servers ({time.monotonic() - started:.0f} s)"
        )
        waiting = list(names)
        last = -1
        while waiting:
            for name, state in zip(waiting, list(pool.map(api.state, waiting))):
                if state.ready:
                    report.ready.append(name)
                elif state.pending is None:
                    report.failed.append(name)
            waiting = [
                name for name in waiting if name not in report.ready and name not in report.failed
            ]
            done = len(report.ready) + len(report.failed)
            if done != last:
                failed = f", {len(report.failed)} failed" if report.failed else ""
                progress(
                    f"[{len(report.ready)}/{len(names)} ready{failed}] "
                    f"{time.monotonic() - started:.0f} s"
                )
                last = done
            if not waiting or time.monotonic() - started > timeout:
                break
            time.sleep(poll)
    report.waiting = waiting
    report.seconds = time.monotonic() - started
    return report
