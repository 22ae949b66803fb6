"""A fake JupyterHub REST API on 127.0.0.1, for prestart's tests: real HTTP, real timeouts.

Each learner has a `Behaviour`: how long their start request stalls before the hub answers
(past the client's timeout, the client gives up first), whether that stalled request is lost,
how long their server takes to become ready, how many of its spawns fail, or whether it never
becomes ready. The answers mimic JupyterHub 6's: 201/202/400 to ``POST .../server``, the user
model with ``servers[""]["ready"|"pending"]``, and a one-event progress stream after a failure.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOKEN = "fake-token"


@dataclass
class Behaviour:
    stall: float = 0.0  # seconds the start request hangs before the hub answers
    lost: bool = False  # the stalled request never starts a spawn
    ready_after: float = 0.1  # seconds from spawn to ready
    failures: int = 0  # this many spawns fail first
    never_ready: bool = False  # pending forever


@dataclass
class _Server:
    spawned_at: float | None = None
    failed: str | None = None
    spawns: int = 0


@dataclass
class FakeHub:
    behaviours: dict[str, Behaviour] = field(default_factory=dict)
    users: set[str] = field(default_factory=set)
    servers: dict[str, _Server] = field(default_factory=dict)
    most_pending: int = 0  # the most spawns pending at the same time
    lock: threading.Lock = field(default_factory=threading.Lock)

    def behaviour(self, name: str) -> Behaviour:
        return self.behaviours.get(name, Behaviour())

    def state(self, name: str) -> tuple[bool, bool]:
        """(ready, pending) of `name`'s server, failing a spawn when its time comes."""
        server = self.servers.get(name)
        if server is None or server.spawned_at is None:
            return False, False
        behaviour = self.behaviour(name)
        if time.monotonic() - server.spawned_at < behaviour.ready_after or behaviour.never_ready:
            return False, True
        if server.spawns <= behaviour.failures:
            server.spawned_at, server.failed = None, "Server didn't respond in 120 seconds"
            return False, False
        return True, False

    def spawn(self, name: str) -> int:
        with self.lock:
            server = self.servers.setdefault(name, _Server())
            ready, pending = self.state(name)
            if ready:
                return 400
            if not pending:
                server.spawned_at, server.failed = time.monotonic(), None
                server.spawns += 1
            self.most_pending = max(
                self.most_pending, sum(1 for n in self.servers if self.state(n)[1])
            )
            return 202


def _handler(hub: FakeHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def answer(self, status: int, body: object = None, *, raw: bytes | None = None) -> None:
            data = raw if raw is not None else (b"" if body is None else json.dumps(body).encode())
            self.send_response(status)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def parts(self) -> list[str] | None:
            if self.headers.get("Authorization") != f"token {TOKEN}":
                self.answer(403, {"status": 403, "message": "forbidden"})
                return None
            return self.path.removeprefix("/hub/api/").split("/")

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            parts = self.parts()
            if parts is None:
                return
            name = parts[1]
            if name not in hub.users:
                return self.answer(404, {"status": 404, "message": "no such user"})
            with hub.lock:
                ready, pending = hub.state(name)
                failed = hub.servers.get(name, _Server()).failed
            if parts[2:] == ["server", "progress"]:
                if failed is None:
                    return self.answer(400, {"status": 400, "message": "not starting"})
                event = {"progress": 100, "failed": True, "message": f"Spawn failed: {failed}"}
                return self.answer(200, raw=f"data: {json.dumps(event)}\n\n".encode())
            active = ready or pending
            servers = {"": {"ready": ready, "pending": "spawn" if pending else None}}
            self.answer(200, {"name": name, "servers": servers if active else {}})

        def do_POST(self) -> None:  # noqa: N802
            parts = self.parts()
            if parts is None:
                return
            name = parts[1]
            if parts[2:] != ["server"]:
                hub.users.add(name)
                return self.answer(201, {"name": name})
            behaviour = hub.behaviour(name)
            if behaviour.stall:
                time.sleep(behaviour.stall)
                if behaviour.lost:
                    behaviour.stall, behaviour.lost = 0.0, False  # the next request works
                    return self.answer(500, {"status": 500, "message": "lost"})
                behaviour.stall = 0.0
            status = hub.spawn(name)
            message = "already running" if status == 400 else ""
            self.answer(status, {"status": status, "message": message})

    return Handler


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a client that gave up (timed out) before the answer: what the test is about


class RunningFakeHub:
    """``with RunningFakeHub(FakeHub(...)) as (url, hub):`` serves it on a free port."""

    def __init__(self, hub: FakeHub) -> None:
        self.hub = hub
        self.server = _QuietServer(("127.0.0.1", 0), _handler(hub))
        self.server.daemon_threads = True

    def __enter__(self) -> tuple[str, FakeHub]:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.server.server_address[1]}", self.hub

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
