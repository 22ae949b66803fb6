"""Run one submission: a fresh kernel, the learner's code cells, then one probe cell per hidden case.

Every submission gets its own kernel (IPC transport, so parallel kernels never race for TCP
ports) in its own empty temporary folder: only the notebook's code runs there, and any files
or a `course_lib` folder the learner handed in are not copied, so the grading environment's
`course_lib` is the one imported. Outputs of the learner's cells are discarded except error
names; probe cells keep at most `Limits.max_output_chars` of stdout. Time is bounded three
ways: each cell (`cell_timeout`), each probe (`probe_timeout`) and the whole notebook
(`notebook_timeout`, which reserves time for the probes); a kernel that ignores interrupts is
killed. A cell that kills or freezes the kernel is skipped on one fresh second run, so the
answers above it are still graded (the status still says "kernel died" or "timed out").
Judging happens here, in the grading process, on the probes' canonical JSON.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import shutil
import stat
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import nbformat
from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import DeadKernelError

from ..safe_text import printable
from .cases import Case, Exercise
from .probe import make_probe, new_nonce, read_payload
from .sandbox import Isolation, choose_isolation, kernel_command, kernel_env

__all__ = [
    "CaseResult",
    "ExerciseResult",
    "Limits",
    "default_isolation",
    "grade_notebook",
    "isolation_note",
    "missing_result",
    "preflight",
]

MAX_NOTEBOOK_BYTES = 20_000_000
READ_TIMEOUT = 10.0  # seconds to read one submission file (a stalled network or FUSE mount)
_TIMEOUT_ENAME = "CourseGraderTimeout"

# nbclient and jupyter_client log lines ("Timeout waiting for execute reply ... Interrupting kernel",
# "Kernel died") would land in the instructor's terminal between the progress lines. What they report
# is already in the results' notes, so they go to a logger of their own that prints nothing by
# default (attach a handler to "course_lib.grading.kernel" to see them).
KERNEL_LOG = logging.getLogger("course_lib.grading.kernel")
KERNEL_LOG.addHandler(logging.NullHandler())
KERNEL_LOG.propagate = False

# Exercise statuses, most severe first (the gradebook's student status picks the first present).
STATUSES = ("invalid notebook", "kernel died", "timed out", "missing", "not attempted", "graded")


@dataclass(frozen=True)
class Limits:
    """Time and size limits for one submission (seconds, characters)."""

    cell_timeout: float = 15.0
    probe_timeout: float = 5.0
    notebook_timeout: float = 120.0
    max_output_chars: int = 200_000

    def __post_init__(self) -> None:
        for name in ("cell_timeout", "probe_timeout", "notebook_timeout"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name.replace('_', '-')} must be a positive number of seconds")


@dataclass
class CaseResult:
    """How one hidden case went. `detail` is for the instructor; `hint` may be shown to the learner."""

    id: str
    label: str
    status: str  # passed, failed, not attempted, missing, error, timed out, no result, tampered, not run
    points: float
    max_points: float
    detail: str = ""
    hint: str = ""
    feedback: str = ""  # what went wrong, for the learner: the judge's message when its case allows showing it


@dataclass
class ExerciseResult:
    """One student's result for one exercise."""

    student: str
    exercise: str
    status: str
    score: float
    max_score: float
    cases: list[CaseResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    sha256: str = ""
    path: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def missing_result(student: str, exercise: Exercise, note: str = "no notebook handed in") -> ExerciseResult:
    """Return the result for an exercise the student did not hand in."""
    cases = [CaseResult(c.id, c.label, "not run", 0.0, c.points) for c in exercise.cases]
    return ExerciseResult(student, exercise.id, "missing", 0.0, exercise.max_points, cases, [note])


class _GradingClient(NotebookClient):
    """A NotebookClient that keeps only what grading needs, within a size limit."""

    def __init__(self, nb: Any, probe_cells: set[int], max_chars: int, **kwargs: Any) -> None:
        super().__init__(nb, **kwargs)
        self._probe_cells = probe_cells
        self._max_chars = max_chars
        self._chars: dict[int, int] = {}
        self.truncated = False
        self.last_reply_ename = ""
        self.asked_exit = False
        self.on_cell_executed = self._note_reply

    def _note_reply(self, cell: Any = None, cell_index: int = 0, execute_reply: Any = None, **_: Any) -> None:
        content = (execute_reply or {}).get("content", {})
        self.last_reply_ename = str(content.get("ename", "")) if content.get("status") == "error" else ""
        payloads = content.get("payload") or []
        # exit() and quit() end the kernel shortly after their cell's reply.
        self.asked_exit = any(isinstance(p, dict) and p.get("source") == "ask_exit" for p in payloads)

    def output(self, outs: list[Any], msg: dict[str, Any], display_id: str | None, cell_index: int) -> Any:
        msg_type = msg["msg_type"]
        content = msg["content"]
        if msg_type == "error":
            content["traceback"] = []
            content["evalue"] = str(content.get("evalue", ""))[:300]
            return super().output(outs, msg, display_id, cell_index)
        if cell_index not in self._probe_cells or msg_type != "stream" or content.get("name") != "stdout":
            return None  # the learner's own output plays no part in grading
        used = self._chars.get(cell_index, 0)
        text = str(content.get("text", ""))
        if used + len(text) > self._max_chars:
            self.truncated = True
            return None
        self._chars[cell_index] = used + len(text)
        return super().output(outs, msg, display_id, cell_index)


class _OneSpec(KernelSpecManager):
    """A kernel spec manager that knows one spec: the grading kernel's command."""

    def __init__(self, spec: KernelSpec) -> None:
        super().__init__()
        self.one_spec = spec

    def get_kernel_spec(self, kernel_name: str, *args: Any, **kwargs: Any) -> KernelSpec:
        return self.one_spec


class _Kernel:
    """A kernel with its own private folder and a client; always cleaned up by `close`.

    Everything the kernel leaves on this machine (its IPC sockets and connection file, its
    stderr, and without isolation its working folder, HOME and TMPDIR) is in `self.private`,
    which `close` deletes.
    """

    def __init__(self, isolation: Isolation, limits: Limits | None = None) -> None:
        self.isolation = isolation
        # CPU time: the sandbox's default, or more when the instructor allows a longer notebook.
        budget = int(3 * (limits or Limits()).notebook_timeout)
        resources = replace(isolation.limits, cpu_seconds=max(isolation.limits.cpu_seconds, budget))
        self.private = tempfile.mkdtemp(prefix="course-grade-")
        self.workdir = os.path.join(self.private, "work")
        os.mkdir(self.workdir)
        self.stderr_path = os.path.join(self.private, "stderr.log")
        spec = KernelSpec(
            argv=kernel_command(isolation, self.private, resources),
            display_name="course grading",
            language="python",
            # Under bubblewrap the kernel is in its own session: a signal to the sandbox's process
            # group would not reach it, so interrupts go over the control channel.
            interrupt_mode="message" if isolation.isolated else "signal",
        )
        self.km = AsyncKernelManager(
            kernel_name="course-grading",
            kernel_spec_manager=_OneSpec(spec),
            transport="ipc",
            ip=os.path.join(self.private, "k"),
            connection_file=os.path.join(self.private, "kernel.json"),
            log=KERNEL_LOG,
        )
        self.client: _GradingClient | None = None
        self.closed = False

    async def start(self, nb: Any, probe_cells: set[int], limits: Limits) -> _GradingClient:
        with open(self.stderr_path, "wb") as stderr:
            await self.km.start_kernel(
                cwd=self.private if self.isolation.isolated else self.workdir,
                env=kernel_env(self.isolation, self.private),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                extra_arguments=["--HistoryManager.hist_file=:memory:", "--InteractiveShell.colors=nocolor"],
            )
        self.client = _GradingClient(
            nb,
            probe_cells,
            limits.max_output_chars,
            km=self.km,
            timeout=int(limits.cell_timeout),
            startup_timeout=60,
            allow_errors=True,
            interrupt_on_timeout=True,
            error_on_timeout={"ename": _TIMEOUT_ENAME, "evalue": "time limit reached", "traceback": []},
            record_timing=False,
            iopub_timeout=2,
            raise_on_iopub_timeout=False,
            resources={"metadata": {"path": self.workdir}},
            log=KERNEL_LOG,
        )
        await self.client.async_start_new_kernel_client()
        return self.client

    def stderr_tail(self, chars: int = 300) -> str:
        """The end of what the kernel wrote to stderr, made safe to print."""
        try:
            with open(self.stderr_path, "rb") as handle:
                handle.seek(max(0, os.fstat(handle.fileno()).st_size - 4 * chars))
                text = handle.read().decode("utf-8", "replace").strip()
        except OSError:
            return ""
        return printable(text[-chars:])

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            if self.client is not None and self.client.kc is not None:
                self.client.kc.stop_channels()
            if self.km.has_kernel:
                await self.km.shutdown_kernel(now=True)
        except Exception:  # noqa: BLE001 - cleanup of a dead or stuck kernel must not fail grading
            pass
        finally:
            try:
                await self.km.cleanup_resources()
            except Exception:  # noqa: BLE001
                pass
            shutil.rmtree(self.private, ignore_errors=True)


async def _run_cell(client: _GradingClient, nb: Any, index: int, timeout: float) -> str:
    """Execute cell `index`; return "ok", "error", "timeout", "exit" (it called exit()) or "dead"."""
    client.timeout = max(1, int(round(timeout)))
    client.last_reply_ename = ""
    client.asked_exit = False
    try:
        cell = await client.async_execute_cell(nb.cells[index], index)
    except DeadKernelError:
        return "dead"
    except Exception:  # noqa: BLE001 - e.g. a timeout nbclient could not turn into an error output
        return "timeout"
    errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    if client.last_reply_ename == _TIMEOUT_ENAME or any(o.get("ename") == _TIMEOUT_ENAME for o in errors):
        return "timeout"
    if client.asked_exit:
        return "exit"
    return "error" if errors else "ok"


async def _responsive(client: _GradingClient, nb: Any, index: int) -> bool:
    """After an interrupt: does the kernel answer a trivial cell within a few seconds?"""
    return await _run_cell(client, nb, index, 5) == "ok"


def _judge(case: Case, payload: dict[str, Any]) -> CaseResult:
    base = dict(id=case.id, label=case.label, max_points=case.points, hint=case.hint)
    status = payload.get("status")
    if status == "missing":
        return CaseResult(status="missing", points=0.0, detail=f"{case.target} is not defined", **base)
    if status == "not_attempted":
        return CaseResult(status="not attempted", points=0.0, detail="the stub still raises NotAttempted", **base)
    if status == "error":
        return CaseResult(status="error", points=0.0, detail=f"raised {payload.get('error', '')}", **base)
    if status != "ok":
        return CaseResult(status=str(status), points=0.0, detail="the probe returned no readable result", **base)
    value = payload.get("value")
    if _has_todo(value):
        return CaseResult(status="not attempted", points=0.0, detail="the answer still contains TODO", **base)
    try:
        problem = case.judge(value)
    except Exception as exc:  # noqa: BLE001 - an answer of an unexpected shape is a wrong answer
        problem = f"answer of an unexpected shape ({type(exc).__name__}: {exc})"
    if problem is None:
        return CaseResult(status="passed", points=case.points, **base)
    if isinstance(problem, tuple) and len(problem) == 2:  # (message, the hint for this way of going wrong)
        problem, base["hint"] = problem
    shown = str(problem) if getattr(case, "show_detail", False) else ""
    return CaseResult(status="failed", points=0.0, detail=str(problem), feedback=shown, **base)


def _has_todo(value: Any) -> bool:
    if isinstance(value, dict):
        return value.get("__todo__") is True or any(_has_todo(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_todo(v) for v in value)
    return False


class _Refused(Exception):
    """A submission file the grader will not open; the message says why."""


def _open_beneath(root: Path, path: Path) -> int:
    """Open `path` for reading without leaving `root` through a link; refuse anything but a regular file.

    The path is resolved, must lie inside `root`, and is then opened one component at a time
    with O_NOFOLLOW from a descriptor of `root`, so a link swapped in meanwhile cannot lead out.
    The file is opened non-blocking (a FIFO cannot hang the grader) and checked with fstat.
    """
    real_root, real = os.path.realpath(root), os.path.realpath(path)
    if real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep):
        raise _Refused("it is a link to a file outside the submissions folder; hand in the notebook itself")
    nofollow, nonblock = getattr(os, "O_NOFOLLOW", 0), getattr(os, "O_NONBLOCK", 0)
    if os.open in os.supports_dir_fd and nofollow:
        parts = os.path.relpath(real, real_root).split(os.sep)
        fd = os.open(real_root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            for part in parts[:-1]:
                inner = os.open(part, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | nofollow, dir_fd=fd)
                os.close(fd)
                fd = inner
            leaf = os.open(parts[-1], os.O_RDONLY | nofollow | nonblock, dir_fd=fd)
        finally:
            os.close(fd)
    else:  # Windows: no dir_fd; the resolved path was checked above
        leaf = os.open(real, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    if not stat.S_ISREG(os.fstat(leaf).st_mode):
        os.close(leaf)
        raise _Refused("it is not a regular file (a FIFO, device or folder named like a notebook)")
    return leaf


def _read_bounded(root: Path, path: Path, limit: int) -> bytes:
    """Read at most `limit` + 1 bytes of a submission (one more tells that it is too large)."""
    fd = _open_beneath(root, path)
    try:
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


async def _in_thread(work: Callable[[], Any], timeout: float) -> Any:
    """Run blocking `work` in a daemon thread, bounded by `timeout` (a stuck read is abandoned, not awaited)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(ok: bool, value: Any) -> None:
        if not future.done():
            future.set_result(value) if ok else future.set_exception(value)

    def target() -> None:
        try:
            value = work()
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting coroutine
            loop.call_soon_threadsafe(settle, False, exc)
        else:
            loop.call_soon_threadsafe(settle, True, value)

    threading.Thread(target=target, name="course-grade-read", daemon=True).start()
    return await asyncio.wait_for(future, timeout)


async def _load(path: Path, root: Path | None = None) -> tuple[Any | None, str, str]:
    """Return (notebook or None, sha256, problem)."""
    try:
        data = await _in_thread(lambda: _read_bounded(root or path.parent, path, MAX_NOTEBOOK_BYTES), READ_TIMEOUT)
    except _Refused as exc:
        return None, "", f"not opened: {exc}"
    except asyncio.TimeoutError:
        return None, "", f"reading the file took longer than {READ_TIMEOUT:g} s"
    except OSError as exc:
        return None, "", f"cannot read the file ({exc.strerror or type(exc).__name__})"
    digest = hashlib.sha256(data).hexdigest()
    if len(data) > MAX_NOTEBOOK_BYTES:
        return None, "", f"the file is larger than {MAX_NOTEBOOK_BYTES // 1_000_000} MB"
    try:
        nb = nbformat.reads(data.decode("utf-8"), as_version=4)
        cells = list(nb.cells)
    except Exception as exc:  # noqa: BLE001 - any unreadable file is an invalid notebook
        return None, digest, f"not a readable notebook ({type(exc).__name__})"
    code = [c for c in cells if isinstance(c, dict) and c.get("cell_type") == "code"]
    if not all(isinstance(c.get("source"), str) for c in code):
        return None, digest, "a code cell has no readable source"
    return nb, digest, ""


def _cell_ref(nb: Any, index: int) -> str:
    """Name a learner's code cell for the notes: its number among code cells (from 1) and its first line."""
    first = next((line.strip() for line in str(nb.cells[index].source).splitlines() if line.strip()), "")
    if len(first) > 40:
        first = first[:39] + "…"
    first = printable(first)  # the learner's text: no control character reaches a terminal
    return f'code cell {index + 1} ("{first}")' if first else f"code cell {index + 1} (empty)"


async def _run_learner_cells(
    client: _GradingClient,
    nb: Any,
    count: int,
    skip: set[int],
    ping_index: int,
    learner_deadline: float,
    limits: Limits,
    result: ExerciseResult,
) -> tuple[int | None, list[str]]:
    """Run the learner's cells; return (index of a cell that ended, killed or froze the kernel, error notes)."""
    errors: list[str] = []
    for index in range(count):
        if index in skip:
            continue
        remaining = learner_deadline - time.monotonic()
        if remaining < 1:
            result.status = "timed out"
            result.notes.append(f"the notebook time limit was reached; {_cell_ref(nb, index)} and the code cells after it did not run")
            break
        outcome = await _run_cell(client, nb, index, min(limits.cell_timeout, remaining))
        if outcome == "exit":  # exit() or quit(): not an error, but the kernel is ending
            result.notes.append(f"{_cell_ref(nb, index)} ends the kernel (exit or quit)")
            return index, errors
        if outcome == "dead":
            result.status = "kernel died"
            result.notes.append(f"the kernel died while running {_cell_ref(nb, index)}")
            return index, errors
        if outcome == "timeout":
            result.status = "timed out"
            result.notes.append(f"{_cell_ref(nb, index)} hit the time limit of {limits.cell_timeout:g} s and was interrupted")
            if not await _responsive(client, nb, ping_index):
                result.notes.append("the kernel did not respond after the interrupt and was stopped")
                return index, errors
        elif outcome == "error":
            ename = next((o.get("ename", "") for o in nb.cells[index].outputs if o.get("output_type") == "error"), "")
            errors.append(f"{_cell_ref(nb, index)} raised {printable(str(ename), limit=80)}")
    return None, errors


async def _probe_cases(
    client: _GradingClient,
    nb: Any,
    exercise: Exercise,
    probe_start: int,
    ping_index: int,
    nonces: dict[str, str],
    deadline: float,
    limits: Limits,
    result: ExerciseResult,
    judged: dict[str, CaseResult],
) -> str | None:
    """Probe each case not judged yet and judge it here.

    Returns the id of a case during which the kernel died (the caller reruns the notebook for the
    cases after it), else None. Stops if the kernel freezes.
    """
    hung_targets: dict[str, int] = {}
    for offset, case in enumerate(exercise.cases):
        if case.id in judged:
            continue
        remaining = deadline - time.monotonic()
        if remaining < 1 or hung_targets.get(case.target, 0) >= 2:
            judged[case.id] = CaseResult(case.id, case.label, "timed out", 0.0, case.points, "not probed: time limit", case.hint)
            continue
        index = probe_start + offset
        outcome = await _run_cell(client, nb, index, min(limits.probe_timeout, remaining))
        if outcome in ("dead", "exit"):
            judged[case.id] = CaseResult(
                case.id, case.label, "error", 0.0, case.points, f"the kernel ended while evaluating {case.target}", case.hint
            )
            result.status = "kernel died"
            result.notes.append(f"the kernel died while probing case {case.id}")
            return case.id
        if outcome == "timeout":
            hung_targets[case.target] = hung_targets.get(case.target, 0) + 1
            judged[case.id] = CaseResult(
                case.id, case.label, "timed out", 0.0, case.points, f"{case.target} did not finish within {limits.probe_timeout:g} s", case.hint
            )
            if not await _responsive(client, nb, ping_index):
                result.notes.append("the kernel did not respond after a probe was interrupted and was stopped")
                return None
            continue
        text = "".join(o.get("text", "") for o in nb.cells[index].outputs if o.get("output_type") == "stream")
        judged[case.id] = _judge(case, read_payload(text, nonces[case.id]))
    return None


_DEFAULT_ISOLATION: list[Isolation] = []


def default_isolation() -> Isolation:
    """The isolation used when a caller gives none: bubblewrap if it works here (checked once)."""
    if not _DEFAULT_ISOLATION:
        _DEFAULT_ISOLATION.append(choose_isolation("auto"))
    return _DEFAULT_ISOLATION[0]


def isolation_note(isolation: Isolation) -> str:
    """The note every gradebook row carries when its kernels ran without isolation."""
    return f"graded WITHOUT isolation ({isolation.reason}): the code ran with the grader's rights"


MAX_ATTEMPTS = 3  # kernels per notebook: a cell that ended the kernel is skipped; a probe that did is not retried


async def grade_notebook(
    student: str,
    path: Path,
    exercise: Exercise,
    limits: Limits = Limits(),
    isolation: Isolation | None = None,
    root: Path | None = None,
) -> ExerciseResult:
    """Grade one notebook against one exercise's hidden cases. Never raises for a bad submission.

    `root` is the submissions folder: the notebook is opened only if it lies inside it (default:
    the notebook's own folder). `isolation` defaults to bubblewrap where it works.
    """
    isolation = isolation or default_isolation()
    started = time.monotonic()
    result = ExerciseResult(student, exercise.id, "graded", 0.0, exercise.max_points, path=str(path))
    if not isolation.isolated:
        result.notes.append(isolation_note(isolation))
    source_nb, result.sha256, problem = await _load(path, root)
    if source_nb is None:
        result.status = "invalid notebook"
        result.notes.append(problem)
        result.cases = [CaseResult(c.id, c.label, "not run", 0.0, c.points) for c in exercise.cases]
        result.seconds = round(time.monotonic() - started, 2)
        return result

    # A fresh notebook: the learner's code cells (outputs dropped), a health-check cell, the probes.
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c["source"]) for c in source_nb.cells if c.get("cell_type") == "code"]
    learner_cells = len(nb.cells)
    ping_index = len(nb.cells)
    nb.cells.append(nbformat.v4.new_code_cell("pass"))
    warm_index = len(nb.cells)  # imports the course before the clock starts: a slow machine costs no one a cell
    nb.cells.append(nbformat.v4.new_code_cell("import mcp.types, course_lib"))
    nonces = {}
    probe_start = len(nb.cells)
    for case in exercise.cases:
        nonces[case.id] = new_nonce()
        nb.cells.append(nbformat.v4.new_code_cell(make_probe(case.target, case.expr, nonces[case.id])))
    probe_cells = set(range(probe_start, len(nb.cells)))

    judged: dict[str, CaseResult] = {}
    kernels: list[_Kernel] = []
    errors: list[str] = []
    skip: set[int] = set()
    try:
        for attempt in range(1, MAX_ATTEMPTS + 1):
            # A cell that ends, kills or freezes the kernel is skipped on a fresh run, so a stray cell
            # costs the learner that cell, not every answer above it; a kernel that dies during a
            # probe is restarted for the cases after it.
            kernel = _Kernel(isolation, limits)
            kernels.append(kernel)
            try:
                client = await asyncio.wait_for(kernel.start(nb, probe_cells, limits), timeout=90)
            except asyncio.TimeoutError:
                result.status = "kernel died"
                result.notes.append("the kernel did not start within 90 s" + _said(kernel))
                break
            await _run_cell(client, nb, warm_index, 90)
            clock = time.monotonic()  # each run gets the budget afresh
            reserve = min(limits.probe_timeout * len(exercise.cases), limits.notebook_timeout / 2)
            learner_deadline = clock + limits.notebook_timeout - reserve
            deadline = clock + limits.notebook_timeout
            bad, errors = await _run_learner_cells(client, nb, learner_cells, skip, ping_index, learner_deadline, limits, result)
            if bad is None:
                died_in = await _probe_cases(client, nb, exercise, probe_start, ping_index, nonces, deadline, limits, result, judged)
                if client.truncated:
                    result.notes.append("some output was longer than the limit and was cut")
                if died_in is None:
                    break
                tail = kernel.stderr_tail()
                if tail:
                    result.notes.append(f"kernel stderr: {tail}")
                if attempt < MAX_ATTEMPTS and len(judged) < len(exercise.cases):
                    result.notes.append("ran the notebook again in a fresh kernel for the remaining cases")
                await kernel.close()
                continue
            await kernel.close()
            if bad in skip or attempt == MAX_ATTEMPTS:
                break
            skip.add(bad)
            result.notes.append(f"ran the notebook again in a fresh kernel without {_cell_ref(nb, bad)}")
        if errors:
            result.notes.append("; ".join(errors[:3]) + ("; ..." if len(errors) > 3 else ""))
    except Exception as exc:  # noqa: BLE001 - one broken submission must never stop the batch
        result.status = "kernel died"
        result.notes.append(f"grading this notebook failed: {type(exc).__name__}: {printable(str(exc), limit=200)}")
    finally:
        for kernel in kernels:
            await kernel.close()

    result.cases = [
        judged.get(c.id) or CaseResult(c.id, c.label, "not run", 0.0, c.points, "not probed", c.hint) for c in exercise.cases
    ]
    result.score = round(sum(c.points for c in result.cases), 2)
    if any(c.status == "tampered" for c in result.cases):
        result.notes.append("a probe's output was tampered with (several result markers); those cases score 0")
    if result.status == "graded" and all(c.status == "not attempted" for c in result.cases):
        result.status = "not attempted"
    result.seconds = round(time.monotonic() - started, 2)
    return result


def _said(kernel: _Kernel) -> str:
    tail = kernel.stderr_tail()
    return f"; it said: {tail}" if tail else ""


async def preflight(isolation: Isolation | None = None, timeout: float = 90) -> str:
    """Start one kernel and import the course; return "" if grading can run, else the problem."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import course_lib.checks\nprint('ready')")]
    kernel = _Kernel(isolation or default_isolation())
    try:
        client = await asyncio.wait_for(kernel.start(nb, {0}, Limits()), timeout=timeout)
        client.timeout = int(timeout)
        cell = await client.async_execute_cell(nb.cells[0], 0)
        errors = [o for o in cell.outputs if o.get("output_type") == "error"]
        if errors:
            return f"the kernel cannot import course_lib: {errors[0].get('ename')}: {printable(str(errors[0].get('evalue')), limit=200)}"
        return ""
    except Exception as exc:  # noqa: BLE001 - reported as an infrastructure failure
        return f"cannot start a Python kernel: {type(exc).__name__}: {printable(str(exc), limit=200)}{_said(kernel)}"
    finally:
        await kernel.close()
