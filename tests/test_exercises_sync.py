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
    text = "<!-- BEGIN SOLUTION -->\nsecret\n<!-- END SOLUTION -->"
    assert make_exercises.strip_markdown(text, tags=["written-answer"]) == "*Your answer here.*"


def test_a_written_answer_must_be_marked_so_the_grader_can_collect_it():
    untagged = "<!-- BEGIN SOLUTION -->\nsecret\n<!-- END SOLUTION -->"
    with pytest.raises(make_exercises.MarkerError, match="written-answer"):
        make_exercises.strip_markdown(untagged, "nb, cell 12")
    with_question = "Q?\n\n" + untagged  # the question belongs in the cell above
    with pytest.raises(make_exercises.MarkerError, match="cell above"):
        make_exercises.strip_markdown(with_question, "nb, cell 12", ["written-answer"])


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: p.stem)
def test_every_written_answer_sits_in_a_tagged_cell_below_its_question(solution):
    exercise = nbformat.read(ROOT / "exercises" / solution.name, as_version=4)
    cells = exercise.cells
    answers = [i for i, c in enumerate(cells) if "written-answer" in c.metadata.get("tags", [])]
    assert answers, "each exercise asks at least one question to talk over"
    for i in answers:
        assert cells[i].cell_type == "markdown" and cells[i].source == "*Your answer here.*"
        assert cells[i - 1].cell_type == "markdown" and cells[i - 1].source.startswith("### ")


def test_unbalanced_markers_are_reported_with_their_place():
    with pytest.raises(make_exercises.MarkerError, match="never closed"):
        make_exercises.strip_code("### BEGIN SOLUTION\nx = 1\n", "nb, cell 3")
    with pytest.raises(make_exercises.MarkerError, match="line 1"):
        make_exercises.strip_code("### END SOLUTION\n", "nb, cell 3")


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: p.stem)
def test_an_exercise_does_not_import_what_its_task_forbids(solution):
    exercise = nbformat.read(ROOT / "exercises" / solution.name, as_version=4)
    prose = "\n".join(c.source for c in exercise.cells if c.cell_type == "markdown")
    forbidden = set()
    for phrase in re.findall(r"[Dd]o not call ((?:`\w+`(?:, | or | and )?)+)", prose):
        forbidden |= set(re.findall(r"`(\w+)`", phrase))
    imports = "\n".join(
        line for c in exercise.cells if c.cell_type == "code" for line in c.source.splitlines() if re.match(r"\s*(from|import) ", line)
    )
    imported = set(re.findall(r"\w+", imports))
    assert not forbidden & imported, f"the task says do not call {sorted(forbidden & imported)}, yet the exercise imports it"


def _run_cells(namespace: dict, *sources: str) -> None:
    """Run notebook cell sources in `namespace`, top-level await allowed (as IPython does)."""
    import ast
    import asyncio

    async def run() -> None:
        for source in sources:
            result = eval(compile(source, "<cell>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT), namespace)
            if asyncio.iscoroutine(result):
                await result

    asyncio.run(run())


def test_exercise_4b_gives_the_same_liars_when_a_cell_is_run_again():
    nb = nbformat.read(ROOT / "solutions" / "04_catch_the_liar.ipynb", as_version=4)
    by_id = {c.get("id"): c.source for c in nb.cells}
    imports, contradiction, calls, liars = by_id["c02"], by_id["c04"], by_id["c07"], by_id["c09"]
    assert "observe_calls(CALLS)" in liars
    namespace: dict = {}
    # a learner's first, broken contradiction(): nothing is caught
    _run_cells(namespace, imports, "def contradiction(annotations, effects):\n    return None", calls, liars)
    assert namespace["LIARS"] == set()
    # fixed, and only the LIARS cell run again: the servers are built afresh, so the lie is seen again
    _run_cells(namespace, contradiction, liars)
    assert namespace["LIARS"] == {"log-tidy/tidy_logs"}
    _run_cells(namespace, liars)
    assert namespace["LIARS"] == {"log-tidy/tidy_logs"}
