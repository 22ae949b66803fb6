"""The OpenAI Responses API stand-in that the Codex CLI talks to (see `standin`).

Introduced in: docs/measure.md.
"""

from __future__ import annotations

import json
from typing import Any

from .standin import FINAL_TEXT, StandIn, sse

__all__ = ["ResponsesStandIn"]


class ResponsesStandIn(StandIn):
    """The Responses API as Codex uses it (streaming ``POST /v1/responses``).

    Codex offers MCP tools inside a ``namespace`` tool; a call names the namespace and the
    tool. The planned tool names here are the full ``mcp__server__tool`` names.
    """

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, str, bytes]:
        if not path.rstrip("/").endswith("/responses"):
            self.add_event(kind="http", method="POST", path=path)
            return 404, "application/json", b'{"error": {"message": "not found"}}'
        offered = _openai_tool_names(body.get("tools") or [])
        called: set[str] = set()
        for item in body.get("input") or []:
            if not isinstance(item, dict):
                continue
            if item.get("type") == "function_call":
                called.add(_openai_call_name(item))
            elif item.get("type") == "function_call_output":
                self.add_result(str(item.get("call_id")), json.dumps(item.get("output")))
        self.add_event(kind="turn", offered=sorted(offered))
        turn = self.next_turn(set(offered), called)
        response_id = self.new_id("resp_standin")
        items: list[dict[str, Any]] = []
        for name in turn:
            call_id = self.new_id("call_standin")
            namespace, tool = offered[name]
            call: dict[str, Any] = {
                "type": "function_call",
                "id": self.new_id("fc_standin"),
                "call_id": call_id,
                "name": tool,
                "arguments": json.dumps(
                    {"seconds": self.script.seconds} if self.script.seconds else {}
                ),
            }
            if namespace:
                call["namespace"] = namespace
            items.append(call)
            self.add_event(kind="tool_use", tool=name, tool_use_id=call_id)
        if not items:
            items.append(
                {
                    "type": "message",
                    "id": self.new_id("msg_standin"),
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": FINAL_TEXT, "annotations": []}],
                }
            )
        events: list[tuple[str, dict[str, Any]]] = [
            ("response.created", {"type": "response.created", "response": {"id": response_id}}),
        ]
        for index, item in enumerate(items):
            events.append(
                (
                    "response.output_item.added",
                    {"type": "response.output_item.added", "output_index": index, "item": item},
                )
            )
            events.append(
                (
                    "response.output_item.done",
                    {"type": "response.output_item.done", "output_index": index, "item": item},
                )
            )
        usage = {
            "input_tokens": 1,
            "input_tokens_details": None,
            "output_tokens": 1,
            "output_tokens_details": None,
            "total_tokens": 2,
        }
        events.append(
            (
                "response.completed",
                {
                    "type": "response.completed",
                    "response": {"id": response_id, "usage": usage, "output": items},
                },
            )
        )
        return 200, "text/event-stream", sse(events)


def _openai_tool_names(tools: list[Any]) -> dict[str, tuple[str, str]]:
    """Map each offered MCP tool's full name (``mcp__server__tool``) to (namespace, tool name)."""
    offered: dict[str, tuple[str, str]] = {}
    for tool in tools:
        if not isinstance(tool, dict):
            continue
        if tool.get("type") == "namespace":
            namespace = str(tool.get("name", ""))
            for inner in tool.get("tools") or []:
                if isinstance(inner, dict) and inner.get("name"):
                    full = _join(namespace, str(inner["name"]))
                    offered[full] = (namespace, str(inner["name"]))
        elif tool.get("name"):
            offered[str(tool["name"])] = ("", str(tool["name"]))
    return offered


def _join(namespace: str, name: str) -> str:
    if not namespace:
        return name
    return f"{namespace}{name}" if namespace.endswith("__") else f"{namespace}__{name}"


def _openai_call_name(item: dict[str, Any]) -> str:
    return _join(str(item.get("namespace") or ""), str(item.get("name", "")))
