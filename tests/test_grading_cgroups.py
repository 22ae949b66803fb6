"""Where a kernel's cgroup comes from on each kind of machine, and what it is told.

The live bound is tested on this machine's cgroups by tests/test_grading_sandbox.py; here the
machines it is not (cgroup v2 only, delegated or through systemd; no cgroup at all) are played
with a file tree standing in for /sys/fs/cgroup, whose control files appear on mkdir as the
kernel's do.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from course_tools.grading import cgroups, leftovers
from course_tools.grading.cgroups import SYSTEMD, V1, V2, CgroupRoot

_CONTROL = {
    V2: ["cgroup.procs", "cgroup.kill", "memory.max", "memory.swap.max", "memory.events", "pids.max"],
    V1: ["cgroup.procs", "memory.limit_in_bytes", "memory.memsw.limit_in_bytes", "pids.max"],
}


@pytest.fixture
def fake_cgroupfs(monkeypatch):
    """mkdir below a fake cgroup folder makes the control files, like the kernel does."""
    real_mkdir = Path.mkdir

    def mkdir(self, *args, **kwargs):
        real_mkdir(self, *args, **kwargs)
        kind = (self.parent / ".kind").read_text() if (self.parent / ".kind").exists() else ""
        for name in _CONTROL.get(kind, []):
            (self / name).write_text("")

    monkeypatch.setattr(Path, "mkdir", mkdir)


def _machine(tmp_path, monkeypatch, mountinfo: str, cgroup: str) -> None:
    (tmp_path / "mountinfo").write_text(mountinfo)
    (tmp_path / "cgroup").write_text(cgroup)
    monkeypatch.setattr(cgroups, "_MOUNTINFO", str(tmp_path / "mountinfo"))
    monkeypatch.setattr(cgroups, "_CGROUP", str(tmp_path / "cgroup"))


def test_a_delegated_cgroup_v2_bounds_memory_swap_and_processes(tmp_path, monkeypatch, fake_cgroupfs):
    mine = tmp_path / "fs" / "user.slice" / "grader"
    mine.mkdir(parents=True)
    (mine / ".kind").write_text(V2)
    (mine / "cgroup.subtree_control").write_text("cpu memory pids\n")
    _machine(
        tmp_path,
        monkeypatch,
        f"30 1 0:26 / {tmp_path / 'fs'} rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n",
        "0::/user.slice/grader\n",
    )
    root, why = cgroups.find()
    assert (root, why) == (CgroupRoot(V2, (mine,)), "")
    group = root.create("course-grade-1.2-abc", 4 * 1024**3, 256)
    folder = mine / "course-grade-1.2-abc"
    assert (folder / "memory.max").read_text() == str(4 * 1024**3)
    assert (folder / "memory.swap.max").read_text() == "0"
    assert (folder / "pids.max").read_text() == "256"
    argv = group.wrap(["bwrap", "--", "python"])
    assert argv[:2] == ["/bin/sh", "-c"]
    assert argv[-5:] == [str(folder / "cgroup.procs"), "--", "bwrap", "--", "python"]
    (folder / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n")
    assert group.out_of_memory()


def test_cgroup_v2_without_delegation_or_systemd_says_why(tmp_path, monkeypatch):
    mine = tmp_path / "fs" / "docker"
    mine.mkdir(parents=True)
    (mine / "cgroup.subtree_control").write_text("")
    _machine(
        tmp_path,
        monkeypatch,
        f"30 1 0:26 / {tmp_path / 'fs'} rw - cgroup2 cgroup2 rw\n",
        "0::/docker\n",
    )
    monkeypatch.setattr(cgroups.shutil, "which", lambda name: None)
    assert cgroups.find() == (None, "cgroup v2 without a delegated cgroup or systemd to make one")


def test_no_cgroup_at_all_says_so(tmp_path, monkeypatch):
    _machine(tmp_path, monkeypatch, "", "")
    assert cgroups.find() == (None, "no cgroup file system is mounted")


def test_systemd_makes_a_scope_per_kernel_with_the_bounds():
    group = CgroupRoot(SYSTEMD, user=True).create("course-grade-1.2-abc", 1024**3, 64)
    assert group.wrap(["bwrap", "x"]) == [
        "systemd-run", "--user", "--scope", "--quiet", "--collect", "--unit", "course-grade-1_2-abc",
        "-p", f"MemoryMax={1024**3}", "-p", "MemorySwapMax=0", "-p", "TasksMax=64",
        "--", "bwrap", "x",
    ]  # fmt: skip


def test_entering_the_group_comes_before_the_command_and_failing_to_enter_stops_it(tmp_path):
    procs = tmp_path / "cgroup.procs"
    procs.write_text("")
    group = cgroups.KernelGroup(V1, (tmp_path,))
    done = subprocess.run(group.wrap(["/bin/sh", "-c", "echo $$"]), capture_output=True, text=True)
    assert done.stdout.strip() == procs.read_text().strip()  # the same process: exec, no fork
    blocked = cgroups.KernelGroup(V1, (tmp_path / "missing",))
    done = subprocess.run(blocked.wrap(["/bin/echo", "ran"]), capture_output=True, text=True)
    assert done.returncode == 125 and "ran" not in done.stdout


def test_a_dead_graders_groups_are_removed_and_a_live_ones_kept(tmp_path):
    live = tmp_path / f"{leftovers.PREFIX}{leftovers.owner_tag()}-abc"
    dead = tmp_path / f"{leftovers.PREFIX}999999999.1-abc"
    other = tmp_path / "someone-else"
    for folder in (live, dead, other):
        folder.mkdir()
    CgroupRoot(V1, (tmp_path,)).clean_stale()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, other.name])


@pytest.mark.parametrize("grouped", [True, False])
@pytest.mark.parametrize("uid", [0, 1000])
def test_the_grader_says_what_bounds_each_kernel_and_warns_as_root_without_a_cgroup(
    monkeypatch, capsys, uid, grouped
):
    from course_tools.grading import announce
    from course_tools.grading.cgroups import V1, CgroupRoot
    from course_tools.grading.sandbox import Isolation

    monkeypatch.setattr(announce.os, "geteuid", lambda: uid)
    group = CgroupRoot(V1, (Path("/sys/fs/cgroup/memory"),)) if grouped else None
    announce.announce(Isolation("bwrap", "/usr/bin/bwrap", group=group, ungrouped="no cgroup here"))
    said = capsys.readouterr().err
    assert ("grading as root without a cgroup" in said) == (uid == 0 and not grouped)
    assert "isolation: each kernel runs under bubblewrap" in said
    if grouped:
        assert "all its processes together: 4 GiB of memory and 256 processes (cgroup v1)" in said
    else:
        assert "only each process is limited: 4 GiB of address space, 256 MiB per file" in said
        assert ("256 processes" in said) == (uid != 0)  # root is exempt from the process limit
