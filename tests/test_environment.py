"""The set-up check of lesson 00 works even when the packages it checks for are missing."""

from __future__ import annotations

import subprocess
import sys

from course_lib import environment_report

BLOCK_IMPORTS = (
    "import sys\n"
    "class Block:\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name.split('.')[0] in {'mcp', 'pandas', 'anyio'}:\n"
    "            raise ModuleNotFoundError(f'No module named {name!r}')\n"
    "sys.meta_path.insert(0, Block())\n"
    "from importlib import metadata\n"
    "real_version = metadata.version\n"
    "def version(name):\n"
    "    if name in {'mcp', 'pandas'}:\n"
    "        raise metadata.PackageNotFoundError(name)\n"
    "    return real_version(name)\n"
    "metadata.version = version\n"
)


def test_report_is_all_ok_in_the_course_environment():
    report = environment_report()
    assert bool(report["ok"].all())
    assert "what to do" not in report.columns
    assert {"python", "mcp", "pandas", "matplotlib", "nest-asyncio", "jupyterlab", "nbval"} <= set(report.index)


def test_report_names_missing_packages_and_the_fix_without_needing_them():
    script = BLOCK_IMPORTS + "from course_lib.environment import environment_report\nprint(repr(environment_report()))\n"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = {line.split()[0]: line for line in done.stdout.splitlines()[1:]}
    assert "missing" in lines["mcp"] and "False" in lines["mcp"]
    assert 'pip install "mcp>=2.0,<3"' in lines["mcp"]
    assert "missing" in lines["pandas"]
    assert "True" in lines["matplotlib"]
