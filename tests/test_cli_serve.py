"""`python -m course_lib`: the public surface and the `serve` command."""

from __future__ import annotations

import subprocess
import sys

import course_lib
from course_lib.__main__ import COMMANDS, build_parser


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "course_lib", *args], capture_output=True, text=True, timeout=timeout)


def test_every_public_name_is_importable():
    missing = [name for name in course_lib.__all__ if not hasattr(course_lib, name)]
    assert missing == []


def test_help_lists_every_command():
    done = run("--help")
    assert done.returncode == 0
    for name in COMMANDS:
        assert name in done.stdout


def test_serve_rejects_an_unknown_server_name_with_the_known_ones():
    done = run("serve", "no-such-server")
    assert done.returncode == 2
    assert "invalid choice" in done.stderr and "file-ops" in done.stderr


def test_serve_refuses_a_root_that_is_a_file(tmp_path):
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    done = run("serve", "file-ops", "--root", str(blocker))
    assert done.returncode == 2
    assert "is not a folder" in done.stderr
    assert "Traceback" not in done.stderr


def test_serve_creates_a_missing_root_and_stops_cleanly_at_end_of_input(tmp_path):
    root = tmp_path / "new-sandbox"
    done = subprocess.run(
        [sys.executable, "-m", "course_lib", "serve", "file-ops", "--root", str(root)],
        input="", capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert root.is_dir()
    assert done.stdout == "", "stdout carries only the protocol"


def test_parser_knows_the_serve_command():
    args = build_parser().parse_args(["serve", "file-ops", "--root", "x"])
    assert (args.command, args.name, args.root) == ("serve", "file-ops", "x")


def test_public_names_are_never_shadowed_by_submodules():
    # Fresh interpreter: import a module that itself imports `course_lib.connection` first,
    # then every public name must still be the function or class, not a module.
    script = (
        "import types, importlib, pkgutil, course_lib\n"
        "for info in pkgutil.walk_packages(course_lib.__path__, 'course_lib.'):\n"
        "    if '.grading.hidden' not in info.name and not info.name.endswith('__main__'):\n"
        "        importlib.import_module(info.name)\n"
        "bad = [n for n in course_lib.__all__ if isinstance(getattr(course_lib, n), types.ModuleType)]\n"
        "print(bad)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
