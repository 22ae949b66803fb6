"""After grading, on the sample class (`grade --sample-class`): what the class missed, the written
answers, the Canvas and Moodle files, and who was late. One grading run, shared.

The sample class is built from solutions/ and exercises/ like the self-test's, with known
mistakes, so every expectation here is known in advance: ben and dan leave openWorldHint out on
a closed tool, ben and eve think idempotent means safe, eve trusts an untrusted server, dan's
defence denies the work (and was handed in a day late).
"""

from __future__ import annotations

import csv
import html
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from course_tools.__main__ import main
from course_tools.grading.sample import ANSWERS, DEADLINE, EX1, EX2, EX3, EX4, ROSTER

ROOT = Path(__file__).resolve().parents[1]
EXERCISES = (EX1, EX2, EX3, EX4)


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict:
    base = tmp_path_factory.mktemp("sample")
    assert main(["grade", "--sample-class", str(base / "class")]) == 0
    out = base / "out"
    files = {
        "summary": out / "summary.csv",
        "plot": out / "summary.png",
        "written": out / "written.md",
        "canvas": out / "canvas.csv",
        "moodle": out / "moodle.csv",
    }
    argv = [
        "grade", str(base / "class" / "submissions"), "--out", str(out / "gradebook.csv"),
        "--jobs", "2", "--quiet", "--cell-timeout", "20", "--notebook-timeout", "90",
        "--deadline", "2026-12-04T17:00:00Z",
        "--summary", str(files["summary"]), "--summary-plot", str(files["plot"]),
        "--written", str(files["written"]), "--roster", str(base / "class" / "roster.csv"),
        "--lms", "canvas", str(files["canvas"]), "--lms", "moodle", str(files["moodle"]),
    ]
    import contextlib
    import io

    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        status = main(argv)
    with (out / "gradebook.csv").open(encoding="utf-8", newline="") as handle:
        gradebook = {row["student"]: row for row in csv.DictReader(handle)}
    return {"status": status, "stderr": stderr.getvalue(), "gradebook": gradebook, **files}


def _summary(graded: dict) -> dict[str, dict[str, str]]:
    with graded["summary"].open(encoding="utf-8", newline="") as handle:
        return {row["case"]: row for row in csv.DictReader(handle)}


def test_the_sample_class_grades_and_every_student_has_a_row(graded):
    assert graded["status"] == 0, graded["stderr"]
    assert sorted(graded["gradebook"]) == ["ada", "ben", "cleo", "dan", "eve", "finn"]
    assert graded["gradebook"]["ada"]["total"] == "62"


def test_the_summary_names_exactly_the_cases_the_wrong_answers_missed(graded):
    rows = _summary(graded)
    wrong = {case: row["missed by"] for case, row in rows.items() if row["wrong"] != "0"}
    assert set(wrong) >= {"1a.read_runbook", "1a.query_incidents", "2a.B", "2c.b"}
    assert {c for c in wrong if not c.startswith("3b.")} == {
        "1a.read_runbook", "1a.query_incidents", "2a.B", "2c.b"
    }, "a case was marked wrong that no sample mistake touches"
    assert any(c.startswith("3b.") for c in wrong)  # dan's "deny" stops the colleague's mail
    read_runbook = rows["1a.read_runbook"]
    assert (read_runbook["handed in"], read_runbook["wrong"], read_runbook["left blank"]) == ("5", "2", "1")
    assert read_runbook["missed by"] == "ben (wrong); dan (wrong); cleo (left blank)"
    assert read_runbook["share missed"] == "0.60" and read_runbook["share wrong"] == "0.40"
    assert "open_world_hint=False" in read_runbook["hint"]
    statement_b = rows["2c.b"]
    assert (statement_b["handed in"], statement_b["wrong"]) == ("4", "2")
    assert statement_b["missed by"].startswith("ben (wrong); eve (wrong)")
    # one row per hidden case of every exercise, in the course's order
    from course_tools.grading import load_exercises

    expected = [c.id for e in load_exercises().values() for c in e.cases]
    assert list(rows) == expected


def test_the_run_ends_with_the_three_most_missed_cases_and_what_to_re_teach(graded):
    tail = graded["stderr"][graded["stderr"].index("re-teach:") :]
    assert "2c.b (statement b): wrong in 2 of 4 notebooks (50%)" in tail
    assert "idempotent says nothing about safety" in tail  # 2c.b's hint
    assert "1a.read_runbook" in tail and "3b." in tail
    numbered = re.findall(r"^  (\d)\. ", tail, flags=re.MULTILINE)
    assert numbered == ["1", "2", "3"]


def test_the_plot_is_a_readable_png_naming_the_most_missed_cases(graded):
    from PIL import Image  # matplotlib's own dependency

    with Image.open(graded["plot"]) as image:
        assert image.format == "PNG"
        width, height = image.size
    assert width >= 1400 and height >= 600  # a projector's width, one row per part

    from course_tools.grading.summary import summarise
    from course_tools.grading.summary_plot import summary_figure

    figure = summary_figure(summarise(_results(graded), _exercises()), 6)
    figure.canvas.draw()  # lays the legend out
    renderer = figure.canvas.get_renderer()
    from matplotlib.text import Text

    texts = [t for t in figure.findobj(Text) if t.get_visible() and t.get_text()]
    words = " ".join(t.get_text() for t in texts)
    for case in ("2c.b (2 of 4 wrong)", "1a.read_runbook (2 of 5 wrong)", "2a.B (1 of 4 wrong)"):
        assert case in words
    assert min(t.get_fontsize() for t in texts) >= 11
    boxes = [t.get_window_extent(renderer) for t in texts]
    overlapping = [
        (texts[i].get_text(), texts[j].get_text())
        for i in range(len(boxes)) for j in range(i + 1, len(boxes)) if boxes[i].overlaps(boxes[j])
    ]
    assert not overlapping


