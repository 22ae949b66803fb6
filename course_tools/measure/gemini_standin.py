"""The Gemini API stand-in that Gemini CLI talks to (see `standin`).

It answers ``POST /v1beta/models/MODEL:streamGenerateContent?alt=sse`` (the turn, streamed)
and ``:generateContent`` (the model router's side call, and any other plain request) in the
``generativelanguage`` format: ``contents`` of ``parts`` holding ``text``, ``functionCall`` and
``functionResponse``; tools as ``functionDeclarations``. Gemini CLI sends the API key (the
measurement's secret) as ``x-goog-api-key``.

Introduced in: docs/measure.md.
"""

from __future__ import annotations

import json
from typing import Any

from .standin import FINAL_TEXT, StandIn, sse

__all__ = ["GeminiStandIn"]

_USAGE = {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}


def _declared(body: dict[str, Any]) -> list[str]:
    names = []
    for tool in body.get("tools") or []:
        if isinstance(tool, dict):
            for function in tool.get("functionDeclarations") or []:
                if isinstance(function, dict) and function.get("name"):
                    names.append(str(function["name"]))
    return names


def _candidate(parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": _USAGE,
    }


class GeminiStandIn(StandIn):
    """The Gemini API as Gemini CLI uses it (streamed turns, plain side calls)."""

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, str, bytes]:
        route = path.split("?", 1)[0]
        if ":streamGenerateContent" not in route and ":generateContent" not in route:
            self.add_event(kind="http", method="POST", path=path[:200])
            return 404, "application/json", b'{"error": {"code": 404, "message": "not found"}}'
        declared = _declared(body)
        if ":generateContent" in route or not declared:
            self.add_event(kind="side", path=route[:200])
            text = json.dumps(
                {
                    "reasoning": "stand-in",
                    "model_choice": "flash",
                    "complexity_reasoning": "stand-in",
                    "complexity_score": 1,
                }
            )
            payload = _candidate([{"text": text}])
            if ":generateContent" in route:
                return 200, "application/json", json.dumps(payload).encode()
            return 200, "text/event-stream", sse([(None, payload)])
        called = self._conversation(body)
        offered = {self.planned(name) for name in declared}
        self.add_event(kind="turn", offered=sorted(offered))
        turn = self.next_turn(offered, called)
        if not turn:
            return 200, "text/event-stream", sse([(None, _candidate([{"text": FINAL_TEXT}]))])
        parts = []
        for planned in turn:
            call_id = self.new_id("call_standin")
            call = {"name": self.wire(planned), "args": self.script.arguments, "id": call_id}
            parts.append({"functionCall": call})
            self.add_event(kind="tool_use", tool=planned, tool_use_id=call_id)
        return 200, "text/event-stream", sse([(None, _candidate(parts))])

    def _conversation(self, body: dict[str, Any]) -> set[str]:
        """The planned tools already called; logs each function response the model was sent."""
        called: set[str] = set()
        ids: dict[str, str] = {}
        for content in body.get("contents") or []:
            if not isinstance(content, dict):
                continue
            for part in content.get("parts") or []:
                if not isinstance(part, dict):
                    continue
                if isinstance(part.get("functionCall"), dict):
                    call = part["functionCall"]
                    called.add(self.planned(str(call.get("name"))))
                    ids[str(call.get("name"))] = str(call.get("id", ""))
                elif isinstance(part.get("functionResponse"), dict):
                    response = part["functionResponse"]
                    name = str(response.get("name"))
                    call_id = str(response.get("id") or ids.get(name, ""))
                    self.add_result(call_id, json.dumps(response.get("response")))
        return called
