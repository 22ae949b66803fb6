"""Stand-ins for the model APIs: scripted HTTP endpoints on 127.0.0.1 that a real CLI talks to.

A measured CLI believes it talks to its vendor's model. It talks to a `StandIn` instead, one
per wire format: `AnthropicStandIn` (Claude Code), `ResponsesStandIn` (Codex),
`ChatStandIn` (OpenAI chat completions: Qwen Code, opencode, Kilo, Copilot, Cline, Continue)
and `GeminiStandIn` (Gemini CLI), each in its own module.

The "model" follows a `Script`: call each planned tool in turn, one per turn (or a group of
tools in one turn, to see whether the client runs them concurrently), then finish with text.
It decides from the conversation it is sent, never from state of its own, so a retried request
gets the same answer. Every request is logged (`events`), so a measurement is classified from
these logs and the MCP servers' logs, never from text a model wrote.

Every request must carry the measurement's secret as the API key the CLI was given
(``x-api-key``, ``Authorization: Bearer``, ``x-goog-api-key`` or ``?key=``); any other request
gets 401 and is logged as ``forged``, never as a turn. Each binds 127.0.0.1 and a free port
only; nothing here opens any other connection.

Introduced in: docs/measure.md.
"""

from __future__ import annotations

import hmac
import json
import threading
import time
import urllib.parse
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar

__all__ = ["FINAL_TEXT", "MAX_BODY_BYTES", "Script", "StandIn", "sse"]

MAX_BODY_BYTES = 50_000_000
FINAL_TEXT = "Measurement finished."
_KEY_HEADERS = ("x-api-key", "x-goog-api-key", "api-key")
_S = TypeVar("_S", bound="StandIn")


@dataclass(frozen=True)
class Script:
    """What the stand-in model does.

    `turns`: groups of tool names (``mcp__server__tool``); each group is emitted in one
    assistant turn (a group of two asks the client for two calls at once). A tool the client
    does not offer is skipped and logged as not offered. `classifier`: ``"approve"`` or
    ``"refuse"``, the answer to every safety-classifier request. `seconds`: passed to each tool
    (it waits that long).
    """

    turns: tuple[tuple[str, ...], ...]
    classifier: str = "approve"
    seconds: float = 0.0

    def __post_init__(self) -> None:
        if self.classifier not in {"approve", "refuse"}:
            raise ValueError(f"classifier must be 'approve' or 'refuse', not {self.classifier!r}")

    @classmethod
    def one_per_turn(cls, tools: Sequence[str], **kwargs: Any) -> Script:
        return cls(turns=tuple((t,) for t in tools), **kwargs)

    @property
    def arguments(self) -> dict[str, Any]:
        """The arguments every scripted call sends."""
        return {"seconds": self.seconds} if self.seconds else {}


@dataclass
class _Log:
    events: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, **event: Any) -> None:
        with self.lock:
            self.events.append({"t": time.time(), **event})


def sse(events: Sequence[tuple[str | None, Mapping[str, Any]]]) -> bytes:
    """Server-sent events: ``event: NAME`` (when named) and one ``data:`` JSON line each."""
    parts = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        parts.append(f"{head}data: {json.dumps(data)}\n\n")
    return "".join(parts).encode()


class StandIn:
    """An HTTP server on 127.0.0.1 in a background thread, started and stopped as a context.

    Subclasses implement `answer(path, body)`. `wire_names` maps the name a client offers a
    tool under (``mcp_profiles_delete``...) to its planned name (``mcp__profiles__delete``);
    names not in it are taken as they are.
    """

    def __init__(
        self, script: Script, *, token: str, wire_names: Mapping[str, str] | None = None
    ) -> None:
        if len(token) < 16:
            raise ValueError("a stand-in needs the measurement's secret (at least 16 characters)")
        self.script = script
        self.wire_names = dict(wire_names or {})
        self._token = token.encode()
        self._log = _Log()
        self._ids = 0
        self._results: set[str] = set()
        self._id_lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass  # the CLI's requests are logged as events, not printed

            def do_GET(self) -> None:  # noqa: N802
                if stand_in.authorised(self):
                    stand_in._log.add(kind="http", method="GET", path=self.path[:200])
                    self.send(*stand_in.get(self.path))

            def do_HEAD(self) -> None:  # noqa: N802
                self.send(404, "application/json", b"")

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                if length > MAX_BODY_BYTES:
                    self.send(413, "application/json", b'{"error": "too large"}')
                    return
                raw = self.rfile.read(length)
                if not stand_in.authorised(self):
                    return
                try:
                    body = json.loads(raw or b"{}")
                except (json.JSONDecodeError, RecursionError):
                    self.send(400, "application/json", b'{"error": "not JSON"}')
                    return
                if not isinstance(body, dict):
                    self.send(400, "application/json", b'{"error": "not a JSON object"}')
                    return
                status, content_type, payload = stand_in.answer(self.path, body)
                self.send(status, content_type, payload)

            def send(self, status: int, content_type: str, payload: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(payload)

        return Handler

    def authorised(self, request: Any) -> bool:
        """Does the request carry the secret? If not, answer 401 and log it as forged."""
        given = [str(request.headers.get(h) or "") for h in _KEY_HEADERS]
        bearer = str(request.headers.get("Authorization") or "")
        given.append(bearer[len("Bearer ") :] if bearer.startswith("Bearer ") else "")
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(request.path).query)
        given += query.get("key", [])
        if any(hmac.compare_digest(g.encode(), self._token) for g in given if g):
            return True
        self._log.add(kind="forged", method=request.command, path=request.path[:120])
        request.send(401, "application/json", b'{"error": {"message": "invalid API key"}}')
        return False

    @property
    def url(self) -> str:
        port = self._server.server_address[1]
        return f"http://127.0.0.1:{port}"

    @property
    def events(self) -> list[dict[str, Any]]:
        with self._log.lock:
            return list(self._log.events)

    def add_event(self, **event: Any) -> None:
        self._log.add(**event)

    def add_result(self, tool_use_id: str, text: str) -> None:
        """Log the result the model was sent for call `tool_use_id` (once, however often resent)."""
        with self._id_lock:
            if tool_use_id in self._results:
                return
            self._results.add(tool_use_id)
        self._log.add(kind="result", tool_use_id=tool_use_id, text=text[:500])

    def new_id(self, prefix: str) -> str:
        with self._id_lock:
            self._ids += 1
            return f"{prefix}{self._ids:04d}"

    def planned(self, wire: str) -> str:
        """The planned name (``mcp__server__tool``) of a tool offered as `wire`."""
        return self.wire_names.get(wire, wire)

    def wire(self, planned: str, offered: Collection[str] = ()) -> str:
        """The name to call planned tool `planned` by: the one it is offered under, if given."""
        for name in offered:
            if self.planned(name) == planned:
                return name
        for wire, name in self.wire_names.items():
            if name == planned:
                return wire
        return planned

    def next_turn(self, offered: set[str], called: set[str]) -> tuple[str, ...]:
        """The first scripted turn with an offered tool not yet called; () when all are done.

        `offered` and `called` hold planned names.
        """
        for turn in self.script.turns:
            todo = tuple(t for t in turn if t in offered and t not in called)
            if todo:
                return todo
        return ()

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, str, bytes]:
        raise NotImplementedError

    def get(self, path: str) -> tuple[int, str, bytes]:
        """The answer to a GET (404 unless a subclass knows the path)."""
        return 404, "application/json", b'{"error": "not found"}'

    def __enter__(self: _S) -> _S:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
