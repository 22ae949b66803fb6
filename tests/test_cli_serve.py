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
