"""The repo2docker image (binder/): environment.yml's packages, Python pinned, no editable install.

The generated Dockerfile itself is checked in tests/peers/test_repo2docker.py (needs repo2docker).
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
IMAGE_ONLY = {
    "nbgitpuller>=1.3"
}  # pulls the learner distribution into each home on Zero to JupyterHub


def packages(path: Path) -> tuple[set[str], set[str]]:
    """(conda packages, pip requirements) of an environment file."""
    conda, pip = set(), set()
    for entry in yaml.safe_load(path.read_text())["dependencies"]:
        if isinstance(entry, dict):
            pip |= set(entry["pip"])
        else:
            conda.add(entry)
    return conda, pip


def test_image_environment_has_the_course_packages_and_nbgitpuller_and_no_local_install():
    conda, pip = packages(ROOT / "environment.yml")
    image_conda, image_pip = packages(ROOT / "binder" / "environment.yml")
    assert image_conda == conda
    assert image_pip == (pip - {"-e ."}) | IMAGE_ONLY
    # A local requirement (-e . or .) makes repo2docker copy the whole repository before
    # installing the environment: every notebook edit would then rebuild it.
    assert not any(r.startswith(("-e", ".", "/")) for r in image_pip)


def test_python_is_pinned_to_one_minor_version_in_both_environments():
    for path in (ROOT / "environment.yml", ROOT / "binder" / "environment.yml"):
        pins = [p for p in packages(path)[0] if p.split("=")[0].split(">")[0].strip() == "python"]
        assert pins == ["python=3.11"], f"{path}: {pins}"


def test_post_build_installs_the_course_non_editably_and_is_executable():
    script = ROOT / "binder" / "postBuild"
    text = script.read_text()
    assert script.stat().st_mode & 0o111
    assert "pip install --no-deps --no-cache-dir ." in text
    assert " -e " not in text and "--editable" not in text


def test_zero_to_jupyterhub_example_pulls_the_export_opens_lesson_00_limits_memory_and_culls():
    values = yaml.safe_load((ROOT / "hub" / "z2jh" / "config.yaml").read_text())
    user = values["singleuser"]
    command = user["lifecycleHooks"]["postStart"]["exec"]["command"]
    assert command[0] == "gitpuller" and command[2] == "main"
    assert user["defaultUrl"] == f"/lab/tree/{command[3]}/notebooks/00_start_here.ipynb"
    assert "--KernelManager.transport=ipc" in user["cmd"]
    assert user["memory"]["guarantee"] and user["memory"]["limit"]
    assert values["cull"]["enabled"] is True and values["cull"]["timeout"] > 0


def test_solutions_and_local_environments_are_left_out_of_the_image():
    rules = (ROOT / "binder" / ".dockerignore").read_text().split()
    assert {"solutions", ".venv", ".peers"} <= set(rules)


def test_learners_servers_on_a_cluster_start_like_on_one_machine_with_the_fonts_of_the_image():
    values = yaml.safe_load((ROOT / "hub" / "z2jh" / "config.yaml").read_text())
    user = values["singleuser"]
    assert user["cmd"][:3] == ["python", "-m", "course_tools.hub.singleuser"]
    assert "--LabApp.news_url=None" in user["cmd"]
    assert "--LanguageServerManager.autodetect=False" in user["cmd"]
    post_build = (ROOT / "binder" / "postBuild").read_text()
    cache = user["extraEnv"]["MPLCONFIGDIR"]
    image_prefix = "/srv/conda/envs/notebook"  # repo2docker's NB_PYTHON_PREFIX
    built = cache.replace(image_prefix, "${NB_PYTHON_PREFIX}")
    assert f'MPLCONFIGDIR="{built}" python -c "import matplotlib.font_manager"' in post_build


def test_the_image_turns_off_jupyterlabs_build_check_as_one_machine_does():
    from course_tools.hub.config import LAB_PAGE_CONFIG

    post_build = (ROOT / "binder" / "postBuild").read_text()
    assert f"echo '{json.dumps(LAB_PAGE_CONFIG)}'" in post_build
    assert '"${NB_PYTHON_PREFIX}/etc/jupyter/labconfig/page_config.json"' in post_build


def test_prestart_has_a_service_token_with_the_scopes_it_needs_on_a_cluster():
    hub = yaml.safe_load((ROOT / "hub" / "z2jh" / "config.yaml").read_text())["hub"]
    assert hub["services"]["course-instructor"]["apiToken"].startswith("CHANGE-ME")
    role = hub["loadRoles"]["course-instructor"]
    assert set(role["scopes"]) == {"admin:users", "admin:servers"}
    assert role["services"] == ["course-instructor"]
