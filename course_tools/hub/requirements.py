"""What a hub on this machine needs, found or said plainly to be missing.

JupyterHub (and ``jupyterhub-singleuser``) come with the course's extra ``.[hub]``; the proxy,
``configurable-http-proxy``, is a Node.js program pinned by the lock file in ``hub/proxy/``.

Introduced in: docs/hub.md
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Missing", "find_proxy", "missing"]

PROXY = "configurable-http-proxy"


@dataclass(frozen=True)
class Missing:
    """One thing the hub needs that is not here, and the command that installs it."""

    what: str
    fix: str

    def __str__(self) -> str:
        return f"{self.what} is missing: {self.fix}"


def find_proxy(course: Path, given: str | None = None) -> str | None:
    """The proxy program: `given`, $COURSE_HUB_PROXY, hub/proxy's npm install, or PATH."""
    for candidate in (given, os.environ.get("COURSE_HUB_PROXY")):
        if candidate:
            return shutil.which(candidate) or (candidate if Path(candidate).is_file() else None)
    local = course / "hub" / "proxy" / "node_modules" / ".bin" / PROXY
    if local.exists():
        return str(local)
    return shutil.which(PROXY)


def missing(course: Path, venv_bin: Path, proxy: str | None) -> list[Missing]:
    """Everything the hub needs that is missing here (empty when it can start)."""
    found = []
    if (
        importlib.util.find_spec("jupyterhub") is None
        or not (venv_bin / "jupyterhub-singleuser").exists()
    ):
        found.append(Missing("JupyterHub", f'{venv_bin / "pip"} install -e "{course}[hub]"'))
    if proxy is None:
        node = (
            ""
            if shutil.which("npm")
            else "Node.js and npm (Debian: apt-get install nodejs npm), then "
        )
        found.append(Missing(PROXY, f"{node}cd {course / 'hub' / 'proxy'} && npm ci"))
    return found
