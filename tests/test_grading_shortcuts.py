"""Parts that say "write it yourself" are flagged for review when the answer uses the course's reference.

Part 2b (`predict`) must not call the reference client (`decide`, `SPEC`, `reference_pair`...),
which lesson 03 uses; part 4a is no longer read (lesson 05 shows its rule, and never calls the
library's check). The course library is visible in
the kernel by design (the lessons teach it), so the grader reads the learner's code cells with
`ast`, outside the sandbox. A flag never costs points (a static reading errs both ways); honest
answers, including the course's solutions, are not flagged.
"""

from __future__ import annotations

import asyncio
import copy
from pathlib import Path

import nbformat
import pytest

from course_tools.grading import grade_notebook, load_exercises
from course_tools.grading.inert_markdown import inline
from course_tools.grading.report import feedback_text
from course_tools.grading.shortcuts import RULES, find_shortcut

ROOT = Path(__file__).resolve().parents[1]
EX2, EX4 = "02_predict_the_client", "04_catch_the_liar"
RULE = {rule.part: rule for rule in RULES}

CHEATS_2B = {
    "reference_pair": "from course_lib.feedback import reference_pair\n"
    "def predict(a, t):\n    b, x = reference_pair(a, t)\n    return (b.value, x.value)\n",
    "decide": "from course_lib import SPEC, Trust, decide\n"
    "def predict(a, t):\n    d = decide(SPEC, a, trust=Trust.TRUSTED if t else Trust.UNTRUSTED)\n"
    "    return d.pre_call.value, d.post_call.value\n",
    "SPEC": "import course_lib\ndef predict(a, t):\n"
    "    d = course_lib.SPEC.decide(a, trust=course_lib.Trust.TRUSTED if t else course_lib.Trust.UNTRUSTED)\n"
    "    return d.pre_call.value, d.post_call.value\n",
    "an alias and a helper": "import course_lib.feedback as fb\n"
    "def _helper(a, t):\n    return fb.reference_pair(a, t)\n"
    "def predict(a, t):\n    b, x = _helper(a, t)\n    return b.value, x.value\n",
    "a star import": "from course_lib.policy import *\n"
    "predict = lambda a, t: tuple(v.value for v in (decide(SPEC, a),))\n",
    "an import inside": "def predict(a, t):\n    from course_lib.feedback import reference_pair as r\n"
    "    return tuple(v.value for v in r(a, t))\n",
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


def test_only_part_2b_is_read():
    assert [(rule.exercise, rule.part) for rule in RULES] == [("02", "2b")]


def _code(name: str, folder: str = "solutions") -> list[str]:
    nb = nbformat.read(ROOT / folder / f"{name}.ipynb", as_version=4)
    return [c.source for c in nb.cells if c.cell_type == "code"]


def test_honest_answers_and_the_solutions_are_not_flagged():
    assert find_shortcut([HONEST_2B], RULE["2b"]) is None
    assert find_shortcut(["from course_lib import classify, effective\n", HONEST_2B], RULE["2b"]) is None
    # the solution imports SPEC and decide for a solution-only cell after part 2a: not in predict
    assert find_shortcut(_code(EX2), RULE["2b"]) is None
    assert find_shortcut(_code(EX2, "exercises"), RULE["2b"]) is None
    assert find_shortcut(["def predict(:\n"], RULE["2b"]) is None  # not Python: nothing to judge


def _notes(result) -> list[str]:
    return [n.english() for n in result.notes]


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


def test_a_cheat_is_flagged_for_review_with_a_note_that_teaches(tmp_path):
    name, part, words = EX2, "2b", "reference client (`reference_pair`)"
    result, exercise = _graded(name, "def predict", CHEATS_2B["reference_pair"], tmp_path)
    assert result.status == "review"
    assert result.score == round(sum(c.points for c in result.cases), 2)
    note = next(n for n in _notes(result) if n.startswith(f"part {part}"))
    assert words in note and "yourself" in note and "before trusting its" in note
    assert inline(note) in feedback_text("learner", [result], {name: exercise})  # as text


def test_an_honest_2b_keeps_its_points(tmp_path):
    result, exercise = _graded(EX2, "def predict", HONEST_2B.replace("%time predict(None, True)\n", ""), tmp_path)
    assert result.score == exercise.max_points, result.notes


# --- red team 2 (2026-12-01): the check must never stop the grader, and never cost points ------


def _part_result(name: str, status: str = "passed"):
    from course_tools.grading.results import CaseResult, ExerciseResult

    exercise = load_exercises()[name]
    cases = [
        CaseResult(c.id, c.label, status, c.points if status == "passed" else 0.0, c.points)
        for c in exercise.cases
    ]
    score = round(sum(c.points for c in cases), 2)
    return ExerciseResult("learner", name, "graded", score, exercise.max_points, cases), exercise


@pytest.mark.parametrize(
    "source",
    [
        "x = " + "+".join(["1"] * 60_000) + "\n",  # RecursionError in compile, under the cap
        "a = 1\n" * 700_000,  # 4 MB: 25 s and 2.5 GB before the size cap
    ],
    ids=["deep expression", "4 MB of code"],
)
def test_code_the_check_cannot_read_is_flagged_in_bounded_time_and_keeps_its_points(source):
    import time

    from course_tools.grading.shortcuts import apply_rules

    result, exercise = _part_result(EX2)
    started = time.process_time()  # CPU seconds: other load on the machine does not count
    apply_rules(result, exercise, [*_code(EX2), source])
    assert time.process_time() - started < 5
    assert all(c.status == "passed" for c in result.cases)  # nothing taken away
    assert result.status == "review"
    note = next(n for n in _notes(result) if n.startswith("part 2b"))
    assert "could not" in note and "instructor will read" in note, note
    assert ("RecursionError" in note) == (len(source) < 200_000)


def test_an_error_in_the_check_never_stops_the_notebook(tmp_path, monkeypatch):
    import course_tools.grading.runner as runner

    def broken(*args):
        raise RuntimeError("the check broke")

    monkeypatch.setattr(runner, "apply_rules", broken)
    result, exercise = _graded(EX2, "def predict", HONEST_2B.replace("%time predict(None, True)\n", ""), tmp_path)
    assert result.cases and any(c.status == "passed" for c in result.cases)
    assert any("RuntimeError" in n for n in _notes(result)), _notes(result)


def test_a_flagged_part_keeps_its_points_and_asks_for_review_kindly(tmp_path):
    # Policy: a static reading has false positives and negatives, so it flags, never deducts.
    result, exercise = _graded(EX2, "def predict", CHEATS_2B["decide"], tmp_path)
    part = [c for c in result.cases if c.id.startswith("2b.")]
    earned = round(sum(c.points for c in part), 2)
    assert result.status == "review"
    assert result.score == round(sum(c.points for c in result.cases), 2)
    assert all(c.status in ("passed", "failed") for c in part)  # the probes' own verdicts
    note = next(n for n in _notes(result) if n.startswith("part 2b"))
    assert "appears to use the course's reference client (`decide`)" in note
    assert f"before trusting its {earned:g} points" in note
    assert "write the rules yourself" in note and "instructor will read" in note
    assert inline(note) in feedback_text("learner", [result], {EX2: exercise})


def test_review_is_a_status_the_gradebook_ranks_and_filters():
    from course_tools.grading.report import student_row
    from course_tools.grading.results import STATUSES

    assert "review" in STATUSES
    assert STATUSES.index("review") < STATUSES.index("missing")
    result, exercise = _part_result(EX2)
    result.status = "review"
    assert student_row("learner", [result], {EX2: exercise})["status"] == "review"


_ERIN_HELPER = "def decide(hints):\n    return 'allow' if hints.read_only else 'confirm'\n"
_ERIN_PREDICT = (
    "def predict(annotations, trusted):\n    hints = effective(annotations if trusted else None)\n"
    "    return decide(hints), ('treat as untrusted' if hints.open_world else 'trust output')\n"
)
_ANSWER = "def predict(annotations, trusted):\n" + HONEST_2B.split("def predict(annotations, trusted):\n")[1].split("%time")[0]
HONEST_MORE_2B = {
    # erin: a scratch cell compared with the reference, then her own helper replaced the name
    "own decide after a scratch import": ["from course_lib import SPEC, decide\nprint(decide(SPEC, {}))\n", _ERIN_HELPER, _ERIN_PREDICT],
    # ivan: an attribute that happens to be called policy
    "self.policy": [
        "from course_lib import effective\nclass Client:\n    def __init__(self, policy):\n        self.policy = policy\n"
        "    def __call__(self, annotations, trusted):\n        return self.policy(effective(annotations if trusted else None))\n"
        "def rules(hints):\n    return ('allow' if hints.read_only else 'confirm'), 'trust output'\npredict = Client(rules)\n"
    ],
    "a string 'feedback'": ['NOTES = {"feedback": "see lesson 02"}\n' + _ANSWER.replace("    hints", '    NOTES["feedback"]\n    hints', 1)],
    "a name rebound later": [
        "TRUSTED = {True: 'trusted'}\n" + _ANSWER.replace("    hints", "    TRUSTED.get(trusted)\n    hints", 1),
        "import course_lib\nTRUSTED = course_lib.clients\n",
    ],
    "all_combinations from its module": ["from course_lib.combinations import all_combinations\n" + _ANSWER.replace("    hints", "    all_combinations()\n    hints", 1)],
}


@pytest.mark.parametrize("how", sorted(HONEST_MORE_2B))
def test_honest_answers_the_red_team_saw_flagged_are_not(how):
    assert find_shortcut(["from course_lib import effective\n", *HONEST_MORE_2B[how]], RULE["2b"]) is None


def test_the_binding_in_force_at_the_end_is_the_one_read():
    # the same cells with the scratch import last: at probe time `decide` IS the reference
    cells = [_ERIN_HELPER, _ERIN_PREDICT, "from course_lib import SPEC, decide\n"]
    assert find_shortcut(cells, RULE["2b"]) == "decide"


MORE_CHEATS_2B = {
    "a module-level dict filled by a helper": "from course_lib import SPEC, decide\nCACHE = {}\n"
    "def fill():\n    for t in (True, False):\n        CACHE[t] = lambda a, t=t: decide(SPEC, a)\nfill()\n"
    "def predict(annotations, trusted):\n    return CACHE[trusted](annotations)\n",
    "TABLE.update": "from course_lib import SPEC, Trust, decide\nTABLE = {}\nfor t in (True, False):\n"
    "    d = decide(SPEC, {}, trust=Trust.TRUSTED if t else Trust.UNTRUSTED)\n    TABLE.update({t: d})\n"
    "def predict(annotations, trusted):\n    return TABLE[trusted]\n",
    "RULEBOOK.append": "from course_lib import decide\nRULEBOOK = []\nRULEBOOK.append(decide)\n"
    "def predict(a, t):\n    return RULEBOOK[0](None, a)\n",
    "a global written in a function": "import course_lib\nTABLE = None\ndef setup():\n    global TABLE\n"
    "    TABLE = course_lib.decide\nsetup()\ndef predict(a, t):\n    return TABLE(None, a)\n",
    "a walrus": "import course_lib\nif (ref := course_lib.decide):\n    pass\ndef predict(a, t):\n    return ref(None, a)\n",
    "globals()[...]": "from course_lib import SPEC, decide\nglobals()['predict'] = lambda a, t: decide(SPEC, a)\n",
    "a match statement": "from course_lib import SPEC, decide\nmatch 1:\n    case 1:\n        def predict(a, t):\n            return decide(SPEC, a)\n",
    "SessionGuard": "from course_lib import SessionGuard, analyse_session\ndef predict(a, t):\n"
    "    return SessionGuard(analyse_session([{'name': 't', 'annotations': a}])).check('t')\n",
    "Host": "from course_lib import Host\ndef predict(a, t):\n    return Host()\n",
    "the replay module": "from course_lib import replay\ndef predict(a, t):\n    return replay.run(a)\n",
    "getattr with a name": "import course_lib\ndef predict(a, t):\n    return getattr(course_lib, 'decide')(None, a)\n",
    "importlib": "import importlib\ndef predict(a, t):\n    return importlib.import_module('course_lib.policy').decide(None, a)\n",
}


@pytest.mark.parametrize("how", sorted(MORE_CHEATS_2B))
def test_more_2b_shortcuts_are_flagged(how):
    assert find_shortcut([MORE_CHEATS_2B[how]], RULE["2b"]) is not None, how


def test_a_writefile_module_that_uses_the_reference_is_flagged():
    cells = [
        "%%writefile myrules.py\nfrom course_lib import SPEC, decide\n"
        "def predict(annotations, trusted):\n    return decide(SPEC, annotations)\n",
        "from myrules import predict\n",
    ]
    assert find_shortcut(cells, RULE["2b"]) in ("decide", "SPEC")
    assert find_shortcut([cells[0].replace("decide(SPEC, annotations)", "'allow'").replace("SPEC, decide", "effective"), cells[1]], RULE["2b"]) is None


def test_a_4a_answer_that_calls_the_librarys_check_is_graded_by_its_cases_alone(tmp_path):
    cheat = "from course_lib.audit import check_behaviour\ncontradiction = check_behaviour\n"
    result, exercise = _graded(EX4, "def contradiction", cheat, tmp_path)
    assert result.status == "graded" and not [n for n in _notes(result) if n.startswith("part 4a")]


def test_a_part_that_earned_nothing_is_not_flagged():
    from course_tools.grading.shortcuts import apply_rules

    result, exercise = _part_result(EX2, status="failed")
    apply_rules(result, exercise, [CHEATS_2B["decide"]])
    assert result.status == "graded" and not result.notes


@pytest.mark.parametrize(
    "cells",
    [
        [  # one function writes 6,000 globals the answer reads: 262 s when each was read anew
            "def F():\n    global " + ", ".join(f"g{i}" for i in range(6000)) + "\n"
            + "".join(f"    g{i} = 1\n" for i in range(6000)),
            "def predict(a, t):\n    return [" + ", ".join(f"g{i}" for i in range(6000)) + "]\n",
        ],
        # long attribute chains: each link resolved once (9.5 s before), or unreadable
        ["import course_lib\ndef predict(a, t):\n" + "".join(f"    x{i} = a{'.a' * 900}\n" for i in range(100))],
        # IPython's reader re-tokenizes the cell per magic: 25,000 magics took 188 s
        ["%time x\n" * 25_000],
        ["a?\n" * 60_000],
        [  # 3,000 names imported from one written file: the file is read once
            "%%writefile myrules.py\n" + "".join(f"def f{i}(): pass\n" for i in range(3000)),
            "".join(f"from myrules import f{i}\n" for i in range(3000))
            + "def predict(a, t):\n    return [" + ", ".join(f"f{i}" for i in range(3000)) + "]\n",
        ],
    ],
    ids=["many globals", "long chains", "many magics", "many help marks", "many imports"],
)
def test_code_built_to_slow_the_reading_costs_bounded_time(cells):
    import time

    from course_tools.grading.shortcuts import apply_rules

    result, exercise = _part_result(EX2)
    started = time.process_time()  # CPU seconds: other load on the machine does not count
    apply_rules(result, exercise, cells)
    assert time.process_time() - started < 5
    assert all(c.status == "passed" for c in result.cases)


def test_the_body_of_a_cell_magic_is_read_as_python():
    cell = "%%time\nfrom course_lib import SPEC, decide\npredict = lambda a, t: decide(SPEC, a)\n"
    assert find_shortcut([cell], RULE["2b"]) == "decide"
    assert find_shortcut(["%%bash\necho decide\n"], RULE["2b"]) is None
