"""A class of attackers, graded once in a subprocess, changes no other row, no file outside
its sandbox and no later run.

Each attacker tries to change something beyond its own result (the gradebook after the grader
exits, other students' files and kernels, later runs, the grader process) or to read what it
must not (solutions/, the hidden cases, the instructor's folders, the network, the grader's
command line). A "snoop" defines the right answers only if one of its leaks works, so a leak
shows up as points. Honest students next to them must keep full marks, and the grader must
leave nothing behind in TMPDIR or HOME. Without bubblewrap these tests are skipped (the
isolation is what they test); file, name and terminal attacks are checked in either mode.
"""

from __future__ import annotations

import copy
import csv
import hashlib
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from course_tools.grading import load_exercises
from course_tools.grading.sandbox import choose_isolation

ROOT = Path(__file__).resolve().parents[1]
EX1, EX3 = "01_annotate_tools", "03_break_the_trifecta"
EVIL = "evil\x1b[2J\x1b]0;pwned\x07\u009b31m"  # clears the screen and retitles the window if printed raw


def _nb(folder: str, name: str) -> nbformat.NotebookNode:
    return nbformat.read(ROOT / folder / f"{name}.ipynb", as_version=4)


def _plus(nb: nbformat.NotebookNode, *sources: str) -> nbformat.NotebookNode:
    nb = copy.deepcopy(nb)
    nb.cells += [nbformat.v4.new_code_cell(s) for s in sources]
    return nb


def _write(path: Path, nb: nbformat.NotebookNode) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


def _tree(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): (
            hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() and not p.is_symlink() else ""
        )
        for p in sorted(folder.rglob("*"))
        if not p.is_fifo()
    }


def _course_files() -> dict[str, str]:
    return {f"{d}/{k}": v for d in ("course_lib", "solutions", "exercises") for k, v in _tree(ROOT / d).items()}


# Reads the course's own solution (the kernel can find the checkout through course_lib.__file__)
# and runs its code cells: full marks for a student who wrote nothing, if solutions/ is readable.
_STEAL = (
    "def _steal():\n"
    "    import json, os, course_lib\n"
    "    root = os.path.dirname(os.path.dirname(course_lib.__file__))\n"
    "    with open(os.path.join(root, 'solutions', '01_annotate_tools.ipynb'), encoding='utf-8') as f:\n"
    "        cells = json.load(f)['cells']\n"
    "    return '\\n'.join(''.join(c['source']) for c in cells if c['cell_type'] == 'code')\n"
)


def _snoop(cases: Path, subs: Path, out: Path, port: int, secret: Path) -> str:
    return _STEAL + (
        "import glob, os, resource, socket\n"
        "LEAKS = []\n"
        "def _try(name, attempt):\n"
        "    try:\n"
        "        if attempt():\n"
        "            LEAKS.append(name)\n"
        "    except Exception:\n"
        "        pass\n"
        "_try('solutions', _steal)\n"
        "_try('hidden cases', lambda: __import__('course_tools.grading.hidden') or True)\n"
        "_try('grading package', lambda: __import__('course_tools.grading') or True)\n"
        # part 2d's hidden cases (a lying server, an older Claude Code), wherever they are written
        "_try('2d hidden cases', lambda: __import__('course_lib.rules_exercise').rules_exercise.RULE_CASES)\n"
        "_try('2d hidden cases in a visible module', lambda: any(\n"
        "    'older_version' in open(p, encoding='utf-8').read() for p in glob.glob(\n"
        "    os.path.dirname(__import__('course_lib').__file__) + '/**/*.py', recursive=True)))\n"
        f"_try('private cases', lambda: os.listdir({str(cases)!r}))\n"
        f"_try('submissions', lambda: os.listdir({str(subs)!r}))\n"
        f"_try('outputs', lambda: os.path.isdir({str(out)!r}))\n"
        f"_try('instructor home', lambda: open({str(secret)!r}).read())\n"
        f"_try('network', lambda: socket.create_connection(('127.0.0.1', {port}), timeout=2))\n"
        "_try('grader command line', lambda: any('--out' in open(f'/proc/{p}/cmdline').read()\n"
        "     for p in os.listdir('/proc') if p.isdigit()))\n"
        "_try('environment', lambda: 'COURSE_TEST_SECRET' in os.environ)\n"
        "_try('no memory limit', lambda: resource.getrlimit(resource.RLIMIT_AS)[0] == resource.RLIM_INFINITY)\n"
        "_try('no process limit', lambda: resource.getrlimit(resource.RLIMIT_NPROC)[0] == resource.RLIM_INFINITY)\n"
        "_try('no file size limit', lambda: resource.getrlimit(resource.RLIMIT_FSIZE)[0] == resource.RLIM_INFINITY)\n"
        "_try('editable install', lambda: os.access(os.path.dirname(__import__('course_lib').__file__), os.W_OK))\n"
        "if LEAKS:\n"  # the right answers, carried in (solutions/ itself is hidden from the kernel)
        f"    exec({_solution_code(EX1)!r}, globals())\n"
    )


