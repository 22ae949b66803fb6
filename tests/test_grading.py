"""The instructor grader: a crafted class of submissions, each scoring what it deserves.

The corpus is built in a temporary folder from the committed solutions and exercises: correct,
partly correct and blank work, every failure kind the grader must survive (invalid JSON, a
syntax error, an infinite loop, kernel death, huge output, a student's own `course_lib`) and
every spoofing attempt it must defeat (monkeypatching `course_lib`, always-equal objects,
printing fake result markers, writing into the output folder). One grading run, shared.
"""

from __future__ import annotations

import copy
import csv
import json
from pathlib import Path

import nbformat
import pytest

from course_tools.__main__ import main
from course_tools.grading import Case, Exercise, load_exercises
from course_tools.grading.discover import discover
from course_tools.grading.probe import make_probe, new_nonce, read_payload
from course_tools.grading.report import feedback_text, student_row, write_gradebook
from course_tools.grading.results import ExerciseResult, Limits

ROOT = Path(__file__).resolve().parents[1]
EX1, EX2, EX3, EX4 = "01_annotate_tools", "02_predict_the_client", "03_break_the_trifecta", "04_catch_the_liar"


def _nb(folder: str, name: str) -> nbformat.NotebookNode:
    return nbformat.read(ROOT / folder / f"{name}.ipynb", as_version=4)


def _with_cells(nb: nbformat.NotebookNode, *sources: str, replace: dict[str, str] | None = None) -> nbformat.NotebookNode:
    """Return a copy of `nb` with code-cell text replaced and extra code cells appended."""
    nb = copy.deepcopy(nb)
    for old, new in (replace or {}).items():
        hits = [c for c in nb.cells if c.cell_type == "code" and old in c.source]
        assert hits, f"test corpus: {old!r} not found"
        for cell in hits:
            cell.source = cell.source.replace(old, new)
    nb.cells += [nbformat.v4.new_code_cell(s) for s in sources]
    return nb