def _exercises():
    from course_tools.grading import load_exercises

    return load_exercises()


def _results(graded: dict):
    import json

    from course_tools.grading.results import CaseResult, ExerciseResult

    results = []
    for line in (graded["summary"].parent / "gradebook.jsonl").read_text(encoding="utf-8").splitlines():
        data = json.loads(line)
        data["cases"] = [CaseResult(**c) for c in data["cases"]]
        results.append(ExerciseResult(**data))
    return results


def _rendered_text(markdown: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", MarkdownIt("commonmark").render(markdown)))


def test_the_written_answers_file_holds_every_free_text_answer(graded):
    text = graded["written"].read_text(encoding="utf-8")
    rendered = _rendered_text(text)
    for (student, exercise), answer in ANSWERS.items():
        section = text[text.index(f"({exercise})") :]
        assert f"#### {student}" in section
        assert " ".join(answer.split()) in " ".join(rendered.split()), (student, exercise)
    # ben wrote his in a cell of his own below the placeholder; cleo left hers blank
    assert "It is dangerous when the model trusts it" in rendered
    cleo = text[text.index("#### cleo") :].split("####")[1]
    assert "(left blank)" in cleo
    # grouped: exercise, then question, then one block per student
    assert text.index("## Exercise 1") < text.index("### Talk it over") < text.index("#### ada")
    assert "Not handed in: eve." in text[text.index("## Exercise 1") : text.index("## Exercise 2")]


def test_markup_in_a_written_answer_is_shown_as_text(graded):
    rendered_html = MarkdownIt("commonmark").render(graded["written"].read_text(encoding="utf-8"))
    assert "<b>" not in rendered_html and "<em>always</em>" not in rendered_html
    assert "I'd *always* &lt;b&gt;deny&lt;/b&gt; it." in rendered_html


def _read(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle))


def test_the_canvas_file_has_canvas_s_required_columns_and_one_row_per_rostered_student(graded):
    rows = _read(graded["canvas"])
    header, points, students = rows[0], rows[1], rows[2:]
    # Canvas's importer: Student, ID, then SIS User ID and SIS Login ID, then Section; assignments
    assert header[:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    titles = header[5:]
    assert len(titles) == 5 and all(t.startswith("Exercise ") for t in titles)
    assert points[0] == "Points Possible" and points[5:] == ["12", "22", "8", "10", "10"]
    by_login = {row[3]: dict(zip(header, row)) for row in students}
    assert sorted(by_login) == sorted(r[4] for r in ROSTER)  # every rostered student, finn not
    assert by_login["ada"]["ID"] == "101" and by_login["ada"]["Student"] == "Lovelace, Ada"
    assert [by_login["ada"][t] for t in titles] == ["12", "22", "8", "10", "10"]
    assert [by_login["gia"][t] for t in titles] == ["", "", "", "", ""]  # nothing handed in
    assert by_login["ben"][titles[0]] == graded["gradebook"]["ben"][EX1]


def test_the_moodle_file_identifies_every_rostered_student_by_email(graded):
    with graded["moodle"].open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
        fields = reader.fieldnames
    assert fields[:4] == ["First name", "Last name", "ID number", "Email address"]
    assert [r["Email address"] for r in rows] == [r[6] for r in ROSTER]  # roster order, no blank
    exercise_1 = fields[4]
    assert {r["Email address"]: r[exercise_1] for r in rows}["dan@example.edu"] == graded["gradebook"]["dan"][EX1]
    assert all(r[f] == "" for r in rows if r["Email address"] == "gia@example.edu" for f in fields[4:])


def test_unrostered_and_unsubmitted_students_are_named_never_dropped(graded):
    err = graded["stderr"]
    assert "not in the roster, so not in the canvas file (add them to the roster): finn" in err
    assert "in the roster, nothing handed in (their marks are empty): gia" in err
    assert "no row in the canvas file: not in the roster" in graded["gradebook"]["finn"]["notes"]


def test_the_late_column_is_right_for_on_time_and_late_notebooks(graded):
    book = graded["gradebook"]
    assert book["dan"][f"{EX3} late"] == "yes"  # changed after the deadline; collected again
    assert book["dan"][f"{EX3} handed in"] == "2026-12-05T19:00:00+00:00"
    assert book["dan"][f"{EX1} late"] == "no" and book["ada"][f"{EX4} late"] == "no"
    assert book["dan"]["hand-in times from"] == "hub collect"
    assert book["finn"][f"{EX1} late"] == "no" and book["finn"]["hand-in times from"] == "file time"
    assert book["finn"][f"{EX1} handed in"] == (DEADLINE.replace(hour=14)).isoformat()
    assert book["eve"][f"{EX1} handed in"] == "" and book["eve"][f"{EX1} late"] == ""
    assert "late: dan · 03_break_the_trifecta, by 26 h 00 min (hub collect)" in graded["stderr"]
