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
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import nbformat
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import DeadKernelError

from .cases import Case, Exercise
from .probe import make_probe, new_nonce, read_payload

__all__ = ["CaseResult", "ExerciseResult", "Limits", "grade_notebook", "missing_result", "preflight"]

MAX_NOTEBOOK_BYTES = 20_000_000
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
        self.on_cell_executed = self._note_reply

    def _note_reply(self, cell: Any = None, cell_index: int = 0, execute_reply: Any = None, **_: Any) -> None:
        content = (execute_reply or {}).get("content", {})
        self.last_reply_ename = str(content.get("ename", "")) if content.get("status") == "error" else ""

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


def _kernel_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        PYTHONHASHSEED="0",
        TZ="UTC",
        MPLBACKEND="Agg",
        OMP_NUM_THREADS="1",
        PYDEVD_DISABLE_FILE_VALIDATION="1",
    )
    env.pop("PYTHONSTARTUP", None)
    return env


class _Kernel:
    """A kernel in its own temporary folder, with a client; always cleaned up by `close`."""

    def __init__(self) -> None:
        self.workdir = tempfile.mkdtemp(prefix="course-grade-")
        self.ipcdir = tempfile.mkdtemp(prefix="course-ipc-")
        self.km = AsyncKernelManager(kernel_name="python3", transport="ipc", ip=os.path.join(self.ipcdir, "k"), log=KERNEL_LOG)
        self.client: _GradingClient | None = None
        self.closed = False

    async def start(self, nb: Any, probe_cells: set[int], limits: Limits) -> _GradingClient:
        await self.km.start_kernel(
            cwd=self.workdir,
            env=_kernel_env(),
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
            shutil.rmtree(self.workdir, ignore_errors=True)
            shutil.rmtree(self.ipcdir, ignore_errors=True)


async def _run_cell(client: _GradingClient, nb: Any, index: int, timeout: float) -> str:
    """Execute cell `index`; return "ok", "error", "timeout" or "dead"."""
    client.timeout = max(1, int(round(timeout)))
    client.last_reply_ename = ""
    try:
        cell = await client.async_execute_cell(nb.cells[index], index)
    except DeadKernelError:
        return "dead"
    except Exception:  # noqa: BLE001 - e.g. a timeout nbclient could not turn into an error output
        return "timeout"
    errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    if client.last_reply_ename == _TIMEOUT_ENAME or any(o.get("ename") == _TIMEOUT_ENAME for o in errors):
        return "timeout"
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


def _load(path: Path) -> tuple[Any | None, str, str]:
    """Return (notebook or None, sha256, problem)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        return None, "", f"cannot read the file ({exc.strerror})"
    digest = hashlib.sha256(data).hexdigest()
    if len(data) > MAX_NOTEBOOK_BYTES:
        return None, digest, f"the file is larger than {MAX_NOTEBOOK_BYTES // 1_000_000} MB"
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
    """Run the learner's cells; return (index of a cell that killed or froze the kernel, error notes)."""
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
            errors.append(f"{_cell_ref(nb, index)} raised {ename}")
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
) -> None:
    """Probe each hidden case in turn and judge it here; stop if the kernel dies or freezes."""
    hung_targets: dict[str, int] = {}
    for offset, case in enumerate(exercise.cases):
        remaining = deadline - time.monotonic()
        if remaining < 1 or hung_targets.get(case.target, 0) >= 2:
            judged[case.id] = CaseResult(case.id, case.label, "timed out", 0.0, case.points, "not probed: time limit", case.hint)
            continue
        index = probe_start + offset
        outcome = await _run_cell(client, nb, index, min(limits.probe_timeout, remaining))
        if outcome == "dead":
            result.status = "kernel died"
            result.notes.append(f"the kernel died while probing case {case.id}")
            return
        if outcome == "timeout":
            hung_targets[case.target] = hung_targets.get(case.target, 0) + 1
            judged[case.id] = CaseResult(
                case.id, case.label, "timed out", 0.0, case.points, f"{case.target} did not finish within {limits.probe_timeout:g} s", case.hint
            )
            if not await _responsive(client, nb, ping_index):
                result.notes.append("the kernel did not respond after a probe was interrupted and was stopped")
                return
            continue
        text = "".join(o.get("text", "") for o in nb.cells[index].outputs if o.get("output_type") == "stream")
        judged[case.id] = _judge(case, read_payload(text, nonces[case.id]))


async def grade_notebook(student: str, path: Path, exercise: Exercise, limits: Limits = Limits()) -> ExerciseResult:
    """Grade one notebook against one exercise's hidden cases. Never raises for a bad submission."""
    started = time.monotonic()
    result = ExerciseResult(student, exercise.id, "graded", 0.0, exercise.max_points, path=str(path))
    source_nb, result.sha256, problem = _load(path)
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
    try:
        skip: set[int] = set()
        for attempt in (1, 2):
            # A cell that kills or freezes the kernel is skipped on one fresh second run, so a stray
            # cell costs the learner that cell, not every answer above it.
            kernel = _Kernel()
            kernels.append(kernel)
            client = await asyncio.wait_for(kernel.start(nb, probe_cells, limits), timeout=90)
            await _run_cell(client, nb, warm_index, 90)
            clock = time.monotonic()  # the second run gets the budget afresh: at most twice the limit
            reserve = min(limits.probe_timeout * len(exercise.cases), limits.notebook_timeout / 2)
            learner_deadline = clock + limits.notebook_timeout - reserve
            deadline = clock + limits.notebook_timeout
            bad, errors = await _run_learner_cells(client, nb, learner_cells, skip, ping_index, learner_deadline, limits, result)
            if bad is None:
                break
            await kernel.close()
            if attempt == 2:
                client = None
                break
            skip.add(bad)
            result.notes.append(f"ran the notebook again in a fresh kernel without {_cell_ref(nb, bad)}")
        if errors:
            result.notes.append("; ".join(errors[:3]) + ("; ..." if len(errors) > 3 else ""))
        if client is not None:
            await _probe_cases(client, nb, exercise, probe_start, ping_index, nonces, deadline, limits, result, judged)
            if client.truncated:
                result.notes.append("some output was longer than the limit and was cut")
    except asyncio.TimeoutError:
        result.status = "kernel died"
        result.notes.append("the kernel did not start within 90 s")
    except Exception as exc:  # noqa: BLE001 - one broken submission must never stop the batch
        result.status = "kernel died"
        result.notes.append(f"grading this notebook failed: {type(exc).__name__}: {exc}")
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


async def preflight(timeout: float = 90) -> str:
    """Start one kernel and import the course; return "" if grading can run, else the problem."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import course_lib.checks\nprint('ready')")]
    kernel = _Kernel()
    try:
        client = await asyncio.wait_for(kernel.start(nb, {0}, Limits()), timeout=timeout)
        client.timeout = int(timeout)
        cell = await client.async_execute_cell(nb.cells[0], 0)
        errors = [o for o in cell.outputs if o.get("output_type") == "error"]
        if errors:
            return f"the kernel cannot import course_lib: {errors[0].get('ename')}: {errors[0].get('evalue')}"
        return ""
    except Exception as exc:  # noqa: BLE001 - reported as an infrastructure failure
        return f"cannot start a Python kernel: {type(exc).__name__}: {exc}"
    finally:
        await kernel.close()
