"""The learner distribution: lessons and exercises without solutions, as a git repository.

nbgitpuller pulls it into each learner's home from a link (`nbgitpuller_link`); pulling again
later brings the instructor's fixes and keeps the learners' own changes (nbgitpuller merges).

Introduced in: docs/hub.md
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path, PurePosixPath
from urllib.parse import quote, urlencode

from .content import FIRST_LESSON, LEARNER_FOLDERS, learner_files

__all__ = ["ExportError", "export", "nbgitpuller_link"]

MARKER = ".course-export"
BRANCH = "main"
_README = """\
# MCP tool annotations: the course, for learners

Open `notebooks/00_start_here.ipynb` and work through the lessons in order; the exercises are
in `exercises/`. Save your work where it is: your instructor collects `exercises/NN_name.ipynb`.

This copy has no solutions. It was exported from the course repository with
`python -m course_tools hub export`; do not edit it by hand (the next export replaces it).
"""


class ExportError(ValueError):
    """The export cannot be written where it was asked to go."""


def _git(dest: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=Course export", "-c", "user.email=course-export@localhost", *args],
        cwd=dest,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    if done.returncode != 0:
        raise ExportError(f"git {' '.join(args)} failed in {dest}: {done.stderr.strip()[-500:]}")
    return done.stdout.strip()


def export(course: Path, dest: Path, *, git: bool = True) -> str | None:
    """Write `course`'s learner files into `dest` and commit them; the commit (None without git).

    `dest` must be new, empty, or an earlier export (it holds the ``.course-export`` marker);
    an earlier export's notebooks are replaced, so a lesson deleted from the course goes too.

    Raises:
        ExportError: `dest` holds something else, or git failed.
    """
    dest = Path(dest)
    if dest.exists() and any(dest.iterdir()) and not (dest / MARKER).is_file():
        raise ExportError(
            f"{dest} is not empty and is not an earlier export (no {MARKER} in it): choose a "
            "new folder"
        )
    if dest.resolve() == course.resolve() or course.resolve() in dest.resolve().parents:
        raise ExportError(f"{dest} is inside the course checkout: export to a folder outside it")
    dest.mkdir(parents=True, exist_ok=True)
    for folder in LEARNER_FOLDERS:
        shutil.rmtree(dest / folder, ignore_errors=True)
    for relative in learner_files(course):
        (dest / relative.parent).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(course / relative, dest / relative)
    (dest / "README.md").write_text(_README)
    (dest / MARKER).write_text(
        "exported by `python -m course_tools hub export`; replaced by the next export\n"
    )
    if not git:
        return None
    if shutil.which("git") is None:
        raise ExportError(
            "git is not installed: install it (Debian: apt-get install git), or pass --no-git"
        )
    if not (dest / ".git").exists():
        _git(dest, "init", "--quiet", "--initial-branch", BRANCH)
    _git(dest, "add", "--all")
    if _git(dest, "status", "--porcelain"):
        _git(
            dest,
            "commit",
            "--quiet",
            "-m",
            "Course content for learners (lessons and exercises, no solutions)",
        )
    return _git(dest, "rev-parse", "HEAD")


def nbgitpuller_link(hub_url: str, repo_url: str, branch: str = BRANCH) -> str:
    """The link that pulls `repo_url` into ``~/<its name>`` and opens lesson 00 in JupyterLab.

    The folder is given (``targetpath``): nbgitpuller's own default keeps a trailing ``.git``.
    """
    folder = PurePosixPath(repo_url.rstrip("/")).name.removesuffix(".git")
    query = urlencode(
        {
            "repo": repo_url,
            "branch": branch,
            "targetpath": folder,
            "urlpath": f"lab/tree/{folder}/{FIRST_LESSON}",
        },
        quote_via=quote,
    )
    return f"{hub_url.rstrip('/')}/hub/user-redirect/git-pull?{query}"