def _write(path: Path, nb: nbformat.NotebookNode) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    base = tmp_path_factory.mktemp("class")
    subs, out = base / "submissions", base / "out"
    out.mkdir()
    gradebook = out / "gradebook.csv"
    solution1, solution2, blank1 = _nb("solutions", EX1), _nb("solutions", EX2), _nb("exercises", EX1)
    blank2 = _nb("exercises", EX2)

    _write(subs / "alice" / f"{EX1}.ipynb", solution1)
    _write(subs / "alice" / f"{EX2}.ipynb", solution2)
    _write(subs / "alice" / "scratch.ipynb", blank1)  # extra notebook: listed, not graded
    _write(subs / "alice" / f"{EX3}.ipynb", _nb("solutions", EX3))
    _write(subs / "alice" / f"{EX4}.ipynb", _nb("solutions", EX4))
    # a defence that stops the attack and the work with it
    _write(subs / "bob" / f"{EX3}.ipynb", _with_cells(_nb("solutions", EX3), replace={'"on_taint": PreCall.CONFIRM': '"on_taint": PreCall.DENY'}))
    # no taint tracking, every mail confirmed: the user's answers alone stop the attack, at the cost of prompts
    _write(
        subs / "wendy" / f"{EX3}.ipynb",
        _with_cells(_nb("solutions", EX3), replace={'"auto_approve": {"send_email"}': '"auto_approve": set()', '"on_taint": PreCall.CONFIRM': '"on_taint": None'}),
    )
    # partly correct: search_web annotated as closed world
    _write(
        subs / "bob" / f"{EX1}.ipynb",
        _with_cells(
            solution1,
            replace={
                '"search_web": ToolAnnotations(read_only_hint=True, open_world_hint=True)': '"search_web": ToolAnnotations(read_only_hint=True, open_world_hint=False)',
            },
        ),
    )
    _write(subs / "carol" / f"{EX1}.ipynb", blank1)
    _write(subs / "carol" / f"{EX2}.ipynb", blank2)
    (subs / "dave").mkdir(parents=True)
    (subs / "dave" / f"{EX1}.ipynb").write_text("{ this is not json", encoding="utf-8")
    _write(subs / "erin" / f"{EX1}.ipynb", _with_cells(solution1, replace={"ANNOTATIONS = {": "ANNOTATIONS = {{"}))
    _write(
        subs / "frank" / f"{EX1}.ipynb",
        _with_cells(solution1, replace={"    return {name for name, value": "    while True:\n        pass\n    return {name for name, value"}),
    )
    _write(subs / "grace" / f"{EX1}.ipynb", _with_cells(solution1, "import os\nos._exit(1)"))
    stuck = copy.deepcopy(solution1)  # a loop that ignores interrupts, above the answers' check cells
    stuck.cells.insert(5, nbformat.v4.new_code_cell("import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass"))
    _write(subs / "zed" / f"{EX1}.ipynb", stuck)
    _write(subs / "heidi" / f"{EX1}.ipynb", _with_cells(solution1, "print('x' * 5_000_000)\nfor i in range(2000):\n    print(i)"))
    # a student's own course_lib that would make every check "pass", next to blank answers
    _write(subs / "ivan" / f"{EX1}.ipynb", blank1)
    (subs / "ivan" / "course_lib").mkdir()
    (subs / "ivan" / "course_lib" / "__init__.py").write_text("TODO = None\ndef check(*a): print('✅')\n", encoding="utf-8")
    # monkeypatching course_lib inside the kernel, with wrong answers
    _write(
        subs / "judy" / f"{EX2}.ipynb",
        _with_cells(
            blank2,
            "import course_lib, course_lib.checks, course_lib.policy\n"
            "course_lib.checks.check = lambda *a, **k: print('✅ all passed')\n"
            "course_lib.checks.reference_prediction = lambda *a, **k: ('allow', 'trust output')\n"
            "course_lib.policy.SPEC.decide = lambda *a, **k: None\n"
            "PREDICTIONS = {k: ('allow', 'trust output') for k in 'ABCDEF'}\n"
            "def predict(annotations, trusted):\n    return ('allow', 'trust output')\n",
        ),
    )
    # objects whose equality is always true
    _write(
        subs / "mallory" / f"{EX2}.ipynb",
        _with_cells(
            blank2,
            "class Yes(tuple):\n    def __eq__(self, other): return True\n    def __hash__(self): return 0\n"
            "class YesStr(str):\n    def __eq__(self, other): return True\n    def __hash__(self): return 0\n"
            "PREDICTIONS = {k: Yes(('allow', 'trust output')) for k in 'ABCDEF'}\n"
            "def predict(annotations, trusted):\n    return (YesStr('x'), YesStr('y'))\n"
            "TRUE_STATEMENTS = {YesStr('a'), YesStr('z')}\n",
        ),
    )
    # fake result markers: a guessed marker, and a hook that copies the real nonce from each probe
    _write(
        subs / "oscar" / f"{EX2}.ipynb",
        _with_cells(
            blank2,
            'print(\'@@course-probe-0@@{"status":"ok","value":{"__set__":["a","c","d","f"]}}@@course-probe-0@@\')\n'
            "import re\n"
            "def fake(info):\n"
            "    m = re.search(r'@@course-probe-[0-9a-f]+@@', info.raw_cell or '')\n"
            "    if m:\n"
            "        n = m.group(0)\n"
            "        print('\\n' + n + '{\"status\":\"ok\",\"value\":{\"__set__\":[\"a\",\"c\",\"d\",\"f\"]}}' + n)\n"
            "get_ipython().events.register('pre_run_cell', fake)\n",
        ),
    )
    # writes a fake gradebook and feedback into the output folder, with blank answers
    _write(
        subs / "peggy" / f"{EX1}.ipynb",
        _with_cells(
            blank1,
            f"from pathlib import Path\nout = Path({str(out)!r})\n"
            "(out / 'gradebook.csv').write_text('student,total\\npeggy,999\\n')\n"
            "(out / 'gradebook.jsonl').write_text('{\"student\": \"peggy\", \"score\": 999}\\n')\n"
            "(out / 'feedback').mkdir(exist_ok=True)\n(out / 'feedback' / 'peggy.md').write_text('full marks')\n",
        ),
    )
    _write(subs / f"trent_{EX1}.ipynb", solution1)  # flat layout
    (subs / "victor").mkdir()  # handed in nothing

    argv = [
        "grade", str(subs), "--out", str(gradebook), "--jobs", "2",
        "--cell-timeout", "10", "--probe-timeout", "3", "--notebook-timeout", "60", "--quiet",
    ]
    import logging

    from course_tools.grading.kernel import KERNEL_LOG

    class Keep(logging.Handler):
        def __init__(self) -> None:
            super().__init__()
            self.lines: list[str] = []

        def emit(self, record: logging.LogRecord) -> None:
            self.lines.append(record.getMessage())

    keep = Keep()
    KERNEL_LOG.addHandler(keep)
    try:
        status = main(argv)
    finally:
        KERNEL_LOG.removeHandler(keep)
    with gradebook.open(encoding="utf-8", newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    results = [json.loads(line) for line in (out / "gradebook.jsonl").read_text(encoding="utf-8").splitlines()]
    return {"status": status, "rows": rows, "results": results, "out": out, "kernel_log": keep.lines}


def _score(graded: dict, student: str, exercise: str = EX1) -> float:
    return float(graded["rows"][student][exercise])


def _result(graded: dict, student: str, exercise: str = EX1) -> dict:
    return next(r for r in graded["results"] if r["student"] == student and r["exercise"] == exercise)


def test_grading_a_class_exits_zero_with_one_row_per_student(graded):
    assert graded["status"] == 0
    assert sorted(graded["rows"]) == sorted(
        ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory", "oscar", "peggy", "trent", "victor", "wendy", "zed"]
    )
    assert graded["rows"]["alice"]["max"] == "52"


def test_correct_work_scores_full_marks_and_extra_notebooks_are_listed(graded):
    assert [_score(graded, "alice", ex) for ex in (EX1, EX2, EX3, EX4)] == [12, 22, 8, 10]
    assert graded["rows"]["alice"]["status"] == "graded"
    assert "ignored scratch.ipynb" in graded["rows"]["alice"]["notes"]


def test_partly_correct_work_gets_partial_credit_per_case(graded):
    assert _score(graded, "bob") == 11
    failed = [c["id"] for c in _result(graded, "bob")["cases"] if c["status"] != "passed"]
    assert failed == ["1a.search_web"]


def test_a_defence_that_stops_ordinary_work_loses_those_cases(graded):
    result = _result(graded, "bob", EX3)
    failed = sorted(c["id"] for c in result["cases"] if c["status"] == "failed")
    assert failed == ["3b.attack", "3b.attack_variant", "3b.search_then_mail"]
    assert _score(graded, "bob", EX3) == 5
    feedback = (graded["out"] / "feedback" / "bob.md").read_text(encoding="utf-8")
    # the hint fits the way the defence failed (blocking), not the case's general "attack" rule
    assert "the defence stops ordinary work. Hint: blocking every mail after a web search" in feedback


def test_confirming_every_mail_without_taint_tracking_loses_the_quiet_work_cases(graded):
    result = _result(graded, "wendy", EX3)
    failed = sorted(c["id"] for c in result["cases"] if c["status"] == "failed")
    assert failed == ["3b.notes_to_colleague", "3b.quiet_morning"]
    assert _score(graded, "wendy", EX3) == 6
    feedback = (graded["out"] / "feedback" / "wendy.md").read_text(encoding="utf-8")
    assert "the user was asked once during ordinary work with no untrusted content: confirmation fatigue. Hint: asking before every mail" in feedback


def test_blank_exercises_score_zero_as_not_attempted(graded):
    assert _score(graded, "carol") == 0 and _score(graded, "carol", EX2) == 0
    assert graded["rows"]["carol"]["status"] == "not attempted"


def test_a_file_that_is_not_json_is_an_invalid_notebook_not_a_crash(graded):
    assert graded["rows"]["dave"]["status"] == "invalid notebook"
    assert _score(graded, "dave") == 0
    notes = graded["rows"]["dave"]["notes"]  # the status said once, with its reason
    assert notes.startswith(f"{EX1}: invalid notebook: not a readable notebook") and notes.count("invalid notebook") == 1


def test_a_syntax_error_costs_only_the_broken_answer(graded):
    result = _result(graded, "erin")
    assert any("SyntaxError" in note for note in result["notes"])
    assert 'code cell 2 ("ANNOTATIONS = {{") raised SyntaxError' in graded["rows"]["erin"]["notes"]
    assert _score(graded, "erin") == 4  # part 1b still works


def test_an_infinite_loop_times_out_and_the_rest_is_still_graded(graded):
    result = _result(graded, "frank")
    assert result["status"] == "timed out"
    assert _score(graded, "frank") == 8  # part 1a full, part 1b hangs
    assert result["seconds"] < 90
    # nbclient's "Timeout waiting for execute reply ... Interrupting kernel" goes to the grader's kernel log, not stderr
    assert any("Timeout waiting for execute reply" in line for line in graded["kernel_log"])


def test_a_kernel_that_dies_is_reported_and_the_answers_above_still_count(graded):
    assert graded["rows"]["grace"]["status"] == "kernel died"
    assert _score(graded, "grace") == 12  # rerun without the cell that killed the kernel
    assert "ran the notebook again in a fresh kernel without code cell" in graded["rows"]["grace"]["notes"]
    assert _score(graded, "trent") == 12  # and the batch went on


def test_a_kernel_that_ignores_interrupts_is_stopped_and_the_rest_graded(graded):
    assert graded["rows"]["zed"]["status"] == "timed out"
    assert "did not respond after the interrupt and was stopped" in graded["rows"]["zed"]["notes"]
    assert _score(graded, "zed") == 12


def test_huge_output_does_not_change_the_grade(graded):
    assert _score(graded, "heidi") == 12


def test_a_students_own_course_lib_folder_is_ignored(graded):
    assert _score(graded, "ivan") == 0
    assert "own course_lib" in graded["rows"]["ivan"]["notes"]


def test_monkeypatching_course_lib_in_the_kernel_earns_nothing(graded):
    result = _result(graded, "judy", EX2)
    wrong = {c["id"] for c in result["cases"] if c["status"] == "failed"}
    assert "2a.B" in wrong and "2b.no_annotations" in wrong
    assert _score(graded, "judy", EX2) == pytest.approx(1 + 0.6)  # only the genuinely right ones: A, one predict case


def test_objects_that_equal_everything_earn_nothing(graded):
    assert _score(graded, "mallory", EX2) == 0


def test_fake_result_markers_earn_nothing(graded):
    result = _result(graded, "oscar", EX2)
    assert _score(graded, "oscar", EX2) == 0
    assert {c["status"] for c in result["cases"] if c["id"].startswith("2c.")} == {"tampered"}


def test_writing_into_the_output_folder_changes_nothing(graded):
    assert _score(graded, "peggy") == 0
    assert "peggy,999" not in (graded["out"] / "gradebook.csv").read_text(encoding="utf-8")
    assert (graded["out"] / "feedback" / "peggy.md").read_text(encoding="utf-8").startswith("# Feedback for peggy")


def test_a_student_who_handed_in_nothing_still_gets_a_row(graded):
    assert graded["rows"]["victor"]["status"] == "missing"
    assert graded["rows"]["victor"]["total"] == "0"


def test_feedback_names_failed_cases_without_hidden_inputs(graded):
    text = (graded["out"] / "feedback" / "bob.md").read_text(encoding="utf-8")
    assert "✗ search\\_web" in text and "Hint:" in text  # as text: the _ is escaped
    carol = (graded["out"] / "feedback" / "carol.md").read_text(encoding="utf-8")
    assert "Hint:" not in carol and "not attempted" in carol  # a blank submission gets no answer-revealing hints
    exercises = load_exercises()
    for case in exercises[EX1].cases + exercises[EX2].cases:
        if case.target in {"predict", "untrusted_outputs"}:
            assert case.expr not in text and case.expr not in carol


# --- fast unit tests --------------------------------------------------------------------------


def test_a_probe_payload_needs_the_nonce_exactly_once():
    nonce = new_nonce()
    body = '{"status":"ok","value":1}'
    assert read_payload(f"noise\n{nonce}{body}{nonce}\n", nonce) == {"status": "ok", "value": 1}
    assert read_payload(f"{nonce}{body}{nonce}{nonce}{body}{nonce}", nonce)["status"] == "tampered"
    assert read_payload("nothing here", nonce)["status"] == "no result"
    assert read_payload(f"{nonce}not json{nonce}", nonce)["status"] == "tampered"


def test_the_probe_turns_lookalike_objects_into_untrusted_types():
    namespace: dict = {}
    exec("class Yes(int):\n    def __eq__(self, other): return True\nANSWER = {'x': Yes(1), 'y': [1, 'a']}", namespace)
    nonce = new_nonce()
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        exec(make_probe("ANSWER", "ANSWER", nonce), namespace)
    payload = read_payload(buffer.getvalue(), nonce)
    assert payload["value"]["x"] == {"__untrusted_type__": "builtins.Yes"}
    assert payload["value"]["y"] == [1, "a"]


def test_discovery_accepts_folders_and_flat_files_and_never_drops_one(tmp_path):
    exercises = load_exercises()
    (tmp_path / "amy").mkdir()
    (tmp_path / "amy" / f"{EX1}.ipynb").write_text("{}", encoding="utf-8")
    (tmp_path / "amy" / f"{EX1}-Copy1.ipynb").write_text("{}", encoding="utf-8")
    (tmp_path / f"ben_lee_{EX2}.ipynb").write_text("{}", encoding="utf-8")
    (tmp_path / "notes.ipynb").write_text("{}", encoding="utf-8")
    found = {s.student: s for s in discover(tmp_path, exercises)}
    assert found["amy"].notebooks[EX1].name == f"{EX1}.ipynb"
    assert "2 notebooks for" in " ".join(found["amy"].notes)
    assert found["ben_lee"].notebooks[EX2].name == f"ben_lee_{EX2}.ipynb"
    assert "ignored notes.ipynb" in " ".join(found["notes"].notes)


def test_the_gradebook_survives_commas_and_quotes_in_names(tmp_path):
    exercises = {"01_x": Exercise("01_x", "X", [Case("a", "a", "A", "A", lambda v: None)])}
    result = ExerciseResult('Lee, "Sam"', "01_x", "graded", 1.0, 1.0)
    write_gradebook(tmp_path / "g.csv", [student_row('Lee, "Sam"', [result], exercises)], exercises)
    with (tmp_path / "g.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert rows[0]["student"] == 'Lee, "Sam"' and rows[0]["01_x"] == "1"
    assert "Lee" in feedback_text('Lee, "Sam"', [result], exercises)


def test_bad_arguments_exit_with_a_usage_error(tmp_path, capsys):
    assert main(["grade", str(tmp_path / "nowhere")]) == 2
    assert "is not a folder" in capsys.readouterr().err
    with pytest.raises(ValueError, match="cell-timeout"):
        Limits(cell_timeout=0)


def test_the_self_test_grades_solutions_full_and_blank_exercises_zero(capsys):
    assert main(["grade", "--self-test", "--jobs", "2", "--quiet"]) == 0
    assert "self-test passed" in capsys.readouterr().err


def test_only_the_exercises_handed_in_count_unless_chosen(tmp_path):
    from course_tools.grading.cli import _chosen

    exercises = load_exercises()
    (tmp_path / "amy").mkdir()
    (tmp_path / "amy" / f"{EX2}.ipynb").write_text("{}", encoding="utf-8")
    (tmp_path / "amy" / f"{EX3}.ipynb").write_text("{}", encoding="utf-8")
    subs = discover(tmp_path, exercises)
    assert list(_chosen(exercises, [], subs)) == [EX2, EX3]
    assert list(_chosen(exercises, ["3"], subs)) == [EX3]
    assert "not graded in this run" in " ".join(subs[0].notes)
    with pytest.raises(ValueError, match="no such exercise"):
        _chosen(exercises, ["9"], subs)


def test_feedback_gives_hints_and_messages_only_for_attempted_cases():
    from course_tools.grading.results import CaseResult

    exercises = {"01_x": Exercise("01_x", "X", [Case(i, i, "A", "A", lambda v: None) for i in "abcde"])}
    cases = [
        CaseResult("a", "case a", "passed", 1, 1, hint="rule a"),
        CaseResult("b", "case b", "failed", 0, 1, detail="expected 3, got 4", hint="rule b"),
        CaseResult("c", "case c", "failed", 0, 1, detail="the attack still works", hint="rule c", feedback="the attack still works"),
        CaseResult("d", "case d", "not attempted", 0, 1, hint="rule d"),
        CaseResult("e", "case e", "missing", 0, 1, hint="rule e"),
    ]
    text = feedback_text("amy", [ExerciseResult("amy", "01_x", "graded", 1, 5, cases)], exercises)
    assert "case b (0/1). Hint: rule b" in text and "expected 3" not in text  # the detail is for the instructor
    assert "case c (0/1): the attack still works. Hint: rule c" in text
    assert "case d (0/1): not attempted" in text and "rule d" not in text
    assert "case e (0/1): not defined in your notebook" in text and "rule e" not in text
    assert "rule a" not in text


def test_a_judge_can_give_the_hint_for_the_way_an_answer_failed():
    from course_tools.grading.results import judge

    case = Case("x", "x", "A", "A", lambda v: ("the attack still works", "the specific rule"), hint="the general rule", show_detail=True)
    result = judge(case, {"status": "ok", "value": 1})
    assert (result.status, result.hint.english(), result.feedback.english()) == ("failed", "the specific rule", "the attack still works")
    hidden = Case("y", "y", "A", "A", lambda v: "expected 3, got 1", hint="the general rule")
    result = judge(hidden, {"status": "ok", "value": 1})
    assert (result.hint.english(), result.feedback, result.detail) == ("the general rule", None, "expected 3, got 1")


def test_hidden_case_hints_fit_their_case():
    from course_lib.exercises.content import STATEMENT_HINTS

    exercises = load_exercises()
    cases = {c.id: c for e in exercises.values() for c in e.cases}
    hints = {i: c.hint.english() for i, c in cases.items()}
    assert "untrusted server" in hints["2a.B"]
    assert all("untrusted server" not in hints[f"2a.{k}"] for k in "ACDEF")
    assert all(hints[f"2c.{letter}"] == STATEMENT_HINTS[letter] for letter in "abcdef")
    assert "untrusted server" in hints["2b.read_only_untrusted"] and "untrusted server" not in hints["2b.empty_dict"]
    assert hints["3b.attack"] != hints["3b.notes_to_colleague"] and cases["3b.attack"].show_detail
    assert "seed" not in cases["1a.search_web"].label.english()
    assert not any(c.show_detail for c in exercises[EX1].cases + exercises[EX2].cases)  # their details name expected answers


def test_the_hidden_trifecta_cases_punish_each_shortcut():
    exercises = load_exercises()
    cases = [c for c in exercises[EX3].cases if c.id.startswith("3b.")]

    def failing(defence: dict) -> list[str]:
        value = {k: {"__set__": sorted(v)} if isinstance(v, set) else v for k, v in defence.items()}
        return sorted(c.id for c in cases if c.judge(value) is not None)

    assert failing({"auto_approve": {"send_email"}, "on_taint": {"__enum__": "PreCall", "value": "confirm"}}) == []
    assert failing({"auto_approve": {"send_email"}, "on_taint": "confirm"}) == []  # an older copy's text
    assert failing({"auto_approve": set(), "on_taint": None}) == ["3b.notes_to_colleague", "3b.quiet_morning"]
    assert failing({"auto_approve": {"send_email"}, "on_taint": None}) == ["3b.attack", "3b.attack_variant"]
