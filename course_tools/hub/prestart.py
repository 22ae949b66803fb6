"""Every learner's server started before class, with progress, and never given up on early.

Starting a server costs a few CPU-seconds, so on 2 cores 30 servers asked for at once all
finish late together, and under load some pass the hub's own spawn timeout. So prestart keeps
`Pace.parallel` servers starting at a time and asks for the next one as soon as one is ready.
Each learner is followed until their server is ready, the hub reports that its spawn failed
(asked again `Pace.retries` times), or the class-level deadline `Pace.deadline` passes:

* a request the hub does not answer within the REST timeout is a server *still starting*
  (a busy hub answers late), and the learner is polled like any other;
* a server the hub never started (the request was lost) is asked for again;
* the hub being unreachable or refusing the token stops everything with a message saying
  what to do (`HubUnreachable`, `TokenRefused`).

Introduced in: docs/hub.md
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum
from multiprocessing.pool import AsyncResult, ThreadPool

from .api import HubAPI, HubBusy, HubError, HubUnreachable, StartAnswer, TokenRefused

__all__ = ["Pace", "Prestarted", "prestart"]

Fatal = (HubUnreachable, TokenRefused)


@dataclass(frozen=True)
class Pace:
    """How prestart paces a class: the limits and timeouts (seconds)."""

    deadline: float = 600  # for the whole class; learners not ready by then are reported
    parallel: int = 8  # servers starting at the same time
    retries: int = 1  # a spawn the hub reports as failed is asked for again this many times
    poll: float = 2.0  # between two looks at a starting server
    heartbeat: float = 15.0  # a progress line at least this often, even with no change
    tick: float = 0.1  # how often finished requests are collected

    def __post_init__(self) -> None:
        if self.parallel < 1:
            raise ValueError(
                f"servers started at once (--parallel) must be 1 or more, not {self.parallel}"
            )
        if self.deadline <= 0:
            raise ValueError(
                f"the class deadline (--timeout) must be more than 0 s, not {self.deadline:g}"
            )
        if self.retries < 0:
            raise ValueError(f"--retries must be 0 or more, not {self.retries}")


@dataclass
class Prestarted:
    """The outcome: who is ready, who failed (and the hub's reason), who was still starting."""

    total: int
    ready: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)  # learner -> the hub's reason
    waiting: list[str] = field(default_factory=list)  # not ready when the deadline passed
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return len(self.ready) == self.total


class _Seen(Enum):
    """What one request told us about a learner's server."""

    READY = "ready"
    STARTING = "starting"  # the hub is starting it (or did not answer: no news)
    NOT_STARTED = "not started"  # the hub has no spawn for it: ask for one
    FAILED = "failed"  # the hub tried and failed


class _Phase(Enum):
    QUEUED = "queued"  # to be asked for (again)
    STARTING = "starting"  # asked for; followed until ready
    READY = "ready"
    FAILED = "failed"


@dataclass
class _Learner:
    name: str
    phase: _Phase = _Phase.QUEUED
    failures: int = 0
    reason: str = ""
    call: AsyncResult[tuple[_Seen, str]] | None = None
    next_look: float = 0.0  # monotonic time of the next poll (or request, when queued)


def _start(api: HubAPI, name: str) -> tuple[_Seen, str]:
    try:
        api.ensure_user(name)
        answer = api.start(name)
    except Fatal:
        raise
    except HubBusy:  # a late answer is a server still starting: poll it
        return _Seen.STARTING, f"the hub did not answer within {api.timeout:g} s"
    except HubError as error:
        return _Seen.FAILED, str(error)
    if answer is StartAnswer.BUSY:
        return _Seen.NOT_STARTED, ""
    return (_Seen.READY if answer is StartAnswer.READY else _Seen.STARTING), ""


def _look(api: HubAPI, name: str) -> tuple[_Seen, str]:
    try:
        state = api.state(name)
        if state.ready:
            return _Seen.READY, ""
        if state.pending is not None or not state.exists:
            return (_Seen.STARTING if state.exists else _Seen.NOT_STARTED), ""
        reason = api.spawn_failure(name)
    except Fatal:
        raise
    except HubError:
        return _Seen.STARTING, ""  # no news this time
    return (_Seen.NOT_STARTED, "") if reason is None else (_Seen.FAILED, reason)


