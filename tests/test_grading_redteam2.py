"""Attacks from the second red-team report, each against the part that must stop it.

A kernel under bubblewrap tries to plant files the grader later opens (a symlink or a FIFO in
place of its stderr log), to write to the host's disk (its connection file's folder, the
sandbox's root, a bound folder's parent) and to get its own text into the student's feedback.
The gradebook CSV must not start a cell with a spreadsheet formula. Kernel tests skip only when
bubblewrap cannot run here.
"""

from __future__ import annotations

import asyncio
import csv
import os
from pathlib import Path

import nbformat
import pytest

from course_tools.grading import load_exercises
from course_tools.grading.kernel import Kernel, run_cell
from course_tools.grading.report import feedback_text, student_row, write_gradebook
from course_tools.grading.results import ExerciseResult, Limits
from course_tools.grading.sandbox import choose_isolation

SECRET = "host-secret-never-in-a-gradebook"


@pytest.fixture(scope="module")
def bwrap():
    try:
        return choose_isolation("bwrap")
    except ValueError as exc:
        pytest.skip(f"bubblewrap cannot run here, and isolation is what this tests: {exc}")


def _run(isolation, sources: list[str], timeout: float = 20) -> tuple[list[str], Kernel, list]:
    """Run `sources` as cells in one grading kernel; return each cell's outcome and the kernel."""

    async def go():
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
        kernel = Kernel(isolation)
        client = await kernel.start(nb, set(range(len(sources))), Limits())
        outcomes = [await run_cell(client, nb, i, timeout) for i in range(len(sources))]
        texts = ["".join(o.get("text", "") for o in c.outputs) for c in nb.cells]
        tail = await asyncio.wait_for(asyncio.to_thread(kernel.stderr_tail), 5)
        kernel.on_host = sorted(
            os.path.join(where, name)
            for where, folders, files in os.walk(kernel.private)
            for name in folders + files
        )
        await kernel.close()
        return outcomes, kernel, texts, tail

    outcomes, kernel, texts, tail = asyncio.run(asyncio.wait_for(go(), 120))
    return outcomes, kernel, [texts, tail]


_FIND = (
    "import os, sys\n"
    "conn = [a for a in sys.argv if a.endswith('.json')][0]\n"
    "folders = {os.path.dirname(conn)}\n"
    "for name in os.listdir('/proc/self/fd'):\n"
    "    try:\n"
    "        folders.add(os.path.dirname(os.readlink('/proc/self/fd/' + name)))\n"
    "    except OSError:\n"
    "        pass\n"
    "import glob\n"
    "folders |= {os.path.dirname(p) for p in glob.glob('/tmp/course-grade-*/*')}\n"
    "folders |= set(glob.glob('/tmp/course-grade-*'))\n"
)


def test_a_planted_symlink_or_fifo_never_reaches_the_grader(bwrap, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET + "\n")
    plant = _FIND + (
        "planted = []\n"
        "for folder in sorted(folders):\n"
        "    for name in ('stderr.log', 'kernel.json', 'planted'):\n"
        "        p = os.path.join(folder, name)\n"
        "        try:\n"
        "            if os.path.lexists(p): os.unlink(p)\n"
        f"            os.symlink({str(secret)!r}, p); planted.append(p)\n"
        "        except OSError:\n"
        "            pass\n"
        "    try:\n"
        "        os.mkfifo(os.path.join(folder, 'pipe')); planted.append(folder + '/pipe')\n"
        "        os.unlink(os.path.join(folder, 'stderr.log'))\n"
        "        os.symlink(os.path.join(folder, 'pipe'), os.path.join(folder, 'stderr.log'))\n"
        "    except OSError:\n"
        "        pass\n"
        "print(planted)\n"
        "os.write(2, b'the kernel says goodbye\\n')\n"
    )
    outcomes, _, (texts, tail) = _run(bwrap, [plant, "import os; os._exit(3)"])
    assert outcomes[1] == "dead"
    assert SECRET not in tail
    assert "the kernel says goodbye" in tail  # its own stderr is still read, through the fd


def test_the_kernel_cannot_write_to_the_hosts_disk(bwrap):
    write = _FIND + (
        "def fill(path, mb):\n"
        "    try:\n"
        "        with open(path, 'wb') as f:\n"
        "            for _ in range(mb):\n"
        "                f.write(b'x' * 1024 * 1024)\n"
        "        return 'WROTE ' + path\n"
        "    except OSError as e:\n"
        "        return 'refused'\n"
        "paths = ['/planted.bin', '/usr/planted.bin', '/dev/planted.bin', '/dev/shm/planted.bin']\n"
        "paths.append(os.path.dirname(sys.executable) + '/p.bin')\n"
        "paths += [os.path.join(os.path.dirname(f), 'planted.bin') for f in folders]\n"
        "paths += [os.path.join(f, 'planted.bin') for f in folders]\n"
        "print([fill(p, 50) for p in paths] + [fill('/tmp/work/ok.bin', 1)])\n"
    )
    outcomes, kernel, (texts, _tail) = _run(bwrap, [write])
    assert outcomes == ["ok"]
    said = texts[0]
    assert "WROTE /tmp/work/ok.bin" in said  # the private tmpfs still works
    assert "WROTE /dev/planted" not in said and "WROTE /usr/" not in said
    # Everything it wrote went to its private, size-limited tmpfs mounts (/tmp, /dev/shm, the
    # folder of its sockets): nothing reached the host.
    assert [p for p in kernel.on_host if "planted" in p] == []


def test_kernel_text_stays_out_of_the_students_feedback():
    exercises = load_exercises()
    first = next(iter(exercises))
    result = ExerciseResult(
        student="s", exercise=first, status="kernel died", score=0.0, max_score=1.0
    )
    result.notes.append("the kernel died while probing case 2b")
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


@pytest.mark.parametrize("grouped", [True, False])
@pytest.mark.parametrize("uid", [0, 1000])
def test_the_grader_says_what_bounds_each_kernel_and_warns_as_root_without_a_cgroup(
    monkeypatch, capsys, uid, grouped
):
    from course_tools.grading import cli
    from course_tools.grading.cgroups import V1, CgroupRoot
    from course_tools.grading.sandbox import Isolation

    monkeypatch.setattr(cli.os, "geteuid", lambda: uid)
    group = CgroupRoot(V1, (Path("/sys/fs/cgroup/memory"),)) if grouped else None
    cli._announce(Isolation("bwrap", "/usr/bin/bwrap", group=group, ungrouped="no cgroup here"))
    said = capsys.readouterr().err
    assert ("grading as root without a cgroup" in said) == (uid == 0 and not grouped)
    assert "isolation: each kernel runs under bubblewrap" in said
    if grouped:
        assert "all its processes together: 4 GiB of memory and 256 processes (cgroup v1)" in said
    else:
        assert "only each process is limited: 4 GiB of address space, 256 MiB per file" in said
        assert ("256 processes" in said) == (uid != 0)  # root is exempt from the process limit
