"""A grader killed with SIGKILL leaves its kernels' folders; the next one removes them, and only them.

The whole path (kill a grader mid-grade, start another) is in
tests/test_grading_class_isolation.py::test_every_process_of_a_submission_ends_when_the_grader_is_killed_and_the_next_cleans_up.
"""

from __future__ import annotations

import os
import time

from course_tools.grading import leftovers


def _folder(base, name, owner=None):
    path = base / name
    path.mkdir()
    if owner is not None:
        (path / "owner").write_text(owner)
    (path / "kernel.json").write_text("{}")
    return path


def test_only_folders_of_dead_graders_are_removed(tmp_path):
    dead = _folder(tmp_path, "course-grade-deadbeef", "999999999.1")
    live = _folder(tmp_path, "course-grade-livelive", leftovers.owner_tag())
    reused = _folder(tmp_path, "course-grade-reusedpi", f"{os.getpid()}.1")  # same pid, other start
    young = _folder(tmp_path, "course-grade-noowner1")  # an older grader's, or being made now
    old = _folder(tmp_path, "course-grade-noowner2")
    os.utime(old, (time.time() - 2 * 86400,) * 2)
    other = _folder(tmp_path, "course-grade-x", "999999999.1")  # not a name the grader makes
    removed = leftovers.clean_stale_folders(str(tmp_path))
    assert sorted(removed) == sorted(str(p) for p in (dead, reused, old))
    assert live.exists() and young.exists() and other.exists()


def test_a_link_or_another_users_folder_is_never_followed_or_removed(tmp_path):
    target = _folder(tmp_path, "precious", "999999999.1")
    (tmp_path / "course-grade-linklink").symlink_to(target)
    theirs = _folder(tmp_path, "course-grade-theirs11", "999999999.1")
    if os.geteuid() == 0:
        os.chown(theirs, 65534, 65534)
    os.mkfifo(_folder(tmp_path, "course-grade-fifoowne") / "owner")  # not waited on, and kept
    removed = leftovers.clean_stale_folders(str(tmp_path))
    assert removed == ([] if os.geteuid() == 0 else [str(theirs)])
    assert (target / "kernel.json").exists()


def test_a_new_folder_names_its_grader(tmp_path, monkeypatch):
    monkeypatch.setattr(leftovers.tempfile, "tempdir", str(tmp_path))
    folder = leftovers.new_private_folder()
    with open(os.path.join(folder, "owner")) as handle:
        assert handle.read() == leftovers.owner_tag()
    assert leftovers.owner_alive(leftovers.owner_tag()) and not leftovers.owner_alive("not-a-tag")
    assert leftovers.clean_stale_folders(str(tmp_path)) == [] and os.path.isdir(folder)