class _Class:
    """The learners and their phases; the bookkeeping of one prestart."""

    def __init__(self, names: list[str], pace: Pace, progress: Callable[[str], None]) -> None:
        self.learners = [_Learner(name) for name in names]
        self.pace, self.progress = pace, progress
        self.started = time.monotonic()
        self.last_line = -1e9
        self.last_counts: tuple[int, int] | None = None

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def count(self, phase: _Phase) -> int:
        return sum(1 for learner in self.learners if learner.phase is phase)

    def done(self) -> bool:
        return all(one.phase in (_Phase.READY, _Phase.FAILED) for one in self.learners)

    def settle(self, learner: _Learner, seen: _Seen, reason: str) -> None:
        now = time.monotonic()
        if seen is _Seen.READY:
            learner.phase = _Phase.READY
        elif seen is _Seen.STARTING:
            learner.phase, learner.next_look = _Phase.STARTING, now + self.pace.poll
            if reason:
                self.progress(f"{learner.name}: {reason}; counted as still starting")
        elif seen is _Seen.NOT_STARTED:
            learner.phase, learner.next_look = _Phase.QUEUED, now + self.pace.poll
        else:
            learner.failures += 1
            learner.reason = reason
            retry = learner.failures <= self.pace.retries
            learner.phase = _Phase.QUEUED if retry else _Phase.FAILED
            learner.next_look = now + self.pace.poll
            if retry:
                self.progress(f"{learner.name}: {reason}; asking again")

    def collect(self) -> None:
        """Settle every finished request (re-raising a fatal error)."""
        for learner in self.learners:
            if learner.call is not None and learner.call.ready():
                call, learner.call = learner.call, None
                self.settle(learner, *call.get())

    def ask(self, pool: ThreadPool, api: HubAPI) -> None:
        """Start queued learners while fewer than `parallel` are starting; poll the starting."""
        now = time.monotonic()
        active = self.count(_Phase.STARTING)
        for learner in self.learners:
            if learner.call is not None or learner.next_look > now:
                continue
            if learner.phase is _Phase.STARTING:
                learner.call = pool.apply_async(_look, (api, learner.name))
            elif learner.phase is _Phase.QUEUED and active < self.pace.parallel:
                learner.phase, active = _Phase.STARTING, active + 1
                learner.call = pool.apply_async(_start, (api, learner.name))

    def report_progress(self) -> None:
        counts = (self.count(_Phase.READY), self.count(_Phase.FAILED))
        if counts == self.last_counts and self.elapsed() - self.last_line < self.pace.heartbeat:
            return
        ready, failed = counts
        starting = self.count(_Phase.STARTING)
        parts = [f"{starting} starting"] + ([f"{failed} failed"] if failed else [])
        self.progress(
            f"{ready} of {len(self.learners)} ready ({', '.join(parts)}), {self.elapsed():.0f} s"
        )
        self.last_line, self.last_counts = self.elapsed(), counts

    def outcome(self) -> Prestarted:
        report = Prestarted(total=len(self.learners), seconds=self.elapsed())
        for learner in self.learners:
            if learner.phase is _Phase.READY:
                report.ready.append(learner.name)
            elif learner.phase is _Phase.FAILED:
                report.failed[learner.name] = learner.reason
            else:
                report.waiting.append(learner.name)
        return report


def prestart(
    api: HubAPI,
    names: list[str],
    pace: Pace | None = None,
    *,
    progress: Callable[[str], None] = print,
) -> Prestarted:
    """Create missing users and start every server, `pace.parallel` at a time, until all are
    ready or have failed, or `pace.deadline` seconds have passed.

    Raises:
        HubUnreachable: nothing answers at the hub's address (or it stopped answering).
        TokenRefused: the hub refused the API token.
    """
    pace = pace or Pace()
    group = _Class(names, pace, progress)
    progress(f"asking the hub for {len(names)} servers, {pace.parallel} starting at a time")
    pool: ThreadPool | None = None
    try:
        with _interrupts_held():
            pool = ThreadPool(max(1, min(pace.parallel, len(names))))  # daemon threads
        while not group.done() and group.elapsed() < pace.deadline:
            group.collect()
            group.ask(pool, api)
            group.report_progress()
            if not group.done():
                time.sleep(pace.tick)
        group.report_progress()
    finally:
        if pool is not None:
            pool.terminate()
    return group.outcome()


@contextmanager
def _interrupts_held() -> Iterator[None]:
    """Hold Ctrl-C back until the block ends, then deliver it: a ThreadPool interrupted
    half-built prints a traceback from its `__del__` (it has no state yet)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread receives Ctrl-C
        return
    held: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, _frame: held.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if held:
            signal.raise_signal(signal.SIGINT)
