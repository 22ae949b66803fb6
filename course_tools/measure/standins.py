"""Stand-ins for the model APIs: scripted HTTP endpoints on 127.0.0.1 that a real CLI talks to.

A measured CLI believes it talks to its vendor's model. It talks to one of these instead:

* `AnthropicStandIn` speaks the streaming Messages API (``POST /v1/messages``, server-sent
  events) that Claude Code uses, and answers the non-streaming request of Claude Code's
  auto-mode safety classifier (stop sequence ``</block>``) by approving or refusing, as scripted;
* `OpenAIStandIn` speaks the streaming Responses API (``POST /v1/responses``) that Codex uses.

The "model" follows a `Script`: call each planned tool in turn, one per turn (or a group of
tools in one turn, to see whether the client runs them concurrently), then finish with text.
It decides from the conversation it is sent, never from state of its own, so a retried request
gets the same answer. Every request is logged (`events`), so a measurement is classified from
these logs and the MCP servers' logs, never from text a model wrote.

Both bind 127.0.0.1 and a free port only; nothing here opens any other connection. The OpenAI
one lives in `openai_standin`.

Introduced in: README.md, section "Measure a real client".
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["AnthropicStandIn", "Script"]

MAX_BODY_BYTES = 50_000_000
FINAL_TEXT = "Measurement finished."


@dataclass(frozen=True)
class Script:
    """What the stand-in model does.

    `turns`: groups of tool names; each group is emitted in one assistant turn (a group of
    two asks the client for two calls at once). A tool the client does not offer is skipped
    and logged as not offered. `classifier`: ``"approve"`` or ``"refuse"``, the answer to
    every auto-mode classifier request. `seconds`: passed to each tool (it waits that long).
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


@dataclass
class _Log:
    events: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, **event: Any) -> None:
        with self.lock:
            self.events.append({"t": time.time(), **event})


class _StandIn:
    """An HTTP server on 127.0.0.1 in a background thread, started and stopped as a context."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self._log = _Log()
        self._ids = 0
        self._id_lock = threading.Lock()
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass  # the CLI's requests are logged as events, not printed

            def do_GET(self) -> None:  # noqa: N802
                stand_in._log.add(kind="http", method="GET", path=self.path)
                self._send(404, "application/json", b'{"error": "not found"}')

            def do_HEAD(self) -> None:  # noqa: N802
                self._send(404, "application/json", b"")

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                if length > MAX_BODY_BYTES:
                    self._send(413, "application/json", b'{"error": "too large"}')
                    return
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    self._send(400, "application/json", b'{"error": "not JSON"}')
                    return
                status, content_type, payload = stand_in.answer(self.path, body)
                self._send(status, content_type, payload)

            def _send(self, status: int, content_type: str, payload: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(payload)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        port = self._server.server_address[1]
        return f"http://127.0.0.1:{port}"

    @property
    def events(self) -> list[dict[str, Any]]:
        with self._log.lock:
            return list(self._log.events)

    def _new_id(self, prefix: str) -> str:
        with self._id_lock:
            self._ids += 1
            return f"{prefix}{self._ids:04d}"

    def _next_turn(self, offered: set[str], called: set[str]) -> tuple[str, ...]:
        """The first scripted turn with an offered tool not yet called; () when all are done."""
        for turn in self.script.turns:
            todo = tuple(t for t in turn if t in offered and t not in called)
            if todo:
                return todo
        return ()

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, str, bytes]:
        raise NotImplementedError

    def __enter__(self) -> _StandIn:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def _is_classifier(body: dict[str, Any]) -> bool:
    """Is this plain request Claude Code's auto-mode classifier (either known format)?"""
    if "</block>" in (body.get("stop_sequences") or []):
        return True
    return "<transcript>" in json.dumps(body.get("messages"))


def _sse(events: list[tuple[str, dict[str, Any]]]) -> bytes:
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events).encode()


