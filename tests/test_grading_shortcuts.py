"""Parts that say "write it yourself" score 0 when the answer calls the course's own reference.

Part 2b (`predict`) must not call the reference client (`decide`, `SPEC`, `reference_pair`...),
part 4a (`contradiction`) must not call `check_behaviour`. The course library is visible in
the kernel by design (the lessons teach it), so the grader reads the learner's code cells with
`ast`, outside the sandbox. Honest answers, including the course's solutions, keep full marks.
"""

from __future__ import annotations

import asyncio
import copy
from pathlib import Path

import nbformat
import pytest

from course_lib.grading import grade_notebook, load_exercises
from course_lib.grading.report import feedback_text
from course_lib.grading.shortcuts import RULES, find_shortcut

ROOT = Path(__file__).resolve().parents[1]
EX2, EX4 = "02_predict_the_client", "04_catch_the_liar"
RULE = {rule.part: rule for rule in RULES}

CHEATS_2B = {
    "reference_pair": "from course_lib.feedback import reference_pair\n"
    "def predict(a, t):\n    b, x = reference_pair(a, t)\n    return (b.value, x.value)\n",
    "decide": "from course_lib import SPEC, decide\n"
    "def predict(a, t):\n    d = decide(SPEC, a, trust='trusted' if t else 'untrusted')\n"
    "    return d.pre_call.value, d.post_call.value\n",
    "SPEC": "import course_lib\ndef predict(a, t):\n"
    "    d = course_lib.SPEC.decide(a, trust='trusted' if t else 'untrusted')\n"
    "    return d.pre_call.value, d.post_call.value\n",
    "an alias and a helper": "import course_lib.feedback as fb\n"
    "def _helper(a, t):\n    return fb.reference_pair(a, t)\n"
    "def predict(a, t):\n    b, x = _helper(a, t)\n    return b.value, x.value\n",
    "a star import": "from course_lib.policy import *\n"
    "predict = lambda a, t: tuple(v.value for v in (decide(SPEC, a),))\n",
    "an import inside": "def predict(a, t):\n    from course_lib.feedback import reference_pair as r\n"
    "    return tuple(v.value for v in r(a, t))\n",
}
CHEATS_4A = {
    "check_behaviour": "from course_lib import check_behaviour\n"
    "def contradiction(annotations, effects):\n    return check_behaviour(annotations, effects)\n",
    "contradiction_hint": "from course_lib.audit import check_behaviour as cb\n"
    "contradiction = cb\n",
}
HONEST_2B = (
    "from course_lib import SPEC, classify, decide, effective\n"  # imported, never used in predict
    "def predict(annotations, trusted):\n"
    "    hints = effective(annotations if trusted else None)\n"
    "    before = 'allow' if hints.read_only else ('confirm with warning' if hints.destructive "
    "else 'confirm')\n"
    "    return before, 'treat as untrusted' if hints.open_world else 'trust output'\n"
    "%time predict(None, True)\n"  # a magic must not break the reading
)


@pytest.mark.parametrize("how", sorted(CHEATS_2B))
def test_each_2b_cheat_is_found(how):
    assert find_shortcut([CHEATS_2B[how]], RULE["2b"]) is not None, how


@pytest.mark.parametrize("how", sorted(CHEATS_4A))
def test_each_4a_cheat_is_found(how):
    assert find_shortcut([CHEATS_4A[how]], RULE["4a"]) is not None, how


def _code(name: str, folder: str = "solutions") -> list[str]:
    nb = nbformat.read(ROOT / folder / f"{name}.ipynb", as_version=4)
    return [c.source for c in nb.cells if c.cell_type == "code"]


def test_honest_answers_and_the_solutions_are_not_flagged():
    assert find_shortcut([HONEST_2B], RULE["2b"]) is None
    assert find_shortcut(["from course_lib import classify, effective\n", HONEST_2B], RULE["2b"]) is None
    # the solution imports SPEC and decide for a solution-only cell after part 2a: not in predict
    assert find_shortcut(_code(EX2), RULE["2b"]) is None
    assert find_shortcut(_code(EX4), RULE["4a"]) is None
    assert find_shortcut(_code(EX2, "exercises"), RULE["2b"]) is None
    assert find_shortcut(["def predict(:\n"], RULE["2b"]) is None  # not Python: nothing to judge


def _graded(name: str, replace: str, source: str, tmp_path: Path):
    nb = nbformat.read(ROOT / "solutions" / f"{name}.ipynb", as_version=4)
    nb = copy.deepcopy(nb)
    cell = next(c for c in nb.cells if c.cell_type == "code" and c.source.startswith(replace))
    cell.source = source
    path = tmp_path / "learner" / f"{name}.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, path)
    exercise = load_exercises()[name]
    return asyncio.run(grade_notebook("learner", path, exercise, root=tmp_path)), exercise


@pytest.mark.parametrize(
    ("name", "replace", "cheat", "part", "words"),
    [
        (EX2, "def predict", CHEATS_2B["reference_pair"], "2b", "reference client (`reference_pair`)"),
        (EX2, "def predict", CHEATS_2B["decide"], "2b", "reference client (`decide`)"),
        (EX4, "def contradiction", CHEATS_4A["check_behaviour"], "4a", "(`check_behaviour`)"),
    ],
)
def test_a_cheat_scores_0_for_its_part_with_a_note_that_teaches(name, replace, cheat, part, words, tmp_path):
    result, exercise = _graded(name, replace, cheat, tmp_path)
    part_cases = [c for c in result.cases if c.id.startswith(part + ".")]
    part_points = round(sum(c.max_points for c in part_cases), 2)
    assert part_cases and all(c.points == 0 for c in part_cases)
    assert result.score == round(exercise.max_points - part_points, 2), result.notes  # the rest kept
    note = next(n for n in result.notes if n.startswith(f"part {part}"))
    assert words in note and f"0 of {part_points:g}" in note and "yourself, as the part asks" in note
    assert note in feedback_text("learner", [result], {name: exercise})


def test_an_honest_2b_keeps_its_points(tmp_path):
    result, exercise = _graded(EX2, "def predict", HONEST_2B.replace("%time predict(None, True)\n", ""), tmp_path)
    assert result.score == exercise.max_points, result.notes
