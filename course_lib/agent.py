"""A scripted agent: a deterministic stand-in for a prompt-injected model (no LLM, no API key).

`ScriptedAgent` works through a fixed plan of tool calls, the user's task. Like a model that
cannot tell the user's instructions from text inside tool output, it also obeys any sentence
of the form ``call `TOOL` with {JSON arguments}`` found in a result, right away, before
going on with its plan. ``{{TOOL}}`` inside those arguments (or the plan's) is replaced by
the text of that tool's latest result, as a model would copy it.

`open_session(servers)` connects one host to several servers (``async with``); the agent
asks a `course_lib.guard.SessionGuard` before each call, asks the user (an `Approver`, as the
`Host` does) when the verdict says so, and records every step in a `Transcript`.

Introduced in: notebooks/04_lethal_trifecta.ipynb
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
from mcp import Client
from mcp.types import CallToolResult, TextContent, Tool

from .annotations import display_title
from .approval import Approver, ConfirmationRequest, answer_text, decline_all
from .connection import connect
from .decisions import PreCall
from .guard import SessionGuard
from .trifecta import SessionReport, analyse_session

__all__ = [
    "HostSession",
    "ScriptedAgent",
    "Step",
    "StepRecord",
    "Transcript",
    "open_session",
    "result_text",
]

INSTRUCTION = re.compile(
    r"(?i:call) `(?P<tool>[A-Za-z0-9_\-]+)` with (?P<args>\{[^{}]*(?:\{\{[^{}]*\}\}[^{}]*)*\})"
)
"""What the agent obeys inside tool output: call `TOOL` with {JSON}."""

PLACEHOLDER = re.compile(r"\{\{([A-Za-z0-9_\-]+)\}\}")


def result_text(result: CallToolResult) -> str:
    """Return the text content of a tool result, joined (what a model would read)."""
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


@dataclass
class HostSession:
    """One host connected to several servers; routes each call to the server that has the tool."""

    clients: dict[str, Client]
    tools: dict[str, list[Tool]]
    _route: dict[str, str] = field(default_factory=dict)

    def server_of(self, name: str) -> str:
        """Return the name of the server that offers tool `name` ("" if none does)."""
        return self._route.get(name, "")

    def tool(self, name: str) -> Tool | None:
        """Return the definition of tool `name` (None if no server offers it)."""
        server = self._route.get(name)
        return next((t for t in self.tools[server] if t.name == name), None) if server else None

    def __post_init__(self) -> None:
        for server, tools in self.tools.items():
            for tool in tools:
                if tool.name in self._route:
                    raise ValueError(
                        f"tool {tool.name!r} is offered by both {self._route[tool.name]!r} "
                        f"and {server!r}; a session needs unique tool names"
                    )
                self._route[tool.name] = server

    def analyse(self, labels: Mapping[str, Any] | None = None) -> SessionReport:
        """Return the trifecta report for this session's tools (see `analyse_session`)."""
        return analyse_session(self.tools, labels=labels)

    async def call(self, name: str, arguments: Mapping[str, Any]) -> CallToolResult:
        """Call tool `name` on the server that offers it.

        Raises:
            ValueError: no server in the session offers `name`.
        """
        if name not in self._route:
            raise ValueError(
                f"no tool {name!r} in this session; its tools are {sorted(self._route)}"
            )
        return await self.clients[self._route[name]].call_tool(name, dict(arguments))


@asynccontextmanager
async def open_session(
    servers: Mapping[str, Any], **connect_options: Any
) -> AsyncIterator[HostSession]:
    """Connect to every server in `servers` (name -> server or stdio command); list their tools.

    Use it as ``async with open_session({"notes": notes, "mailer": mailer}) as session:``.

    Raises:
        ValueError: no servers, or two servers offer a tool with the same name.
    """
    if not isinstance(servers, Mapping) or not servers:
        raise ValueError(
            "open_session needs {server name: server object or command} with at least one entry"
        )
    async with AsyncExitStack() as stack:
        clients: dict[str, Client] = {}
        tools: dict[str, list[Tool]] = {}
        for name, target in servers.items():
            client = await stack.enter_async_context(connect(target, **connect_options))
            clients[name] = client
            tools[name] = list((await client.list_tools()).tools)
        yield HostSession(clients, tools)


@dataclass(frozen=True)
class Step:
    """One tool call the agent makes, and where the instruction came from."""

    tool: str
    arguments: dict[str, Any]
    source: str = "user's task"


@dataclass(frozen=True)
class StepRecord:
    """What happened to one step: the host's decision, the user's answer, the result."""

    tool: str
    arguments: dict[str, Any]
    source: str
    decision: PreCall | None  # None: the host could not decide (no such tool, or the run stopped)
    answer: bool | None  # the user's answer at the prompt; None when not asked
    result: str

    @property
    def shown_decision(self) -> str:
        """The decision in words, as the transcript table shows it ("confirm → approved")."""
        if self.decision is None:
            return "no such tool" if self.tool != "-" else "stopped"
        if self.answer is None:
            return str(self.decision)
        return f"{self.decision} → {answer_text(self.answer)}"


@dataclass
class Transcript:
    """Every step of one run: what was asked, what the host decided, what came back."""

    steps: list[StepRecord] = field(default_factory=list)

    def table(self, width: int = 60) -> pd.DataFrame:
        """Return one row per step (tool, arguments, source, decision, result), cut to `width`."""

        def cut(text: str) -> str:
            text = " ".join(str(text).split())
            return text if len(text) <= width else text[: width - 1] + "…"

        frame = pd.DataFrame(
            [
                {
                    "tool": r.tool,
                    "arguments": cut(json.dumps(r.arguments, ensure_ascii=False)),
                    "asked by": r.source,
                    "decision": r.shown_decision,
                    "result": cut(r.result),
                }
                for r in self.steps
            ],
            columns=["tool", "arguments", "asked by", "decision", "result"],
        )
        frame.index = pd.RangeIndex(1, len(frame) + 1, name="step")
        return frame