class AnthropicStandIn(_StandIn):
    """The Messages API as Claude Code uses it (streaming, plus the classifier's plain request)."""

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, str, bytes]:
        if not path.startswith("/v1/messages") or path.startswith("/v1/messages/count_tokens"):
            self._log.add(kind="http", method="POST", path=path)
            return (
                404,
                "application/json",
                b'{"type": "error", "error": {"type": "not_found_error"}}',
            )
        model = str(body.get("model", "stand-in"))
        if not body.get("stream") and _is_classifier(body):
            return self._classifier(body, model)
        tools = {t.get("name", "") for t in body.get("tools") or [] if isinstance(t, dict)}
        if not body.get("stream"):
            self._log.add(kind="side", stream=False)
            return (
                200,
                "application/json",
                json.dumps(
                    self._message(model, [{"type": "text", "text": "ok"}], "end_turn")
                ).encode(),
            )
        if not tools:
            self._log.add(kind="side", stream=True)
            return (
                200,
                "text/event-stream",
                _sse(self._stream(model, [{"type": "text", "text": "ok"}], "end_turn")),
            )
        called: set[str] = set()
        for message in body.get("messages") or []:
            content = message.get("content")
            if not isinstance(content, list):
                continue
            for block in content:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "tool_use":
                    called.add(str(block.get("name")))
                elif block.get("type") == "tool_result":
                    text = block.get("content")
                    if isinstance(text, list):
                        text = " ".join(str(b.get("text", "")) for b in text if isinstance(b, dict))
                    self._log.add(
                        kind="result",
                        tool_use_id=block.get("tool_use_id"),
                        is_error=bool(block.get("is_error")),
                        text=str(text)[:500],
                    )
        self._log.add(kind="turn", offered=sorted(tools), tool_search="ToolSearch" in tools)
        turn = self._next_turn(tools, called)
        if not turn:
            return (
                200,
                "text/event-stream",
                _sse(self._stream(model, [{"type": "text", "text": FINAL_TEXT}], "end_turn")),
            )
        blocks = []
        for name in turn:
            tool_use_id = self._new_id("toolu_standin")
            arguments = {"seconds": self.script.seconds} if self.script.seconds else {}
            blocks.append({"type": "tool_use", "id": tool_use_id, "name": name, "input": arguments})
            self._log.add(kind="tool_use", tool=name, tool_use_id=tool_use_id)
        return 200, "text/event-stream", _sse(self._stream(model, blocks, "tool_use"))

    def _classifier(self, body: dict[str, Any], model: str) -> tuple[int, str, bytes]:
        """Answer the auto-mode classifier in the format its request asks for.

        2.1.197 asks for ``<block>yes|no`` and stops at ``</block>``; 2.1.332 asks for a
        harm grade ``<severity>N</severity>``, below 50 meaning allow.
        """
        approve = self.script.classifier == "approve"
        stops = body.get("stop_sequences") or []
        self._log.add(kind="classifier", answer=self.script.classifier, stop_sequences=stops)
        if "<severity>" in json.dumps(body.get("messages")):
            text = (
                "<severity>5</severity>"
                if approve
                else "<severity>95</severity><category>Stand-in refusal</category>"
            )
            return (
                200,
                "application/json",
                json.dumps(
                    self._message(model, [{"type": "text", "text": text}], "end_turn")
                ).encode(),
            )
        text = (
            "<block>no" if approve else "<block>yes"
        )  # the stop sequence itself is not part of the text
        message = self._message(model, [{"type": "text", "text": text}], "stop_sequence")
        message["stop_sequence"] = "</block>"
        return 200, "application/json", json.dumps(message).encode()

    def _message(self, model: str, content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
        return {
            "id": self._new_id("msg_standin"),
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }

    def _stream(
        self, model: str, blocks: list[dict[str, Any]], stop: str
    ) -> list[tuple[str, dict[str, Any]]]:
        start = self._message(model, [], stop)
        start["stop_reason"] = None
        events: list[tuple[str, dict[str, Any]]] = [
            ("message_start", {"type": "message_start", "message": start})
        ]
        for index, block in enumerate(blocks):
            if block["type"] == "text":
                events += [
                    (
                        "content_block_start",
                        {
                            "type": "content_block_start",
                            "index": index,
                            "content_block": {"type": "text", "text": ""},
                        },
                    ),
                    (
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": index,
                            "delta": {"type": "text_delta", "text": block["text"]},
                        },
                    ),
                ]
            else:
                opening = {**block, "input": {}}
                events += [
                    (
                        "content_block_start",
                        {"type": "content_block_start", "index": index, "content_block": opening},
                    ),
                    (
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": index,
                            "delta": {
                                "type": "input_json_delta",
                                "partial_json": json.dumps(block["input"]),
                            },
                        },
                    ),
                ]
            events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        events += [
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": 1},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
        return events