def _solution_code(name: str) -> str:
    cells = _nb("solutions", name).cells
    return "\n".join(c.source for c in cells if c.cell_type == "code")


# An input transformer that rewrites every probe cell to run the course's solution first.
_FORGE = _STEAL + (
    "def _forge(lines):\n"
    "    if any('__course_probe' in line for line in lines):\n"
    "        try:\n"
    "            return [f'exec({_steal()!r}, globals())\\n', *lines]\n"
    "        except Exception:\n"
    "            return lines\n"
    "    return lines\n"
    "get_ipython().input_transformers_post.append(_forge)\n"
)


# After the kernel is stopped, a detached child keeps working for 30 s: it rewrites the gradebook,
# overwrites every submission and plants a course_lib.py in every other kernel's folder.
def _detach(subs: Path, out: Path) -> str:
    child = (
        "import glob, os, tempfile, time\n"
        "end = time.time() + 30\n"
        "while time.time() < end:\n"
        "    for d in glob.glob(os.path.join(tempfile.gettempdir(), 'course-grade-*')):\n"
        "        for where in (d, os.path.join(d, 'work')):\n"
        "            try:\n"
        "                open(os.path.join(where, 'course_lib.py'), 'w').write('raise SystemExit(1)')\n"
        "            except OSError:\n"
        "                pass\n"
        f"    for nb in glob.glob({str(subs)!r} + '/**/*.ipynb', recursive=True):\n"
        "        try:\n"
        "            open(nb, 'w').write('{}')\n"
        "        except OSError:\n"
        "            pass\n"
        "    try:\n"
        f"        open({str(out / 'gradebook.csv')!r}, 'w').write('student,total\\ndetached,45\\n')\n"
        "    except OSError:\n"
        "        pass\n"
        "    time.sleep(0.2)\n"
    )
    return f"import subprocess, sys\nsubprocess.Popen([sys.executable, '-c', {child!r}], start_new_session=True)\n"


_STARTUP = (
    "import os\n"
    "from IPython.paths import get_ipython_dir\n"
    "d = os.path.join(get_ipython_dir(), 'profile_default', 'startup')\n"
    "os.makedirs(d, exist_ok=True)\n"
    "open(os.path.join(d, '00-sabotage.py'), 'w').write('import os\\nos._exit(1)\\n')\n"
)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    try:
        choose_isolation("bwrap")
    except ValueError as exc:
        pytest.skip(f"bubblewrap cannot run here, and isolation is what this class tests: {exc}")
    base = tmp_path_factory.mktemp("hostile")
    subs, out, cases, home, tmp = (base / n for n in ("submissions", "out", "cases", "home", "tmp"))
    for folder in (out, cases, home, tmp):
        folder.mkdir()
    (cases / "README.txt").write_text("private cases live here\n")
    secret = home / "secret.txt"
    secret.write_text("the instructor's token\n")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    port = listener.getsockname()[1]

    solution1, blank1 = _nb("solutions", EX1), _nb("exercises", EX1)
    _write(
        subs / "alice" / f"{EX1}.ipynb", _plus(solution1, "exit()")
    )  # a correct notebook ending in exit()
    _write(
        subs / "alice" / f"{EX3}.ipynb", _nb("solutions", EX3)
    )  # starts servers: leaves no temp folder
    _write(subs / "snoop" / f"{EX1}.ipynb", _plus(blank1, _snoop(cases, subs, out, port, secret)))
    _write(subs / "forger" / f"{EX1}.ipynb", _plus(blank1, _FORGE))
    _write(
        subs / "detacher" / f"{EX1}.ipynb",
        _plus(blank1, _detach(subs, out), "import time\ntime.sleep(1)"),
    )
    _write(subs / "aaron_startup" / f"{EX1}.ipynb", _plus(blank1, _STARTUP))
    _write(
        subs / "killer" / f"{EX1}.ipynb",
        _plus(blank1, "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)"),
    )
    stderr_ansi = (
        "import os\nos.write(2, b'\\x1b[2J\\x1b]0;owned\\x07\\xc2\\x9b31m kernel stderr')\n"
    )
    _write(subs / EVIL / f"{EX1}.ipynb", _plus(solution1, stderr_ansi))
    _write(subs / "zz_victim" / f"{EX1}.ipynb", solution1)
    # files that are not notebooks, and names that must not collide
    os.mkfifo(subs / f"fifo_{EX1}.ipynb")
    (subs / "zero").mkdir()
    (subs / "zero" / f"{EX1}.ipynb").symlink_to("/dev/zero")
    (subs / "linker").mkdir()
    outside = (
        base / "outside" / f"{EX1}.ipynb"
    )  # a copy: an unsandboxed attacker writing through the link harms no checkout
    _write(outside, solution1)
    (subs / "linker" / f"{EX1}.ipynb").symlink_to(outside)
    for name in ("José", "Jos", "李雷", "韩梅梅", ".carl"):
        (subs / name).mkdir()
        (subs / name / f"{EX1}.ipynb").write_text("{ not json", encoding="utf-8")
    (subs / ".git").mkdir()

    submitted = _tree(subs)
    checkout = _course_files()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "COV"))}
    env.update(TMPDIR=str(tmp), HOME=str(home), COURSE_TEST_SECRET="s3cret")
    env.pop("IPYTHONDIR", None)
    home_before = _tree(home)
    argv = [
        sys.executable,
        "-m",
        "course_tools",
        "grade",
        str(subs),
        "--out",
        str(out / "gradebook.csv"),
        "--cases",
        str(cases),
        "--jobs",
        "2",
        "--cell-timeout",
        "10",
        "--probe-timeout",
        "3",
        "--notebook-timeout",
        "60",
        "--isolation",
        "bwrap",
    ]
    started = time.monotonic()
    try:
        done = subprocess.run(  # from HOME: `python -m` puts the working folder on sys.path
            argv, capture_output=True, env=env, timeout=600, stdin=subprocess.DEVNULL, cwd=home
        )
    finally:
        listener.close()
    seconds = time.monotonic() - started
    gradebook = (out / "gradebook.csv").read_bytes() if (out / "gradebook.csv").exists() else b""
    time.sleep(3)  # a detached child would strike now
    rows = {}
    if gradebook:
        rows = {r["student"]: r for r in csv.DictReader(gradebook.decode("utf-8").splitlines())}
    return {
        "done": done,
        "seconds": seconds,
        "rows": rows,
        "gradebook": gradebook,
        "out": out,
        "subs": subs,
        "submitted": submitted,
        "tmp": tmp,
        "home": home,
        "home_before": home_before,
        "checkout": checkout,
    }


