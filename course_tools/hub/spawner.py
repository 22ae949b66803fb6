"""The spawner the course's hub uses: JupyterHub's SimpleLocalProcessSpawner, confined.

Every learner's server is started inside the sandbox `confinement.server_argv` describes, so
nothing a learner runs can change the course, its environment or another learner's home.
Needs JupyterHub (the ``.[hub]`` extra); the hub's config names it by its import path.

Introduced in: docs/hub.md
"""

from __future__ import annotations

from typing import Any

from jupyterhub.spawner import SimpleLocalProcessSpawner
from traitlets import List, Unicode

from .confinement import server_argv

__all__ = ["CourseSpawner"]


class CourseSpawner(SimpleLocalProcessSpawner):
    """SimpleLocalProcessSpawner whose servers run in a bubblewrap sandbox of their own."""

    bwrap = Unicode(help="the bubblewrap program").tag(config=True)
    homes = Unicode(help="the folder of every learner's home (only theirs is shown)").tag(
        config=True
    )
    hidden = List(Unicode(), help="folders learners' servers must not see").tag(config=True)
    server_cmd = List(Unicode(), help="the single-user server, started in the sandbox").tag(
        config=True
    )
    shown = List(Unicode(), help="trees the server needs: the course, its environment").tag(
        config=True
    )
    overlaid = List(Unicode(), help="hidden folders shown again, writes kept private").tag(
        config=True
    )

    async def start(self) -> Any:
        self.cmd = server_argv(
            self.bwrap, list(self.server_cmd), home=self.home_dir, homes=self.homes,
            hidden=self.hidden, shown=self.shown, overlaid=self.overlaid,
        )  # fmt: skip
        return await super().start()
