"""Feedback and the gradebook are data, never markup: what a submission controls is shown as text wherever the
Markdown feedback is rendered (an LMS, a course site, JupyterLab), and text the kernel produced
(exception names and values, answers echoed by a judge) never reaches the student.

Each attack renders the feedback with a Markdown renderer (markdown-it-py, CommonMark with raw
HTML allowed, as most renderers are) and looks for a live tag or attribute. The gradebook CSV
never starts a cell with a spreadsheet formula.
"""

from __future__ import annotations

import asyncio
import csv
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
from markdown_it import MarkdownIt

from course_lib.phrase import Phrase
from course_tools.grading import load_exercises
from course_tools.grading.report import feedback_text, student_row, write_gradebook
from course_tools.grading.results import CaseResult, ExerciseResult
from course_tools.grading.runner import grade_notebook
from course_tools.grading.sandbox import choose_isolation

ROOT = Path(__file__).resolve().parents[1]
EX1, EX4 = "01_annotate_tools", "04_catch_the_liar"
XSS = [
    "<svg onload=alert(1)>",
    "<img src=x onerror=alert(2)>",
    "[click](javascript:alert(3))",
    "![x](https://evil.example/p.png)",
    "<https://evil.example>",
    "**bold** _it_ __init__ a__b `code` ~~gone~~ &lt;script&gt; \\<b> search_web",
]
SECRET = "host-secret-never-in-a-gradebook"
PLAIN_TAGS = {"h1", "h2", "p", "ul", "li"}  # what the grader's own Markdown makes


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))

    def handle_data(self, data):
        self.text.append(data)


def _rendered(markdown: str) -> _Tags:
    parser = _Tags()
    parser.feed(MarkdownIt("commonmark", {"html": True}).render(markdown))
    return parser


@pytest.fixture(scope="module")
def exercises():
    return load_exercises()


@pytest.mark.parametrize("attack", XSS)
def test_a_students_name_and_notes_render_as_text_never_as_markup(exercises, attack):
    result = ExerciseResult(attack, EX1, "graded", 0.0, 12.0)
    result.notes.append(Phrase(f'code cell 2 ("{attack}") and the code cells after it did not run'))
    result.cases = [CaseResult("1a", "a case", "failed", 0.0, 1.0, hint="a hint")]
    rendered = _rendered(feedback_text(attack, [result], exercises))
    assert {tag for tag, _ in rendered.tags} <= PLAIN_TAGS, rendered.tags
    assert all(attrs == [] for _, attrs in rendered.tags), rendered.tags
    text = "".join(rendered.text)
    assert f"Feedback for {attack}" in text  # the name itself is still shown, exactly
    assert attack in text


def _graded(source: str, exercises, tmp_path):
    try:
        isolation = choose_isolation("bwrap")
    except ValueError:
        isolation = choose_isolation("none")
    nb = nbformat.read(ROOT / "solutions" / f"{EX1}.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(source))
    path = tmp_path / "s" / f"{EX1}.ipynb"
    path.parent.mkdir()
    nbformat.write(nb, path)
    return asyncio.run(grade_notebook("s", path, exercises[EX1], isolation=isolation))


def test_an_exception_the_kernel_names_never_reaches_the_students_feedback(exercises, tmp_path):
    raising = (  # the name is made at run time: the cell's own text shows neither part
        "# a strange exception\n"
        "Evil = type('<img src=x on' + 'error=alert(1)> hidden-' + 'input-42', (Exception,), {})\n"
        "raise Evil('value: hidden-' + 'input-42')"
    )
    result = _graded(raising, exercises, tmp_path)
    feedback = feedback_text("s", [result], exercises)
    assert "hidden-input-42" not in feedback and "onerror" not in feedback, feedback
    assert "raised an exception" in feedback  # what happened is still said, in the grader's words
    row = student_row("s", [result], exercises)
    assert "hidden-input-42" in row["notes"]  # the instructor sees the exact name


def test_a_builtin_exceptions_name_is_still_shown(exercises, tmp_path):
    result = _graded("1 / 0", exercises, tmp_path)
    assert "raised ZeroDivisionError" in feedback_text("s", [result], exercises)


def test_a_judge_never_echoes_the_students_answer_into_feedback(exercises):
    from course_tools.grading.results import judge

    liars = next(c for c in exercises[EX4].cases if c.id == "4b.no_false_alarm")
    answer = {"__set__": ["log-tidy/disk_usage", "<img src=x onerror=alert(1)>"]}
    case = judge(liars, {"status": "ok", "value": answer})
    assert case.status == "failed"
    for lang in ("en", "zh_CN"):  # the message is said in the student's language, when written
        shown = case.feedback.text(lang)
        assert "onerror" not in shown and "log-tidy/disk_usage" in shown
    odd = next(c for c in exercises[EX4].cases if c.id == "4b.liar_caught")
    shaped = judge(odd, {"status": "ok", "value": {"weird": "<b>hidden-input-42</b>"}})
    assert "hidden-input-42" not in shaped.feedback.english()


def test_kernel_text_stays_out_of_the_students_feedback():
    exercises = load_exercises()
    first = next(iter(exercises))
    result = ExerciseResult(
        student="s", exercise=first, status="kernel died", score=0.0, max_score=1.0
    )
    result.notes.append(Phrase("the kernel died while probing case 2b"))
    result.kernel_log.append(f"predict({{}}, True)  # {SECRET}\x1b[2J")
    row = student_row("s", [result], exercises)
    feedback = feedback_text("s", [result], exercises)
    assert SECRET not in feedback
    assert "the kernel died while probing case 2b" in feedback  # what happened, still taught
    assert SECRET in row["notes"] and "\x1b" not in row["notes"]  # the instructor still sees it
    assert SECRET in result.as_dict()["kernel_log"][0]  # the JSONL keeps the exact text


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_gradebook_cells_never_start_a_formula(tmp_path, start):
    exercises = load_exercises()
    name = f'{start}HYPERLINK("http://evil","click")'
    row = student_row(name, [], exercises, notes=[f"{start}1+1"])
    write_gradebook(tmp_path / "g.csv", [row], exercises)
    with open(tmp_path / "g.csv", newline="", encoding="utf-8") as handle:
        read = list(csv.DictReader(handle))
    for value in read[0].values():
        assert not value or value[0] not in "=+-@\t\r", read[0]
    assert "HYPERLINK" in read[0]["student"]
    if start.isprintable():  # a tab or CR is written as an escape, which starts no formula
        assert read[0]["student"] == "'" + name
    assert read[0]["total"] == "0"  # numbers stay numbers
