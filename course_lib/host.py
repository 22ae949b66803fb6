"""The host of lesson 05: it decides, asks the user, calls, audits and adjusts trust.

`Host.call` is the loop: decide with a `course_lib.policy` policy at the server's current
trust level, ask the user (showing the real arguments) when the decision says so, snapshot
the sandbox before and after the call, record the side effects in an `AuditLog`, and lower the
server's trust when a tool changed state it declared it would not change.

Trust and pins belong to a server *as the host configured it*: `Host(servers={"log-tidy": target})`
names what the host launched or connected to (`server_identity`). A server the host did not
configure is "unlisted", whatever name it gives itself, so it can never borrow a configured
server's trust.

Introduced in: notebooks/05_lying_server.ipynb; used in 06_beyond_hints.ipynb.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
from mcp import Client, StdioServerParameters
from mcp.types import Tool, ToolAnnotations

from .annotations import display_title
from .approval import Approver, ConfirmationRequest, answer_text, decline_all
from .audit import SideEffect, check_behaviour, side_effects, snapshot
from .decisions import Decision, Outcome, PreCall, Trust
from .pinning import PinStore
from .policy import SPEC, Policy
from .servers import DemoServer
from .trustbook import TrustBook

__all__ = ["AuditEvent", "AuditLog", "Host", "server_identity"]


@dataclass(frozen=True)
class AuditEvent:
    """One tool call as the host saw it: decision, confirmation, outcome, side effects, finding."""

    server: str
    tool: str
    arguments: str  # compact JSON of the arguments the model sent
    trust: Trust  # the server's trust level when the call was decided
    decision: PreCall  # what the host decided before the call
    answer: bool | None  # the user's answer at the prompt: None when not asked
    outcome: Outcome  # RAN, ERROR (the tool answered with an error), NOT_RUN or DENY
    side_effects: tuple[SideEffect, ...] = ()
    finding: str = ""  # what contradicted the hints ("" when nothing did)
    trust_after: Trust | None = None
    result: str = ""  # the text the tool answered ("" when it did not run)

    @property
    def confirmation(self) -> str:
        """The user's answer in words: "not asked", "approved" or "declined"."""
        return answer_text(self.answer)


class AuditLog:
    """Every call a host made or refused, in order."""

    COLUMNS = (
        "server", "tool", "arguments", "trust", "decision", "confirmation", "outcome",
        "side effects", "finding", "trust after",
    )  # fmt: skip

    def __init__(self) -> None:
        self.events: list[AuditEvent] = []

    def __len__(self) -> int:
        return len(self.events)

    def __iter__(self) -> Iterator[AuditEvent]:
        return iter(self.events)

    def __repr__(self) -> str:
        return f"<AuditLog: {len(self)} call(s)>"

    def record(self, event: AuditEvent) -> AuditEvent:
        """Append an event; return it.

        Raises:
            ValueError: `event` is not an `AuditEvent`.
        """
        if not isinstance(event, AuditEvent):
            raise ValueError(f"record takes an AuditEvent, not {type(event).__name__}")
        self.events.append(event)
        return event

    def to_frame(self) -> pd.DataFrame:
        """Return one row per call (numbered from 1), side effects joined into one readable cell."""
        rows = [
            {
                "server": e.server,
                "tool": e.tool,
                "arguments": e.arguments,
                "trust": str(e.trust),
                "decision": str(e.decision),
                "confirmation": e.confirmation,
                "outcome": _outcome_text(e),
                "side effects": "; ".join(map(str, e.side_effects)),
                "finding": e.finding,
                "trust after": str(e.trust_after or ""),
            }
            for e in self.events
        ]
        return pd.DataFrame(
            rows, columns=list(self.COLUMNS), index=pd.RangeIndex(1, len(rows) + 1, name="call")
        )


def _outcome_text(event: AuditEvent) -> str:
    if event.outcome is Outcome.ERROR:
        return f"{event.outcome}: {event.result}"
    return str(event.outcome)


UNLISTED = "(unlisted"


def server_identity(target: Any) -> tuple[str, Any]:
    """Return what a host knows a server by: its URL, its command line or the object itself.

    The result is ``("url", url)``, ``("command", line)`` or ``("object", id)``.

    `target` is what a client connects to: a URL (a string starting with ``http://`` or
    ``https://``), a command (a list of strings, a shell-style string or
    `StdioServerParameters`), a server object (in-process) or a demo server's handle (the
    server in it), or the `mcp.Client` connected to one of these. Two targets are the same
    server exactly when their identities are equal; a server object is identified by the object
    itself, never by the name it declares.
    """
    if isinstance(target, DemoServer):
        target = target.server
    if isinstance(target, Client):
        target = target.server
        # course_lib.connection (like the SDK's stdio_client) wraps a command in a
        # transport that keeps its parameters
        arguments = getattr(target, "args", None)
        if (
            isinstance(arguments, tuple)
            and arguments
            and isinstance(arguments[0], StdioServerParameters)
        ):
            target = arguments[0]
    if isinstance(target, str) and target.startswith(("http://", "https://")):
        return ("url", target)
    if isinstance(target, (str, list, tuple)):
        argv = shlex.split(target) if isinstance(target, str) else [str(a) for a in target]
        return ("command", shlex.join(argv))
    if isinstance(target, StdioServerParameters):
        return ("command", shlex.join([target.command, *target.args]))
    return ("object", id(target))


