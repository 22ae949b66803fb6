"""The MCP servers a measured client talks to: one tool per annotation profile, and the gate.

* ``profiles``: one tool per annotation profile (`PROFILES`). Each tool does nothing but
  append one line to the call log, so the log says exactly which calls ran.
* ``other``: a second server with one tool, to check that a server-wide rule covers its own
  server and no other.
* ``gate``: the permission-prompt tool (Claude Code's ``--permission-prompt-tool``). A call
  the gate sees is a call the client *asked* about. It answers deny (or allow, if told to)
  and logs the question.

Run one over stdio with ``python -m course_tools.measure.profiles NAME --log FILE``, or over
Streamable HTTP on 127.0.0.1 with ``--port PORT`` (the harness starts each server once and lets
every run of the CLI connect to it, which saves three Python start-ups per run). The log is
JSON Lines, one object per event. Nothing here touches anything but the log file.

Introduced in: README.md, section "Measure a real client".
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp.server import MCPServer
from mcp.types import ToolAnnotations

__all__ = ["GATE_TOOL", "OTHER_TOOL", "PROFILES", "Profile", "build", "file_ops_tools", "read_log"]

MAX_WAIT_SECONDS = 2.0


@dataclass(frozen=True)
class Profile:
    """One annotation profile: the tool's name, a label and the hints it declares (wire names)."""

    tool: str
    label: str
    hints: dict[str, bool] | None  # None: no annotations at all

    def annotations(self) -> ToolAnnotations | None:
        return None if self.hints is None else ToolAnnotations.model_validate(self.hints)


PROFILES: tuple[Profile, ...] = (
    Profile(
        "read_closed", "read-only, closed world", {"readOnlyHint": True, "openWorldHint": False}
    ),
    Profile("read_open", "read-only, open world", {"readOnlyHint": True, "openWorldHint": True}),
    Profile(
        "append",
        "additive, closed world",
        {
            "readOnlyHint": False,
            "destructiveHint": False,
            "idempotentHint": False,
            "openWorldHint": False,
        },
    ),
    Profile(
        "append_world_unsaid",
        "additive, openWorldHint absent",
        {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False},
    ),
    Profile(
        "set_value",
        "idempotent write, closed world",
        {
            "readOnlyHint": False,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        },
    ),
    Profile(
        "delete",
        "destructive, closed world",
        {
            "readOnlyHint": False,
            "destructiveHint": True,
            "idempotentHint": True,
            "openWorldHint": False,
        },
    ),
    Profile("unannotated", "no annotations", None),
)
"""The profiles measured, in the order the stand-in model calls them."""

OTHER_TOOL = "other_read"
GATE_TOOL = "approve"

_lock = threading.Lock()


def _log(path: Path, event: dict[str, Any]) -> None:
    event = {"t": time.time(), "pid": os.getpid(), **event}
    line = json.dumps(event, sort_keys=True) + "\n"
    with _lock, open(path, "a", encoding="utf-8") as handle:
        handle.write(line)


def read_log(path: Path) -> list[dict[str, Any]]:
    """Return the events of a JSON Lines log (an empty list when it does not exist)."""
    if not path.exists():
        return []
    return [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def _add_call_tool(
    server: MCPServer, log: Path, name: str, annotations: ToolAnnotations | None
) -> None:
    def call(seconds: float = 0.0) -> str:
        wait = min(max(float(seconds), 0.0), MAX_WAIT_SECONDS)
        _log(log, {"event": "start", "server": server.name, "tool": name})
        time.sleep(wait)
        _log(log, {"event": "end", "server": server.name, "tool": name})
        return f"{name} ran"

    call.__doc__ = (
        f"Measurement tool {name}: records that it ran. `seconds` makes it wait (at most 2)."
    )
    server.add_tool(call, name=name, annotations=annotations, structured_output=False)


def file_ops_tools() -> list[Any]:
    """The file-ops demo server's tools (`mcp.types.Tool`), listed in-process."""
    import asyncio

    from mcp import Client

    from course_lib.servers.file_ops import file_ops_server

    async def listed() -> list[Any]:
        async with Client(file_ops_server().server) as client:
            return list((await client.list_tools()).tools)

    return asyncio.run(listed())


def _file_ops_twin(log: Path) -> MCPServer:
    """A logging twin of the file-ops demo server: same server name, tool names and annotations.

    Its tools touch no file; they only log that they ran, so a learner's rules can be measured
    against the names and hints Claude Code would really see.
    """
    server = MCPServer("file-ops", log_level="WARNING")
    for tool in file_ops_tools():
        _add_call_tool(server, log, tool.name, tool.annotations)
    return server


def build(name: str, log: Path, *, gate_answer: str = "deny") -> MCPServer:
    """Build the ``profiles``, ``other``, ``file-ops`` (logging twin) or ``gate`` server.

    Every event goes to `log`.

    Raises:
        ValueError: an unknown server name or gate answer.
    """
    if name == "profiles":
        server = MCPServer("profiles", log_level="WARNING")
        for profile in PROFILES:
            _add_call_tool(server, log, profile.tool, profile.annotations())
        return server
    if name == "file-ops":
        return _file_ops_twin(log)
    if name == "other":
        server = MCPServer("other", log_level="WARNING")
        _add_call_tool(
            server, log, OTHER_TOOL, ToolAnnotations(read_only_hint=True, open_world_hint=False)
        )
        return server
    if name == "gate":
        if gate_answer not in {"allow", "deny"}:
            raise ValueError(f"the gate answers 'allow' or 'deny', not {gate_answer!r}")
        server = MCPServer("gate", log_level="WARNING")

        def approve(tool_name: str, input: dict[str, Any], tool_use_id: str = "") -> str:  # noqa: A002
            """Permission prompt: decide whether the client may run `tool_name` with `input`."""
            _log(log, {"event": "asked", "tool_name": tool_name, "tool_use_id": tool_use_id})
            if gate_answer == "allow":
                return json.dumps({"behavior": "allow", "updatedInput": input})
            return json.dumps(
                {
                    "behavior": "deny",
                    "message": "the measurement gate refuses every call it is asked about",
                }
            )

        server.add_tool(approve, name=GATE_TOOL, structured_output=False)
        return server
    raise ValueError(f"unknown measurement server {name!r}: use profiles, other, file-ops or gate")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course_tools.measure.profiles")
    parser.add_argument("name", choices=["profiles", "other", "file-ops", "gate"])
    parser.add_argument("--log", required=True, type=Path)
    parser.add_argument("--gate-answer", default="deny", choices=["allow", "deny"])
    parser.add_argument(
        "--port", type=int, help="serve Streamable HTTP on 127.0.0.1:PORT/mcp instead of stdio"
    )
    args = parser.parse_args(argv)
    server = build(args.name, args.log, gate_answer=args.gate_answer)
    if args.port is None:
        server.run("stdio")
    else:
        server.run("streamable-http", host="127.0.0.1", port=args.port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
