"""Run one submission: a fresh kernel, the learner's code cells, then a probe per hidden case.

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

Introduced in: docs/instructor.md
"""

from __future__ import annotations

import asyncio
import builtins
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat

from course_lib.safe_text import printable

from .cases import Case, Exercise
from .kernel import GradingClient, Kernel, responsive, run_cell
from .probe import make_probe, new_nonce, read_payload
from .results import CaseResult, ExerciseResult, Limits, judge
from .sandbox import Isolation, choose_isolation
from .shortcuts import apply_rules
from .submission import load

__all__ = ["MAX_ATTEMPTS", "default_isolation", "grade_notebook", "isolation_note", "preflight"]


def _cell_ref(nb: Any, index: int) -> str:
    """Name a learner's code cell for the notes: its number (from 1) and its first line."""
    first = next(
        (line.strip() for line in str(nb.cells[index].source).splitlines() if line.strip()), ""
    )
    if len(first) > 40:
        first = first[:39] + "…"
    first = printable(first)  # the learner's text: no control character reaches a terminal
    return f'code cell {index + 1} ("{first}")' if first else f"code cell {index + 1} (empty)"


# Python's own exception names: the only names from the kernel a student's feedback repeats.
_BUILTIN_ERRORS = frozenset(
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
)


def _raised(nb: Any, index: int, result: ExerciseResult) -> str:
    """What the notes say about a learner's cell that raised, in the grader's words.

    The exception's name is the kernel's text: a class can be called anything
    (``<img onerror=...>``, a hidden input). Only Python's own names are repeated; the exact
    name goes to the instructor's `kernel_log`.
    """
    ename = next(
        (
            str(o.get("ename", ""))
            for o in nb.cells[index].outputs
            if o.get("output_type") == "error"
        ),
        "",
    )
    if ename in _BUILTIN_ERRORS:
        return f"{_cell_ref(nb, index)} raised {ename}"
    result.kernel_log.append(
        f"code cell {index + 1} raised an exception named {printable(ename, limit=80)!r}"
    )
    return f"{_cell_ref(nb, index)} raised an exception"


def _scored_zero(case: Case, status: str, detail: str) -> CaseResult:
    """A case that scores nothing because it could not be judged (`status` says why)."""
    return CaseResult(case.id, case.label, status, 0.0, case.points, detail, case.hint)


