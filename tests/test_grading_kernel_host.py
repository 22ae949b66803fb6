"""A kernel cannot make the grader open a file it planted, nor write to the host's disk.

A kernel under bubblewrap tries to plant files the grader later opens (a symlink or a FIFO in
place of its stderr log) and to write to the host's disk (its connection file's folder, the
sandbox's root, a bound folder's parent). Skipped only when bubblewrap cannot run here; the
same attacks as an ordinary user, and the capabilities they would need, are in
tests/test_grading_sandbox.py.
"""

from __future__ import annotations

import asyncio
import os

import nbformat
import pytest

from course_tools.grading.kernel import Kernel, run_cell
from course_tools.grading.results import Limits
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