def _describe(client: Client, identity: tuple[str, Any]) -> str:
    """An unlisted server's name: what it calls itself, marked unlisted, and how it was reached."""
    info = getattr(client, "server_info", None)
    claimed = getattr(info, "name", None) or "unknown server"
    how = {"url": f"at {identity[1]}", "command": f"run as {identity[1]}", "object": "in-process"}[
        identity[0]
    ]
    return f"{claimed} {UNLISTED}, {how})"


def _arguments_json(arguments: Mapping[str, Any]) -> str:
    return json.dumps(dict(arguments), sort_keys=True, ensure_ascii=False, default=str)


@dataclass
class Host:
    """A client host: it decides, asks, calls, audits, adjusts trust and logs every call in `log`.

    `servers` is the host's configuration: the name it gives each server -> what it launched
    or connected to (a server object, a command or a URL; see `server_identity`). Every call
    is logged, trusted and pinned under that name; a server not in `servers` is
    "unlisted" (``"log-tidy (unlisted, in-process)"``) and gets the trust book's default,
    whatever name it declares. `policy` decides at the server's trust level in `trust`.
    `approve` plays the user: it gets a `ConfirmationRequest` and returns True to allow
    (default: `decline_all`, nobody to ask). `sensitive_tools` are names the host always
    confirms, whatever the hints say. With `audit_root`, every call that runs is bracketed by
    `snapshot`s of that folder; a call that contradicts its hints is flagged and its server
    downgraded. With `pins`, a tool whose definition is new or changed since approval needs
    the user's (re-)approval.
    """

    policy: Policy = SPEC
    trust: TrustBook = field(default_factory=TrustBook)  # a dict of name -> level is converted
    approve: Approver = decline_all
    audit_root: str | os.PathLike[str] | None = None
    sensitive_tools: frozenset[str] | set[str] = frozenset()
    pins: PinStore | None = None
    log: AuditLog = field(default_factory=AuditLog)
    servers: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _require(
            isinstance(self.policy, Policy),
            "policy must be a course_lib.policy Policy such as SPEC, not "
            f"{type(self.policy).__name__}",
        )
        if isinstance(self.trust, Mapping):
            self.trust = TrustBook(self.trust)
        _require(
            isinstance(self.trust, TrustBook),
            "trust must be a TrustBook or a dict of server name -> trust level",
        )
        _require(
            callable(self.approve),
            "approve must be a function taking a ConfirmationRequest and returning True or False",
        )
        if self.audit_root is not None:
            snapshot(self.audit_root)  # fail now, with a clear message, if the folder is wrong
        _require(
            not isinstance(self.sensitive_tools, str),
            "sensitive_tools must be a collection of tool names, e.g. {'cleanup_logs'}, not one "
            "string",
        )
        self.sensitive_tools = frozenset(self.sensitive_tools)
        _require(self.pins is None or isinstance(self.pins, PinStore), "pins must be a PinStore")
        self._names = _configured_names(self.servers)
        # keeps in-process servers alive, so their ids stay theirs
        self._targets: list[Any] = list(self.servers.values())

    def identify(self, client: Client) -> str:
        """Return the name this host knows the server behind `client` by (see `servers`)."""
        identity = server_identity(client)
        return self._names.get(identity) or _describe(client, identity)

    def _decide(self, server: str, tool: Tool, annotations: ToolAnnotations | None) -> Decision:
        decision = self.policy.decide(annotations, trust=self.trust.level(server))
        if tool.name in self.sensitive_tools and decision.pre_call is PreCall.ALLOW:
            why = (
                f"{tool.name!r} is on the host's own list of sensitive tools, so the user "
                "confirms whatever the hints say"
            )
            decision = Decision(PreCall.CONFIRM, decision.post_call, f"{why}.")
        if self.pins is not None and decision.pre_call is not PreCall.DENY:
            pin = self.pins.check(tool, server=server)
            if pin.needs_approval:
                if pin.status == "changed":
                    why = f"has changed since you approved it ({', '.join(pin.changed)})"
                else:
                    why = "has never been approved"
                pre = PreCall.WARN if decision.pre_call is PreCall.WARN else PreCall.CONFIRM
                reason = f"the definition of {tool.name!r} {why}, so the user approves it first."
                decision = Decision(pre, decision.post_call, reason)
        return decision

    async def call(
        self, client: Client, tool: str, arguments: Mapping[str, Any] | None = None
    ) -> AuditEvent:
        """Decide, ask if needed, call `tool` through `client`, audit it; return the logged event.

        Raises:
            ValueError: `arguments` is not a dict, or the server has no tool called `tool`.
        """
        _check_request(tool, arguments)
        # what the host connected to, never the name the server declares
        server = self.identify(client)
        listed = {t.name: t for t in (await client.list_tools()).tools}
        if tool not in listed:
            raise ValueError(
                f"server {server!r} has no tool {tool!r}; it offers: {', '.join(sorted(listed))}"
            )
        definition = listed[tool]
        # Validated once, when the SDK built the listed `Tool`; the typed `ToolAnnotations` (or
        # None) goes to the policy, the prompt and the behaviour check, none of which re-parses.
        attempt = _Attempt(
            server,
            definition,
            dict(arguments or {}),
            self.trust.level(server),
            self._decide(server, definition, definition.annotations),
        )
        if attempt.decision.pre_call is PreCall.DENY:
            return self._record(attempt, None, Outcome.DENY)
        answer: bool | None = None
        if attempt.decision.pre_call in (PreCall.CONFIRM, PreCall.WARN):
            if not self._ask(attempt):
                return self._record(attempt, False, Outcome.NOT_RUN)
            answer = True
        return await self._run(client, attempt, answer)

    def _ask(self, attempt: _Attempt) -> bool:
        """Show the user the call with its real arguments; a yes also approves a pinned tool."""
        definition, decision = attempt.definition, attempt.decision
        request = ConfirmationRequest(
            attempt.server, definition.name, display_title(definition), attempt.arguments,
            decision=decision.pre_call, reason=decision.reason, annotations=definition.annotations,
        )  # fmt: skip
        if not self.approve(request):
            return False
        if self.pins is not None:
            self.pins.approve(definition, server=attempt.server)
        return True

    async def _run(self, client: Client, attempt: _Attempt, answer: bool | None) -> AuditEvent:
        """Make the call, bracketed by snapshots of `audit_root` when there is one; a side effect
        that contradicts the hints is a finding, and the server's trust is lowered."""
        tool, annotations = attempt.definition.name, attempt.definition.annotations
        before = snapshot(self.audit_root) if self.audit_root is not None else None
        result = await client.call_tool(tool, attempt.arguments)
        text = " ".join(getattr(c, "text", "") for c in result.content).strip()
        outcome = Outcome.ERROR if result.is_error else Outcome.RAN
        if before is None:
            return self._record(attempt, answer, outcome, text=text)
        effects = tuple(side_effects(before, snapshot(self.audit_root)))  # type: ignore[arg-type]
        finding = check_behaviour(annotations, effects) or ""
        if finding:
            self.trust.downgrade(attempt.server, f"{tool}: {finding}")
        return self._record(attempt, answer, outcome, effects, finding, text)

    def _record(
        self,
        attempt: _Attempt,
        answer: bool | None,
        outcome: Outcome,
        effects: tuple[SideEffect, ...] = (),
        finding: str = "",
        text: str = "",
    ) -> AuditEvent:
        return self.log.record(
            AuditEvent(
                server=attempt.server,
                tool=attempt.definition.name,
                arguments=_arguments_json(attempt.arguments),
                trust=attempt.trust,
                decision=attempt.decision.pre_call,
                answer=answer,
                outcome=outcome,
                side_effects=effects,
                finding=finding,
                trust_after=self.trust.level(attempt.server),
                result=text,
            )
        )


