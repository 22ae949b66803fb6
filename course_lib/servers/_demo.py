"""What a demo server's factory returns: the `MCPServer`, the sandbox it works in, and its state.

A factory such as `file_ops_server()` returns a `DemoServer` subclass named after its server
(`FileOps`, `LogTidy`, ...): its fields are what a lesson looks at (a mailer's `outbox`, the
log-tidy server's `stage`). `connect(demo)` and `Host(servers={"name": demo})` take the handle
as they take the `MCPServer` in it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcp.server import MCPServer

    from ._sandbox import Sandbox

__all__ = ["DemoServer"]


@dataclass(eq=False)  # one handle is one server: compared, and hashed, by identity
class DemoServer:
    """A demo server as its factory built it: `server` (what a client connects to) and
    `sandbox` (the one folder its tools may touch; `sandbox.root` is its path)."""

    server: MCPServer
    sandbox: Sandbox

    @property
    def name(self) -> str:
        """The name the server declares about itself (`MCPServer.name`)."""
        return self.server.name
