"""A Chinese-edition student's feedback is Chinese throughout, and scores the same as the English.

The grader judges a submission once and writes its feedback later, in the student's language (the
notebook's metadata "language"). Its case labels and judge messages are catalog templates with
values (`course_lib.phrase.Phrase`), so they are translated when the feedback is written: no
English sentence of a template reaches a Chinese student. Values that are code (tool names,
``PREDICTIONS``, a wire name) stay as they are.
"""

from __future__ import annotations

import copy
import csv
import json
import re
from pathlib import Path

import nbformat
import pytest
from babel.messages.pofile import read_po

from course_lib.i18n import using
from course_lib.phrase import Phrase
from course_tools.__main__ import main as course_main
from course_tools.grading import load_exercises
from course_tools.grading.results import judge

ROOT = Path(__file__).resolve().parents[1]
PO = ROOT / "locales" / "zh_CN" / "LC_MESSAGES" / "course_lib.po"
HAN = re.compile(r"[\u4e00-\u9fff]")
CASE_LINE = re.compile("^- [✓✗…] ")  # a case's line of the feedback (a note's is "- note: ...")

# The same wrong answers in both languages, as (text of the solution, what the student wrote).
MISTAKES = {
    "02_predict_the_client": [
        ('"B": (PreCall.WARN, PostCall.UNTRUSTED),', '"B": (PreCall.ALLOW, PostCall.TRUST),'),
        ('TRUE_STATEMENTS = {"a", "c", "d", "f"}', 'TRUE_STATEMENTS = {"a", "b", "c", "d", "f"}'),
        ("    if not trusted:\n", "    if trusted is None:\n"),
        ('"deny": ["mcp__file-ops__delete_file"],', '"deny": [],'),
        ('"Copilot prompt": "RAN",', '"Copilot prompt": "ASK",'),
    ],
    "03_break_the_trifecta": [
        ('"on_taint": PreCall.CONFIRM,', '"on_taint": PreCall.DENY,'),
        (
            'Leg.EXTERNAL_COMMUNICATION: {"send_email", "search_web"},',
            'Leg.EXTERNAL_COMMUNICATION: {"send_email"},',
        ),
    ],
    "04_catch_the_liar": [
        ("if additive and removed:", "if removed:"),  # false alarms
        (  # missed lies: a read-only tool that only adds
            'if hints["readOnlyHint"] is True and effects:',
            'if hints["readOnlyHint"] is True and any(e.destructive for e in effects):',
        ),
        ("LIARS = set()", 'LIARS = {"log-tidy/disk_usage", "nobody/nothing"}'),
    ],
    "05_your_own_server": [
        (
            "    @server.tool(\n"
            "        annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False)\n"
            "    )\n"
            "    def list_notes",
            "    @server.tool()\n    def list_notes",
        ),
        (
            "read_only_hint=False, destructive_hint=True,",
            "read_only_hint=False, destructive_hint=False,",
        ),
    ],
}
EXERCISES = tuple(MISTAKES)


def _wrong(nb: nbformat.NotebookNode, name: str) -> nbformat.NotebookNode:
    for wrong, instead in MISTAKES[name]:
        hits = [c for c in nb.cells if c.cell_type == "code" and wrong in c.source]
        assert hits, f"{name}: the mistake {wrong!r} is not in the solution"
        hits[0].source = hits[0].source.replace(wrong, instead)
    return nb


def _english(name: str) -> nbformat.NotebookNode:
    return _wrong(nbformat.read(ROOT / "solutions" / f"{name}.ipynb", as_version=4), name)


def _chinese(name: str) -> nbformat.NotebookNode:
    """The Chinese exercise, each answer cell holding the English solution's (by cell id)."""
    solution = {c.get("id"): c for c in _english(name).cells}
    nb = copy.deepcopy(nbformat.read(ROOT / "zh-CN" / "exercises" / f"{name}.ipynb", as_version=4))
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.get("id") in solution:
            cell.source = solution[cell.get("id")].source
    assert nb.metadata["language"] == "zh_CN"
    return nb


def _template_fragments() -> set[str]:
    """The English sentence pieces of the catalog's templates: the text between placeholders, of
    three words or more (a value a learner types, such as "treat as untrusted", is left out)."""
    with PO.open("rb") as handle:
        catalog = read_po(handle, locale="zh_CN")
    values = {"confirm with warning", "treat as untrusted", "trust output"}
    fragments = set()
    for message in catalog:
        if not message.id:
            continue
        for template in message.id if isinstance(message.id, tuple) else (message.id,):
            for piece in re.split(r"\{[a-z_]*\}", template):
                words = re.findall(r"[A-Za-z][a-z]+(?:[ '-][a-z]+)*", piece)
                fragments |= {w for w in words if w.count(" ") >= 2 and w not in values}
    return fragments


