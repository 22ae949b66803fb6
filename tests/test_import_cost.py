"""What a learner's processes import: every kernel of a class pays for it at once.

Measured (benchmarks/profile_learner.py): pandas costs about 0.4 CPU-s, matplotlib.pyplot
about 0.8, the MCP SDK about 1.0. Lesson 00 needs the SDK and pandas (its tables), never
matplotlib; the stdio server it starts needs the SDK only. These tests keep it so, by looking
at `sys.modules` in a fresh interpreter; no timing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("pandas", "matplotlib", "numpy", "IPython")
REPORT = f"import json, sys; print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"


def loaded(code: str, *args: str) -> list[str]:
    """The HEAVY modules a fresh interpreter has imported after running `code`."""
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\n{REPORT}", *args],
        cwd=ROOT / "notebooks",
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return list(json.loads(done.stdout.splitlines()[-1]))


def test_import_course_lib_loads_no_sdk_no_pandas_no_matplotlib():
    code = "import course_lib, sys\nassert 'mcp' not in sys.modules, 'import course_lib loaded mcp'"
    assert loaded(code) == []


def test_lesson_00s_imports_and_its_server_load_neither_pandas_nor_matplotlib():
    # The set-up cell's import, the connection helpers and the demo server: pandas comes only
    # with the first table (environment_report(), tools_table), matplotlib never.
    code = (
        "from course_lib import environment_report\n"
        "from course_lib import connect, file_ops_server, python_command\n"
        "file_ops_server().name\n"
    )
    assert loaded(code) == []


def test_the_stdio_server_of_lesson_00_loads_neither_pandas_nor_matplotlib(tmp_path):
    # What `python -m course_lib serve file-ops` imports, up to serving (stdin is empty: it
    # stops at once).
    code = (
        "import runpy, sys\n"
        "sys.argv = ['course_lib', 'serve', 'file-ops', '--root', sys.argv[1]]\n"
        "try:\n"
        "    runpy.run_module('course_lib', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\n{REPORT}", str(tmp_path)],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert "serving over stdio" in done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == []


def test_lesson_00s_tables_bring_pandas_and_only_pandas():
    code = (
        "from course_lib import environment_report\n"
        "environment_report()\n"
        "from course_lib import connect, file_ops_server, python_command, tools_table\n"
        "file_ops_server()\n"
    )
    assert loaded(code) == ["pandas", "numpy"]
