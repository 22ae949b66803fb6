"""A simulated learner: runs a notebook on their own server over the kernel protocol.

What JupyterLab does when a learner opens a notebook and runs every cell: load the page and
what JupyterLab asks its server for at start (`LAB_START`; not its scripts), create a session
(the kernel starts in the notebook's folder), read the notebook through the contents API, send
one ``execute_request`` per code cell over the kernel's websocket and wait for its reply.
The websocket speaks JupyterLab 4's binary ``v1.kernel.websocket.jupyter.org`` protocol
(framed by Jupyter Server's own functions), falling back to JSON text if the server offers
only that. Used by benchmarks/bench_hub.py and the peer test; needs tornado and Jupyter Server
(JupyterHub's dependencies).

Introduced in: docs/hub.md
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode

from jupyter_server.services.kernels.connection.base import (
    deserialize_msg_from_ws_v1,
    serialize_msg_to_ws_v1,
)
from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest
from tornado.websocket import WebSocketClientConnection, WebSocketError, websocket_connect

from course_lib.safe_text import printable

__all__ = ["NotebookRun", "pull_distribution", "put_notebook", "run_notebook"]

V1 = "v1.kernel.websocket.jupyter.org"  # JupyterLab 4's kernel websocket protocol
_PARTS = ("header", "parent_header", "metadata", "content")


@dataclass
class NotebookRun:
    learner: str
    path: str
    cells: int = 0
    errors: list[str] = field(default_factory=list)  # unexpected errors: "cell N: EName: value"
    seconds: float = 0.0


class _Server:
    """A learner's server behind the hub; every request waits at most `timeout` seconds."""

    def __init__(self, hub_url: str, learner: str, token: str, timeout: float = 120) -> None:
        self.base = f"{hub_url.rstrip('/')}/user/{quote(learner)}"
        self.headers = {"Authorization": f"token {token}"}
        self.client = AsyncHTTPClient()
        self.timeout = timeout

    def request(self, url: str, **options: Any) -> HTTPRequest:
        return HTTPRequest(
            url,
            headers=self.headers,
            connect_timeout=self.timeout,
            request_timeout=self.timeout,
            **options,
        )

    async def call(self, method: str, path: str, body: Any = None) -> Any:
        answer = await self.client.fetch(
            self.request(
                self.base + path,
                method=method,
                body=None if body is None else json.dumps(body),
                allow_nonstandard_methods=True,
            ),
        )
        return json.loads(answer.body) if answer.body else None


def _message(code: str, session: str) -> dict[str, Any]:
    return {
        "header": {
            "msg_id": uuid.uuid4().hex,
            "msg_type": "execute_request",
            "session": session,
            "username": "learner",
            "version": "5.3",
            "date": "",
        },
        "parent_header": {},
        "metadata": {},
        "channel": "shell",
        "buffers": [],
        "content": {
            "code": code,
            "silent": False,
            "store_history": True,
            "user_expressions": {},
            "allow_stdin": False,
            "stop_on_error": True,
        },
    }


async def put_notebook(
    hub_url: str, learner: str, token: str, path: str, notebook: dict[str, Any]
) -> None:
    """Save `notebook` at `path` in the learner's home, as JupyterLab's save does."""
    await _Server(hub_url, learner, token).call(
        "PUT",
        f"/api/contents/{quote(path)}",
        {"type": "notebook", "format": "json", "content": notebook},
    )


async def pull_distribution(
    hub_url: str, learner: str, token: str, repo_url: str, folder: str
) -> list[dict[str, Any]]:
    """What an nbgitpuller link does in the learner's browser: pull `repo_url` into ``~/folder``.

    Returns nbgitpuller's progress events; the last one has ``phase`` ``finished`` or ``error``.
    """
    server = _Server(hub_url, learner, token)
    query = urlencode({"repo": repo_url, "branch": "main", "targetpath": folder})
    answer = await server.client.fetch(server.request(f"{server.base}/git-pull/api?{query}"))
    return [
        json.loads(line[5:])
        for line in answer.body.decode().splitlines()
        if line.startswith("data:")
    ]


