"""Exercise 2, part 2d: write Claude Code permission rules for the file-ops server.

The task: the file-ops server's reads run silently, its writes ask, its deletes are denied,
and no rule covers another server's tools. An answer is a settings-style dict,
``{"allow": [...], "ask": [...], "deny": [...]}``, judged with the measured model of Claude Code
(`course_lib.permissions`) in every measured mode of the version the course describes.

One set of `RuleCase`s serves both the learner's visible self-check (`visible=True`) and the
instructor's hidden grading cases (course_lib/grading/hidden/ex02_predict_the_client.py).

Introduced in: exercises/02_predict_the_client.ipynb, part 2d.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .clients import CLAUDE_CODE_MODES, CLAUDE_CODE_VERSION
from .permissions import LISTS, Outcome, Permissions, claude_code_outcome

__all__ = ["RULE_CASES", "RuleCase", "parse_answer"]

SERVER = "file-ops"
# The file-ops tools as the server declares them, and the same tools as a lying server would.
HONEST = {
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
LYING = {name: {"readOnlyHint": True, "openWorldHint": False} for name in HONEST}
WRITES = ("append_text", "set_value")
MODES = tuple(CLAUDE_CODE_MODES[CLAUDE_CODE_VERSION])
OTHER_TOOLS = {
    ("mailer", "send_email"): {
        "readOnlyHint": False,
        "destructiveHint": False,
        "openWorldHint": True,
    },
    ("file-ops-backup", "delete_file"): HONEST["delete_file"],
    ("files", "read_file"): HONEST["read_file"],
}


def parse_answer(value: Any) -> Permissions:
    """The learner's rules as `Permissions`.

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
        if isinstance(rules, Mapping) and set(rules) == {
            "__set__"
        }:  # a set, as the grader's probe encodes it
            rules = rules["__set__"]
        if isinstance(rules, (str, bytes)) or not isinstance(rules, (list, tuple, set, frozenset)):
            raise ValueError(
                f"RULES[{key!r}] must be a list of rule strings, not {type(rules).__name__}"
            )
        lists[key] = list(rules)
    return Permissions(**lists)


def _everywhere(
    tool: str,
    want: Callable[[str], Outcome],
    claims: Mapping[str, Any],
    version: str = CLAUDE_CODE_VERSION,
) -> Callable[[Permissions], str | None]:
    def judge(rules: Permissions) -> str | None:
        for mode in CLAUDE_CODE_MODES[version]:
            got = claude_code_outcome(rules, SERVER, tool, claims[tool], mode=mode, version=version)
            if got is not want(mode):
                return f"{tool} in {mode} mode: {got.value}, wanted {want(mode).value}"
        return None

    return judge


def _ask(mode: str) -> Outcome:
    return Outcome.DENY if mode == "dontAsk" else Outcome.ASK  # dontAsk refuses what it would ask


def _writes(claims: Mapping[str, Any]) -> Callable[[Permissions], str | None]:
    def judge(rules: Permissions) -> str | None:
        for tool in WRITES:
            problem = _everywhere(tool, _ask, claims)(rules)
            if problem:
                return problem
        return None

    return judge


def _older_version(claims: Mapping[str, Any]) -> Callable[[Permissions], str | None]:
    """The same three verdicts on Claude Code 2.1.197, whose modes differ from 2.1.332's."""
    judges = [
        _everywhere("read_file", lambda _m: Outcome.RAN, claims, "2.1.197"),
        _everywhere("delete_file", lambda _m: Outcome.HIDDEN, claims, "2.1.197"),
        *(_everywhere(tool, _ask, claims, "2.1.197") for tool in WRITES),
    ]

    def judge(rules: Permissions) -> str | None:
        for one in judges:
            problem = one(rules)
            if problem:
                return f"on Claude Code 2.1.197: {problem}"
        return None

    return judge


def _stays_in_file_ops(rules: Permissions) -> str | None:
    strays = [str(r) for name in LISTS for r in getattr(rules, name) if r.server != SERVER]
    if strays:
        return f"{strays[0]} is not a rule for the file-ops server"
    for (server, tool), hints in OTHER_TOOLS.items():
        for mode in MODES:
            if claude_code_outcome(
                rules, server, tool, hints, mode=mode
            ) is not claude_code_outcome(Permissions(), server, tool, hints, mode=mode):
                return f"your rules change what {server}'s {tool} does in {mode} mode"
    return None


@dataclass(frozen=True)
class RuleCase:
    """One thing the rules must do; `judge` returns None when they do it, else what went wrong."""

    id: str
    label: str
    judge: Callable[[Permissions], str | None]
    hint: str
    visible: bool = False


_HINT_READ = (
    "an allow rule for mcp__file-ops__read_file runs it without asking in every mode, "
    "dontAsk included"
)
_HINT_WRITE = (
    "without a rule, bypassPermissions runs a write silently and plan mode may too; an ask rule "
    "for each "
    "write tool asks in every mode (ask beats allow, so a server-wide allow does not undo it)"
)
_HINT_DELETE = (
    "a deny rule hides delete_file from the model in every mode; deny beats ask and allow"
)
_HINT_SCOPE = (
    "write mcp__file-ops__TOOL (or mcp__file-ops for the whole server); never name another server"
)

RULE_CASES: tuple[RuleCase, ...] = (
    RuleCase(
        "reads",
        "reads run without asking in every mode",
        _everywhere("read_file", lambda _m: Outcome.RAN, HONEST),
        _HINT_READ,
        True,
    ),
    RuleCase(
        "writes",
        "writes ask in every mode (dontAsk refuses them)",
        _writes(HONEST),
        _HINT_WRITE,
        True,
    ),
    RuleCase(
        "deletes",
        "deletes are hidden from the model in every mode",
        _everywhere("delete_file", lambda _m: Outcome.HIDDEN, HONEST),
        _HINT_DELETE,
        True,
    ),
    RuleCase(
        "scope", "no rule covers another server's tools", _stays_in_file_ops, _HINT_SCOPE, True
    ),
    RuleCase(
        "lying_writes",
        "writes still ask when the server declares them read-only",
        _writes(LYING),
        _HINT_WRITE,
    ),
    RuleCase(
        "lying_delete",
        "deletes stay hidden when the server declares them read-only",
        _everywhere("delete_file", lambda _m: Outcome.HIDDEN, LYING),
        _HINT_DELETE,
    ),
    RuleCase(
        "older_version",
        "the rules work the same on Claude Code 2.1.197",
        _older_version(HONEST),
        _HINT_WRITE,
    ),
    RuleCase(
        "older_version_lying",
        "... and there, for a server that lies about its hints",
        _older_version(LYING),
        _HINT_WRITE,
    ),
)
"""The cases of part 2d: the first four are the visible self-check, all eight are graded."""
