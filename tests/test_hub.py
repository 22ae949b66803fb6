"""`python -m course_tools hub`: the generated config, collecting from hostile homes, the export.

No JupyterHub, network or Node.js needed: the config is executed with traitlets' Config (what
JupyterHub gives it); the hub itself runs in tests/peers/test_hub_class.py.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

import pytest
from traitlets.config import Config

from course_tools.__main__ import main
from course_tools.hub import config as hub_config
from course_tools.hub.api import HubAPI
from course_tools.hub.collect import Limits, collect
from course_tools.hub.content import exercise_ids, learner_files, seed_home
from course_tools.hub.export import ExportError, export, nbgitpuller_link
from course_tools.hub.prestart import prestart
from course_tools.hub.runtime import SOCKET_PATH_LIMIT, kernel_runtime_dir

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = exercise_ids(ROOT)


def settings(tmp_path: Path, **changes) -> hub_config.HubSettings:
    values = {
        "hub_dir": tmp_path / "hub",
        "course": ROOT,
        "homes": tmp_path / "homes",
        "proxy": "/opt/chp",
        "users": 5,
    }
    return hub_config.HubSettings(**{**values, **changes})


def load(path: Path, euid: int = 1000) -> Config:
    """Execute a jupyterhub_config.py the way JupyterHub does; return the config it set."""
    c = Config()
    with mock.patch("os.geteuid", return_value=euid):
        code = compile(path.read_text(), str(path), "exec")
        exec(code, {"get_config": lambda: c, "__file__": str(path)})  # noqa: S102 (our generated file)
    return c


# --- config -------------------------------------------------------------------------------------


def test_config_has_the_settings_a_class_of_30_needs(tmp_path):
    c = load(hub_config.write(settings(tmp_path)))
    assert c.JupyterHub.spawner_class == "simple"
    assert c.JupyterHub.authenticator_class == "shared-password"
    assert c.Spawner.http_timeout == 120
    assert "--KernelManager.transport=ipc" in c.Spawner.args
    assert "--allow-root" not in c.Spawner.args
    assert c.Spawner.cmd == [str(Path(sys.executable).parent / "jupyterhub-singleuser")]
    assert c.Spawner.default_url == "/lab/tree/notebooks/00_start_here.ipynb"
    assert c.SimpleLocalProcessSpawner.home_dir_template == f"{tmp_path / 'homes'}/{{username}}"
    assert c.ConfigurableHTTPProxy.command == ["/opt/chp"]
    assert c.Authenticator.allowed_users == {f"learner-0{i}" for i in range(1, 6)}
    assert c.JupyterHub.db_url == f"sqlite:///{tmp_path / 'hub' / 'jupyterhub.sqlite'}"


def test_a_second_hub_on_the_machine_gets_its_own_ports(tmp_path):
    c = load(hub_config.write(settings(tmp_path, port=9000, hub_port=9081, proxy_api_port=9001)))
    assert (c.JupyterHub.port, c.JupyterHub.hub_port) == (9000, 9081)
    assert c.ConfigurableHTTPProxy.api_url == "http://127.0.0.1:9001"


def test_allow_root_only_when_the_hub_runs_as_root(tmp_path):
    c = load(hub_config.write(settings(tmp_path)), euid=0)
    assert c.Spawner.args == ["--KernelManager.transport=ipc", "--allow-root"]


def test_secrets_are_private_long_enough_and_kept_when_config_is_rewritten(tmp_path):
    path = hub_config.write(settings(tmp_path))
    password = (path.parent / "shared_password").read_text()
    token = (path.parent / "api_token").read_text()
    for name in ("shared_password", "api_token"):
        assert stat.S_IMODE((path.parent / name).stat().st_mode) == 0o600
    c = load(path)
    assert len(c.SharedPasswordAuthenticator.user_password) >= 8  # JupyterHub's minimum
    assert c.SharedPasswordAuthenticator.user_password == password.strip()
    assert c.JupyterHub.services[0]["api_token"] == token.strip()
    assert "access:servers" in c.JupyterHub.load_roles[0]["scopes"]
    hub_config.write(settings(tmp_path, users=7))
    assert (path.parent / "shared_password").read_text() == password
    assert (path.parent / "api_token").read_text() == token


def test_paths_with_quotes_survive_into_the_config(tmp_path):
    odd = tmp_path / 'it\'s "here"'
    c = load(hub_config.write(settings(tmp_path, homes=odd)))
    assert c.SimpleLocalProcessSpawner.home_dir_template == f"{odd}/{{username}}"


def test_pre_spawn_hook_seeds_lessons_and_exercises_never_solutions_and_keeps_work(tmp_path):
    c = load(hub_config.write(settings(tmp_path)))
    home = tmp_path / "homes" / "learner-01"
    (home / "exercises").mkdir(parents=True)
    (home / "exercises" / f"{EXERCISES[0]}.ipynb").write_text("my work")
    c.Spawner.pre_spawn_hook(SimpleNamespace(home_dir=str(home)))
    got = sorted(p.relative_to(home) for p in home.rglob("*") if p.is_file())
    assert got == learner_files(ROOT)
    assert not any("solutions" in p.parts for p in got)
    assert (home / "exercises" / f"{EXERCISES[0]}.ipynb").read_text() == "my work"
    assert (home / "notebooks" / "00_start_here.ipynb").read_bytes() == (
        ROOT / "notebooks/00_start_here.ipynb"
    ).read_bytes()


def test_seeding_does_not_write_through_a_symlinked_folder(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    (home / "notebooks").symlink_to(outside)
    seed_home(ROOT, home)
    assert list(outside.iterdir()) == []
    assert (home / "exercises" / f"{EXERCISES[0]}.ipynb").is_file()


def test_kernel_sockets_stay_short_even_for_deep_homes(tmp_path):
    deep = tmp_path / ("a-long-folder-name" * 3) / "homes"
    c = load(hub_config.write(settings(tmp_path, homes=deep)))
    runtime = c.Spawner.environment["JUPYTER_RUNTIME_DIR"](
        SimpleNamespace(user=SimpleNamespace(name="learner-999"))
    )
    socket = f"{runtime}/kernel-54b3460b-786b-4235-9daf-bfa6f65acbe0-ipc-4"
    assert len(socket.encode()) <= SOCKET_PATH_LIMIT
    assert str(deep) not in runtime
    assert stat.S_IMODE(os.stat(Path(runtime).parent).st_mode) == 0o700


def test_kernel_runtime_folder_made_by_someone_else_is_refused(tmp_path):
    (tmp_path / f"mcp-hub-{os.getuid()}").mkdir(mode=0o777)
    os.chmod(tmp_path / f"mcp-hub-{os.getuid()}", 0o777)
    with pytest.raises(RuntimeError, match="not a private folder"):
        kernel_runtime_dir("learner-01", base=tmp_path)


def test_bad_user_prefix_is_refused_before_anything_is_written(tmp_path, capsys):
    status = main(
        [
            "hub",
            "config",
            "--dir",
            str(tmp_path / "hub"),
            "--prefix",
            "Bad Name",
            "--proxy",
            "/bin/true",
        ]
    )
    assert status == 2
    assert "prefix" in capsys.readouterr().err
    assert not (tmp_path / "hub").exists()


def test_config_command_says_what_is_missing(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("course_tools.hub.cli.find_proxy", lambda course, given=None: None)
    monkeypatch.setattr("importlib.util.find_spec", lambda name: None)
    status = main(
        ["hub", "config", "--dir", str(tmp_path / "hub"), "--homes", str(tmp_path / "homes")]
    )
    err = capsys.readouterr().err
    assert status == 3
    assert "JupyterHub is missing" in err and '[hub]"' in err
    assert "configurable-http-proxy is missing" in err and "npm ci" in err


# --- collect ------------------------------------------------------------------------------------


def notebook(text: str = "x") -> bytes:
    return json.dumps(
        {"cells": [], "metadata": {"text": text}, "nbformat": 4, "nbformat_minor": 5}
    ).encode()


def home(homes: Path, name: str) -> Path:
    folder = homes / name / "exercises"
    folder.mkdir(parents=True)
    return folder


def test_collect_copies_exactly_the_exercise_notebooks_into_the_graders_layout(tmp_path):
    homes, out = tmp_path / "homes", tmp_path / "out"
    alice = home(homes, "learner-01")
    for exercise in EXERCISES:
        (alice / f"{exercise}.ipynb").write_bytes(notebook(exercise))
    (alice / f"{EXERCISES[0]}-Copy1.ipynb").write_bytes(notebook())
    (homes / "learner-01" / "notebooks").mkdir()
    (homes / "learner-01" / "notebooks" / "01_fields.ipynb").write_bytes(notebook())
    home(homes, "learner-02")
    report = collect(homes, out, EXERCISES)
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [
        f"learner-01/{e}.ipynb" for e in EXERCISES
    ]
    assert (out / "learner-02").is_dir()  # no work handed in still gets a gradebook row
    assert (out / "learner-01" / f"{EXERCISES[1]}.ipynb").read_bytes() == notebook(EXERCISES[1])
    reasons = [str(s) for s in report.skipped]
    assert (
        f"skipped learner-01/exercises/{EXERCISES[0]}-Copy1.ipynb: not an exercise's name "
        "(rename it to hand it in)" in reasons
    )
    assert (
        f"skipped learner-02/exercises/{EXERCISES[0]}.ipynb: not handed in (no such file)"
        in reasons
    )


def test_collect_follows_no_symlink_and_reads_no_fifo_or_huge_file(tmp_path):
    homes, out, secret = tmp_path / "homes", tmp_path / "out", tmp_path / "secret"
    secret.mkdir()
    (secret / f"{EXERCISES[0]}.ipynb").write_text("instructor's private file")
    (secret / "exercises").symlink_to(secret)
    mallory = home(homes, "mallory")
    (mallory / f"{EXERCISES[0]}.ipynb").symlink_to(secret / f"{EXERCISES[0]}.ipynb")
    os.mkfifo(mallory / f"{EXERCISES[1]}.ipynb")  # opening it for reading would hang
    with open(mallory / f"{EXERCISES[2]}.ipynb", "wb") as huge:
        huge.truncate(50_000_000)  # sparse: costs no disk
    (homes / "eve").mkdir()
    (homes / "eve" / "exercises").symlink_to(secret)  # a symlinked folder
    (homes / "trudy").symlink_to(secret, target_is_directory=True)  # a symlinked home
    (homes / "plain-file").write_text("not a home")
    report = collect(homes, out, EXERCISES, limits=Limits(max_bytes=1_000_000))
    assert [p for p in out.rglob("*") if p.is_file()] == []
    why = {s.where: s.why for s in report.skipped}
    assert why[f"mallory/exercises/{EXERCISES[0]}.ipynb"] == "a symbolic link, not followed"
    assert why[f"mallory/exercises/{EXERCISES[1]}.ipynb"] == "not a regular file"
    assert "over the 1000000-byte limit" in why[f"mallory/exercises/{EXERCISES[2]}.ipynb"]
    assert why["eve/exercises"] == "a symbolic link, not followed"
    assert why["trudy"] == "a symbolic link, not followed"
    assert why["plain-file"] == "not a folder, not followed"


def test_collect_escapes_odd_names_and_never_writes_outside_out(tmp_path, capsys):
    homes, out = tmp_path / "homes", tmp_path / "out"
    evil = "\x1b]0;pwned\x07evil"
    home(homes, evil)
    home(homes, "..hidden")
    alice = home(homes, "alice")
    (alice / "\x1b[2J.ipynb").write_bytes(notebook())
    status = main(["hub", "collect", str(homes), "--out", str(out), "--course", str(ROOT)])
    captured = capsys.readouterr()
    assert status == 0
    assert "\x1b" not in captured.out + captured.err
    assert "\\x1b]0;pwned\\x07evil: not a learner's name" in captured.err
    assert "alice/exercises/\\x1b[2J.ipynb: not an exercise's name" in captured.err
    assert sorted(p.name for p in out.iterdir()) == ["alice", "collection.json"]  # + hand-in times


def test_collect_bounds_a_flooded_exercises_folder_and_still_takes_the_exercises(tmp_path):
    homes, out = tmp_path / "homes", tmp_path / "out"
    folder = home(homes, "learner-01")
    for i in range(50):
        (folder / f"junk-{i}.ipynb").write_bytes(b"{}")
    (folder / f"{EXERCISES[0]}.ipynb").write_bytes(notebook())
    report = collect(homes, out, EXERCISES, limits=Limits(max_entries=10))
    assert (out / "learner-01" / f"{EXERCISES[0]}.ipynb").read_bytes() == notebook()
    assert "more than 10 entries" in " ".join(s.why for s in report.skipped)
    assert not any(
        "junk" in s.where for s in report.skipped
    )  # the flood is not listed name by name


def test_collect_refuses_an_exercises_dir_that_leaves_the_home(tmp_path, capsys):
    (tmp_path / "homes").mkdir()
    status = main(
        [
            "hub",
            "collect",
            str(tmp_path / "homes"),
            "--exercises-dir",
            "../..",
            "--course",
            str(ROOT),
        ]
    )
    assert status == 2
    assert "must be a path inside each home" in capsys.readouterr().err


def test_collect_from_a_missing_folder_says_so(tmp_path, capsys):
    assert main(["hub", "collect", str(tmp_path / "nope"), "--course", str(ROOT)]) == 2
    assert "is not a folder" in capsys.readouterr().err


# --- export -------------------------------------------------------------------------------------


def test_export_is_a_git_repository_without_solutions(tmp_path):
    dest = tmp_path / "learners"
    commit = export(ROOT, dest)
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=dest, capture_output=True, text=True, check=True
    ).stdout.split()
    assert sorted(tracked) == sorted(
        [".course-export", "README.md", *(p.as_posix() for p in learner_files(ROOT))]
    )
    assert not any(name.startswith("solutions") for name in tracked)
    assert (dest / "exercises" / f"{EXERCISES[0]}.ipynb").read_bytes() == (
        ROOT / "exercises" / f"{EXERCISES[0]}.ipynb"
    ).read_bytes()
    assert export(ROOT, dest) == commit  # nothing changed: no empty commit


def test_export_refuses_a_folder_that_is_not_an_earlier_export(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "thesis.tex").write_text("precious")
    with pytest.raises(ExportError, match="not an earlier export"):
        export(ROOT, tmp_path / "mine")
    assert (tmp_path / "mine" / "thesis.tex").read_text() == "precious"


def test_nbgitpuller_link_opens_lesson_00_in_the_pulled_folder():
    link = nbgitpuller_link(
        "https://hub.example.org/", "https://git.example.org/course/mcp-learners.git"
    )
    assert link == (
        "https://hub.example.org/hub/user-redirect/git-pull?"
        "repo=https%3A%2F%2Fgit.example.org%2Fcourse%2Fmcp-learners.git&branch=main&targetpath=mcp-learners"
        "&urlpath=lab%2Ftree%2Fmcp-learners%2Fnotebooks%2F00_start_here.ipynb"
    )


# --- prestart -----------------------------------------------------------------------------------


class FakeHub(HubAPI):
    """The hub's REST API as prestart sees it: learner-02 fails to spawn, the others get ready."""

    def __init__(self) -> None:
        super().__init__("http://127.0.0.1:9", "token")
        self.users: set[str] = {"learner-01"}
        self.polls: dict[str, int] = {}

    def call(self, method, path, body=None):
        name = path.split("/")[2]
        if method == "GET":
            if name not in self.users:
                return 404, None
            self.polls[name] = self.polls.get(name, 0) + 1
            ready = self.polls[name] > 2 and name != "learner-02"
            pending = None if ready or (name == "learner-02" and self.polls[name] > 2) else "spawn"
            return 200, {"name": name, "servers": {"": {"ready": ready, "pending": pending}}}
        if path.endswith("/server"):
            return 202, None
        self.users.add(name)
        return 201, {"name": name}


def test_prestart_creates_users_starts_servers_and_reports_failures():
    hub, lines = FakeHub(), []
    report = prestart(
        hub, ["learner-01", "learner-02", "learner-03"], poll=0, progress=lines.append
    )
    assert sorted(report.ready) == ["learner-01", "learner-03"]
    assert report.failed == ["learner-02"] and report.waiting == []
    assert hub.users == {"learner-01", "learner-02", "learner-03"}
    assert lines[-1].startswith("[2/3 ready, 1 failed]")


def test_prestart_without_a_hub_says_how_to_start_it(tmp_path, capsys):
    (tmp_path / "api_token").write_text("x" * 64)
    status = main(
        [
            "hub",
            "prestart",
            "--users",
            "2",
            "--dir",
            str(tmp_path),
            "--hub-url",
            "http://127.0.0.1:9",
        ]
    )
    assert status == 3
    assert "no hub answers at http://127.0.0.1:9" in capsys.readouterr().err


def test_hub_command_is_registered_with_its_four_steps(capsys):
    with pytest.raises(SystemExit):
        main(["hub", "--help"])
    out = capsys.readouterr().out
    assert all(step in out for step in ("config", "prestart", "collect", "export"))
