"""One notebook cannot stall the class: a huge one is refused or bounded, and the others grade on.

A notebook of 200,000 empty cells is 15 MB, under the 20 MB limit. Graded beside an honest full
solution with --jobs 2 (one event loop for both), the honest one must keep full marks and the
big one must be refused with a message that says why. No wall-clock assertion: the overall
limit below only stops a test that would otherwise hang.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from course_tools.grading import load_exercises
from course_tools.grading.batch import grade_all
from course_tools.grading.discover import Submission
from course_tools.grading.results import Limits
from course_tools.grading.sandbox import choose_isolation

ROOT = Path(__file__).resolve().parents[1]
EX1 = "01_annotate_tools"


def _huge(path: Path, cells: int) -> None:
    """A valid notebook of `cells` empty code cells, written as JSON directly (nbformat is slow)."""
    cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": ""}
    nb = {"cells": [cell] * cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 4}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb))


def test_a_200000_cell_notebook_is_refused_and_the_honest_one_beside_it_keeps_full_marks(tmp_path):
    try:
        isolation = choose_isolation("bwrap")
    except ValueError:
        isolation = choose_isolation("none")
    exercises = load_exercises()
    big, honest = tmp_path / "big" / f"{EX1}.ipynb", tmp_path / "honest" / f"{EX1}.ipynb"
    _huge(big, 200_000)
    assert big.stat().st_size < 20_000_000
    honest.parent.mkdir()
    honest.write_bytes((ROOT / "solutions" / f"{EX1}.ipynb").read_bytes())
    subs = [Submission("big", {EX1: big}), Submission("honest", {EX1: honest})]
    by_student = asyncio.run(
        asyncio.wait_for(
            grade_all(subs, {EX1: exercises[EX1]}, Limits(), 2, True, isolation, tmp_path), 900
        )
    )
    (result,) = by_student["honest"]
    assert (result.score, result.status) == (exercises[EX1].max_points, "graded"), result.notes
    (refused,) = by_student["big"]
    assert refused.status == "invalid notebook" and refused.score == 0
    said = refused.notes[-1].english()
    assert "200,000 cells" in said and "at most 1,000" in said


@pytest.mark.parametrize("cells", [1_000, 1_001])
def test_the_cell_limit_is_1000_cells(tmp_path, cells):
    from course_tools.grading.submission import load

    _huge(tmp_path / f"{EX1}.ipynb", cells)
    loaded = asyncio.run(load(tmp_path / f"{EX1}.ipynb", tmp_path))
    assert (loaded.nb is None) == (cells > 1_000), loaded.problem