def test_the_grader_survives_the_class_and_writes_a_gradebook(hostile):
    done = hostile["done"]
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")[-3000:]
    assert "bubblewrap" in done.stderr.decode("utf-8", "replace")


def test_honest_students_keep_full_marks_next_to_attackers(hostile):
    rows = hostile["rows"]
    assert rows["zz_victim"][EX1] == "12"
    assert rows["alice"][EX1] == "12", rows["alice"][
        "notes"
    ]  # exit() at the end keeps what was earned
    assert "ends the kernel" in rows["alice"]["notes"]
    assert float(rows["alice"][EX3]) == load_exercises()[EX3].max_points, rows["alice"]["notes"]


def test_nothing_outside_the_sandbox_can_be_read_or_reached(hostile):
    assert hostile["rows"]["snoop"][EX1] == "0", "a leak worked: the snoop ran the stolen solution"


def test_a_forged_probe_returns_only_what_the_students_code_computes(hostile):
    assert hostile["rows"]["forger"][EX1] == "0"


def test_a_submission_cannot_change_later_runs_other_files_or_the_gradebook(hostile):
    assert hostile["rows"]["zz_victim"][EX1] == "12"  # no startup file, no planted course_lib.py
    assert (hostile["out"] / "gradebook.csv").read_bytes() == hostile["gradebook"], (
        "rewritten after the grader exited"
    )
    assert _tree(hostile["subs"]) == hostile["submitted"], "a submission was changed"
    assert hostile["rows"]["detacher"][EX1] == "0"


def test_killing_the_kernels_parent_costs_only_the_attacker(hostile):
    assert hostile["rows"]["killer"][EX1] == "0"
    assert "zz_victim" in hostile["rows"]


def test_files_that_are_not_notebooks_are_refused_without_hanging(hostile):
    rows = hostile["rows"]
    for student, words in (
        ("fifo", "not a regular file"),
        ("zero", "outside"),
        ("linker", "outside"),
    ):
        assert rows[student]["status"] == "invalid notebook", rows[student]
        assert words in rows[student]["notes"]
        assert rows[student][EX1] == "0"
    # without hanging: the grader's own run has a hard timeout (600 s, the `hostile` fixture)