def _english_in(text: str, fragments: set[str]) -> list[str]:
    return sorted(f for f in fragments if re.search(rf"(?<![A-Za-z]){re.escape(f)}(?![a-z])", text))


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Wrong answers to exercises 2-5 graded in both languages: (gradebook rows, feedback)."""
    folder = tmp_path_factory.mktemp("language")
    submissions = folder / "submissions"
    for student, make in (("en", _english), ("zh", _chinese)):
        (submissions / student).mkdir(parents=True)
        for name in EXERCISES:
            nb = make(name)
            if name == "04_catch_the_liar":  # a stray cell that raises: a note for the student
                nb.cells.append(nbformat.v4.new_code_cell("print(undefined_name)"))
            nbformat.write(nb, submissions / student / f"{name}.ipynb")
    gradebook = folder / "gradebook.csv"
    exercises = [arg for name in EXERCISES for arg in ("--exercise", name[:2])]
    status = course_main(
        ["grade", str(submissions), "--out", str(gradebook), *exercises, "--jobs", "2", "--quiet"]
    )
    assert status == 0
    with gradebook.open(encoding="utf-8") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    feedback = {s: (folder / "feedback" / f"{s}.md").read_text(encoding="utf-8") for s in rows}
    # the Markdown's text, as a reader sees it (the feedback escapes _ [ ] and the like)
    return rows, {s: re.sub(r"\\(.)", r"\1", text) for s, text in feedback.items()}


@pytest.fixture(scope="module")
def results(graded, tmp_path_factory):
    """The instructor's results JSONL of the `graded` class: student -> case id -> case."""
    del graded
    folder = next(Path(tmp_path_factory.getbasetemp()).glob("language*"))
    rows = [json.loads(line) for line in (folder / "gradebook.jsonl").read_text().splitlines()]
    return {
        student: {case["id"]: case for row in rows if row["student"] == student for case in row["cases"]}
        for student in ("en", "zh")
    }


def test_a_chinese_students_wrong_answers_score_exactly_as_the_english_ones(graded):
    rows, _ = graded
    # (the notes may number the stray cell differently: the editions' notebooks differ in cells)
    scores = {
        s: {k: v for k, v in row.items() if k not in ("seconds", "notes")} for s, row in rows.items()
    }
    assert all("raised NameError" in row["notes"] for row in rows.values())
    scores["zh"]["student"] = "en"
    assert scores["zh"] == scores["en"]
    exercises = load_exercises()
    for name in EXERCISES:
        assert float(rows["en"][name]) < exercises[name].max_points, f"{name}: no point lost"


def test_a_chinese_students_feedback_has_no_english_sentence_of_the_graders_templates(graded):
    _, feedback = graded
    fragments = _template_fragments()
    english, chinese = feedback["en"], feedback["zh"]
    cases = [line for line in chinese.splitlines() if CASE_LINE.match(line)]
    assert len(cases) == sum(len(load_exercises()[n].cases) for n in EXERCISES)
    assert all(HAN.search(line) for line in cases), [c for c in cases if not HAN.search(c)]
    assert _english_in("\n".join(cases), fragments) == []
    # what the grader says in English, it says in Chinese: the judges' messages shown
    assert "false alarms: ['annotated-file-ops/delete_file', 'log-tidy/disk_usage'] and 1 name" in (
        english
    )
    assert "['annotated-file-ops/delete_file', 'log-tidy/disk_usage']" in chinese
    assert "1 tool without annotations" in english and "tool(s)" not in english
    assert len(_english_in(english, fragments)) > 20  # the check can fail: English has them


def test_the_graders_notes_are_in_the_students_language(graded):
    _, feedback = graded
    english = [line for line in feedback["en"].splitlines() if line.startswith("- note: ")]
    chinese = [line for line in feedback["zh"].splitlines() if line.startswith("- 备注：")]
    assert any("raised NameError" in line for line in english), english
    assert len(chinese) == len(english)
    notes = [line.removeprefix("- 备注：") for line in chinese]
    assert all(HAN.search(note) for note in notes), notes
    assert _english_in("\n".join(notes), _template_fragments() | {"raised NameError"}) == []


def test_the_instructors_results_are_english_whatever_the_students_language(results):
    # The rule a wrong answer broke (course_lib.feedback, course_lib.replay) is said when the
    # feedback is written: the results JSONL holds it in English for both students, so the
    # class summary's "most common hint" counts one hint once, not once per language.
    assert results["zh"].keys() == results["en"].keys()
    for case_id, case in results["zh"].items():
        english = results["en"][case_id]
        for key in ("label", "hint", "detail", "feedback"):
            assert not HAN.search(case[key]), (case_id, key, case[key])
            assert case[key] == english[key], (case_id, key)
    hinted = [c for c in results["en"].values() if c["status"] == "failed" and c["hint"]]
    assert len(hinted) >= 8  # the check can fail: wrong answers with rules


def test_every_hidden_case_label_and_hint_is_a_translated_template():
    """Without a kernel: each label and hint, rendered in Chinese, is Chinese."""
    fragments = _template_fragments()
    for exercise in load_exercises().values():
        for case in exercise.cases:
            for said in (case.label, case.hint):
                assert isinstance(said, Phrase), (case.id, said)
                with using("zh_CN"):
                    shown = said.text()
                assert HAN.search(shown) and not _english_in(shown, fragments), (case.id, shown)


@pytest.mark.parametrize(
    ("case_id", "answer", "english"),
    [
        ("4b.no_false_alarm", {"__set__": ["log-tidy/disk_usage", "x", "y"]}, "and 2 names that"),
        ("4a.ro_nothing", 5, "returned neither None nor a sentence"),
        ("5a.two_tools", [{"tool": "t", "annotations": None}], "the server has 1 tool, not"),
        ("3b.attack", 5, "answer of an unexpected shape"),
    ],
)
def test_a_shown_judge_message_is_english_for_the_instructor_and_chinese_for_the_student(
    case_id, answer, english
):
    case = next(c for e in load_exercises().values() for c in e.cases if c.id == case_id)
    result = judge(case, {"status": "ok", "value": answer})
    assert result.status == "failed" and result.feedback is not None
    assert english in result.detail and english in result.as_dict()["feedback"]
    with using("zh_CN"):
        shown = result.feedback.text()
    assert HAN.search(shown) and not _english_in(shown, _template_fragments()), shown