@dataclass(frozen=True)
class _Run:
    """The notebook a kernel runs, and where each part of it is.

    The learner's code cells (outputs dropped), a health-check cell, a cell importing the
    course (before the clock starts: a slow machine costs no one a cell), then a probe per case.
    """

    nb: Any
    learner_cells: int
    ping: int
    warm: int
    probe_start: int
    nonces: dict[str, str]

    @property
    def probe_cells(self) -> set[int]:
        return set(range(self.probe_start, len(self.nb.cells)))

    @classmethod
    def build(cls, source_nb: Any, exercise: Exercise) -> _Run:
        """Built as plain data, with no per-cell validation (nbformat's costs a millisecond a
        cell); the caller runs it in a thread, off the event loop the other kernels share."""
        sources = [str(c["source"]) for c in source_nb.cells if c.get("cell_type") == "code"]
        nonces = {case.id: new_nonce() for case in exercise.cases}
        sources += ["pass", "import mcp.types, course_lib"]
        sources += [make_probe(c.target, c.expr, nonces[c.id]) for c in exercise.cases]
        cells: list[dict[str, Any]] = [
            {
                "cell_type": "code",
                "execution_count": None,
                "metadata": {},
                "outputs": [],
                "source": s,
            }
            for s in sources
        ]
        nb = nbformat.from_dict(
            {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
        )
        learner = len(sources) - 2 - len(exercise.cases)
        return cls(nb, learner, learner, learner + 1, learner + 2, nonces)


async def _run_learner_cells(
    client: GradingClient,
    run: _Run,
    skip: set[int],
    learner_deadline: float,
    limits: Limits,
    result: ExerciseResult,
) -> tuple[int | None, list[str]]:
    """Run the learner's cells.

    Return (index of a cell that ended, killed or froze the kernel, or None; error notes).
    """
    errors: list[str] = []
    nb = run.nb
    for index in range(run.learner_cells):
        if index in skip:
            continue
        remaining = learner_deadline - time.monotonic()
        if remaining < 1:
            result.status = "timed out"
            result.notes.append(
                f"the notebook time limit was reached; {_cell_ref(nb, index)} "
                "and the code cells after it did not run"
            )
            break
        outcome = await run_cell(client, nb, index, min(limits.cell_timeout, remaining))
        if outcome == "exit":  # exit() or quit(): not an error, but the kernel is ending
            result.notes.append(f"{_cell_ref(nb, index)} ends the kernel (exit or quit)")
            return index, errors
        if outcome == "dead":
            result.status = "kernel died"
            result.notes.append(f"the kernel died while running {_cell_ref(nb, index)}")
            return index, errors
        if outcome == "timeout":
            result.status = "timed out"
            result.notes.append(
                f"{_cell_ref(nb, index)} hit the time limit of {limits.cell_timeout:g} s "
                "and was interrupted"
            )
            if not await responsive(client, nb, run.ping):
                result.notes.append(
                    "the kernel did not respond after the interrupt and was stopped"
                )
                return index, errors
        elif outcome == "error":
            errors.append(_raised(nb, index, result))
    return None, errors


async def _probe_cases(
    client: GradingClient,
    run: _Run,
    exercise: Exercise,
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
    nb = run.nb
    for offset, case in enumerate(exercise.cases):
        if case.id in judged:
            continue
        remaining = deadline - time.monotonic()
        if remaining < 1 or hung_targets.get(case.target, 0) >= 2:
            judged[case.id] = _scored_zero(case, "timed out", "not probed: time limit")
            continue
        index = run.probe_start + offset
        outcome = await run_cell(client, nb, index, min(limits.probe_timeout, remaining))
        if outcome in ("dead", "exit"):
            judged[case.id] = _scored_zero(
                case, "error", f"the kernel ended while evaluating {case.target}"
            )
            result.status = "kernel died"
            result.notes.append(f"the kernel died while probing case {case.id}")
            return case.id
        if outcome == "timeout":
            hung_targets[case.target] = hung_targets.get(case.target, 0) + 1
            judged[case.id] = _scored_zero(
                case, "timed out", f"{case.target} did not finish within {limits.probe_timeout:g} s"
            )
            if not await responsive(client, nb, run.ping):
                result.notes.append(
                    "the kernel did not respond after a probe was interrupted and was stopped"
                )
                return None
            continue
        text = "".join(
            o.get("text", "") for o in nb.cells[index].outputs if o.get("output_type") == "stream"
        )
        judged[case.id] = judge(case, read_payload(text, run.nonces[case.id]))
    return None


_DEFAULT_ISOLATION: list[Isolation] = []


def default_isolation() -> Isolation:
    """The isolation used when a caller gives none: bubblewrap (checked once).

    Raises:
        SandboxUnavailable: bubblewrap cannot run here (give `Isolation("none")` knowingly).
    """
    if not _DEFAULT_ISOLATION:
        _DEFAULT_ISOLATION.append(choose_isolation("bwrap"))
    return _DEFAULT_ISOLATION[0]


def isolation_note(isolation: Isolation) -> str:
    """The note every gradebook row carries when its kernels ran without isolation."""
    return f"graded WITHOUT isolation ({isolation.reason}): the code ran with the grader's rights"


# Kernels per notebook: a cell that ended the kernel is skipped; a probe that did is not retried.
MAX_ATTEMPTS = 3


def _keep_stderr(kernel: Kernel, result: ExerciseResult) -> None:
    """What the kernel wrote to stderr, for the instructor only (`kernel_log`)."""
    tail = kernel.stderr_tail()
    if tail:
        result.kernel_log.append(tail)


async def _attempt(
    kernel: Kernel,
    run: _Run,
    exercise: Exercise,
    limits: Limits,
    result: ExerciseResult,
    judged: dict[str, CaseResult],
    skip: set[int],
) -> tuple[bool, int | None, list[str]]:
    """Run the notebook once in `kernel`: the learner's cells, then the cases not judged yet.

    Returns (finished, the cell that ended the kernel or None, the learner's errors); not
    finished with no cell means the kernel died during a probe.
    """
    try:
        client = await asyncio.wait_for(kernel.start(run.nb, run.probe_cells, limits), timeout=90)
    except asyncio.TimeoutError:
        result.status = "kernel died"
        result.notes.append("the kernel did not start within 90 s")
        _keep_stderr(kernel, result)
        return True, None, []
    await run_cell(client, run.nb, run.warm, 90)
    clock = time.monotonic()  # each run gets the budget afresh
    reserve = min(limits.probe_timeout * len(exercise.cases), limits.notebook_timeout / 2)
    learner_deadline = clock + limits.notebook_timeout - reserve
    bad, errors = await _run_learner_cells(client, run, skip, learner_deadline, limits, result)
    if bad is not None:
        return False, bad, errors
    deadline = clock + limits.notebook_timeout
    died_in = await _probe_cases(client, run, exercise, deadline, limits, result, judged)
    if client.truncated:
        result.notes.append("some output was longer than the limit and was cut")
    if died_in is not None:
        _keep_stderr(kernel, result)
    return died_in is None, None, errors


def _out_of_memory_note(kernel: Kernel, result: ExerciseResult) -> None:
    note = (
        f"the kernel went over its memory bound ({kernel.limits.memory_bytes // 1024**2} MiB "
        "for all its processes together) and one of them was stopped"
    )
    if kernel.out_of_memory() and note not in result.notes:
        result.notes.append(note)


async def _run_kernels(
    run: _Run, exercise: Exercise, limits: Limits, isolation: Isolation, result: ExerciseResult
) -> dict[str, CaseResult]:
    """Run the notebook in up to MAX_ATTEMPTS fresh kernels; return the cases judged.

    A cell that ends, kills or freezes the kernel is skipped on a fresh run, so a stray cell
    costs the learner that cell, not every answer above it; a kernel that dies during a probe
    is restarted for the cases after it.
    """
    judged: dict[str, CaseResult] = {}
    skip: set[int] = set()
    errors: list[str] = []
    kernels: list[Kernel] = []
    try:
        for attempt in range(1, MAX_ATTEMPTS + 1):
            kernel = Kernel(isolation, limits)
            kernels.append(kernel)
            finished, bad, errors = await _attempt(
                kernel, run, exercise, limits, result, judged, skip
            )
            _out_of_memory_note(kernel, result)
            await kernel.close()
            if finished or attempt == MAX_ATTEMPTS or bad in skip:
                break
            if bad is None:
                if len(judged) < len(exercise.cases):
                    result.notes.append(
                        "ran the notebook again in a fresh kernel for the remaining cases"
                    )
                continue
            skip.add(bad)
            result.notes.append(
                f"ran the notebook again in a fresh kernel without {_cell_ref(run.nb, bad)}"
            )
        if errors:
            result.notes.append("; ".join(errors[:3]) + ("; ..." if len(errors) > 3 else ""))
    except Exception as exc:  # noqa: BLE001 - one broken submission must never stop the batch
        result.status = "kernel died"
        result.notes.append(
            f"grading this notebook failed: {type(exc).__name__}: {printable(str(exc), limit=200)}"
        )
    finally:
        for kernel in kernels:
            await kernel.close()
    return judged


async def _settle(
    result: ExerciseResult, exercise: Exercise, judged: dict[str, CaseResult], source_nb: Any
) -> None:
    """Fill in the cases, read the learner's code for shortcuts, and set score and status."""
    result.cases = [
        judged.get(c.id) or _scored_zero(c, "not run", "not probed") for c in exercise.cases
    ]
    sources = [str(c["source"]) for c in source_nb.cells if c.get("cell_type") == "code"]
    try:  # reads the learner's code in this process, in a thread: it must not stop the batch
        await asyncio.to_thread(apply_rules, result, exercise, sources)
    except Exception as exc:  # noqa: BLE001 - one broken submission must never stop the batch
        result.notes.append(
            f"the check for a 'write it yourself' part failed: {type(exc).__name__}: "
            f"{printable(str(exc), limit=200)}"
        )
    result.score = round(sum(c.points for c in result.cases), 2)
    if any(c.status == "tampered" for c in result.cases):
        result.notes.append(
            "a probe's output was tampered with (several result markers); those cases score 0"
        )
    if result.status == "graded" and all(c.status == "not attempted" for c in result.cases):
        result.status = "not attempted"


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
    the notebook's own folder). `isolation` defaults to bubblewrap (`default_isolation`).
    """
    isolation = isolation or default_isolation()
    started = time.monotonic()
    result = ExerciseResult(
        student, exercise.id, "graded", 0.0, exercise.max_points, path=str(path)
    )
    if not isolation.isolated:
        result.notes.append(isolation_note(isolation))
    loaded = await load(path, root)
    result.sha256 = loaded.sha256
    result.notes += [loaded.note] if loaded.note else []
    if loaded.nb is None:
        result.status = "invalid notebook"
        result.notes.append(loaded.problem)
        result.cases = [CaseResult(c.id, c.label, "not run", 0.0, c.points) for c in exercise.cases]
    else:
        run = await asyncio.to_thread(_Run.build, loaded.nb, exercise)
        judged = await _run_kernels(run, exercise, limits, isolation, result)
        await _settle(result, exercise, judged, loaded.nb)
    result.seconds = round(time.monotonic() - started, 2)
    return result


def _said(kernel: Kernel) -> str:
    tail = kernel.stderr_tail()
    return f"; it said: {tail}" if tail else ""


async def preflight(isolation: Isolation | None = None, timeout: float = 90) -> str:
    """Start one kernel and import the course; return "" if grading can run, else the problem."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import course_lib.checks\nprint('ready')")]
    kernel = Kernel(isolation or default_isolation())
    try:
        client = await asyncio.wait_for(kernel.start(nb, {0}, Limits()), timeout=timeout)
        client.timeout = int(timeout)
        cell = await client.async_execute_cell(nb.cells[0], 0)
        errors = [o for o in cell.outputs if o.get("output_type") == "error"]
        if errors:
            evalue = printable(str(errors[0].get("evalue")), limit=200)
            return f"the kernel cannot import course_lib: {errors[0].get('ename')}: {evalue}"
        return ""
    except Exception as exc:  # noqa: BLE001 - reported as an infrastructure failure
        return (
            f"cannot start a Python kernel: {type(exc).__name__}: "
            f"{printable(str(exc), limit=200)}{_said(kernel)}"
        )
    finally:
        await kernel.close()
