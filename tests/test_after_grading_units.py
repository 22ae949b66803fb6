"""After grading, piece by piece, without a kernel: learners' text made inert in Markdown, finding
written answers, hand-in times and the deadline, rosters and LMS files, the summary's counts, the
hub's collection record, and every bad input answered with a message and an exit status."""

from __future__ import annotations

import csv
import html
import io
import json
import os
import re
import shutil
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import nbformat
import pytest
from markdown_it import MarkdownIt

sys.path.insert(0, str(Path(__file__).parent))
from grading_kernel import as_normal_user, normal_users_python  # noqa: E402

from course_tools.__main__ import main
from course_tools.grading import load_exercises
from course_tools.grading.deadline import TimeSource, hand_ins, parse_deadline
from course_tools.grading.discover import Submission
from course_tools.grading.inert_markdown import inline, quoted
from course_tools.grading.lms import Lms, lms_csv, map_roster, read_roster
from course_tools.grading.results import CaseResult, ExerciseResult
from course_tools.grading.summary import AnswerKind, answer_kind, reteach, summarise, write_summary
from course_tools.grading.written import AnswerState, answer_in, questions
from course_tools.handin import MANIFEST, read_collection, record_collection

ROOT = Path(__file__).resolve().parents[1]
EX1 = "01_annotate_tools"

# --- learners' text in Markdown ----------------------------------------------------------------

HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1)) and ![i](http://evil/x.png)",
    "<http://evil.example> &lt;b&gt; &#60;i&#62; &amp;",
    "**bold** _it_ `code` ~~gone~~ ^sup^ {.cls}",
    "# heading\n===\n---\n- item\n+ item\n* item\n1. one\n2) two\n> quote\n| a | b |\n|---|---|",
    "line with two trailing spaces  \nand a backslash at the end\\",
    "[ref]: http://evil.example\n[ref]",
    "```\nfenced\n```\n~~~\nfenced\n~~~",
    "<!-- a comment --> <div>block</div>",
    "\x1b]0;title\x07\x1b[31mred\u202eevil\u2028next\r\n",
    "José 李雷 ✓ — “quotes” (parentheses) 50% $5 a@b.c http://x.example/path?q=1",
]
TAGS = re.compile(r"<(/?)([a-z0-9]+)[^>]*>")


def _render(markdown: str) -> str:
    return MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(markdown)


@pytest.mark.parametrize("text", HOSTILE)
def test_a_learners_text_renders_as_exactly_that_text_and_no_markup(text):
    from course_lib.safe_text import printable

    for markdown, allowed, lines in ((quoted(text), {"blockquote", "p"}, True), (inline(text), {"p"}, False)):
        rendered = _render(markdown)
        assert {m.group(2) for m in TAGS.finditer(rendered)} <= allowed, rendered
        shown = html.unescape(TAGS.sub("", rendered))
        expected = printable(text, newlines=lines)
        assert " ".join(shown.split()) == " ".join(expected.split())
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e\u2028]", quoted(text) + inline(text))


def test_a_name_stays_on_one_line_and_a_heading_cannot_be_forged():
    assert "\n" not in inline("ada\n## Full marks")
    assert _render(f"#### {inline('# ada')}") == "<h4># ada</h4>\n"


# --- written answers ----------------------------------------------------------------------------


def _exercise() -> nbformat.NotebookNode:
    return nbformat.read(ROOT / "exercises" / f"{EX1}.ipynb", as_version=4)


def _answer_cell(nb) -> int:
    return next(i for i, c in enumerate(nb.cells) if "written-answer" in c.metadata.get("tags", []))


def test_every_exercise_asks_its_written_questions_in_the_courses_words():
    for path in sorted((ROOT / "exercises").glob("0*.ipynb")):
        asked = questions(nbformat.read(path, as_version=4), path.stem)
        assert asked and all(q.asked.startswith("### ") and len(q.asked.split()) > 10 for q in asked)


