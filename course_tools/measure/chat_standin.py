"""The OpenAI Chat Completions stand-in (see `standin`): Qwen Code, opencode, Kilo, Copilot,
Cline and Continue talk to it.

It answers ``POST .../chat/completions`` (streamed as ``chat.completion.chunk`` events ending in
``data: [DONE]``, or as one JSON object when the request does not stream) and ``GET .../models``.
The key (the measurement's secret) comes as ``Authorization: Bearer``.

Two things some clients add, both handled here:

* **Deferred tools** (Qwen Code): MCP tools are not declared up front; the model first calls
  ``tool_search`` with ``select:NAME``, then calls the tool through ``tool_call`` ``{name,
  arguments}`` (or directly, once it is declared). A tool counts as offered once a search
  found it (its name is in the search's result) or it is declared.
* **A safety classifier** (Qwen Code's ``auto`` mode): a request whose only tool is
  ``respond_in_schema``. It is answered with that tool called with ``shouldBlock`` set as the
  script says, and logged as a classifier event.

Introduced in: docs/measure.md.
"""

from __future__ import annotations

import json
import time
from typing import Any

from .standin import FINAL_TEXT, StandIn, sse

__all__ = ["ChatStandIn"]

SEARCH, CALL, CLASSIFIER = "tool_search", "tool_call", "respond_in_schema"


def _declared(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    found = {}
    for tool in body.get("tools") or []:
        if isinstance(tool, dict) and isinstance(tool.get("function"), dict):
            function = tool["function"]
            if function.get("name"):
                found[str(function["name"])] = function
    return found


def _text(content: Any) -> str:
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content or "")


def _arguments(call: dict[str, Any]) -> dict[str, Any]:
    try:
        value = json.loads(call.get("function", {}).get("arguments") or "{}")
    except (json.JSONDecodeError, TypeError):
        return {}
    return value if isinstance(value, dict) else {}


