"""A class on one JupyterHub, for real: 5 simulated learners on 127.0.0.1.

The hub (JupyterHub from the course's `.[hub]` extra, configurable-http-proxy from npm as
locked in hub/proxy) is configured by `python -m course_tools hub config`'s code, started, and
every learner's server prestarted through the REST API. One learner pulls the learner
distribution (`hub export`) as an nbgitpuller link does. Each learner runs lesson 00 and
exercise 1 over the kernel protocol, three of them after saving a solved exercise; then the
exercises are collected from the homes and graded with `python -m course_tools grade`, and
every process the hub started is checked to be gone.
"""

from __future__ import annotations

import asyncio
import csv
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
from peerlib import PEERS, ROOT, need

pytestmark = pytest.mark.peers

LEARNERS = 5
SOLVED = 3
EXERCISE = "01_annotate_tools"


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@pytest.fixture(scope="module")
def settings(tmp_path_factory):
    if importlib.util.find_spec("jupyterhub") is None:
        pytest.fail(
            f'JupyterHub is not installed in {sys.prefix}: pip install -e ".[hub]" (.ci/peers '
            "does)",
            pytrace=False,
        )
    from course_tools.hub.config import HubSettings, write
    from course_tools.hub.process import free_port

    proxy = need(
        PEERS / "hub-proxy" / "node_modules" / ".bin" / "configurable-http-proxy",
        "configurable-http-proxy (npm, hub/proxy)",
    )
    base = tmp_path_factory.mktemp("hub")
    hub = HubSettings(
        hub_dir=base / "hub",
        course=ROOT,
        homes=base / "homes",
        proxy=str(proxy),
        port=free_port(),
        hub_port=free_port(),
        proxy_api_port=free_port(),
        users=LEARNERS,
        readable=(base / "mcp-learners",),  # the export below: its sandbox's /tmp would hide it
    )
    write(hub)
    return hub


def test_a_class_of_five_spawns_runs_lesson_00_and_an_exercise_and_is_collected_and_graded(
    settings, tmp_path
):
    from course_tools.hub.collect import collect
    from course_tools.hub.config import learner_names
    from course_tools.hub.content import exercise_ids
    from course_tools.hub.export import export
    from course_tools.hub.learner import pull_distribution, put_notebook, run_notebook
    from course_tools.hub.prestart import Pace, prestart
    from course_tools.hub.process import RunningHub

    names = learner_names(settings.prefix, LEARNERS)
    solved = json.loads((ROOT / "solutions" / f"{EXERCISE}.ipynb").read_text())
    exercise_path = f"exercises/{EXERCISE}.ipynb"

    distribution = settings.readable[0]
    export(ROOT, distribution)

    async def class_work(url: str, token: str):
        # One learner clicks the nbgitpuller link to the learner distribution.
        pulled = await pull_distribution(
            url, names[-1], token, distribution.as_uri(), "mcp-learners"
        )
        assert pulled and pulled[-1].get("phase") == "finished", pulled
        lessons = await asyncio.gather(
            *(run_notebook(url, n, token, "notebooks/00_start_here.ipynb") for n in names)
        )
        for name in names[:SOLVED]:
            await put_notebook(url, name, token, exercise_path, solved)
        exercises = await asyncio.gather(
            *(run_notebook(url, n, token, exercise_path) for n in names)
        )
        return lessons, exercises

    hub = RunningHub(settings)
    with hub:
        started = prestart(hub.api, names, Pace(deadline=240), progress=lambda line: None)
        assert sorted(started.ready) == names, (
            f"servers not ready: failed {started.failed}, waiting "
            f"{started.waiting}\n{hub.log_tail()}"
        )
        lessons, exercises = asyncio.run(class_work(settings.url, hub.api.token))
    assert hub.stopped, "the hub started no process"
    assert [pid for pid in hub.stopped if alive(pid)] == [], (
        "processes the hub started are still running"
    )
    from course_tools.hub.runtime import hub_runtime_dir

    assert not hub_runtime_dir(settings.resolved().hub_dir).exists(), "kernel sockets left"

    for run in lessons + exercises:
        assert run.cells > 0 and run.errors == [], f"{run.learner} {run.path}: {run.errors}"
    home = settings.resolved().homes / names[0]
    assert not (home / "solutions").exists()
    pulled = settings.resolved().homes / names[-1] / "mcp-learners"
    assert (pulled / "notebooks" / "00_start_here.ipynb").is_file() and not (
        pulled / "solutions"
    ).exists()

    submissions = tmp_path / "submissions"
    report = collect(settings.resolved().homes, submissions, exercise_ids(ROOT))
    assert sorted(report.notebooks) == names
    assert all(len(found) == len(exercise_ids(ROOT)) for found in report.notebooks.values())

    gradebook = tmp_path / "gradebook.csv"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "course_tools",
            "grade",
            str(submissions),
            "--out",
            str(gradebook),
            "--exercise",
            EXERCISE,
            "--jobs",
            "2",
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    with gradebook.open(newline="") as table:
        rows = {row["student"]: row for row in csv.DictReader(table)}
    assert sorted(rows) == names
    for name in names:
        score, full = float(rows[name][EXERCISE]), float(rows[name]["max"])
        if name in names[:SOLVED]:
            assert score == full > 0, rows[name]
        else:
            assert score == 0, rows[name]


# A real hub whose spawner stalls one learner: its start request outlasts prestart's REST
# timeout (the hub answers only after its 10 s slow_spawn_timeout), as one of 30 did in issue 25.
STALL = """
import asyncio

_seed_home = c.Spawner.pre_spawn_hook


async def stall_one_learner(spawner):
    _seed_home(spawner)
    if spawner.user.name == "learner-02":
        await asyncio.sleep({seconds})


c.Spawner.pre_spawn_hook = stall_one_learner
"""


def stalled_hub(tmp_path: Path, seconds: int):
    from course_tools.hub.config import HubSettings, write
    from course_tools.hub.process import RunningHub, free_port

    proxy = need(
        PEERS / "hub-proxy" / "node_modules" / ".bin" / "configurable-http-proxy",
        "configurable-http-proxy (npm, hub/proxy)",
    )
    hub = HubSettings(
        hub_dir=tmp_path / "hub",
        course=ROOT,
        homes=tmp_path / "homes",
        proxy=str(proxy),
        port=free_port(),
        hub_port=free_port(),
        proxy_api_port=free_port(),
        users=3,
    )
    path = write(hub)
    path.write_text(path.read_text() + STALL.format(seconds=seconds))
    return RunningHub(hub)


@pytest.mark.parametrize(("seconds", "ready"), [(25, 3), (900, 2)])
def test_prestart_follows_a_learner_whose_spawn_outlasts_the_rest_timeout(tmp_path, seconds, ready):
    from course_tools.hub.api import HubAPI
    from course_tools.hub.config import learner_names
    from course_tools.hub.prestart import Pace, prestart

    names = learner_names("learner-", 3)
    lines: list[str] = []
    with stalled_hub(tmp_path, seconds) as hub:
        api = HubAPI(hub.settings.url, hub.api.token, timeout=5)
        report = prestart(api, names, Pace(deadline=150), progress=lines.append)
        log = hub.log_tail()
    assert "learner-02: the hub did not answer within 5 s; counted as still starting" in lines, (
        lines,
        log,
    )
    assert len(report.ready) == ready, (report, log)
    if ready == 2:  # stalled past the class deadline: named, the others started
        assert report.waiting == ["learner-02"] and report.failed == {}
