"""Leftovers: lessons and demo servers remove every temporary folder they create.

A demo server built without `root` works in a fresh temporary folder (the private-notes one
holds the lesson's "secret" note); it must be gone when the server is, at the latest when
the Python process (a notebook's kernel) exits.
"""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from course_lib.servers import SERVERS, build

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """A TMPDIR of this test's own, so anything left in it was left by the code under test."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    return folder


@pytest.mark.parametrize("name", sorted(SERVERS))
def test_a_server_removes_its_temporary_sandbox_when_it_is_dropped(name, private_tmp):
    server = build(name)
    root = server.sandbox.root
    assert root.is_dir() and root.parent == private_tmp.resolve()
    del server
    gc.collect()
    assert not root.exists()


def test_servers_still_in_use_at_exit_leave_no_folder_behind(private_tmp):
    script = "from course_lib.servers import SERVERS, build\nkept = [build(n) for n in SERVERS]\nprint(len(kept))\n"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert sorted(os.listdir(private_tmp)) == []


def test_a_folder_given_as_root_is_kept(private_tmp, tmp_path):
    server = build("private-notes", root=tmp_path / "mine")
    del server
    gc.collect()
    assert (tmp_path / "mine" / "vpn.txt").is_file()


def test_serve_without_root_removes_its_folder_when_the_client_goes(private_tmp):
    done = subprocess.run(
        [sys.executable, "-m", "course_lib", "serve", "private-notes"],
        input="", capture_output=True, text=True, timeout=60, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert sorted(os.listdir(private_tmp)) == []


def test_serve_stopped_with_sigterm_removes_its_folder(private_tmp):
    process = subprocess.Popen(
        [sys.executable, "-m", "course_lib", "serve", "private-notes"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        assert b"serving over stdio" in process.stderr.readline()  # printed once it is ready
        assert os.listdir(private_tmp), "the server did not create its sandbox"
        process.send_signal(signal.SIGTERM)
        process.wait(10)
    finally:
        process.kill()
        process.wait(10)
        for stream in (process.stdin, process.stdout, process.stderr):
            stream.close()
    assert sorted(os.listdir(private_tmp)) == []


def test_the_lethal_trifecta_lesson_leaves_no_temporary_folder(private_tmp):
    path = ROOT / "notebooks" / "04_lethal_trifecta.ipynb"
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    left = sorted(os.listdir(private_tmp))
    assert left == [], f"the lesson left {len(left)} temporary folder(s): {left[:5]}"