@dataclass(frozen=True)
class _Attempt:
    """One call as the host decided it, before anyone is asked: what every audit event records."""

    server: str  # the name the host knows the server by
    definition: Tool  # the tool as the server listed it
    arguments: dict[str, Any]
    trust: Trust  # the server's trust level when the call was decided
    decision: Decision


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)


def _configured_names(servers: Any) -> dict[tuple[str, Any], str]:
    """The host's name for each configured server, by its identity (see `server_identity`).

    Raises:
        ValueError: `servers` is not a dict, a name is empty or marked unlisted, or two names
            are the same server.
    """
    _require(
        isinstance(servers, Mapping),
        "servers must be a dict of name -> server, e.g. {'log-tidy': server}",
    )
    names: dict[tuple[str, Any], str] = {}
    for name, target in servers.items():
        _require(
            isinstance(name, str) and bool(name.strip()) and UNLISTED not in name,
            f"a server's name in servers must be a non-empty string without {UNLISTED!r}, "
            f"not {name!r}",
        )
        identity = server_identity(target)
        _require(
            identity not in names,
            f"servers names the same server twice: {names.get(identity)!r} and {name!r}",
        )
        names[identity] = name
    return names


def _check_request(tool: Any, arguments: Any) -> None:
    """A call names its tool with a string and passes its arguments as a dict (or nothing)."""
    _require(
        arguments is None or isinstance(arguments, Mapping),
        f"arguments must be a dict of argument name -> value, not {type(arguments).__name__}",
    )
    _require(
        isinstance(tool, str),
        f"tool must be a tool name such as 'tidy_logs', not {type(tool).__name__}",
    )
