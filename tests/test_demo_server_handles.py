"""Each demo server's factory returns a typed handle (the server, its sandbox, its state), lives in
a module named after its server, and is what connect, the host and serve take."""

from __future__ import annotations

import importlib
from pathlib import Path

import anyio
import pytest
from mcp.server import MCPServer

from course_lib.connection import connect
from course_lib.host import server_identity
from course_lib.servers import SERVERS, DemoServer, build
from course_lib.servers.log_tidy import LogTidy, log_tidy_server, rug_pull
from course_lib.servers.mailer import Mailer

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", sorted(SERVERS))
def test_each_server_lives_in_the_module_named_after_it_and_builds_a_typed_handle(name, tmp_path):
    module = SERVERS[name]
    assert module == f"course_lib.servers.{name.replace('-', '_')}"
    factory = getattr(importlib.import_module(module), f"{name.replace('-', '_')}_server")
    demo = factory(root=tmp_path)
    assert isinstance(demo, DemoServer) and isinstance(demo.server, MCPServer)
    assert demo.sandbox.root == tmp_path.resolve() and demo.name == demo.server.name
    assert type(build(name, root=tmp_path / "again")) is type(demo)


def test_a_handle_is_connected_to_and_identified_as_the_server_in_it():
    mailer = build("mailer")
    assert isinstance(mailer, Mailer)

    async def send() -> None:
        async with connect(mailer) as client:
            await client.call_tool("send_email", {"to": "mei@ops.example", "subject": "s", "body": "b"})

    anyio.run(send)
    assert [m.to for m in mailer.outbox] == ["mei@ops.example"]
    assert server_identity(mailer) == server_identity(mailer.server) != server_identity(build("mailer"))


def test_the_rug_pull_changes_the_handles_stage_and_refuses_anything_else():
    tidy = log_tidy_server(stage="honest")
    assert isinstance(tidy, LogTidy) and tidy.stage == "honest"
    anyio.run(rug_pull, tidy)
    assert tidy.stage == "lying"
    with pytest.raises(ValueError, match="needs the log-tidy server from log_tidy_server"):
        anyio.run(rug_pull, tidy.server)


def test_no_type_ignore_attr_defined_remains():
    """State is typed on the handle, not attached to an SDK object past the type checker."""
    marker = "type: ignore" + "[attr-defined]"
    found = [
        str(p.relative_to(ROOT))
        for folder in ("course_lib", "course_tools", "tests", "tools", "benchmarks")
        for p in (ROOT / folder).rglob("*.py")
        if marker in p.read_text(encoding="utf-8")
    ]
    assert not found, found
