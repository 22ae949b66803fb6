"""The Anthropic Messages API stand-in that Claude Code talks to (see `standin`).

It answers streaming ``POST /v1/messages`` with server-sent events, and the non-streaming
request of Claude Code's auto-mode safety classifier (stop sequence ``</block>``, or a harm
``<severity>`` grade) by approving or refusing, as scripted. Claude Code sends the API key
(the measurement's secret) as ``x-api-key``.

Introduced in: docs/measure.md.
"""

from __future__ import annotations

import json
from typing import Any

from .standin import FINAL_TEXT, StandIn, sse

__all__ = ["AnthropicStandIn"]


def _is_classifier(body: dict[str, Any]) -> bool:
    """Is this plain request Claude Code's auto-mode classifier (either known format)?"""
    if "</block>" in (body.get("stop_sequences") or []):
        return True
    return "<transcript>" in json.dumps(body.get("messages"))


class AnthropicStandIn(StandIn):
    """The Messages API as Claude Code uses it (streaming, plus the classifier's plain request)."""

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, str, bytes]:
        if not path.startswith("/v1/messages") or path.startswith("/v1/messages/count_tokens"):
            self.add_event(kind="http", method="POST", path=path)
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
            self.add_event(kind="side", stream=False)
            return (
                200,
                "application/json",
                json.dumps(
                    self._message(model, [{"type": "text", "text": "ok"}], "end_turn")
                ).encode(),
            )
        if not tools:
            self.add_event(kind="side", stream=True)
            return (
                200,
                "text/event-stream",
                sse(self._stream(model, [{"type": "text", "text": "ok"}], "end_turn")),
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
                    self.add_event(
                        kind="result",
                        tool_use_id=block.get("tool_use_id"),
                        is_error=bool(block.get("is_error")),
                        text=str(text)[:500],
                    )
        self.add_event(kind="turn", offered=sorted(tools), tool_search="ToolSearch" in tools)
        turn = self.next_turn(tools, called)
        if not turn:
            return (
                200,
                "text/event-stream",
                sse(self._stream(model, [{"type": "text", "text": FINAL_TEXT}], "end_turn")),
            )
        blocks = []
        for name in turn:
            tool_use_id = self.new_id("toolu_standin")
            arguments = {"seconds": self.script.seconds} if self.script.seconds else {}
            blocks.append({"type": "tool_use", "id": tool_use_id, "name": name, "input": arguments})
            self.add_event(kind="tool_use", tool=name, tool_use_id=tool_use_id)
        return 200, "text/event-stream", sse(self._stream(model, blocks, "tool_use"))

    def _classifier(self, body: dict[str, Any], model: str) -> tuple[int, str, bytes]:
        """Answer the auto-mode classifier in the format its request asks for.

        2.1.197 asks for ``<block>yes|no`` and stops at ``</block>``; 2.1.332 asks for a
        harm grade ``<severity>N</severity>``, below 50 meaning allow.
        """
        approve = self.script.classifier == "approve"
        stops = body.get("stop_sequences") or []
        self.add_event(kind="classifier", answer=self.script.classifier, stop_sequences=stops)
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
            "id": self.new_id("msg_standin"),
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
