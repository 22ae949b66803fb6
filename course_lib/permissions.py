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

So precedence is deny > ask > allow, whatever the server's hints say.

Introduced in: notebooks/03_combinations.ipynb (section "Rules over hints").
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from .annotations import declared
from .clients import (
    CLAUDE_CODE_ALLOW_READ_ONLY_ONLY,
    CLAUDE_CODE_CLASSIFIER_DENIALS,
    CLAUDE_CODE_VERSION,
    ClaudeCodePolicy,
)
from .decisions import Decision, PostCall, PreCall

__all__ = [
    "LISTS",
    "Outcome",
    "Permissions",
    "Rule",
    "classifier_judges",
    "claude_code_outcome",
    "claude_code_session",
    "decide_with_rules",
    "outcome_of",
]

LISTS = ("deny", "ask", "allow")
"""The three rule lists, in order of precedence."""

_NAME = r"[A-Za-z0-9_-]+"
_SERVER = re.compile(r"[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*")  # no empty part, no "__" inside


class Outcome(str, Enum):
    """What happened to one attempted tool call, as a measurement classifies it."""

    RAN = "ran"  # it ran without asking anyone
    ASK = "asked"  # the user (the permission-prompt tool) was asked
    ASK_HEADLESS = "would ask"  # it needed the user, but a headless run cannot ask: it failed
    DENY = "denied"  # it was refused without asking
    HIDDEN = "hidden"  # the tool was removed from the tools the model is offered

    def __str__(self) -> str:
        return self.value


def outcome_of(pre_call: PreCall) -> Outcome:
    """The outcome a `PreCall` leads to (allow runs, confirm asks, deny refuses)."""
    if pre_call is PreCall.ALLOW:
        return Outcome.RAN
    if pre_call is PreCall.DENY:
        return Outcome.DENY
    return Outcome.ASK


@dataclass(frozen=True)
class Rule:
    """One MCP permission rule: a server and one of its tools, or the whole server (`tool` None)."""

    server: str
    tool: str | None = None

    @classmethod
    def parse(cls, text: Any) -> Rule:
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
    """Is this a rule for MCP tools (or not a string, so that `Rule.parse` names it)?"""
    return not isinstance(value, str) or value.startswith("mcp__")


def _rules(values: Any, where: str) -> tuple[Rule, ...]:
    return tuple(v if isinstance(v, Rule) else Rule.parse(v) for v in _listed(values, where))


@dataclass(frozen=True)
class Permissions:
    """The `allow`, `ask` and `deny` lists of a Claude Code settings file (MCP rules only).

    `ignored` holds the other rules a settings file had (``Bash(ls)``, ``Read(./src/**)``...),
    set aside by `from_settings`: they do not decide MCP tool calls.
    """

    allow: tuple[Rule, ...] = field(default=())
    ask: tuple[Rule, ...] = field(default=())
    deny: tuple[Rule, ...] = field(default=())
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

    def matching(self, server: str, tool: str) -> tuple[str, Rule] | None:
        """The list (``"deny"``, ``"ask"`` or ``"allow"``) and rule deciding this tool, if any."""
        for name in LISTS:
            for rule in getattr(self, name):
                if rule.covers(server, tool):
                    return name, rule
        return None

    def rules_touching(self, server: str) -> list[Rule]:
        """Every rule that names `server` (to check that rules stay inside one server)."""
        return [r for name in LISTS for r in getattr(self, name) if r.server == server]


def _rule_outcome(
    permissions: Permissions, server: str, tool: str, annotations: Any, mode: str, version: str
) -> Outcome | None:
    """What a matching rule does with the call, or None when no rule decides it."""
    found = permissions.matching(server, tool)
    if found is None:
        return None
    list_name, _rule = found
    if list_name == "deny":
        return Outcome.HIDDEN
    if list_name == "ask":
        return Outcome.DENY if mode == "dontAsk" else Outcome.ASK
    if (
        mode in CLAUDE_CODE_ALLOW_READ_ONLY_ONLY[version]
        and declared(annotations)["readOnlyHint"] is not True
    ):
        return None  # this mode does not let an allow rule run a tool that may write
    return Outcome.RAN


