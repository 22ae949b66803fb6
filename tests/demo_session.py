"""The demo session both the agent tests and the trifecta tests drive: three servers, one task."""

from __future__ import annotations

import anyio
from mcp.types import Tool, ToolAnnotations

from course_lib import SessionGuard
from course_lib.connection import list_tools_sync
from course_lib.agent import ScriptedAgent, open_session
from course_lib.decisions import Trust
from course_lib.servers import build

TASK = [
    ("search_web", {"query": "vpn outage today"}),
    ("send_email", {"to": "mei@ops.example", "subject": "VPN status", "body": "No outage now."}),
]


def tool(name: str, **hints: bool) -> Tool:
    return Tool(name=name, input_schema={"type": "object"}, annotations=ToolAnnotations(**hints) if hints else None)


def demo_servers() -> dict:
    return {name: build(name) for name in ("private-notes", "web-search", "mailer")}


def demo_tools() -> dict:
    """The demo servers' tools by server: analysis takes tools, the caller connects."""
    return {name: list_tools_sync(server) for name, server in demo_servers().items()}


def colleagues_only(step) -> bool:
    return step.arguments.get("to", "").endswith("@ops.example")


def run_attack(on_taint, servers=None):
    servers = servers or demo_servers()

    async def main():
        with anyio.fail_after(60):
            async with open_session(servers) as session:
                guard = SessionGuard(session.analyse(), trust=Trust.TRUSTED, auto_approve={"send_email"}, on_taint=on_taint)
                return await ScriptedAgent(TASK).run(session, guard, approve=colleagues_only)

    return anyio.run(main), servers
