"""One run of a notebook in one kernel: the learner's cells, then a probe per case not yet judged.

`Run` is the notebook the kernel runs; `attempt` runs it once and judges each probe here, in the
grading process. What happens across runs (a fresh kernel after one that died) is in `runner`.

Introduced in: docs/instructor.md
"""

from __future__ import annotations

import asyncio
import builtins
import time
from dataclasses import dataclass
from typing import Any

import nbformat

from course_lib.i18n import N_
from course_lib.phrase import Phrase
from course_lib.safe_text import printable

from .cases import Case, Exercise
from .kernel import GradingClient, Kernel, responsive, run_cell
from .probe import make_probe, new_nonce, read_payload
from .results import CaseResult, ExerciseResult, Limits, judge

__all__ = ["Run", "attempt", "cell_ref", "scored_zero"]


def cell_ref(nb: Any, index: int) -> Phrase:
    """Name a learner's code cell for the notes: its number (from 1) and its first line."""
    first = next(
        (line.strip() for line in str(nb.cells[index].source).splitlines() if line.strip()), ""
    )
    if len(first) > 40:
        first = first[:39] + "…"
    first = printable(first)  # the learner's text: no control character reaches a terminal
    if not first:
        return Phrase(N_("code cell {number} (empty)"), number=index + 1)
    return Phrase(N_('code cell {number} ("{first}")'), number=index + 1, first=first)


# Python's own exception names: the only names from the kernel a student's feedback repeats.
_BUILTIN_ERRORS = frozenset(
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
)


def _raised(nb: Any, index: int, result: ExerciseResult) -> Phrase:
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
        return Phrase(N_("{cell} raised {error}"), cell=cell_ref(nb, index), error=ename)
    result.kernel_log.append(
        f"code cell {index + 1} raised an exception named {printable(ename, limit=80)!r}"
    )
    return Phrase(N_("{cell} raised an exception"), cell=cell_ref(nb, index))


def scored_zero(case: Case, status: str, detail: str) -> CaseResult:
    """A case that scores nothing because it could not be judged (`status` says why)."""
    return CaseResult(case.id, case.label, status, 0.0, case.points, detail, case.hint)


@dataclass(frozen=True)
class Run:
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
    def build(cls, source_nb: Any, exercise: Exercise) -> Run:
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
    run: Run,
    skip: set[int],
    learner_deadline: float,
    limits: Limits,
    result: ExerciseResult,
) -> tuple[int | None, list[Phrase]]:
    """Run the learner's cells.

    Return (index of a cell that ended, killed or froze the kernel, or None; error notes).
    """
    errors: list[Phrase] = []
    nb = run.nb
    for index in range(run.learner_cells):
        if index in skip:
            continue
        remaining = learner_deadline - time.monotonic()
        if remaining < 1:
            result.status = "timed out"
            result.notes.append(
                Phrase(
                    N_(
                        "the notebook time limit was reached; {cell} and the code cells after "
                        "it did not run"
                    ),
                    cell=cell_ref(nb, index),
                )
            )
            break
        outcome = await run_cell(client, nb, index, min(limits.cell_timeout, remaining))
        if outcome == "exit":  # exit() or quit(): not an error, but the kernel is ending
            result.notes.append(
                Phrase(N_("{cell} ends the kernel (exit or quit)"), cell=cell_ref(nb, index))
            )
            return index, errors
        if outcome == "dead":
            result.status = "kernel died"
            result.notes.append(
                Phrase(N_("the kernel died while running {cell}"), cell=cell_ref(nb, index))
            )
            return index, errors
        if outcome == "timeout":
            result.status = "timed out"
            result.notes.append(
                Phrase(
                    N_("{cell} hit the time limit of {seconds} s and was interrupted"),
                    cell=cell_ref(nb, index),
                    seconds=f"{limits.cell_timeout:g}",
                )
            )
            if not await responsive(client, nb, run.ping):
                result.notes.append(
                    Phrase(N_("the kernel did not respond after the interrupt and was stopped"))
                )
                return index, errors
        elif outcome == "error":
            errors.append(_raised(nb, index, result))
    return None, errors


async def _probe_cases(
    client: GradingClient,
    run: Run,
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
            judged[case.id] = scored_zero(case, "timed out", "not probed: time limit")
            continue
        index = run.probe_start + offset
        outcome = await run_cell(client, nb, index, min(limits.probe_timeout, remaining))
        if outcome in ("dead", "exit"):
            judged[case.id] = scored_zero(
                case, "error", f"the kernel ended while evaluating {case.target}"
            )
            result.status = "kernel died"
            result.notes.append(
                Phrase(N_("the kernel died while probing case {case}"), case=case.id)
            )
            return case.id
        if outcome == "timeout":
            hung_targets[case.target] = hung_targets.get(case.target, 0) + 1
            judged[case.id] = scored_zero(
                case, "timed out", f"{case.target} did not finish within {limits.probe_timeout:g} s"
            )
            if not await responsive(client, nb, run.ping):
                result.notes.append(
                    Phrase(
                        N_(
                            "the kernel did not respond after a probe was interrupted and was "
                            "stopped"
                        )
                    )
                )
                return None
            continue
        text = "".join(
            o.get("text", "") for o in nb.cells[index].outputs if o.get("output_type") == "stream"
        )
        judged[case.id] = judge(case, read_payload(text, run.nonces[case.id]))
    return None


def _keep_stderr(kernel: Kernel, result: ExerciseResult) -> None:
    """What the kernel wrote to stderr, for the instructor only (`kernel_log`)."""
    tail = kernel.stderr_tail()
    if tail:
        result.kernel_log.append(tail)


async def attempt(
    kernel: Kernel,
    run: Run,
    exercise: Exercise,
    limits: Limits,
    result: ExerciseResult,
    judged: dict[str, CaseResult],
    skip: set[int],
) -> tuple[bool, int | None, list[Phrase]]:
    """Run the notebook once in `kernel`: the learner's cells, then the cases not judged yet.

    Returns (finished, the cell that ended the kernel or None, the learner's errors); not
    finished with no cell means the kernel died during a probe.
    """
    try:
        client = await asyncio.wait_for(kernel.start(run.nb, run.probe_cells, limits), timeout=90)
    except asyncio.TimeoutError:
        result.status = "kernel died"
        result.notes.append(Phrase(N_("the kernel did not start within 90 s")))
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
        result.notes.append(Phrase(N_("some output was longer than the limit and was cut")))
    if died_in is not None:
        _keep_stderr(kernel, result)
    return died_in is None, None, errors
