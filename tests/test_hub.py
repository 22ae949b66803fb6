"""`python -m course_tools hub`: the generated config, collecting from hostile homes, the export.

No JupyterHub, network or Node.js needed: the config is executed with traitlets' Config (what
JupyterHub gives it); the hub itself runs in tests/peers/test_hub_class.py.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import os
import re
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

import pytest
from traitlets.config import Config

sys.path.insert(0, str(Path(__file__).parent))
from fake_hub import TOKEN, Behaviour, FakeHub, RunningFakeHub  # noqa: E402

from course_tools.__main__ import main
from course_tools.hub import config as hub_config
from course_tools.hub.api import HubAPI
from course_tools.hub.collect import CollectLimits, collect
from course_tools.hub.content import exercise_ids, learner_files, seed_home
from course_tools.hub.export import ExportError, export, nbgitpuller_link
from course_tools.hub import prestart as prestart_module
from course_tools.hub.prestart import Pace, prestart
from course_tools.hub.runtime import (
    SOCKET_PATH_LIMIT,
    build_font_cache,
    hub_runtime_dir,
    kernel_runtime_dir,
    matplotlib_dir,
)

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
    """Execute a jupyterhub_config.py the way JupyterHub does; return the config it set.

    Its check that learners' servers are confined is tested on its own
    (tests/test_hub_confinement.py): here it is not run.
    """
    c = Config()
    with (
        mock.patch("os.geteuid", return_value=euid),
        mock.patch("course_tools.hub.runtime.raise_open_files_limit") as raised,
        mock.patch("course_tools.hub.confinement.refuse_unconfined"),
    ):
        code = compile(path.read_text(), str(path), "exec")
        exec(code, {"get_config": lambda: c, "__file__": str(path)})  # noqa: S102 (our generated file)
    assert raised.called  # the proxy, a child of the hub, inherits the raised limit
    return c


# --- config -------------------------------------------------------------------------------------


def test_config_has_the_settings_a_class_of_30_needs(tmp_path):
    c = load(hub_config.write(settings(tmp_path)))
    assert c.JupyterHub.spawner_class == "course_tools.hub.spawner.CourseSpawner"
    assert c.JupyterHub.authenticator_class == "shared-password"
    assert c.Spawner.http_timeout == c.Spawner.start_timeout == 300
    assert "--KernelManager.transport=ipc" in c.Spawner.args
    assert "--allow-root" not in c.Spawner.args
    python = str(Path(sys.executable).parent / "python")
    assert c.CourseSpawner.server_cmd == [python, "-m", "course_tools.hub.singleuser"]
    assert c.Spawner.environment["MPLCONFIGDIR"] == str(tmp_path / "hub" / "matplotlib")
    assert c.Spawner.environment["MPLCONFIGDIR"] in c.CourseSpawner.overlaid  # in the hidden hub folder
    assert c.Spawner.default_url == "/lab/tree/notebooks/00_start_here.ipynb"
    assert c.SimpleLocalProcessSpawner.home_dir_template == f"{tmp_path / 'homes'}/{{username}}"
    assert c.ConfigurableHTTPProxy.command == ["/opt/chp"]
    assert c.Authenticator.allowed_users == {f"learner-0{i}" for i in range(1, 6)}
    assert c.JupyterHub.db_url == f"sqlite:///{tmp_path / 'hub' / 'jupyterhub.sqlite'}"


def test_a_second_hub_on_the_machine_gets_its_own_ports(tmp_path):
    c = load(hub_config.write(settings(tmp_path, port=9000, hub_port=9081, proxy_api_port=9001)))
    assert (c.JupyterHub.port, c.JupyterHub.hub_port) == (9000, 9081)
    assert c.ConfigurableHTTPProxy.api_url == "http://127.0.0.1:9001"


def test_learners_servers_never_run_as_root_even_when_the_hub_does(tmp_path):
    c = load(hub_config.write(settings(tmp_path)), euid=0)
    assert "--allow-root" not in c.Spawner.args  # the servers run as uid 1000 in their sandbox
    assert c.JupyterHub.spawner_class == "course_tools.hub.spawner.CourseSpawner"
    assert str(tmp_path / "hub") in c.CourseSpawner.hidden and c.CourseSpawner.bwrap


def test_learners_servers_make_no_call_to_the_internet_and_run_no_node_program(tmp_path):
    c = load(hub_config.write(settings(tmp_path)))
    args = c.Spawner.args
    assert "--LabApp.news_url=None" in args
    assert "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate" in args
    assert "--LabApp.extension_manager=readonly" in args
    assert "--LanguageServerManager.autodetect=False" in args
    config_path = Path(c.Spawner.environment["JUPYTER_CONFIG_PATH"])
    page = json.loads((config_path / "labconfig" / "page_config.json").read_text())
    assert page == {"buildAvailable": False, "buildCheck": False}


def test_spawn_timeout_is_the_operators_choice(tmp_path):
    c = load(hub_config.write(settings(tmp_path, spawn_timeout=600)))
    assert c.Spawner.http_timeout == c.Spawner.start_timeout == 600


def test_a_learners_server_skips_the_iri_parsers_and_still_validates_jupyter_events():
    # rfc3987_syntax compiles its parsers at import (about 2 CPU-s per server start).
    probe = (
        "import sys\n"
        "from course_tools.hub.singleuser import skip_unused_imports\n"
        "skip_unused_imports()\n"
        "import jsonschema, jupyter_events.logger\n"
        "print(sys.modules.get('rfc3987_syntax') is None)\n"
        "checker = jsonschema.Draft7Validator.FORMAT_CHECKER\n"
        "print(checker.conforms('2026-12-01', 'date'), checker.conforms('nope', 'date'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["True", "True", "False"]


def test_the_hub_raises_its_open_file_limit_for_the_proxy():
    probe = (
        "import resource\n"
        "from course_tools.hub.runtime import raise_open_files_limit\n"
        "soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)\n"
        "resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))\n"
        "print(raise_open_files_limit(4096), resource.getrlimit(resource.RLIMIT_NOFILE)[0], hard)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    new, now, hard = (int(x) for x in done.stdout.split())
    expected = 4096 if hard == -1 else min(4096, hard)
    assert new == now == expected


def test_matplotlib_font_cache_is_built_once_in_the_hub_folder(tmp_path):
    assert build_font_cache(tmp_path / "hub", Path(sys.executable)) == ""
    cached = list(matplotlib_dir(tmp_path / "hub").glob("fontlist-*.json"))
    assert len(cached) == 1


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
    assert stat.S_IMODE(os.stat(Path(runtime).parent.parent).st_mode) == 0o700


def test_two_hubs_of_one_user_keep_their_kernel_sockets_apart(tmp_path):
    one = kernel_runtime_dir("learner-01", tmp_path / "class", base=tmp_path)
    other = kernel_runtime_dir("learner-01", tmp_path / "benchmark", base=tmp_path)
    assert one != other
    assert Path(one).parent == hub_runtime_dir(tmp_path / "class", base=tmp_path)


def test_kernel_runtime_folder_made_by_someone_else_is_refused(tmp_path):
    (tmp_path / f"mcp-hub-{os.getuid()}").mkdir(mode=0o777)
    os.chmod(tmp_path / f"mcp-hub-{os.getuid()}", 0o777)
    with pytest.raises(RuntimeError, match="not a private folder"):
        kernel_runtime_dir("learner-01", tmp_path / "hub", base=tmp_path)


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
    report = collect(homes, out, EXERCISES, limits=CollectLimits(max_bytes=1_000_000))
    assert [p for p in out.rglob("*") if p.is_file()] == []
    why = {s.where: s.why for s in report.skipped}
    assert why[f"mallory/exercises/{EXERCISES[0]}.ipynb"] == "a symbolic link, not followed"
    assert why[f"mallory/exercises/{EXERCISES[1]}.ipynb"] == "not a regular file"
    assert "over the 1000000-byte limit" in why[f"mallory/exercises/{EXERCISES[2]}.ipynb"]
    assert why["eve/exercises"] == "a symbolic link, not followed"
    assert why["trudy"] == "a symbolic link, not followed"
    assert why["plain-file"] == "not a folder, not followed"


def test_collect_refuses_a_hard_link_and_a_file_the_learner_does_not_own(tmp_path):
    """A hard link is the same file under a second name: a learner's kernel can link a file it
    may read (a canary outside the homes, another learner's notebook) into its exercises."""
    homes, out = tmp_path / "homes", tmp_path / "out"
    canary = tmp_path / "canary.ipynb"
    canary.write_bytes(notebook("the instructor's canary"))
    mallory = home(homes, "mallory")
    os.link(canary, mallory / f"{EXERCISES[0]}.ipynb")
    (mallory / f"{EXERCISES[1]}.ipynb").write_bytes(notebook("mallory's own"))
    theirs = mallory / f"{EXERCISES[2]}.ipynb"
    theirs.write_bytes(notebook("someone else's"))
    if os.geteuid() == 0:
        os.chown(theirs, 65534, 65534)
    report = collect(homes, out, EXERCISES)
    why = {s.where: s.why for s in report.skipped}
    assert why[f"mallory/exercises/{EXERCISES[0]}.ipynb"] == (
        "a hard link (the file has 2 names, so it may be another file's): not collected; ask "
        "the learner to save a copy of their notebook under this name"
    )
    assert report.notebooks["mallory"] == [f"{EXERCISES[1]}.ipynb"] + (
        [] if os.geteuid() == 0 else [f"{EXERCISES[2]}.ipynb"]
    )
    if os.geteuid() == 0:
        assert why[f"mallory/exercises/{EXERCISES[2]}.ipynb"] == (
            "owned by another user than the home's (uid 65534), not collected"
        )
    assert b"canary" not in b"".join(p.read_bytes() for p in out.rglob("*.ipynb"))


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
    report = collect(homes, out, EXERCISES, limits=CollectLimits(max_entries=10))
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


NAMES = ["learner-01", "learner-02", "learner-03", "learner-04"]
QUICK = Pace(deadline=8, poll=0.05, tick=0.01)


def quick(**changes) -> Pace:
    return dataclasses.replace(QUICK, **changes)


def test_prestart_counts_a_start_request_that_outlasts_the_timeout_as_still_starting():
    # learner-02's request is answered after 1.5 s, the client gives up after 0.3 s: the
    # learner is still starting, polled, and ready like the others (it used to abort the class).
    hub = FakeHub({"learner-02": Behaviour(stall=1.5)})
    with RunningFakeHub(hub) as (url, _):
        lines = []
        report = prestart(HubAPI(url, TOKEN, timeout=0.3), NAMES, QUICK, progress=lines.append)
    assert sorted(report.ready) == NAMES and report.ok
    assert report.failed == {} and report.waiting == []
    assert lines[-1].startswith("4 of 4 ready")
    assert "learner-02: the hub did not answer within 0.3 s; counted as still starting" in lines


def test_a_learner_stalled_past_the_deadline_is_named_and_the_rest_start(tmp_path, capsys):
    hub = FakeHub({"learner-03": Behaviour(stall=1.0, never_ready=True)})
    (tmp_path / "api_token").write_text(TOKEN)
    with RunningFakeHub(hub) as (url, _):
        status = main(
            [
                "hub", "prestart", "--users", "4", "--dir", str(tmp_path), "--hub-url", url,
                "--timeout", "3", "--request-timeout", "0.3",
            ]
        )
    out, err = capsys.readouterr()
    assert status == 1
    assert "3 of 4 servers ready" in out
    assert "still starting after 3 s: learner-03" in err
    assert "run the same command again" in err
    assert "Traceback" not in out + err
    assert re.search(r"^\d of 4 ready \(", out, re.M)  # progress lines as it goes


def test_prestart_names_a_failed_spawn_with_the_hubs_reason_after_asking_again():
    hub = FakeHub({"learner-01": Behaviour(failures=1), "learner-04": Behaviour(failures=5)})
    with RunningFakeHub(hub) as (url, _):
        lines = []
        report = prestart(HubAPI(url, TOKEN, timeout=2), NAMES, QUICK, progress=lines.append)
    assert sorted(report.ready) == NAMES[:3]  # learner-01 failed once, then started
    assert report.failed == {"learner-04": "Spawn failed: Server didn't respond in 120 seconds"}
    assert hub.servers["learner-04"].spawns == 2  # asked once more (retries=1), then given up
    assert any(line.startswith("learner-01: Spawn failed") for line in lines)


def test_prestart_asks_again_for_a_server_whose_request_was_lost():
    hub = FakeHub({"learner-02": Behaviour(stall=0.6, lost=True)})
    with RunningFakeHub(hub) as (url, _):
        report = prestart(HubAPI(url, TOKEN, timeout=0.2), NAMES, QUICK, progress=print)
    assert sorted(report.ready) == NAMES
    assert hub.servers["learner-02"].spawns == 1  # the lost request started nothing


def test_prestart_keeps_at_most_parallel_servers_starting():
    names = [f"learner-{i:02d}" for i in range(1, 13)]
    hub = FakeHub({name: Behaviour(ready_after=0.3) for name in names})
    with RunningFakeHub(hub) as (url, _):
        report = prestart(HubAPI(url, TOKEN), names, quick(parallel=3), progress=print)
    assert sorted(report.ready) == names
    assert 1 <= hub.most_pending <= 3


def test_prestart_with_a_wrong_token_says_which_file_to_use(tmp_path, capsys):
    (tmp_path / "api_token").write_text("not-the-token")
    with RunningFakeHub(FakeHub()) as (url, _):
        status = main(["hub", "prestart", "--dir", str(tmp_path), "--hub-url", url])
    err = capsys.readouterr().err
    assert status == 3
    assert "refused the API token" in err and "Traceback" not in err


def test_prestart_refuses_a_window_of_no_servers(tmp_path, capsys):
    (tmp_path / "api_token").write_text(TOKEN)
    assert main(["hub", "prestart", "--dir", str(tmp_path), "--parallel", "0"]) == 2
    assert "servers started at once (--parallel) must be 1 or more" in capsys.readouterr().err


def test_ctrl_c_during_prestart_says_the_servers_go_on_starting(tmp_path):
    (tmp_path / "api_token").write_text(TOKEN)
    hub = FakeHub({f"learner-0{i}": Behaviour(never_ready=True) for i in range(1, 4)})
    with RunningFakeHub(hub) as (url, _):
        command = [
            sys.executable, "-m", "course_tools", "hub", "prestart", "--users", "3",
            "--dir", str(tmp_path), "--hub-url", url,
        ]
        with subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        ) as process:
            assert process.stdout.readline().startswith("asking the hub for 3 servers")
            process.send_signal(signal.SIGINT)
            out, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert "interrupted; the servers the hub was starting go on starting" in err
    assert "Traceback" not in err