class ChatStandIn(StandIn):
    """OpenAI chat completions, with deferred tools and a schema-bound classifier."""

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, str, bytes]:
        route = path.split("?", 1)[0].rstrip("/")
        if not route.endswith("/chat/completions"):
            self.add_event(kind="http", method="POST", path=path[:200])
            return 404, "application/json", b'{"error": {"message": "not found"}}'
        declared = _declared(body)
        if CLASSIFIER in declared:
            return self._classifier(body, declared[CLASSIFIER])
        if not declared:
            self.add_event(kind="side", stream=bool(body.get("stream")))
            return self._reply(body, FINAL_TEXT, [])
        called, searched = self._conversation(body)
        offered = {self.planned(name) for name in declared} | searched
        self.add_event(kind="turn", offered=sorted(offered))
        if SEARCH in declared:  # deferred tools: find every planned one first, in order
            done = offered | self._searched_for(body)
            unsearched = [t for group in self.script.turns for t in group if t not in done]
            if unsearched:
                return self._reply(body, "", [self._search_call(unsearched[0])])
        turn = self.next_turn(offered, called)
        calls = []
        for planned in turn:
            call_id = self.new_id("call_standin")
            wire = self.wire(planned, declared)
            if wire in declared or CALL not in declared:
                calls.append(self._call(call_id, wire, self.script.arguments))
            else:
                calls.append(
                    self._call(call_id, CALL, {"name": wire, "arguments": self.script.arguments})
                )
            self.add_event(kind="tool_use", tool=planned, tool_use_id=call_id)
        return self._reply(body, FINAL_TEXT if not calls else "", calls)

    def _conversation(self, body: dict[str, Any]) -> tuple[set[str], set[str]]:
        """(planned tools already called, planned tools a search found); logs each result."""
        called: set[str] = set()
        searched: set[str] = set()
        search_ids: dict[str, str] = {}
        for message in body.get("messages") or []:
            if not isinstance(message, dict):
                continue
            for call in message.get("tool_calls") or []:
                if not isinstance(call, dict):
                    continue
                name = str(call.get("function", {}).get("name"))
                arguments = _arguments(call)
                if name == SEARCH:
                    query = str(arguments.get("query", ""))
                    search_ids[str(call.get("id"))] = query.removeprefix("select:")
                elif name == CALL:
                    called.add(self.planned(str(arguments.get("name"))))
                else:
                    called.add(self.planned(name))
            if message.get("role") == "tool":
                call_id = str(message.get("tool_call_id"))
                text = _text(message.get("content"))
                if call_id in search_ids:
                    wire = search_ids[call_id]
                    if wire and wire in text:
                        searched.add(self.planned(wire))
                else:
                    self.add_result(call_id, text)
        return called, searched

    def _searched_for(self, body: dict[str, Any]) -> set[str]:
        """The planned tools the model already searched for (found or not)."""
        found = set()
        for message in body.get("messages") or []:
            if isinstance(message, dict):
                for call in message.get("tool_calls") or []:
                    if isinstance(call, dict) and call.get("function", {}).get("name") == SEARCH:
                        query = str(_arguments(call).get("query", ""))
                        found.add(self.planned(query.removeprefix("select:")))
        return found

    def _search_call(self, planned: str) -> dict[str, Any]:
        call_id = self.new_id("call_search")
        self.add_event(kind="search", tool=planned, tool_use_id=call_id)
        return self._call(call_id, SEARCH, {"query": f"select:{self.wire(planned)}"})

    def _classifier(self, body: dict[str, Any], function: dict[str, Any]) -> tuple[int, str, bytes]:
        refuse = self.script.classifier == "refuse"
        self.add_event(kind="classifier", answer=self.script.classifier)
        schema = function.get("parameters") or {}
        properties = schema.get("properties") or {}
        arguments: dict[str, Any] = {}
        for name, spec in properties.items():
            kind = spec.get("type") if isinstance(spec, dict) else None
            if kind == "boolean":
                arguments[name] = refuse if "block" in name.lower() else not refuse
            elif kind == "string":
                arguments[name] = "stand-in refusal" if refuse else "stand-in"
        return self._reply(
            body, "", [self._call(self.new_id("call_classifier"), CLASSIFIER, arguments)]
        )

    @staticmethod
    def _call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)},
        }

    def _reply(
        self, body: dict[str, Any], text: str, calls: list[dict[str, Any]]
    ) -> tuple[int, str, bytes]:
        model = str(body.get("model", "stand-in"))
        finish = "tool_calls" if calls else "stop"
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        base = {"id": self.new_id("chatcmpl-standin"), "created": int(time.time()), "model": model}
        if not body.get("stream"):
            message: dict[str, Any] = {"role": "assistant", "content": text or None}
            if calls:
                message["tool_calls"] = calls
            choice = {"index": 0, "message": message, "finish_reason": finish}
            answer = {**base, "object": "chat.completion", "choices": [choice], "usage": usage}
            return 200, "application/json", json.dumps(answer).encode()
        delta: dict[str, Any] = {"role": "assistant", "content": text or ""}
        if calls:
            delta["tool_calls"] = [{"index": i, **call} for i, call in enumerate(calls)]
        chunk = {**base, "object": "chat.completion.chunk"}
        first = {**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
        last = {
            **chunk,
            "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
            "usage": usage,
        }
        payload = sse([(None, first), (None, last)]) + b"data: [DONE]\n\n"
        return 200, "text/event-stream", payload

    def get(self, path: str) -> tuple[int, str, bytes]:
        """``GET .../models`` lists one model, the stand-in; anything else is 404."""
        if not path.split("?", 1)[0].rstrip("/").endswith("/models"):
            return super().get(path)
        data = [{"id": "stand-in", "object": "model", "created": 0, "owned_by": "stand-in"}]
        return 200, "application/json", json.dumps({"object": "list", "data": data}).encode()