def test_the_answer_is_found_where_the_learner_wrote_it():
    reference = _exercise()
    question = questions(reference, EX1)[0]
    edited = _exercise()
    edited.cells[_answer_cell(edited)].source = "In the cell itself."
    assert answer_in("a", edited, reference, question).text == "In the cell itself."
    below = _exercise()  # a new cell under the untouched placeholder, and one more
    index = _answer_cell(below)
    below.cells[index + 1 : index + 1] = [
        nbformat.v4.new_markdown_cell("First thought."), nbformat.v4.new_markdown_cell("Second.")
    ]
    assert answer_in("b", below, reference, question).text == "First thought.\n\nSecond."
    untouched = _exercise()
    assert answer_in("c", untouched, reference, question).state is AnswerState.BLANK


def test_the_answer_is_found_in_a_notebook_saved_without_cell_ids():
    reference = _exercise()
    question = questions(reference, EX1)[0]
    old = _exercise()
    old.cells[_answer_cell(old)].source = "Saved by an old Jupyter."
    for cell in old.cells:
        cell.pop("id", None)
    assert answer_in("d", old, reference, question).text == "Saved by an old Jupyter."
    gone = _exercise()
    del gone.cells[_answer_cell(gone) - 1 : _answer_cell(gone) + 1]  # question and answer deleted
    assert answer_in("e", gone, reference, question).state is AnswerState.NOT_FOUND


def test_written_answers_of_unreadable_and_missing_notebooks_are_said_so(tmp_path):
    from course_tools.grading.written import collect_written, written_markdown

    (tmp_path / "zoe").mkdir()
    (tmp_path / "zoe" / f"{EX1}.ipynb").write_text("{ not json", encoding="utf-8")
    zoe, yan = Submission("zoe", {EX1: tmp_path / "zoe" / f"{EX1}.ipynb"}), Submission("yan")
    exercises = {EX1: load_exercises()[EX1]}
    written = collect_written([zoe, yan], exercises, ROOT, tmp_path)
    text = written_markdown(written, exercises)
    assert "#### zoe\n\n*(the notebook could not be read)*" in text
    assert "Not handed in: yan." in text


# --- deadline and hand-in times ----------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2026-12-04T17:00:00Z", datetime(2026, 12, 4, 17, tzinfo=timezone.utc)),
        ("2026-12-04T18:00+01:00", datetime(2026, 12, 4, 17, tzinfo=timezone.utc)),
    ],
)
def test_a_deadline_is_read_with_its_time_zone(text, expected):
    assert parse_deadline(text) == expected


def test_a_deadline_without_a_zone_is_local_time_and_a_bad_one_is_refused():
    local = parse_deadline("2026-12-04T17:00")
    assert local.tzinfo is not None and local.replace(tzinfo=None) == datetime(2026, 12, 4, 17)
    with pytest.raises(ValueError, match="not an ISO 8601 time: write it like 2026-12-04T17:00"):
        parse_deadline("friday 5pm")


def _result(student: str, exercise: str, path: Path) -> ExerciseResult:
    import hashlib

    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return ExerciseResult(student, exercise, "graded", 1.0, 1.0, sha256=digest, path=str(path))


def _handed_in(root: Path, student: str, when: datetime | None = None) -> Path:
    path = root / student / f"{EX1}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"student": student}), encoding="utf-8")
    if when is not None:
        os.utime(path, (when.timestamp(), when.timestamp()))
    return path


def test_one_notebook_on_time_and_one_late_by_their_file_times(tmp_path):
    deadline = datetime(2026, 12, 4, 17, tzinfo=timezone.utc)
    early = _handed_in(tmp_path, "on_time", deadline - timedelta(minutes=1))
    late = _handed_in(tmp_path, "late", deadline + timedelta(minutes=1))
    subs = [Submission("on_time", {EX1: early}), Submission("late", {EX1: late})]
    results = {"on_time": [_result("on_time", EX1, early)], "late": [_result("late", EX1, late)]}
    found = hand_ins(subs, results, tmp_path, deadline, [])
    assert found["on_time"][EX1].late is False and found["late"][EX1].late is True
    assert found["late"][EX1].source is TimeSource.MODIFIED


