"""Classify each planned call of one run from the logs: RAN, ASK, ASK-H, DENY or HIDDEN.

From the servers' and the stand-in's own logs, never from model text:

* not among the tools the stand-in model was offered -> `HIDDEN`;
* the gate (the permission-prompt tool) logged a question about it -> `ASK`;
* the measurement server logged that it ran, no question asked -> `RAN`;
* the result sent back to the model, or a line the CLI printed about the tool, says it would
  have asked but cannot in a headless run (the adapter's `headless_phrases`) -> `ASK_HEADLESS`;
* otherwise (the client refused it) -> `DENY`.

A call a safety classifier judged (a classifier request reached the stand-in between the call
and its result) carries the classifier's scripted answer.

Introduced in: docs/clients.md (how to read the cells).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from course_lib.decisions import Outcome
from course_lib.measured import Result

from .adapter import CliRun

__all__ = ["attempted", "classify", "short_name"]


def short_name(tool: str) -> str:
    return tool.split("__", 2)[2]


def _results_by_tool(run: CliRun) -> dict[str, list[str]]:
    """The text of every result the model was sent, by the planned tool it answers."""
    tool_of = {e.get("tool_use_id"): e["tool"] for e in run.events if e["kind"] == "tool_use"}
    texts: dict[str, list[str]] = {}
    for event in run.events:
        if event["kind"] == "result" and event.get("tool_use_id") in tool_of:
            texts.setdefault(tool_of[event["tool_use_id"]], []).append(str(event.get("text", "")))
    return texts


def _output_about(output: str, short: str) -> str:
    """The CLI's output lines that name tool `short` (``profiles_append``, not ``append_x``)."""
    named = re.compile(rf"(?<![a-z0-9]){re.escape(short.lower())}(?![a-z0-9_])")
    return " ".join(line for line in output.splitlines() if named.search(line))


def attempted(run: CliRun) -> set[str]:
    return {e["tool"] for e in run.events if e["kind"] == "tool_use"}


def classify(
    run: CliRun, tools: Sequence[str], headless_phrases: Sequence[str] = ()
) -> dict[str, Result]:
    """Classify each planned tool's call from the stand-in's events and the servers' call log."""
    offered: set[str] = set()
    for event in run.events:
        if event["kind"] == "turn":
            offered.update(event["offered"])
    asked = {c["tool_name"] for c in run.calls if c["event"] == "asked"}
    ran = {f"mcp__{c['server']}__{c['tool']}" for c in run.calls if c["event"] == "start"}
    answers = _results_by_tool(run)
    output = run.finished.tail(200_000).lower() if run.finished else ""
    judged: dict[str, str] = {}
    pending: list[str] = []
    for event in run.events:
        if event["kind"] == "tool_use":
            pending.append(event["tool"])
        elif event["kind"] == "classifier" and pending:
            judged[pending[-1]] = event["answer"]
        elif event["kind"] == "turn":
            pending = []
    results = {}
    for tool in tools:
        short = tool.split("__", 2)[2]
        said = " ".join(answers.get(tool, [])).lower() + " " + _output_about(output, short)
        if tool not in offered:
            outcome = Outcome.HIDDEN
        elif tool in asked:
            outcome = Outcome.ASK
        elif tool in ran:
            outcome = Outcome.RAN
        elif any(phrase.lower() in said for phrase in headless_phrases):
            outcome = Outcome.ASK_HEADLESS
        else:
            outcome = Outcome.DENY
        results[short] = Result(outcome, judged.get(tool))
    return results
