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
Judging happens in the grading process (`attempt`), on the probes' canonical JSON.

Introduced in: docs/instructor.md
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import nbformat

from course_lib.i18n import ENGLISH, N_, using
from course_lib.phrase import Phrase
from course_lib.safe_text import printable

from .attempt import Run, attempt, cell_ref, scored_zero
from .cases import Exercise
from .kernel import Kernel
from .results import ISOLATION_NOTE, CaseResult, ExerciseResult, Limits
from .sandbox import Isolation, choose_isolation
from .shortcuts import apply_rules
from .submission import load, notebook_language

__all__ = ["MAX_ATTEMPTS", "default_isolation", "grade_notebook", "isolation_note", "preflight"]


_DEFAULT_ISOLATION: list[Isolation] = []


def default_isolation() -> Isolation:
    """The isolation used when a caller gives none: bubblewrap (checked once).

    Raises:
        SandboxUnavailable: bubblewrap cannot run here (give `Isolation("none")` knowingly).
    """
    if not _DEFAULT_ISOLATION:
        _DEFAULT_ISOLATION.append(choose_isolation("bwrap"))
    return _DEFAULT_ISOLATION[0]


def isolation_note(isolation: Isolation) -> Phrase:
    """The note every gradebook row carries when its kernels ran without isolation."""
    return Phrase(ISOLATION_NOTE, reason=isolation.reason)


_AGAIN = Phrase(N_("ran the notebook again in a fresh kernel for the remaining cases"))
# Kernels per notebook: a cell that ended the kernel is skipped; a probe that did is not retried.
MAX_ATTEMPTS = 3


def _out_of_memory_note(kernel: Kernel, result: ExerciseResult) -> None:
    note = Phrase(
        N_(
            "the kernel went over its memory bound ({mib} MiB for all its processes together) "
            "and one of them was stopped"
        ),
        mib=kernel.limits.memory_bytes // 1024**2,
    )
    if kernel.out_of_memory() and note not in result.notes:
        result.notes.append(note)


async def _run_kernels(
    run: Run, exercise: Exercise, limits: Limits, isolation: Isolation, result: ExerciseResult
) -> dict[str, CaseResult]:
    """Run the notebook in up to MAX_ATTEMPTS fresh kernels; return the cases judged.

    A cell that ends, kills or freezes the kernel is skipped on a fresh run, so a stray cell
    costs the learner that cell, not every answer above it; a kernel that dies during a probe
    is restarted for the cases after it.
    """
    judged: dict[str, CaseResult] = {}
    skip: set[int] = set()
    errors: list[Phrase] = []
    kernels: list[Kernel] = []
    try:
        for number in range(1, MAX_ATTEMPTS + 1):
            kernel = Kernel(isolation, limits)
            kernels.append(kernel)
            finished, bad, errors = await attempt(
                kernel, run, exercise, limits, result, judged, skip
            )
            _out_of_memory_note(kernel, result)
            await kernel.close()
            if finished or number == MAX_ATTEMPTS or bad in skip:
                break
            if bad is None:
                if len(judged) < len(exercise.cases):
                    result.notes.append(_AGAIN)
                continue
            skip.add(bad)
            result.notes.append(
                Phrase(
                    N_("ran the notebook again in a fresh kernel without {cell}"),
                    cell=cell_ref(run.nb, bad),
                )
            )
        if errors:
            result.notes.append(_first_errors(errors))
    except Exception as exc:  # noqa: BLE001 - one broken submission must never stop the batch
        result.status = "kernel died"
        result.notes.append(
            Phrase(
                N_("grading this notebook failed: {error}"),
                error=f"{type(exc).__name__}: {printable(str(exc), limit=200)}",
            )
        )
    finally:
        for kernel in kernels:
            await kernel.close()
    return judged


def _first_errors(errors: list[Phrase]) -> Phrase:
    """The learner's cells that raised, the first three of them, as one note."""
    listed = Phrase.listing(tuple(errors[:3]))
    return Phrase(N_("{errors}; ..."), errors=listed) if len(errors) > 3 else listed


async def _settle(
    result: ExerciseResult, exercise: Exercise, judged: dict[str, CaseResult], source_nb: Any
) -> None:
    """Fill in the cases, read the learner's code for shortcuts, and set score and status."""
    result.cases = [
        judged.get(c.id) or scored_zero(c, "not run", "not probed") for c in exercise.cases
    ]
    sources = [str(c["source"]) for c in source_nb.cells if c.get("cell_type") == "code"]
    try:  # reads the learner's code in this process, in a thread: it must not stop the batch
        await asyncio.to_thread(apply_rules, result, exercise, sources)
    except Exception as exc:  # noqa: BLE001 - one broken submission must never stop the batch
        result.notes.append(
            Phrase(
                N_("the check for a 'write it yourself' part failed: {error}"),
                error=f"{type(exc).__name__}: {printable(str(exc), limit=200)}",
            )
        )
    result.score = round(sum(c.points for c in result.cases), 2)
    if any(c.status == "tampered" for c in result.cases):
        result.notes.append(
            Phrase(
                N_(
                    "a probe's output was tampered with (several result markers); those cases "
                    "score 0"
                )
            )
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
        result.notes += [loaded.problem] if loaded.problem else []
        result.cases = [CaseResult(c.id, c.label, "not run", 0.0, c.points) for c in exercise.cases]
    else:
        result.language = notebook_language(loaded.nb)
        run = await asyncio.to_thread(Run.build, loaded.nb, exercise)
        with using(ENGLISH):  # judged in English: feedback is said later, in theirs
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