def test_every_folder_gets_a_row_and_feedback_names_never_collide(hostile):
    rows, feedback = hostile["rows"], hostile["out"] / "feedback"
    for name in ("José", "Jos", "李雷", "韩梅梅", ".carl"):
        assert name in rows, sorted(rows)
        text = (
            (feedback / f"{name.lstrip('.')}.md").read_text(encoding="utf-8")
            if not name.startswith(".")
            else None
        )
        if text is not None:
            assert text.startswith(f"# Feedback for {name}\n")
    assert len(list(feedback.glob("*.md"))) == len(rows)


def test_no_control_character_from_a_submission_reaches_the_terminal_or_the_files(hostile):
    stderr = hostile["done"].stderr.decode("utf-8", "replace")
    assert "\x1b" not in stderr and "\x9b" not in stderr and "\x07" not in stderr
    assert "evil\\x1b[2J" in stderr  # the name is shown, escaped
    results = (hostile["out"] / "gradebook.jsonl").read_text(encoding="utf-8")
    assert "\x1b" not in results and "\x9b" not in results
    assert EVIL in [
        json.loads(line)["student"] for line in results.splitlines()
    ]  # escaped, not changed
    assert "\x1b" not in hostile["gradebook"].decode("utf-8")
    evil_row = next(r for name, r in hostile["rows"].items() if name.startswith("evil"))
    assert evil_row[EX1] == "12"


def test_grading_leaves_nothing_in_tmpdir_or_home_and_no_course_file_changed(hostile):
    assert list(hostile["tmp"].iterdir()) == []
    assert _tree(hostile["home"]) == hostile["home_before"]
    after = _course_files()
    changed = {k for k in after.keys() | hostile["checkout"].keys() if "__pycache__" not in k}
    assert {k for k in changed if after.get(k) != hostile["checkout"].get(k)} == set()


def _processes_mentioning(text: str) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                if text.encode() in handle.read():
                    found.append(int(pid))
        except OSError:
            continue
    return found


def _kernel_groups() -> list[str]:
    """The names of kernels' cgroups below this process's own (none where there is no cgroup)."""
    from course_tools.grading.cgroups import find

    root, _ = find()
    return [p.name for parent in (root.parents if root else ()) for p in parent.glob("course-grade-*")]


def test_every_process_of_a_submission_ends_when_the_grader_is_killed_and_the_next_cleans_up(tmp_path):
    try:
        choose_isolation("bwrap")
    except ValueError as exc:
        pytest.skip(f"bubblewrap cannot run here: {exc}")
    marker = f"course-test-linger-{os.getpid()}"
    child = f"import time\nwhile True: time.sleep(1)  # {marker}"
    loop = (
        "import subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, '-c', {child!r}], start_new_session=True)\n"
        "time.sleep(60)\n"
    )
    _write(tmp_path / "subs" / "lingerer" / f"{EX1}.ipynb", _plus(_nb("exercises", EX1), loop))
    argv = [
        sys.executable, "-m", "course_tools", "grade", str(tmp_path / "subs"),
        "--out", str(tmp_path / "out" / "gradebook.csv"), "--isolation", "bwrap", "--quiet",
    ]  # fmt: skip
    log = (tmp_path / "grader.log").open("wb")
    (tmp_path / "tmp").mkdir()  # a killed grader cannot clean up: keep its folders in the test's own
    (tmp_path / "empty").mkdir()
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp")}
    grader = subprocess.Popen(argv, stdout=log, stderr=log, stdin=subprocess.DEVNULL, env=env)
    try:
        deadline = time.monotonic() + 120
        while not _processes_mentioning(marker) and time.monotonic() < deadline and grader.poll() is None:
            time.sleep(0.5)
        said = (tmp_path / "grader.log").read_text(errors="replace")
        assert _processes_mentioning(marker), f"the submission's detached child never started: {said}"
    finally:
        grader.kill()
        grader.wait()
        log.close()
    deadline = time.monotonic() + 10
    while _processes_mentioning(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = _processes_mentioning(marker)
    for pid in left:  # never leave them running, even when the test fails
        os.kill(pid, 9)
    assert not left, "a detached process outlived the grader"
    stale = sorted(p.name for p in (tmp_path / "tmp").iterdir())
    assert stale, "the killed grader's kernel folder should still be there"
    tags = {(tmp_path / "tmp" / name / "owner").read_text() for name in stale}
    # The next grader to start removes what a killed one left (its folders and cgroups).
    again = subprocess.run(
        [*argv[:4], str(tmp_path / "empty"), *argv[5:]],
        capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, timeout=300,
    )  # fmt: skip
    assert sorted(p.name for p in (tmp_path / "tmp").iterdir()) == [], again.stderr[-2000:]
    assert not [g for g in _kernel_groups() if g.split("-")[2] in tags], "a cgroup was left"
