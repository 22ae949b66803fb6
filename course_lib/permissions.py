"""Claude Code's permission rules: the layer above the hints that gives the verdict.

Annotations are risk clues a server declares about itself; the host's rules decide. Claude Code
reads `allow`, `ask` and `deny` lists of rules from its settings
(``{"permissions": {"allow": [...], "ask": [...], "deny": [...]}}``). For MCP tools a rule has
one of three shapes (other rules, such as ``Bash(ls)``, do not decide MCP calls):

* ``mcp__server__tool``: that one tool of that server;
* ``mcp__server`` and ``mcp__server__*``: every tool of that server, and no other server's.

What the rules do was measured on Claude Code 2.1.197 and 2.1.332 (`course_lib/data/clients/`,
``python -m course_tools measure-client claude-code``), and `tests/test_measured_clients.py`
checks this model against every measured cell:

* a matching `deny` rule removes the tool from the tools the model is offered (`Outcome.HIDDEN`),
  in every mode;
* else a matching `ask` rule asks the user, in every mode but `dontAsk`, `bypassPermissions` too;
* else a matching `allow` rule runs the tool without asking, in every mode, `dontAsk` included,
  except that 2.1.332's plan mode lets it run only a `readOnlyHint: true` tool (it asks about
  the rest);
* an unmatched call gets what the permission mode does (`course_lib.clients.ClaudeCodePolicy`).

So precedence is deny > ask > allow, whatever the server's hints say. A `ClaudeCodeSetup`
(rules, mode, version) answers every question about a call: its outcome, a session's outcomes,
the decision and why, whether the classifier judges it; `course_lib.rule_tables` tabulates
outcomes for a lesson.

Introduced in: notebooks/03_combinations.ipynb (section "Rules over hints").
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .annotations import declared
from .clients import (
    CLAUDE_CODE_ALLOW_READ_ONLY_ONLY,
    CLAUDE_CODE_CLASSIFIER_DENIALS,
    CLAUDE_CODE_VERSION,
    ClaudeCodePolicy,
)
from .decisions import Decision, Outcome, PostCall, PreCall

__all__ = [
    "LISTS", "ClaudeCodeSetup", "PermissionRule", "Permissions", "claude_code_outcome",
    "outcome_of",
]

LISTS = ("deny", "ask", "allow")
"""The three rule lists, in order of precedence."""

_NAME = r"[A-Za-z0-9_-]+"
_SERVER = re.compile(r"[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*")  # no empty part, no "__" inside


def outcome_of(pre_call: PreCall) -> Outcome:
    """The outcome a `PreCall` leads to (allow runs, confirm asks, deny refuses)."""
    if pre_call is PreCall.ALLOW:
        return Outcome.RAN
    if pre_call is PreCall.DENY:
        return Outcome.DENY
    return Outcome.ASK


@dataclass(frozen=True)
class PermissionRule:
    """One MCP permission rule: a server and one of its tools, or the whole server (`tool` None)."""

    server: str
    tool: str | None = None

    @classmethod
    def parse(cls, text: Any) -> PermissionRule:
        """Parse ``mcp__server``, ``mcp__server__*`` or ``mcp__server__tool``.

        Raises:
            ValueError: the rule is not one of those shapes; the message names the rule.
        """
        if not isinstance(text, str):
            raise ValueError(
                f"a permission rule is a string such as 'mcp__file-ops__read_file', not {text!r}"
            )
        shown = repr(text[:80])
        if not text.startswith("mcp__"):
            raise ValueError(
                f"rule {shown} is not an MCP rule: write mcp__SERVER (every tool of a server) "
                "or mcp__SERVER__TOOL (one tool), e.g. 'mcp__file-ops__read_file'"
            )
        rest = text[len("mcp__") :]
        server, sep, tool = rest.partition("__")
        if not _SERVER.fullmatch(server):
            raise ValueError(
                f"rule {shown} names no valid server: after 'mcp__' comes the server's name as in "
                "your MCP configuration (letters, digits, '-' and single '_'), e.g. 'mcp__file-ops'"
            )
        if not sep or tool == "*":
            return cls(server)
        if "*" in tool:
            raise ValueError(
                f"rule {shown} has a partial wildcard: only the whole-server form mcp__{server}__* "
                f"(or mcp__{server}) covers several tools; name each other tool in full"
            )
        if not re.fullmatch(_NAME, tool):
            raise ValueError(
                f"rule {shown} names no valid tool: write mcp__{server}__TOOL with the tool's "
                "exact name"
            )
        return cls(server, tool)

    def covers(self, server: str, tool: str) -> bool:
        """Does this rule apply to `tool` of `server`?"""
        return self.server == server and (self.tool is None or self.tool == tool)

    def __str__(self) -> str:
        return f"mcp__{self.server}" if self.tool is None else f"mcp__{self.server}__{self.tool}"


def _listed(values: Any, where: str) -> list[Any]:
    if values is None:
        return []
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise ValueError(
            f"permissions.{where} must be a list of rules, "
            f'e.g. ["mcp__file-ops__read_file"], not {values!r}'
        )
    return list(values)


def _is_mcp(value: Any) -> bool:
    """Is this a rule for MCP tools (or not a string, so that `PermissionRule.parse` names it)?"""
    return not isinstance(value, str) or value.startswith("mcp__")


def _rules(values: Any, where: str) -> tuple[PermissionRule, ...]:
    rules = _listed(values, where)
    return tuple(v if isinstance(v, PermissionRule) else PermissionRule.parse(v) for v in rules)


@dataclass(frozen=True)
class Permissions:
    """The `allow`, `ask` and `deny` lists of a Claude Code settings file (MCP rules only).

    `ignored` holds the other rules a settings file had (``Bash(ls)``, ``Read(./src/**)``...),
    set aside by `from_settings`: they do not decide MCP tool calls.
    """

    allow: tuple[PermissionRule, ...] = field(default=())
    ask: tuple[PermissionRule, ...] = field(default=())
    deny: tuple[PermissionRule, ...] = field(default=())
    ignored: tuple[str, ...] = field(default=(), compare=False)

    def __init__(self, allow: Any = (), ask: Any = (), deny: Any = ()) -> None:
        object.__setattr__(self, "allow", _rules(allow, "allow"))
        object.__setattr__(self, "ask", _rules(ask, "ask"))
        object.__setattr__(self, "deny", _rules(deny, "deny"))
        object.__setattr__(self, "ignored", ())

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any] | str | Path) -> Permissions:
        """Read the MCP rules of a settings dict, or of a `.claude/settings.json` file.

        Rules that are not MCP rules (they do not start with ``mcp__``) are set aside in
        `ignored`; a malformed MCP rule is an error.

        Raises:
            ValueError: unreadable JSON, a list that is not a list, or a bad MCP rule (named).
        """
        if isinstance(settings, (str, Path)):
            path = Path(settings)
            try:
                settings = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise ValueError(f"cannot read settings file {path}: {exc}") from None
        if not isinstance(settings, Mapping):
            raise ValueError(
                'settings must be a JSON object such as {"permissions": {"allow": [...]}}'
            )
        permissions = settings.get("permissions", {})
        if not isinstance(permissions, Mapping):
            raise ValueError(
                "settings.permissions must be an object with allow, ask and deny lists"
            )
        lists = {k: _listed(v, k) for k, v in permissions.items() if k in LISTS}
        other = [r for v in lists.values() for r in v if not _is_mcp(r)]
        rules = cls(**{k: [r for r in v if _is_mcp(r)] for k, v in lists.items()})
        object.__setattr__(rules, "ignored", tuple(other))
        return rules

    def as_settings(self) -> dict[str, Any]:
        """The settings JSON for these rules (for `--settings FILE` or `.claude/settings.json`)."""
        lists = {name: [str(r) for r in getattr(self, name)] for name in ("allow", "ask", "deny")}
        return {"permissions": {name: rules for name, rules in lists.items() if rules}}

    def matching(self, server: str, tool: str) -> tuple[str, PermissionRule] | None:
        """The list (``"deny"``, ``"ask"`` or ``"allow"``) and rule deciding this tool, if any."""
        for name in LISTS:
            for rule in getattr(self, name):
                if rule.covers(server, tool):
                    return name, rule
        return None

    def rules_touching(self, server: str) -> list[PermissionRule]:
        """Every rule that names `server` (to check that rules stay inside one server)."""
        return [r for name in LISTS for r in getattr(self, name) if r.server == server]


@dataclass(frozen=True)
class ClaudeCodeSetup:
    """Claude Code as one project runs it: a measured version, a permission mode, the rules.

    Every question about a call is asked of one setup, e.g.
    ``ClaudeCodeSetup(rules, "plan").outcome("file-ops", "delete_file", hints)``.

    Raises:
        ValueError: a mode or version that was not measured (on construction).
    """

    permissions: Permissions
    mode: str
    version: str = CLAUDE_CODE_VERSION
    policy: ClaudeCodePolicy = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.permissions, Permissions):
            raise ValueError(
                "permissions must be a Permissions, e.g. Permissions.from_settings(path), not "
                f"{type(self.permissions).__name__}"
            )
        object.__setattr__(self, "policy", ClaudeCodePolicy(self.mode, version=self.version))

    def rule_outcome(self, server: str, tool: str, annotations: Any) -> Outcome | None:
        """What a matching rule does with the call, or None when no rule decides it."""
        found = self.permissions.matching(server, tool)
        if found is None:
            return None
        list_name, _rule = found
        if list_name == "deny":
            return Outcome.HIDDEN
        if list_name == "ask":
            return Outcome.DENY if self.mode == "dontAsk" else Outcome.ASK
        if (
            self.mode in CLAUDE_CODE_ALLOW_READ_ONLY_ONLY[self.version]
            and declared(annotations)["readOnlyHint"] is not True
        ):
            return None  # this mode does not let an allow rule run a tool that may write
        return Outcome.RAN

    def classifier_judges(self, server: str, tool: str, annotations: Any) -> bool:
        """Does Claude Code hand this call to its auto-mode safety classifier?"""
        decided = self.rule_outcome(server, tool, annotations)
        return decided is None and self.policy.classifier_judges(annotations)

    def session(
        self, calls: Sequence[tuple[str, str, Any]], *, classifier: str = "approve"
    ) -> list[Outcome]:
        """What Claude Code does with each of several calls in one session.

        `calls` holds ``(server, tool, annotations)`` tuples. `classifier` is what the auto-mode
        safety classifier answers when the mode hands it a call (``"approve"`` or
        ``"refuse"``). The first `CLAUDE_CODE_CLASSIFIER_DENIALS` refusals in a session deny
        the call; later refusals ask the user instead.

        Raises:
            ValueError: malformed annotations.
        """
        refusals = 0
        outcomes = []
        for server, tool, hints in calls:
            decided = self.rule_outcome(server, tool, hints)
            if decided is not None:
                outcomes.append(decided)
            elif self.policy.classifier_judges(hints) and classifier == "refuse":
                refusals += 1
                outcomes.append(
                    Outcome.DENY if refusals <= CLAUDE_CODE_CLASSIFIER_DENIALS else Outcome.ASK
                )
            else:
                outcomes.append(outcome_of(self.policy.decide(hints).pre_call))
        return outcomes

    def outcome(
        self, server: str, tool: str, annotations: Any, *, classifier: str = "approve"
    ) -> Outcome:
        """What Claude Code does with a call of `tool` of `server` (the first call of a session:
        see `session`)."""
        return self.session([(server, tool, annotations)], classifier=classifier)[0]

    def decide(self, server: str, tool: str, annotations: Any) -> Decision:
        """`outcome` as a `Decision`, saying whether a rule or the mode decided, and why."""
        found = self.permissions.matching(server, tool)
        if found is None or self.rule_outcome(server, tool, annotations) is None:
            decision = self.policy.decide(annotations)
            why = f"{self.mode} mode lets an allow rule run only read-only tools" if found else ""
            why = why or "no rule matches"
            return Decision(decision.pre_call, decision.post_call, f"{why}; {decision.reason}")
        list_name, rule = found
        outcome = self.outcome(server, tool, annotations)
        pre = {Outcome.RAN: PreCall.ALLOW, Outcome.ASK: PreCall.CONFIRM}.get(outcome, PreCall.DENY)
        return Decision(
            pre, PostCall.TRUST, f"{list_name} rule {rule} matches, so {_RULE_EFFECT[outcome]}."
        )


_RULE_EFFECT = {
    Outcome.HIDDEN: "the tool is removed from the model's tool list",
    Outcome.ASK: "the user is asked, whatever the hints say",
    Outcome.DENY: "dontAsk mode refuses what it would have to ask about",
    Outcome.RAN: "it runs without asking, whatever the hints say",
}


def claude_code_outcome(
    permissions: Permissions,
    server: str,
    tool: str,
    annotations: Any,
    *,
    mode: str,
    version: str = CLAUDE_CODE_VERSION,
    classifier: str = "approve",
) -> Outcome:
    """What Claude Code does with one call under these rules, in this mode: the shorthand of
    ``ClaudeCodeSetup(permissions, mode, version).outcome(server, tool, annotations)``.

    Raises:
        ValueError: a mode or version that was not measured, or malformed annotations.
    """
    setup = ClaudeCodeSetup(permissions, mode, version)
    return setup.outcome(server, tool, annotations, classifier=classifier)

