"""Helpers of the peer tests: where `.ci/peers` installed the real peers, and how to run them.

A peer that is missing makes its tests fail with a message saying what to install; nothing
here skips silently. Install everything with ``.ci/peers`` (it also runs these tests).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
PEERS = Path(os.environ.get("COURSE_PEERS_DIR", ROOT / ".peers"))
NPM = PEERS / "npm" / "node_modules"
ARTIFACTS = ROOT / "artifacts"
INSTALL_HINT = "run .ci/peers from the repository root (it installs the peers, then runs these tests)"


def need(path: Path, what: str) -> Path:
    """Return `path`, or fail the test saying which peer is missing and how to install it."""
    if not path.exists():
        pytest.fail(f"{what} is not installed (no {path}): {INSTALL_HINT}", pytrace=False)
    return path


def need_program(name: str, package: str) -> str:
    """Return the full path of program `name`, or fail saying which package provides it."""
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not on PATH: install {package} (.ci/peers does: {INSTALL_HINT})", pytrace=False)
    return found


def run_inspector(inspector: list[str], args: list[str], *, cwd: Path | None = None, timeout: float = 60) -> dict[str, Any]:
    """Run one Inspector CLI request and return its JSON answer (fails the test on a non-zero exit)."""
    try:
        done = subprocess.run(
            [*inspector, *args], cwd=cwd or ROOT, capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the MCP Inspector did not answer within {timeout} s: {' '.join(args)}")
    if done.returncode != 0:
        pytest.fail(f"the MCP Inspector exited {done.returncode} for {' '.join(args)}:\n{done.stderr[-3000:]}")
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"the MCP Inspector printed no JSON for {' '.join(args)}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")


def course_server_command(name: str, root: Path) -> list[str]:
    """The command a learner runs to serve demo server `name` over stdio."""
    return [sys.executable, "-m", "course_lib", "serve", name, "--root", str(root)]


def venv_program(venv: str, program: str) -> Path:
    """A console script of one of the throwaway venvs `.ci/peers` made from tests/peers/requirements-VENV.txt."""
    return need(PEERS / "venvs" / venv / "bin" / program, f"{program} (PyPI, tests/peers/requirements-{venv}.txt)")


def venv_mcp_version(venv: str) -> str:
    python = need(PEERS / "venvs" / venv / "bin" / "python", f"the {venv} venv")
    done = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('mcp'))"],
        capture_output=True, text=True, timeout=60, check=True,
    )
    return done.stdout.strip()