def classifier_judges(
    permissions: Permissions,
    server: str,
    tool: str,
    annotations: Any,
    *,
    mode: str,
    version: str = CLAUDE_CODE_VERSION,
) -> bool:
    """Does Claude Code hand this call to its auto-mode safety classifier?"""
    policy = ClaudeCodePolicy(mode, version=version)
    decided = _rule_outcome(permissions, server, tool, annotations, mode, version)
    return decided is None and policy.classifier_judges(annotations)


def claude_code_session(
    permissions: Permissions,
    calls: Sequence[tuple[str, str, Any]],
    *,
    mode: str,
    version: str = CLAUDE_CODE_VERSION,
    classifier: str = "approve",
) -> list[Outcome]:
    """What Claude Code does with each of several calls in one session.

    `calls` holds ``(server, tool, annotations)`` tuples.

    `classifier` is what the auto-mode safety classifier answers when the mode hands it a call
    (``"approve"`` or ``"refuse"``). The first `CLAUDE_CODE_CLASSIFIER_DENIALS` refusals in a
    session deny the call; later refusals ask the user instead.

    Raises:
        ValueError: a mode or version that was not measured, or malformed annotations.
    """
    policy = ClaudeCodePolicy(mode, version=version)
    refusals = 0
    outcomes = []
    for server, tool, hints in calls:
        decided = _rule_outcome(permissions, server, tool, hints, mode, version)
        if decided is not None:
            outcomes.append(decided)
        elif policy.classifier_judges(hints) and classifier == "refuse":
            refusals += 1
            outcomes.append(
                Outcome.DENY if refusals <= CLAUDE_CODE_CLASSIFIER_DENIALS else Outcome.ASK
            )
        else:
            outcomes.append(outcome_of(policy.decide(hints).pre_call))
    return outcomes


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
    """What Claude Code does with a call of `tool` of `server` under these rules, in this mode
    (the first call of a session: see `claude_code_session`).

    Raises:
        ValueError: a mode or version that was not measured, or malformed annotations.
    """
    calls = [(server, tool, annotations)]
    kind = {"mode": mode, "version": version, "classifier": classifier}
    return claude_code_session(permissions, calls, **kind)[0]


def decide_with_rules(
    permissions: Permissions,
    server: str,
    tool: str,
    annotations: Any,
    *,
    mode: str,
    version: str = CLAUDE_CODE_VERSION,
) -> Decision:
    """`claude_code_outcome` as a `Decision`, saying whether a rule or the mode decided, and why."""
    policy = ClaudeCodePolicy(mode, version=version)
    found = permissions.matching(server, tool)
    if (
        found is None
        or _rule_outcome(permissions, server, tool, annotations, mode, version) is None
    ):
        decision = policy.decide(annotations)
        why = f"{mode} mode lets an allow rule run only read-only tools" if found else ""
        why = why or "no rule matches"
        return Decision(decision.pre_call, decision.post_call, f"{why}; {decision.reason}")
    list_name, rule = found
    outcome = claude_code_outcome(
        permissions, server, tool, annotations, mode=mode, version=version
    )
    pre = {Outcome.RAN: PreCall.ALLOW, Outcome.ASK: PreCall.CONFIRM}.get(outcome, PreCall.DENY)
    why = {
        Outcome.HIDDEN: "the tool is removed from the model's tool list",
        Outcome.ASK: "the user is asked, whatever the hints say",
        Outcome.DENY: "dontAsk mode refuses what it would have to ask about",
        Outcome.RAN: "it runs without asking, whatever the hints say",
    }[outcome]
    return Decision(pre, PostCall.TRUST, f"{list_name} rule {rule} matches, so {why}.")
