"""exercises/ is generated from solutions/: committed copies must match the generator's output."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("make_exercises", ROOT / "tools" / "make_exercises.py")
make_exercises = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_exercises)

SOLUTIONS = sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))


def test_there_is_an_exercise_for_every_solution_and_no_orphan():
    solutions = {p.name for p in SOLUTIONS}
    exercises = {p.name for p in (ROOT / "exercises").glob("[0-9][0-9]_*.ipynb")}
    assert solutions and solutions == exercises


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: p.stem)
def test_committed_exercise_matches_what_the_generator_produces(solution):
    committed = (ROOT / "exercises" / solution.name).read_text(encoding="utf-8")
    assert committed == make_exercises.render(solution), "run: python tools/make_exercises.py"


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: p.stem)
def test_exercises_hold_no_answers_and_no_outputs(solution):
    exercise = nbformat.read(ROOT / "exercises" / solution.name, as_version=4)
    for cell in exercise.cells:
        assert "BEGIN SOLUTION" not in cell.source and "#> " not in cell.source
        assert "solution-only" not in cell.metadata.get("tags", [])
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: p.stem)
def test_every_answer_name_and_check_call_survives_in_the_exercise(solution):
    names = re.compile(r"^(?:def (\w+)|(\w+) = )", re.MULTILINE)
    checks = re.compile(r'check\("(\w+)"')
    source = "\n".join(c.source for c in nbformat.read(solution, as_version=4).cells if c.cell_type == "code"
                       and "solution-only" not in c.metadata.get("tags", []))
    generated = "\n".join(c.source for c in nbformat.read(ROOT / "exercises" / solution.name, as_version=4).cells if c.cell_type == "code")
    assert set(checks.findall(source)) == set(checks.findall(generated))
    defined = {a or b for a, b in names.findall(source)}
    assert defined <= {a or b for a, b in names.findall(generated)}


def test_a_solution_region_becomes_a_not_attempted_stub():
    source = "def f(x):\n    ### BEGIN SOLUTION\n    return x\n    ### END SOLUTION\n"
    assert make_exercises.strip_code(source) == "def f(x):\n    # YOUR CODE HERE\n    raise NotAttempted()\n"


def test_stub_lines_replace_the_answer_and_markdown_answers_are_blanked():
    source = "A = {\n    ### BEGIN SOLUTION\n    #> 'x': TODO,\n    'x': 1,\n    ### END SOLUTION\n}"
    assert make_exercises.strip_code(source) == "A = {\n    'x': TODO,\n}"
    text = "Q?\n\n<!-- BEGIN SOLUTION -->\nsecret\n<!-- END SOLUTION -->"
    assert make_exercises.strip_markdown(text) == "Q?\n\n*Your answer here.*"


def test_unbalanced_markers_are_reported_with_their_place():
    with pytest.raises(make_exercises.MarkerError, match="never closed"):
        make_exercises.strip_code("### BEGIN SOLUTION\nx = 1\n", "nb, cell 3")
    with pytest.raises(make_exercises.MarkerError, match="line 1"):
        make_exercises.strip_code("### END SOLUTION\n", "nb, cell 3")