class ScriptedAgent:
    """A deterministic agent: it runs its plan and, like an injected model, orders in tool output.

    `plan` is a list of `Step` or ``(tool, arguments)`` pairs. `obey_injections=False`
    gives an agent that ignores instructions in tool output (which no real model
    reliably does). `max_steps` bounds a run, so injected instructions cannot loop forever; a run
    cut short ends with a "stopped" row in its transcript.

    Raises:
        ValueError: an empty or malformed plan, or `max_steps` below 1.
    """

    def __init__(
        self,
        plan: Sequence[Step | tuple[str, Mapping[str, Any]]],
        *,
        obey_injections: bool = True,
        max_steps: int = 20,
    ) -> None:
        steps = []
        for item in plan:
            if isinstance(item, Step):
                steps.append(item)
            elif (
                isinstance(item, tuple)
                and len(item) == 2
                and isinstance(item[0], str)
                and isinstance(item[1], Mapping)
            ):
                steps.append(Step(item[0], dict(item[1])))
            else:
                raise ValueError(
                    f"each plan step is a Step or a (tool name, arguments dict) pair, not {item!r}"
                )
        if not steps:
            raise ValueError("the plan is empty: give at least one (tool name, arguments) step")
        if not isinstance(max_steps, int) or max_steps < 1:
            raise ValueError(f"max_steps must be a positive whole number, not {max_steps!r}")
        self.plan = steps
        self.obey_injections = obey_injections
        self.max_steps = max_steps

    @staticmethod
    def injected_steps(text: str, source: str) -> list[Step]:
        """Return the instructions of the form call `TOOL` with {JSON} found in `text`."""
        steps = []
        for match in INSTRUCTION.finditer(text):
            try:
                arguments = json.loads(match.group("args"))
            except json.JSONDecodeError:
                continue  # a model would not get malformed JSON right either
            if isinstance(arguments, dict):
                steps.append(Step(match.group("tool"), arguments, f"text in {source} output"))
        return steps

    @staticmethod
    def _request(
        session: HostSession, step: Step, action: PreCall, reason: str
    ) -> ConfirmationRequest:
        tool = session.tool(step.tool)
        title = display_title(tool) if tool is not None else step.tool
        annotations = tool.annotations if tool is not None else None
        server = session.server_of(step.tool)
        return ConfirmationRequest(
            server, step.tool, title, step.arguments, action, reason, annotations
        )

    @staticmethod
    def _fill(arguments: dict[str, Any], latest: Mapping[str, str]) -> dict[str, Any]:
        def fill(value: Any) -> Any:
            if isinstance(value, str):
                return PLACEHOLDER.sub(lambda m: latest.get(m.group(1), m.group(0)), value)
            return value

        return {key: fill(value) for key, value in arguments.items()}

    async def run(
        self, session: HostSession, guard: SessionGuard, approve: Approver = decline_all
    ) -> Transcript:
        """Run the plan in `session`: `guard` decides each call, `approve` answers each prompt.

        `approve(request)` plays the user at a confirmation prompt: it gets a
        `ConfirmationRequest` (tool, arguments, reason) and returns True to allow (default:
        declines every one).

        Raises:
            ValueError: `session` is not a `HostSession`, `guard` not a `SessionGuard`, or `approve`
            not callable.
        """
        if not isinstance(session, HostSession):
            raise ValueError(
                "run needs the HostSession from `async with open_session(servers) as session:`"
            )
        if not isinstance(guard, SessionGuard):
            raise ValueError(
                "run needs a SessionGuard, e.g. SessionGuard(session.analyse(), on_taint='confirm')"
            )
        if not callable(approve):
            raise ValueError(
                "approve must be a function taking a ConfirmationRequest and returning "
                "True or False"
            )
        queue = list(self.plan)
        latest: dict[str, str] = {}
        transcript = Transcript()
        steps = transcript.steps
        while queue and len(steps) < self.max_steps:
            step = queue.pop(0)
            step = Step(step.tool, self._fill(step.arguments, latest), step.source)
            try:
                verdict = guard.check(step.tool)
            except ValueError as exc:
                steps.append(
                    StepRecord(step.tool, step.arguments, step.source, None, None, str(exc))
                )
                continue
            answer: bool | None = None
            if verdict.action in (PreCall.CONFIRM, PreCall.WARN):
                answer = bool(approve(self._request(session, step, verdict.action, verdict.reason)))
            if verdict.action is PreCall.DENY or answer is False:
                not_run = f"not run: {verdict.reason}"
                steps.append(
                    StepRecord(
                        step.tool, step.arguments, step.source, verdict.action, answer, not_run
                    )
                )
                continue
            result = await session.call(step.tool, step.arguments)
            text = result_text(result)
            guard.record(step.tool)
            latest[step.tool] = text
            shown = ("error: " if result.is_error else "") + text
            steps.append(
                StepRecord(step.tool, step.arguments, step.source, verdict.action, answer, shown)
            )
            if self.obey_injections and not result.is_error:
                queue[0:0] = self.injected_steps(text, step.tool)
        # the loop ended at max_steps with calls still waiting: say so instead of stopping
        # silently
        if queue:
            stopped = (
                f"stopped at max_steps={self.max_steps}; {len(queue)} more call(s) not made "
                "(injected instructions may be looping)"
            )
            steps.append(StepRecord("-", {}, "host", None, None, stopped))
        return transcript
