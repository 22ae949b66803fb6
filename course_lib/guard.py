"""A host-side defence for one session: a per-call policy plus taint tracking.

`SessionGuard` takes each call's decision from a `course_lib.policy` policy, marks the session
tainted once untrusted content arrives, and from then on makes tools that can send data out
need confirmation (or blocks them). Its verdict before a call is a `PreCall`, the same values
every client decision uses.

Introduced in: notebooks/04_lethal_trifecta.ipynb
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .decisions import Decision, PreCall, Trust, as_trust
from .i18n import N_
from .legs import Leg
from .policy import SPEC, Policy, decide
from .trifecta import SessionReport, SessionTool
from .vocabulary import member

__all__ = ["TAINT_ACTIONS", "SessionGuard", "Verdict", "check_on_taint", "gate", "taints"]


@dataclass(frozen=True)
class Verdict:
    """The host's answer before one call (allow, confirm, confirm with warning or deny), and why."""

    action: PreCall
    reason: str
    decision: Decision | None = None  # the per-call policy's decision it started from


TAINT_ACTIONS = (PreCall.CONFIRM, PreCall.DENY)
"""What `on_taint` may make of a call that can send data out, once the session is tainted."""


def check_on_taint(value: Any) -> PreCall | None:
    """Return `value` if it is an `on_taint` setting: `PreCall.CONFIRM`, `PreCall.DENY` or None.

    Raises:
        ValueError: anything else; the string "confirm" is told to write `PreCall.CONFIRM`.
    """
    if value is None:
        return None
    return member(PreCall, value, "on_taint", choices=TAINT_ACTIONS, also=N_("None (no defence)"))


# The taint rule, as lesson 04 shows it in a cell (tests/test_saved_cells.py keeps the two equal).
def taints(tool: str, report: SessionReport) -> bool:
    """Rule 1: output of a tool that brings in untrusted content taints the session."""
    return tool in report.suppliers(Leg.UNTRUSTED_CONTENT)


def gate(action: PreCall, tool: str, report: SessionReport,
         tainted: bool, on_taint: PreCall | None) -> PreCall:
    """Rule 2: once the session is tainted, a tool that can send data out gets
    `on_taint` (ask the user, or deny) instead of `action`."""
    sends_out = tool in report.suppliers(Leg.EXTERNAL_COMMUNICATION)
    if tainted and sends_out and on_taint is not None:
        return on_taint
    return action


@dataclass
class SessionGuard:
    """A host's per-session gatekeeper: a per-call policy plus taint tracking.

    Before each call it asks `policy` (default: the spec-following `SPEC`) for a decision
    at the server's `trust` level; tools in `auto_approve` skip a confirmation (the user
    chose "always allow"). After a call to a tool that supplies untrusted content (see
    `report`), the session is **tainted**; from then on, if `on_taint` is `PreCall.CONFIRM` or
    `PreCall.DENY`, every tool that can send data out needs confirmation or is blocked, even if
    auto-approved. `on_taint=None` tracks taint but changes nothing (no defence).

    Raises:
        ValueError: an unknown `on_taint`, a non-`Policy`, or names in `auto_approve` or `trust`
            that the session does not have.
    """

    report: SessionReport
    policy: Policy = SPEC
    trust: Trust | Mapping[str, Trust] = Trust.UNTRUSTED
    auto_approve: frozenset[str] | set[str] | tuple[str, ...] = frozenset()
    on_taint: PreCall | None = PreCall.CONFIRM
    tainted_by: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not isinstance(self.report, SessionReport):
            raise ValueError("SessionGuard needs a SessionReport: use analyse_session(tools) first")
        if self.policy is None:
            self.policy = SPEC
        if not isinstance(self.policy, Policy):
            raise ValueError(
                "policy must be a course_lib.policy Policy such as SPEC, not "
                f"{type(self.policy).__name__}"
            )
        self.on_taint = check_on_taint(self.on_taint)
        self._tools = {t.name: t for t in self.report.tools}
        if len(self._tools) != len(self.report.tools):
            raise ValueError(
                "two servers offer tools with the same name; a guard needs unique tool names"
            )
        self.auto_approve = frozenset(self.auto_approve)
        unknown = sorted(self.auto_approve - set(self._tools))
        if unknown:
            raise ValueError(f"auto_approve names tools this session does not have: {unknown}")
        if isinstance(self.trust, Mapping):
            servers = {t.server for t in self.report.tools}
            unknown = sorted(str(s) for s in self.trust if s not in servers)
            if unknown:
                raise ValueError(f"trust names servers this session does not have: {unknown}")
            self.trust = {server: as_trust(level) for server, level in self.trust.items()}
        else:
            self.trust = as_trust(self.trust)

    @property
    def tainted(self) -> bool:
        """True once untrusted content has entered the session."""
        return bool(self.tainted_by)

    def _tool(self, name: str) -> SessionTool:
        try:
            return self._tools[name]
        except KeyError:
            raise ValueError(
                f"no tool {name!r} in this session; its tools are {sorted(self._tools)}"
            ) from None

    def _trust_of(self, item: SessionTool) -> Trust:
        if isinstance(self.trust, Mapping):
            return self.trust.get(item.server or "", Trust.UNTRUSTED)
        return self.trust

    def supplies(self, name: str, leg: Leg | str) -> bool:
        """True if tool `name` supplies `leg` in this session's report."""
        return name in self.report.suppliers(leg) and name in self._tools

    def check(self, name: str) -> Verdict:
        """Return the verdict before calling tool `name` (pure: does not change the guard).

        Raises:
            ValueError: the session has no such tool.
        """
        item = self._tool(name)
        decision = decide(self.policy, item.tool, trust=self._trust_of(item))
        if decision.pre_call is PreCall.DENY:
            return Verdict(PreCall.DENY, decision.reason, decision)
        action: PreCall = decision.pre_call
        reason = decision.reason
        if action is not PreCall.ALLOW and name in self.auto_approve:
            action = PreCall.ALLOW
            reason = f"the user chose 'always allow' for {name} ({decision.pre_call} by the policy)"
        gated = gate(action, name, self.report, self.tainted, self.on_taint)
        if gated is not action:
            sources = ", ".join(dict.fromkeys(self.tainted_by))
            action = gated
            reason = f"session tainted by {sources} output, and {name} can send data out"
        return Verdict(action, reason, decision)

    def record(self, name: str) -> bool:
        """Note that tool `name` ran; taint the session on untrusted output. Return `tainted`.

        Raises:
            ValueError: the session has no such tool.
        """
        self._tool(name)
        # an error message from outside is untrusted too
        if taints(name, self.report):
            self.tainted_by.append(name)
        return self.tainted
