"""A run's private folders and environment, and a CLI's version read from them.

Every run of a measured CLI gets a fresh scratch folder (mode 0700) with its own HOME, config
folders and TMPDIR (`Workspace`, `scratch_env`), so nothing of the machine's users reaches the
CLI and nothing it writes outlives the run.

Introduced in: docs/clients.md (how the measurement contains a CLI).
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .errors import MeasureError
from .process import run_contained

__all__ = ["Workspace", "cli_version", "scratch_env", "workspace"]


@dataclass(frozen=True)
class Workspace:
    """One run's private folders: HOME (the CLI's config and state) and the project it runs in."""

    root: Path
    home: Path = field(init=False)
    project: Path = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "home", self.root / "home")
        object.__setattr__(self, "project", self.root / "project")
        for folder in (self.home, self.project):
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)


def scratch_env(home: Path, keep: Sequence[str] = ()) -> dict[str, str]:
    """A minimal environment: PATH, locale and the given variables; no keys, no user config."""
    env = {k: v for k, v in os.environ.items() if k in {"PATH", "LANG", "LC_ALL", "TZ", *keep}}
    env["HOME"] = str(home)
    env["TMPDIR"] = str(home)  # nothing the CLI writes lands in the machine's shared /tmp
    env["XDG_CONFIG_HOME"] = str(home / ".config")
    env["XDG_DATA_HOME"] = str(home / ".local" / "share")
    env["XDG_CACHE_HOME"] = str(home / ".cache")
    env["XDG_STATE_HOME"] = str(home / ".local" / "state")
    env["NO_COLOR"] = "1"
    return env


def workspace(prefix: str = "measure-") -> tempfile.TemporaryDirectory[str]:
    """A private scratch folder (mode 0700) for one run; its `Workspace` is made inside it."""
    return tempfile.TemporaryDirectory(prefix=prefix)


def cli_version(cli: str, args: Sequence[str] = ("--version",)) -> str:
    """The version number a CLI prints for ``--version`` (e.g. ``2.1.332``), from a private HOME.

    Raises:
        MeasureError: it could not run, or printed no version number.
    """
    with workspace("measure-version-") as tmp:
        work = Workspace(Path(tmp))
        try:
            done = run_contained(
                [cli, *args], cwd=work.project, env=scratch_env(work.home), timeout=120
            )
        except OSError as exc:
            raise MeasureError(f"{cli} {' '.join(args)} could not run: {exc}") from None
    found = re.search(r"\d+\.\d+\.\d+", done.stdout) or re.search(r"\d+\.\d+\.\d+", done.stderr)
    if done.returncode != 0 or not found:
        raise MeasureError(
            f"{cli} {' '.join(args)} printed no version number (exit {done.returncode}): "
            f"{done.tail(200)!r}"
        )
    return found.group(0)
