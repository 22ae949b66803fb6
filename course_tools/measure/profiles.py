"""The MCP servers a measured client talks to: one tool per annotation profile, and the gate.

* ``profiles``: one tool per annotation profile (`PROFILES`). Each tool does nothing but
  append one line to the call log, so the log says exactly which calls ran.
* ``other``: a second server with one tool, to check that a server-wide rule covers its own
  server and no other.
* ``gate``: the permission-prompt tool (Claude Code's ``--permission-prompt-tool``). A call
  the gate sees is a call the client *asked* about. It answers deny (or allow, if told to)
  and logs the question.
* ``file-ops``: a logging twin of the course's file-ops server (same names and hints).

The harness (`course_tools.measure.servers`) starts each over Streamable HTTP on a socket it
bound itself on 127.0.0.1 (``--fd``), so no other process can take the port in between, and
gives it the run's secret in the environment (``MEASURE_TOKEN``, never on the command line).
A request without that secret (``Authorization: Bearer SECRET``, or the path
``/SECRET/mcp``) is refused with 401 and logged as ``forged``: another local user cannot call
a measurement tool and turn a refused call into a ran one. Over stdio
(``python -m course_tools.measure.profiles NAME --log FILE``) there is no port to forge.
The log is JSON Lines, one object per event. Nothing here touches anything but the log file.

Introduced in: docs/measure.md.
"""

from __future__ import annotations

import argparse
import hmac
import json
import os
import socket
import sys
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp.server import MCPServer
from mcp.types import ToolAnnotations

__all__ = [
    "GATE_TOOL",
    "OTHER_TOOL",
    "PROFILES",
    "TOKEN_VARIABLE",
    "Profile",
    "RequireToken",
    "build",
    "combination_tools",
    "file_ops_tools",
    "read_log",
]

MAX_WAIT_SECONDS = 2.0


@dataclass(frozen=True)
class Profile:
    """One annotation profile: the tool's name, a label and the hints it declares (wire names)."""

    tool: str
    label: str
    hints: dict[str, Any] | None  # wire names (title too); None: no annotations at all

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
    Profile(
        "read_destructive",
        "read-only and destructive at once",
        {"readOnlyHint": True, "destructiveHint": True, "openWorldHint": False},
    ),
    Profile("not_destructive", "destructiveHint: false only", {"destructiveHint": False}),
    Profile("idempotent_only", "idempotentHint: true only", {"idempotentHint": True}),
    Profile("title_only", "title only", {"title": "Title only"}),
    Profile("not_read_only", "readOnlyHint: false only", {"readOnlyHint": False}),
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


_VALUES = {"t": True, "f": False, "a": None}
COMBINATION_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def combination_tools() -> dict[str, dict[str, bool]]:
    """The 81 combinations of the four hints (each true, false or absent), by tool name.

    A name spells the four values in order, ``t``/``f``/``a``: ``c_tfat`` declares
    ``readOnlyHint: true``, ``destructiveHint: false``, no ``idempotentHint`` and
    ``openWorldHint: true``.
    """
    tools = {}
    for r in "tfa":
        for d in "tfa":
            for i in "tfa":
                for o in "tfa":
                    values = zip(COMBINATION_HINTS, (r, d, i, o))
                    hints = {k: _VALUES[v] for k, v in values if _VALUES[v] is not None}
                    tools[f"c_{r}{d}{i}{o}"] = {k: bool(v) for k, v in hints.items()}
    return tools


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
    if name == "combinations":
        server = MCPServer("combinations", log_level="WARNING")
        for tool, hints in combination_tools().items():
            _add_call_tool(server, log, tool, ToolAnnotations.model_validate(hints))
        return server
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
    raise ValueError(
        f"unknown measurement server {name!r}: use profiles, other, file-ops, gate or combinations"
    )


TOKEN_VARIABLE = "MEASURE_TOKEN"
"""The environment variable that carries a run's secret to the measurement servers."""

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


class RequireToken:
    """ASGI middleware: only requests carrying the run's secret reach the MCP server.

    The secret comes as ``Authorization: Bearer SECRET`` or as the first path segment
    (``/SECRET/mcp``, for a client that cannot send headers). Anything else gets 401 and one
    ``forged`` line in the log, with what the request asked for.
    """

    def __init__(self, app: Any, token: str, log: Path, server: str) -> None:
        self.app, self.log, self.server = app, log, server
        self._bearer = f"Bearer {token}".encode()
        self._prefix = f"/{token}"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        path = str(scope.get("path", ""))
        if hmac.compare_digest(headers.get(b"authorization", b""), self._bearer):
            await self.app(scope, receive, send)
            return
        head, inner = path[: len(self._prefix)], path[len(self._prefix) :]
        if hmac.compare_digest(head.encode(), self._prefix.encode()) and inner.startswith("/"):
            await self.app(dict(scope, path=inner, raw_path=inner.encode()), receive, send)
            return
        _log(
            self.log,
            {
                "event": "forged",
                "server": self.server,
                "method": str(scope.get("method", "")),
                "path": path[:120],
            },
        )
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": b'{"error": "no valid token"}'})


def serve_on_socket(server: MCPServer, fd: int, token: str, log: Path) -> None:
    """Serve `server` over Streamable HTTP on the listening socket `fd`, behind `RequireToken`."""
    import anyio
    import uvicorn

    app = RequireToken(server.streamable_http_app(host="127.0.0.1"), token, log, server.name)
    listening = socket.socket(fileno=fd)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    anyio.run(uvicorn.Server(config).serve, [listening])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course_tools.measure.profiles")
    parser.add_argument("name", choices=["profiles", "other", "file-ops", "gate", "combinations"])
    parser.add_argument("--log", required=True, type=Path)
    parser.add_argument("--gate-answer", default="deny", choices=["allow", "deny"])
    parser.add_argument(
        "--fd",
        type=int,
        help=(
            "serve Streamable HTTP on this inherited listening socket instead of stdio; the "
            f"secret comes in ${TOKEN_VARIABLE}"
        ),
    )
    args = parser.parse_args(argv)
    server = build(args.name, args.log, gate_answer=args.gate_answer)
    if args.fd is None:
        server.run("stdio")
        return 0
    token = os.environ.pop(TOKEN_VARIABLE, "")
    if len(token) < 16:
        parser.error(f"--fd needs the run's secret (at least 16 characters) in ${TOKEN_VARIABLE}")
    serve_on_socket(server, args.fd, token, args.log)
    return 0


if __name__ == "__main__":
    sys.exit(main())