def test_hub_collects_time_beats_the_file_time_unless_the_notebook_changed_since(tmp_path):
    deadline = datetime(2026, 12, 4, 17, tzinfo=timezone.utc)
    path = _handed_in(tmp_path, "kim", deadline + timedelta(days=3))  # a late-looking file time
    record_collection(tmp_path, {"kim": [path.name]}, deadline - timedelta(hours=1))
    sub, result = Submission("kim", {EX1: path}), _result("kim", EX1, path)
    hand_in = hand_ins([sub], {"kim": [result]}, tmp_path, deadline, [])["kim"][EX1]
    assert (hand_in.source, hand_in.late) == (TimeSource.COLLECTED, False)
    path.write_text("changed after collection", encoding="utf-8")  # e.g. edited by hand
    changed = _result("kim", EX1, path)
    hand_in = hand_ins([sub], {"kim": [changed]}, tmp_path, deadline, [])["kim"][EX1]
    assert hand_in.source is TimeSource.MODIFIED and "changed since hub collect" in hand_in.why_not_collected


def test_a_broken_collection_record_falls_back_to_file_times_and_says_so(tmp_path):
    (tmp_path / MANIFEST).write_text("{ not json", encoding="utf-8")
    path = _handed_in(tmp_path, "lee")
    notes: list[str] = []
    found = hand_ins([Submission("lee", {EX1: path})], {"lee": [_result("lee", EX1, path)]}, tmp_path, datetime.now(timezone.utc), notes)
    assert found["lee"][EX1].source is TimeSource.MODIFIED
    assert notes and "is not a hand-in record" in notes[0]


def test_hub_collect_records_when_each_notebook_was_first_collected(tmp_path):
    homes, out = tmp_path / "homes", tmp_path / "out"
    for learner in ("learner-01", "learner-02"):
        (homes / learner / "exercises").mkdir(parents=True)
        (homes / learner / "exercises" / f"{EX1}.ipynb").write_text(learner, encoding="utf-8")
    argv = ["hub", "collect", str(homes), "--out", str(out), "--course", str(ROOT)]
    assert main(argv) == 0
    first = read_collection(out)
    assert sorted(first) == [f"learner-01/{EX1}.ipynb", f"learner-02/{EX1}.ipynb"]
    earlier = first[f"learner-01/{EX1}.ipynb"].collected_at - timedelta(hours=2)
    record = json.loads((out / MANIFEST).read_text(encoding="utf-8"))  # pretend it was 2 h ago
    for entry in record["notebooks"].values():
        entry["collected_at"] = earlier.isoformat()
    (out / MANIFEST).write_text(json.dumps(record), encoding="utf-8")
    (homes / "learner-02" / "exercises" / f"{EX1}.ipynb").write_text("changed", encoding="utf-8")
    assert main(argv) == 0
    second = read_collection(out)
    assert second[f"learner-01/{EX1}.ipynb"].collected_at == earlier  # unchanged: first time kept
    assert second[f"learner-02/{EX1}.ipynb"].collected_at > earlier


# --- rosters and LMS files ------------------------------------------------------------------------


