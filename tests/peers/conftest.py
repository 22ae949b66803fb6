"""Fixtures of the peer tests; the helpers they use live in `peerlib.py`."""

from __future__ import annotations

from pathlib import Path

import pytest
from peerlib import ARTIFACTS, NPM, need, need_program


@pytest.fixture(scope="session")
def node() -> str:
    return need_program("node", "Node.js >= 20 (Debian: apt-get install nodejs npm)")


@pytest.fixture(scope="session")
def inspector(node: str) -> list[str]:
    """The MCP Inspector's command line, in CLI mode."""
    script = need(NPM / "@modelcontextprotocol" / "inspector" / "cli" / "build" / "cli.js", "the MCP Inspector (npm)")
    return [node, str(script), "--cli"]


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
