"""The client-adapter protocol: what the harness needs to know to measure one client CLI.

An adapter says how to install the pinned CLI (`Pin`), which modes it offers and which trust
or rule settings to measure, how to configure it in a private HOME and config folder and run
one turn against a stand-in model (`run_turn`), and how to read its version. The harness
(`course_tools.measure.harness`) does the rest the same way for every client: it starts the
measurement servers, loops over the cells, repeats each, classifies every call from the logs
and builds the `Measurement`. One module per client implements this; `registry.ADAPTERS`
lists them.

Introduced in: docs/measure.md.
"""

from __future__ import annotations

import re
import shutil
from abc import ABC, abstractmethod
from collections.abc import Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .process import Finished
from .scratch import Workspace, cli_version
from .servers import MeasurementServers
from .standin import Script

__all__ = ["ROOT", "ClientAdapter", "Pin", "CliRun"]

ROOT = Path(__file__).resolve().parents[2]
"""The course's checkout: `.peers/` (where `.ci/peers` installs the CLIs) is under it."""


@dataclass(frozen=True)
class Pin:
    """The pinned CLI: its npm package and version, the program it installs, where it goes.

    `folder` names both the lock file's folder (``tests/peers/npm-FOLDER``) and the install
    (``.peers/FOLDER``).
    """

    client: str
    title: str
    package: str
    version: str
    program: str
    folder: str
    node: str = "20"  # the oldest Node.js major it runs on here

    @property
    def installed(self) -> Path:
        return ROOT / ".peers" / self.folder / "node_modules" / ".bin" / self.program

    def install_steps(self) -> list[str]:
        steps = []
        if not (shutil.which("node") and shutil.which("npm")):
            steps.append(
                f"install Node.js {self.node} or newer and npm (Debian/Ubuntu: "
                "sudo apt-get install nodejs npm; others: nodejs.org)"
            )
        steps.append(
            f"install the CLI into the course's folder, never globally: npm ci --prefix "
            f".peers/{self.folder} (after copying tests/peers/npm-{self.folder}/package*.json "
            f"there), or npm install --prefix .peers/{self.folder} {self.package}@{self.version}"
        )
        steps.append("or run .ci/peers, which installs every pinned CLI from its lock file")
        return steps


@dataclass
class CliRun:
    """What one run of a CLI left: the stand-in's events, the servers' log lines, its exit."""

    events: list[dict[str, Any]]
    calls: list[dict[str, Any]]
    finished: Finished | None = None

    @property
    def seconds(self) -> float:
        return self.finished.seconds if self.finished else 0.0


class ClientAdapter(ABC):
    """How to measure one client CLI. Subclasses set `pin` and implement `modes` and `run_turn`.

    `servers`: the measurement servers the client is configured with. `headless_phrases`: text
    that, in the result a refused call sent back to the model, means "this would have asked,
    but a headless run cannot ask" (`Outcome.ASK_HEADLESS`), as opposed to a refusal.
    `environment`: variables set on every run, recorded in the measurement.
    """

    pin: Pin
    servers: tuple[str, ...] = ("profiles", "other")
    headless_phrases: tuple[str, ...] = ()
    environment: Mapping[str, str] = {}
    timeout: float = 180.0
    tui_prompt_typed: bool = True  # the TUI driver types the prompt (else the command has it)

    def find(self, given: str | None) -> str | None:
        """The CLI to measure: `given`, else on PATH, else where `.ci/peers` installs it."""
        if given:  # absolute: the CLI runs in its own private folder
            if Path(given).exists():
                return str(Path(given).resolve())
            return shutil.which(given)
        if self.pin.installed.exists():
            return str(self.pin.installed)
        return shutil.which(self.pin.program)

    def version(self, cli: str) -> str:
        """The version the CLI reports (``--version``)."""
        return cli_version(cli)

    @abstractmethod
    def modes(self, cli: str) -> list[str]:
        """The approval or permission modes to measure, as the CLI names them."""

    def settings(self) -> dict[str, dict[str, Any]]:
        """The trust or rule settings to measure, by name (``"none"``: the defaults)."""
        return {"none": {}}

    @abstractmethod
    def run_turn(
        self,
        cli: str,
        servers: MeasurementServers,
        work: Workspace,
        mode: str,
        setting: dict[str, Any],
        script: Script,
    ) -> CliRun:
        """Configure the CLI in `work` (private HOME, project), run one headless turn, return it."""

    def notes(self, cli: str, servers: MeasurementServers) -> dict[str, Any]:
        """Findings outside the cells (concurrency, project settings...); none by default."""
        return {}

    def mode_commands(self) -> dict[str, str]:
        """How each mode is chosen on the command line, for the record; none by default."""
        return {}

    def tui(self) -> dict[str, re.Pattern[str]] | None:
        """Screen patterns of the interactive TUI (`course_tools.measure.tui`), if it is driven.

        ``ready``: it waits for a prompt; ``dialog``: an approval dialog is shown; ``done``:
        the call ran or failed without one; ``start``: the dialog's first line.
        """
        return None

    def interactive(
        self, cli: str, servers: MeasurementServers, work: Workspace, script: Script
    ) -> AbstractContextManager[tuple[list[str], dict[str, str], Any]]:
        """Configure `work` for an interactive session; yield (command, environment, stand-in)."""
        raise NotImplementedError(f"{self.pin.title}'s TUI is not driven")