def test_ctrl_c_while_the_pool_is_being_built_leaves_no_traceback(monkeypatch):
    # CI once sent Ctrl-C in the few bytecodes before ThreadPool.__init__ had set its state:
    # the half-built pool's __del__ then printed a traceback under the friendly message.
    unraisable = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    built = []

    class InterruptedWhileBuilt(prestart_module.ThreadPool):
        def __init__(self, *args, **kwargs):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)  # the signal handler runs here unless SIGINT is held back
            super().__init__(*args, **kwargs)
            built.append(self)

    monkeypatch.setattr(prestart_module, "ThreadPool", InterruptedWhileBuilt)
    with RunningFakeHub(FakeHub()) as (url, _):
        with pytest.raises(KeyboardInterrupt):
            prestart(HubAPI(url, TOKEN), NAMES, QUICK, progress=lambda line: None)
    gc.collect()
    assert unraisable == []
    assert len(built) == 1 and built[0]._state != "RUN"  # built whole, then terminated


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


def test_collecting_again_keeps_the_earlier_copy_of_a_changed_notebook(tmp_path):
    homes, out = tmp_path / "homes", tmp_path / "out"
    alice = home(homes, "alice")
    name = f"{EXERCISES[0]}.ipynb"
    (alice / name).write_bytes(notebook("on time"))
    assert main(["hub", "collect", str(homes), "--out", str(out), "--course", str(ROOT)]) == 0
    (alice / name).write_bytes(notebook("late"))
    assert main(["hub", "collect", str(homes), "--out", str(out), "--course", str(ROOT)]) == 0
    assert main(["hub", "collect", str(homes), "--out", str(out), "--course", str(ROOT)]) == 0
    assert b"late" in (out / "alice" / name).read_bytes()
    kept = sorted(p.name for p in (out / "alice").iterdir() if p.name != name)
    assert kept == [f"{name}.~1~"]  # the on-time copy, once: an unchanged notebook is not kept twice
    assert b"on time" in (out / "alice" / kept[0]).read_bytes()


def test_a_killed_process_not_yet_reaped_is_not_counted_as_left_running():
    """The benchmark's "processes left running" counts processes, not zombies."""
    from course_tools.hub.process import still_running

    ended = subprocess.Popen(["sleep", "60"])
    running = subprocess.Popen(["sleep", "60"])
    try:
        ended.kill()  # a zombie until waited for: /proc still lists it
        assert Path(f"/proc/{ended.pid}").exists()
        assert still_running([ended.pid, running.pid], wait=5) == [running.pid]
    finally:
        running.kill()
        running.wait()
        ended.wait()
