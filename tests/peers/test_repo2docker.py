"""The repository as a repo2docker image: the Dockerfile `repo2docker --no-build` generates.

Building the image needs Docker and a registry, which CI does not have; what is checked here
is what repo2docker would run: Python 3.11, the environment installed from binder/ before the
repository is copied (so its layer is cached across content edits), then binder/postBuild
installing the course non-editably.
"""

from __future__ import annotations

import subprocess

import pytest
from peerlib import ROOT, venv_program

pytestmark = pytest.mark.peers


@pytest.fixture(scope="module")
def dockerfile() -> str:
    repo2docker = venv_program("repo2docker", "repo2docker")
    done = subprocess.run(
        [str(repo2docker), "--no-build", "--debug", str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout + done.stderr


def test_python_version_is_the_pinned_one(dockerfile):
    assert "Building conda environment for python=3.11" in dockerfile
    assert "Python version unspecified" not in dockerfile


def test_environment_is_installed_before_the_repository_is_copied(dockerfile):
    env_copy = dockerfile.index("COPY --chown=0:0 src/binder/environment.yml")
    env_install = dockerfile.index(
        'env update -p ${NB_PYTHON_PREFIX} --file "binder/environment.yml"'
    )
    repo_copy = dockerfile.index("COPY --chown=0:0 src/ ${REPO_DIR}/")
    post_build = dockerfile.index("RUN ./binder/postBuild")
    assert env_copy < env_install < repo_copy < post_build


def test_nothing_is_installed_editably(dockerfile):
    assert "pip install -e" not in dockerfile and "-e ." not in dockerfile


def test_the_build_context_has_the_exercises_but_not_the_solutions():
    """repo2docker sends the files that docker's exclude rules keep (binder/.dockerignore)."""
    python = venv_program("repo2docker", "python")
    script = (
        "import sys\n"
        "from docker.utils.build import exclude_paths\n"
        "rules = [l.strip() for l in open('binder/.dockerignore') if l.strip() and l[0] != '#']\n"
        "print('\\n'.join(sorted(exclude_paths('.', rules))))\n"
    )
    done = subprocess.run(
        [str(python), "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    sent = set(done.stdout.split())
    assert "exercises/01_annotate_tools.ipynb" in sent and "binder/postBuild" in sent
    assert not any(path.startswith(("solutions", ".venv", ".peers")) for path in sent)