async def run_notebook(
    hub_url: str, learner: str, token: str, path: str, *, cell_timeout: float = 120
) -> NotebookRun:
    """Open `path` (in the learner's home) in a new kernel, run every code cell, shut it down.

    Whatever goes wrong (an HTTP error, a timeout, a closed websocket) is recorded in the
    run's `errors`, never raised: one learner's failure is a figure, not the end of the class.
    """
    started = time.monotonic()
    run = NotebookRun(learner, path)
    try:
        await _run_cells(_Server(hub_url, learner, token, cell_timeout), run, cell_timeout)
    except (
        HTTPClientError,
        WebSocketError,
        OSError,
        asyncio.TimeoutError,
        KeyError,
        ValueError,
    ) as error:
        run.errors.append(f"{type(error).__name__}: {printable(str(error), limit=200)}")
    run.seconds = time.monotonic() - started
    return run


# What JupyterLab 4 asks its server for when it opens (besides its scripts and styles).
LAB_START = (
    "/api/me",
    "/lab/api/settings",
    "/lab/api/translations/default",
    "/api/kernelspecs",
    "/api/sessions",
    "/api/kernels",
    "/api/terminals",
    "/lsp/status",
    "/lab/api/workspaces/default",
)


async def _open_lab(server: _Server, path: str) -> None:
    """Load JupyterLab's page for `path`, then what it asks for at start."""
    page = await server.client.fetch(server.request(f"{server.base}/lab/tree/{quote(path)}"))
    if b"jupyter-config-data" not in page.body:
        raise ValueError(f"{server.base}/lab/tree/{path} is not JupyterLab's page")
    await asyncio.gather(*(server.call("GET", api) for api in LAB_START))


async def _run_cells(server: _Server, run: NotebookRun, cell_timeout: float) -> None:
    path = run.path
    await _open_lab(server, path)
    model = await server.call("GET", f"/api/contents/{quote(path)}?content=1&type=notebook")
    session = await server.call(
        "POST",
        "/api/sessions",
        {"path": path, "name": path, "type": "notebook", "kernel": {"name": "python3"}},
    )
    kernel = session["kernel"]["id"]
    ws_url = server.base.replace("http", "ws", 1) + f"/api/kernels/{kernel}/channels"
    socket = await websocket_connect(
        server.request(ws_url),
        max_message_size=50_000_000,
        subprotocols=[V1],
    )
    try:
        for index, cell in enumerate(model["content"]["cells"]):
            if cell["cell_type"] != "code" or not "".join(cell["source"]).strip():
                continue
            run.cells += 1
            error = await _execute(socket, cell, session["id"], cell_timeout)
            if error:
                run.errors.append(f"cell {index}: {error}")
                if error.startswith(_STOPS):
                    return
    finally:
        socket.close()
        await server.call("DELETE", f"/api/sessions/{session['id']}")


_STOPS = ("no reply within", "the kernel's websocket closed")


async def _send(socket: WebSocketClientConnection, message: dict[str, Any]) -> None:
    if socket.selected_subprotocol == V1:
        parts = [json.dumps(message[part]).encode() for part in _PARTS]
        await socket.write_message(serialize_msg_to_ws_v1(parts, message["channel"]), binary=True)
    else:
        await socket.write_message(json.dumps(message))


def _decoded(socket: WebSocketClientConnection, raw: str | bytes) -> dict[str, Any]:
    if socket.selected_subprotocol != V1:
        return dict(json.loads(raw))
    channel, parts = deserialize_msg_from_ws_v1(raw)
    message = {part: json.loads(data) for part, data in zip(_PARTS, parts)}
    return {**message, "channel": channel}


async def _execute(
    socket: WebSocketClientConnection, cell: dict[str, Any], session: str, timeout: float
) -> str:
    """Run one cell; return "" or what went wrong (an unexpected error, no reply...)."""
    request = _message("".join(cell["source"]), session)
    await _send(socket, request)
    deadline = time.monotonic() + timeout
    replied = idle = False
    error = ""
    while not (replied and idle):
        try:
            raw = await asyncio.wait_for(
                socket.read_message(), max(0.1, deadline - time.monotonic())
            )
        except asyncio.TimeoutError:
            return f"no reply within {timeout:.0f} s"
        if raw is None:
            return "the kernel's websocket closed"
        message = _decoded(socket, raw)
        if message.get("parent_header", {}).get("msg_id") != request["header"]["msg_id"]:
            continue
        kind = message["header"]["msg_type"]
        if kind == "execute_reply":
            replied = True
            content = message["content"]
            expected = "raises-exception" in cell.get("metadata", {}).get("tags", [])
            if content["status"] == "error" and not expected:
                error = f"{content.get('ename')}: {content.get('evalue', '')[:200]}"
        elif kind == "status" and message["content"]["execution_state"] == "idle":
            idle = True
    return error