def _roster(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "roster.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_roster_without_the_needed_columns_says_what_to_add(tmp_path):
    no_key = _roster(tmp_path, "Student,ID,SIS Login ID,Section\n\"Lee, Kim\",7,kim,A\n")
    with pytest.raises(ValueError, match="no 'student' column .* --roster-key"):
        read_roster(no_key, Lms.CANVAS)
    assert read_roster(no_key, Lms.CANVAS, key="SIS Login ID").entries[0].student == "kim"
    no_identity = _roster(tmp_path, "student,First name\nkim,Kim\n")
    with pytest.raises(ValueError, match=r"none of the columns moodle identifies a student by \(Email address, ID number\)"):
        read_roster(no_identity, Lms.MOODLE)
    twice = _roster(tmp_path, "student,ID\nkim,1\nKim,2\n")
    with pytest.raises(ValueError, match="is on lines 2 and 3"):
        read_roster(twice, Lms.CANVAS)
    (tmp_path / "latin1.csv").write_bytes("student,ID\nJosé,1\n".encode("latin-1"))
    with pytest.raises(ValueError, match="not UTF-8 text"):
        read_roster(tmp_path / "latin1.csv", Lms.CANVAS)


def test_a_canvas_export_with_a_student_column_added_is_a_roster(tmp_path):
    export = (
        "Student,ID,SIS User ID,SIS Login ID,Section,Exercise 1 (55),student\n"
        "    Points Possible,,,,,12,\n"
        '"Lee, Kim",7,S7,kim,A,,kim\n'
    )
    roster = read_roster(_roster(tmp_path, export), Lms.CANVAS)
    assert [(e.student, e.fields["Student"], e.fields["ID"]) for e in roster.entries] == [("kim", "Lee, Kim", "7")]


def test_moodle_rows_all_carry_the_one_identity_column_and_the_rest_are_named(tmp_path):
    roster = read_roster(
        _roster(tmp_path, "student,Email address,ID number\nkim,kim@x.edu,1\nlou,lou@x.edu,\nmo,,3\n"),
        Lms.MOODLE,
    )
    mapping = map_roster(roster, Lms.MOODLE, ["kim", "mo", "nia"])
    assert mapping.identity == ("Email address",)  # the column most rows have
    assert [e.student for e in mapping.no_identity] == ["mo"]  # left out, named
    assert [(e.student, s) for e, s in mapping.rows] == [("kim", "kim"), ("lou", None)]
    assert mapping.not_rostered == ["nia"]


def test_roster_names_match_ignoring_case_only_when_that_is_unambiguous(tmp_path):
    roster = read_roster(_roster(tmp_path, "student,ID\nKim,1\n"), Lms.CANVAS)
    assert map_roster(roster, Lms.CANVAS, ["kim"]).rows[0][1] == "kim"
    assert map_roster(roster, Lms.CANVAS, ["kim", "KIM"]).rows[0][1] is None


def test_formula_cells_from_a_roster_or_a_folder_name_are_inert_in_the_lms_file(tmp_path):
    exercises = {EX1: load_exercises()[EX1]}
    roster = read_roster(
        _roster(tmp_path, 'student,Student,ID,Section\n=cmd,"=HYPERLINK(""http://x"")",7,@SUM(A1)\n'),
        Lms.CANVAS,
    )
    mapping = map_roster(roster, Lms.CANVAS, ["=cmd"])
    result = ExerciseResult("=cmd", EX1, "graded", 12.0, 12.0)
    rows = list(csv.reader(io.StringIO(lms_csv(mapping, Lms.CANVAS, {"=cmd": [result]}, exercises))))
    student = rows[2]
    assert student[0] == "'=HYPERLINK(\"http://x\")" and student[4] == "'@SUM(A1)"
    assert student[1] == "7" and student[-1] == "12"


# --- the summary ----------------------------------------------------------------------------------


def test_case_statuses_say_wrong_blank_or_not_judged():
    assert [answer_kind(s) for s in ("passed", "failed", "error", "not attempted", "missing")] == [
        AnswerKind.PASSED, AnswerKind.WRONG, AnswerKind.WRONG, AnswerKind.BLANK, AnswerKind.BLANK
    ]
    assert {answer_kind(s) for s in ("timed out", "tampered", "no result", "not run")} == {AnswerKind.NOT_JUDGED}


def _graded(student: str, statuses: dict[str, str], status: str = "graded") -> ExerciseResult:
    exercise = load_exercises()[EX1]
    cases = [CaseResult(c.id, c.label, statuses.get(c.id, "passed"), 0.0, c.points, hint=c.hint) for c in exercise.cases]
    return ExerciseResult(student, EX1, status, 0.0, exercise.max_points, cases)


def test_only_students_who_handed_in_count_and_names_in_the_summary_are_inert(tmp_path):
    exercises = {EX1: load_exercises()[EX1]}
    results = [
        _graded("=HYPERLINK(1)", {"1a.search_web": "failed"}),
        _graded("ok", {}),
        _graded("absent", {c.id: "not run" for c in exercises[EX1].cases}, status="missing"),
    ]
    summaries = summarise(results, exercises)
    web = next(s for s in summaries if s.case == "1a.search_web")
    assert (web.handed_in, web.wrong, web.share_wrong) == (2, ("=HYPERLINK(1)",), 0.5)
    assert [r[0].case for r in reteach(summaries)] == ["1a.search_web"]
    write_summary(tmp_path / "s.csv", summaries)
    with (tmp_path / "s.csv").open(encoding="utf-8", newline="") as handle:
        rows = {r["case"]: r for r in csv.DictReader(handle)}
    assert rows["1a.search_web"]["missed by"] == "'=HYPERLINK(1) (wrong)"


# --- bad input: a message and an exit status, never a traceback --------------------------------


@pytest.fixture
def one_submission(tmp_path: Path) -> Path:
    subs = tmp_path / "subs"
    shutil.copy(ROOT / "exercises" / f"{EX1}.ipynb", (subs / "kim").mkdir(parents=True) or subs / "kim")
    return subs


@pytest.mark.parametrize(
    "options, status, message",
    [
        (["--lms", "canvas", "c.csv"], 2, "--lms needs --roster"),
        (["--lms", "blackboard", "c.csv", "--roster", "r.csv"], 2, "give canvas or moodle"),
        (["--deadline", "tomorrow"], 2, "not an ISO 8601 time"),
        (["--roster", "r.csv"], 2, "--roster is read for --lms"),
        (["--summary", "gradebook.csv"], 2, "is also --out"),
        (["--summary-plot", "plot.jpg2"], 2, "name it .png, .svg or .pdf"),
        (["--lms", "moodle", "m.csv", "--roster", "missing.csv"], 2, "cannot be read"),
    ],
)
def test_bad_after_grading_options_get_a_message_and_exit_2(one_submission, tmp_path, capsys, monkeypatch, options, status, message):
    monkeypatch.chdir(tmp_path)
    assert main(["grade", str(one_submission), "--out", "gradebook.csv", *options]) == status
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_an_unwritable_output_is_refused_before_grading_with_exit_3(one_submission, tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    argv = ["grade", str(one_submission), "--out", str(tmp_path / "g.csv"), "--written", str(blocker / "w.md")]
    assert main(argv) == 3
    err = capsys.readouterr().err
    assert "is not a folder you can write in" in err and "graded" not in err


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root to drop to a normal user")
def test_an_output_folder_a_normal_user_cannot_write_is_refused_with_exit_3():
    import tempfile

    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:  # pytest's folders are root's alone
        base = Path(tmp)
        base.chmod(0o755)
        subs, locked = base / "subs", base / "locked"
        (subs / "kim").mkdir(parents=True)
        shutil.copy(ROOT / "exercises" / f"{EX1}.ipynb", subs / "kim")
        locked.mkdir()  # root's, 0755: a normal user may read it, not write in it
        for path in [subs, subs / "kim", locked, *subs.rglob("*.ipynb")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        out = base / "out"
        out.mkdir(mode=0o777)
        out.chmod(0o777)
        python, extra_env = normal_users_python()
        argv = [python, "-m", "course_tools", "grade", str(subs), "--out", str(out / "g.csv"), "--summary", str(locked / "s.csv")]
        env = {**os.environ, "HOME": str(out), **dict(extra_env)}
        run = subprocess.run(as_normal_user(argv), capture_output=True, text=True, cwd=out, timeout=120, env=env)
    assert run.returncode == 3, run.stderr
    assert "is not a folder you can write in" in run.stderr and "Traceback" not in run.stderr


def test_the_after_grading_options_are_refused_with_the_self_test(capsys):
    assert main(["grade", "--self-test", "--summary", "s.csv"]) == 2
    assert "--self-test grades the course itself" in capsys.readouterr().err


def test_a_sample_class_is_not_written_over_existing_files(tmp_path, capsys):
    (tmp_path / "keep.txt").write_text("mine", encoding="utf-8")
    assert main(["grade", "--sample-class", str(tmp_path)]) == 2
    assert "not an empty folder" in capsys.readouterr().err
    assert (tmp_path / "keep.txt").read_text(encoding="utf-8") == "mine"
