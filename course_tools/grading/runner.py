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
import time
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


def _scored_zero(case: Case, status: str, detail: str) -> CaseResult:
    """A case that scores nothing because it could not be judged (`status` says why)."""
    return CaseResult(case.id, case.label, status, 0.0, case.points, detail, case.hint)


async def _run_learner_cells(
    client: GradingClient,
    nb: Any,
    count: int,
    skip: set[int],
    ping_index: int,
    learner_deadline: float,
    limits: Limits,
    result: ExerciseResult,
) -> tuple[int | None, list[str]]:
    """Run the learner's cells.

    Return (index of a cell that ended, killed or froze the kernel, or None; error notes).
    """
    errors: list[str] = []
    for index in range(count):
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
            if not await responsive(client, nb, ping_index):
                result.notes.append(
                    "the kernel did not respond after the interrupt and was stopped"
                )
                return index, errors
        elif outcome == "error":
            ename = next(
                (
                    o.get("ename", "")
                    for o in nb.cells[index].outputs
                    if o.get("output_type") == "error"
                ),
                "",
            )
            errors.append(f"{_cell_ref(nb, index)} raised {printable(str(ename), limit=80)}")
    return None, errors


async def _probe_cases(
    client: GradingClient,
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
            judged[case.id] = _scored_zero(case, "timed out", "not probed: time limit")
            continue
        index = probe_start + offset
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
            if not await responsive(client, nb, ping_index):
                result.notes.append(
                    "the kernel did not respond after a probe was interrupted and was stopped"
                )
                return None
            continue
        text = "".join(
            o.get("text", "") for o in nb.cells[index].outputs if o.get("output_type") == "stream"
        )
        judged[case.id] = judge(case, read_payload(text, nonces[case.id]))
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


# Kernels per notebook: a cell that ended the kernel is skipped; a probe that did is not retried.
MAX_ATTEMPTS = 3


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
    result = ExerciseResult(
        student, exercise.id, "graded", 0.0, exercise.max_points, path=str(path)
    )
    if not isolation.isolated:
        result.notes.append(isolation_note(isolation))
    source_nb, result.sha256, problem = await load(path, root)
    if source_nb is None:
        result.status = "invalid notebook"
        result.notes.append(problem)
        result.cases = [CaseResult(c.id, c.label, "not run", 0.0, c.points) for c in exercise.cases]
        result.seconds = round(time.monotonic() - started, 2)
        return result

    # A fresh notebook: the learner's code cells (outputs dropped), a health-check cell, the probes.
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(c["source"])
        for c in source_nb.cells
        if c.get("cell_type") == "code"
    ]
    learner_cells = len(nb.cells)
    ping_index = len(nb.cells)
    nb.cells.append(nbformat.v4.new_code_cell("pass"))
    warm_index = len(
        nb.cells
    )  # imports the course before the clock starts: a slow machine costs no one a cell
    nb.cells.append(nbformat.v4.new_code_cell("import mcp.types, course_lib"))
    nonces = {}
    probe_start = len(nb.cells)
    for case in exercise.cases:
        nonces[case.id] = new_nonce()
        nb.cells.append(
            nbformat.v4.new_code_cell(make_probe(case.target, case.expr, nonces[case.id]))
        )
    probe_cells = set(range(probe_start, len(nb.cells)))

    judged: dict[str, CaseResult] = {}
    kernels: list[Kernel] = []
    errors: list[str] = []
    skip: set[int] = set()
    try:
        for attempt in range(1, MAX_ATTEMPTS + 1):
            # A cell that ends, kills or freezes the kernel is skipped on a fresh run, so a stray
            # cell costs the learner that cell, not every answer above it; a kernel that dies
            # during a probe is restarted for the cases after it.
            kernel = Kernel(isolation, limits)
            kernels.append(kernel)
            try:
                client = await asyncio.wait_for(kernel.start(nb, probe_cells, limits), timeout=90)
            except asyncio.TimeoutError:
                result.status = "kernel died"
                result.notes.append("the kernel did not start within 90 s")
                result.kernel_log += [t for t in [kernel.stderr_tail()] if t]
                break
            await run_cell(client, nb, warm_index, 90)
            clock = time.monotonic()  # each run gets the budget afresh
            reserve = min(limits.probe_timeout * len(exercise.cases), limits.notebook_timeout / 2)
            learner_deadline = clock + limits.notebook_timeout - reserve
            deadline = clock + limits.notebook_timeout
            bad, errors = await _run_learner_cells(
                client, nb, learner_cells, skip, ping_index, learner_deadline, limits, result
            )
            if bad is None:
                died_in = await _probe_cases(
                    client,
                    nb,
                    exercise,
                    probe_start,
                    ping_index,
                    nonces,
                    deadline,
                    limits,
                    result,
                    judged,
                )
                if client.truncated:
                    result.notes.append("some output was longer than the limit and was cut")
                if died_in is None:
                    break
                tail = kernel.stderr_tail()
                if tail:
                    result.kernel_log.append(tail)
                if attempt < MAX_ATTEMPTS and len(judged) < len(exercise.cases):
                    result.notes.append(
                        "ran the notebook again in a fresh kernel for the remaining cases"
                    )
                await kernel.close()
                continue
            await kernel.close()
            if bad in skip or attempt == MAX_ATTEMPTS:
                break
            skip.add(bad)
            result.notes.append(
                f"ran the notebook again in a fresh kernel without {_cell_ref(nb, bad)}"
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

    result.cases = [
        judged.get(c.id) or _scored_zero(c, "not run", "not probed") for c in exercise.cases
    ]
    try:  # reads the learner's code in this process: it must not stop the batch either
        apply_rules(
            result,
            exercise,
            [str(c["source"]) for c in source_nb.cells if c.get("cell_type") == "code"],
        )
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
