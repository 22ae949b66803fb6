"""Judging a set of Claude Code permission rules: read them, and test what they make a tool do.

The building blocks of exercise 2 part 2d's checks and the tools they are about, with no case
of their own: the visible self-check (`course_lib.exercises.predict`) and the grader's hidden
cases (in the grading package, hidden from a graded kernel) each build their cases from these.
A judge takes `Permissions` and returns None when the rules do what it wants, else what went
wrong.

Introduced in: exercises/02_predict_the_client.ipynb, part 2d.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .clients import CLAUDE_CODE_MODES, CLAUDE_CODE_VERSION
from .decisions import Outcome
from .permissions import LISTS, Permissions, claude_code_outcome
from .phrase import Phrase

__all__ = [
    "FILE_OPS",
    "LATER",
    "OTHER_TOOLS",
    "RuleCase",
    "RulesJudge",
    "all_of",
    "asked",
    "everywhere",
    "hidden",
    "never_silent",
    "parse_rules",
    "ran",
    "stays_on",
]

RulesJudge = Callable[[Permissions], "str | None"]
Claims = Mapping[str, Any]  # tool name -> the annotations its server declares

FILE_OPS: dict[str, dict[str, bool]] = {
    "read_file": {"readOnlyHint": True, "openWorldHint": False},
    "append_text": {
        "readOnlyHint": False,
        "destructiveHint": False,
        "idempotentHint": False,
        "openWorldHint": False,
    },
    "set_value": {
        "readOnlyHint": False,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    },
    "delete_file": {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": True,
        "openWorldHint": False,
    },
}
"""The file-ops server's tools (lesson 03, *Rules over hints*) and the annotations it declares."""

OTHER_TOOLS: dict[tuple[str, str], dict[str, bool]] = {
    ("mailer", "send_email"): {
        "readOnlyHint": False,
        "destructiveHint": False,
        "openWorldHint": True,
    },
    ("file-ops-backup", "delete_file"): FILE_OPS["delete_file"],
    ("files", "read_file"): FILE_OPS["read_file"],
}
"""Tools of other servers, (server, tool) -> declared annotations: rules for file-ops must not
change what they do."""

LATER: dict[str, dict[str, bool] | None] = {"empty_trash": None}
"""A tool the file-ops server adds after the rules were written (no annotations): the rules must
not let it run silently where, with no rule, it would be asked about (lesson 03: a server-wide
allow is worse than none)."""


@dataclass(frozen=True)
class RuleCase:
    """One thing the rules must do; `judge` returns None when they do it, else what went wrong.

    `label` and `hint` are shown to the learner, in their language (the self-check's, and the
    grader's feedback)."""

    id: str
    label: Phrase
    judge: RulesJudge
    hint: Phrase


def parse_rules(value: Any) -> Permissions:
    """A learner's ``{"allow": [...], "ask": [...], "deny": [...]}`` as `Permissions`.

    Raises:
        ValueError: not a dict of rule lists, an unknown key, or a bad rule (named in the message).
    """
    if not isinstance(value, Mapping):
        raise ValueError(
            'RULES must be a dict such as {"allow": [...], "ask": [...], "deny": [...]}'
        )
    unknown = sorted(str(k) for k in value if k not in LISTS)
    if unknown:
        raise ValueError(f"RULES has unknown keys {unknown}: use only allow, ask and deny")
    lists = {}
    for key, rules in value.items():
        if isinstance(rules, Mapping) and set(rules) == {"__set__"}:  # a set, as a probe encodes it
            rules = rules["__set__"]
        if isinstance(rules, (str, bytes)) or not isinstance(rules, (list, tuple, set, frozenset)):
            raise ValueError(
                f"RULES[{key!r}] must be a list of rule strings, not {type(rules).__name__}"
            )
        lists[key] = list(rules)
    return Permissions(**lists)


def asked(mode: str) -> Outcome:
    """What "ask the user" becomes in `mode`: dontAsk refuses what it would ask."""
    return Outcome.DENY if mode == "dontAsk" else Outcome.ASK


def ran(_mode: str) -> Outcome:
    """What "run without asking" is in every mode."""
    return Outcome.RAN


def hidden(_mode: str) -> Outcome:
    """What "removed from the model's tools" is in every mode."""
    return Outcome.HIDDEN


def everywhere(
    server: str,
    tool: str,
    want: Callable[[str], Outcome],
    claims: Claims,
    version: str = CLAUDE_CODE_VERSION,
) -> RulesJudge:
    """A judge: in every measured mode of `version`, `server`'s `tool` ends as `want(mode)`."""

    def judge(rules: Permissions) -> str | None:
        for mode in CLAUDE_CODE_MODES[version]:
            got = claude_code_outcome(rules, server, tool, claims[tool], mode=mode, version=version)
            if got is not want(mode):
                return f"{tool} in {mode} mode: {got.value}, wanted {want(mode).value}"
        return None

    return judge


def all_of(judges: list[RulesJudge], preface: str = "") -> RulesJudge:
    """A judge that passes when every one of `judges` does; a problem is prefixed by `preface`."""

    def judge(rules: Permissions) -> str | None:
        for one in judges:
            problem = one(rules)
            if problem:
                return f"{preface}{problem}"
        return None

    return judge


def stays_on(server: str, others: Mapping[tuple[str, str], Claims]) -> RulesJudge:
    """A judge: every rule names `server`, and no tool of `others` ((server, tool) -> hints)
    ends differently from what it does without rules, in any mode."""

    def judge(rules: Permissions) -> str | None:
        strays = [str(r) for name in LISTS for r in getattr(rules, name) if r.server != server]
        if strays:
            return f"{strays[0]} is not a rule for the {server} server"
        for (other, tool), hints in others.items():
            for mode in CLAUDE_CODE_MODES[CLAUDE_CODE_VERSION]:
                mine = claude_code_outcome(rules, other, tool, hints, mode=mode)
                if mine is not claude_code_outcome(Permissions(), other, tool, hints, mode=mode):
                    return f"your rules change what {other}'s {tool} does in {mode} mode"
        return None

    return judge


def never_silent(
    server: str, tools: Mapping[str, Any], version: str = CLAUDE_CODE_VERSION
) -> RulesJudge:
    """A judge: no tool of `tools` (name -> hints) runs without asking in a mode where, with no
    rule at all, it would not: the rules never let a tool they do not name run silently."""

    def judge(rules: Permissions) -> str | None:
        for tool, hints in tools.items():
            for mode in CLAUDE_CODE_MODES[version]:
                got = claude_code_outcome(rules, server, tool, hints, mode=mode, version=version)
                bare = claude_code_outcome(
                    Permissions(), server, tool, hints, mode=mode, version=version
                )
                if got is Outcome.RAN and bare is not Outcome.RAN:
                    return f"a tool {server} adds later ({tool}) runs without asking in {mode} mode"
        return None

    return judge
