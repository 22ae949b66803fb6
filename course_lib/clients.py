"""Models of real clients, measured offline: Claude Code (each mode, per version) and Codex.

Measured with ``python -m course_tools measure-client`` (course_lib/data/clients/);
tests/test_measured_clients.py fails when a model here disagrees with a committed measurement.
Also here: the ready-made `CLAUDE_CODE_PLAN`, `CLAUDE_CODE_DEFAULT`, `CODEX_EXEC`, and `POLICIES`,
the standard line-up the lessons compare.

Introduced in: notebooks/02_defaults.ipynb; used in 03_combinations and course_lib.permissions.
"""

from __future__ import annotations

from typing import Any

from .annotations import declared
from .decisions import Decision, PostCall, PreCall, Trust, as_trust
from .policy import CURSOR_ASK, SPEC, TRUST_EVERYTHING, VSCODE, Policy

__all__ = [
    "CLAUDE_CODE_ALLOW_READ_ONLY_ONLY",
    "CLAUDE_CODE_CLASSIFIER_DENIALS",
    "CLAUDE_CODE_DEFAULT",
    "CLAUDE_CODE_MEASURED",
    "CLAUDE_CODE_MODES",
    "CLAUDE_CODE_PLAN",
    "CLAUDE_CODE_VERSION",
    "CODEX_EXEC",
    "POLICIES",
    "ClaudeCodePolicy",
    "CodexPolicy",
]


# What each measured Claude Code version does with an MCP call no permission rule matches, per
# permission mode: (when readOnlyHint is true, otherwise). "classifier": no person is asked; the
# auto-mode safety classifier (a model request) decides, and the call ran when it approved.
# Measured offline with `python -m course_tools measure-client claude-code`
# (course_lib/data/clients/);
# tests/test_measured_clients.py fails when this table and a committed measurement disagree.
CLAUDE_CODE_MODES: dict[str, dict[str, tuple[str, str]]] = {
    "2.1.197": {
        "default": ("ask", "ask"),
        "plan": ("ask", "ask"),
        "acceptEdits": ("ask", "ask"),
        "auto": ("classifier", "classifier"),
        "bypassPermissions": ("ran", "ran"),
        "dontAsk": ("denied", "denied"),
    },
    "2.1.332": {
        "manual": ("ask", "ask"),
        "plan": ("classifier", "ask"),
        "acceptEdits": ("ask", "ask"),
        "auto": ("classifier", "classifier"),
        "bypassPermissions": ("ran", "ran"),
        "dontAsk": ("denied", "denied"),
    },
}
CLAUDE_CODE_ALLOW_READ_ONLY_ONLY: dict[str, frozenset[str]] = {
    "2.1.197": frozenset(),
    "2.1.332": frozenset({"plan"}),
}
"""Modes in which an `allow` rule runs only `readOnlyHint: true` tools; other calls it matches are
asked about (measured: 2.1.332's plan mode asked about a write despite its allow rule)."""
CLAUDE_CODE_CLASSIFIER_DENIALS = 2
"""Measured on both versions: the first two calls the safety classifier refuses in a session are
denied; after that, a refused call is asked about instead."""
CLAUDE_CODE_MEASURED = "2026-11-30"
CLAUDE_CODE_VERSION = "2.1.332"
"""The Claude Code version the course's ready-made models describe (the one the peers tier pins)."""

_CC_PRE = {
    "ask": PreCall.CONFIRM,
    "ran": PreCall.ALLOW,
    "denied": PreCall.DENY,
    "classifier": PreCall.ALLOW,
}
_CC_WHY = {
    "ask": "the user is asked",
    "ran": "it runs without asking",
    "denied": "it is refused without asking",
    "classifier": (
        "no one is asked: the auto-mode safety classifier (a model call) decides, "
        "and it ran when the classifier approved"
    ),
}


class ClaudeCodePolicy(Policy):
    """Claude Code in one permission mode, as measured on one version (no permission rule matching).

    Measured offline (`python -m course_tools measure-client claude-code`, headless ``-p`` mode,
    MCP tool search off) on 2.1.197 and 2.1.332 on 2026-11-30; the data is in
    `course_lib/data/clients/`. What a mode does can change between patch versions: 2.1.197's
    plan mode asks about every MCP call, 2.1.332's sends a `readOnlyHint: true` call to the
    safety classifier instead. Only `readOnlyHint` (declared true) is ever read; no hint reaches
    the model. Caveat: measured in headless ``-p`` mode, where the permission-prompt tool stands
    in for the person; the interactive UI was not measured. Permission rules come first:
    see `course_lib.permissions`.

    `concurrency_safe()` is the other thing Claude Code does with a hint: `readOnlyHint: true`
    calls in one turn run at the same time, others one after the other.
    """

    def __init__(self, mode: str, *, version: str = CLAUDE_CODE_VERSION) -> None:
        if version not in CLAUDE_CODE_MODES:
            raise ValueError(
                f"Claude Code {version!r} was not measured; "
                f"measured: {', '.join(CLAUDE_CODE_MODES)}"
            )
        modes = CLAUDE_CODE_MODES[version]
        if mode not in modes:
            raise ValueError(
                f"Claude Code {version} has no measured mode {mode!r}; modes: {', '.join(modes)}"
            )
        self.mode = mode
        self.version = version
        self.name = f"Claude Code {version} {mode} mode"
        self.source = (
            f"measured offline on Claude Code {version}, {CLAUDE_CODE_MEASURED} "
            f"(course_lib/data/clients/claude-code-{version}.json)"
        )

    def decide(self, annotations: Any, *, trust: Trust = Trust.UNTRUSTED) -> Decision:
        as_trust(trust)  # validated; Claude Code does not check server trust beyond installation
        read_only = declared(annotations)["readOnlyHint"] is True
        if_read_only, otherwise = CLAUDE_CODE_MODES[self.version][self.mode]
        what = if_read_only if read_only else otherwise
        if if_read_only == otherwise:
            before = f"hints are not read for permissions, so {_CC_WHY[what]}"
        else:
            before = f"readOnlyHint is {'true' if read_only else 'not true'}, so {_CC_WHY[what]}"
        return Decision(
            _CC_PRE[what],
            PostCall.TRUST,
            f"{self.name}: {before}; no output review.",
            retry_safe=False,
        )

    def classifier_judges(self, annotations: Any) -> bool:
        """Does this mode hand a call of a tool like this one to the auto-mode safety classifier?"""
        if_read_only, otherwise = CLAUDE_CODE_MODES[self.version][self.mode]
        return (
            if_read_only if declared(annotations)["readOnlyHint"] is True else otherwise
        ) == "classifier"

    def concurrency_safe(self, annotations: Any) -> bool:
        """May two calls of tools like this one run at once? (`readOnlyHint: true` only.)"""
        return declared(annotations)["readOnlyHint"] is True


class CodexPolicy(Policy):
    """Codex CLI 0.171.0 in `codex exec` (no one to ask: approval policy "never"), as measured.

    A call runs without approval when `readOnlyHint` is true, or when `destructiveHint` and
    `openWorldHint` are both declared false (`needs_approval`); any other call fails with "MCP
    tool call requires approval, but approval policy is never": it would have asked, and exec
    cannot. `readOnlyHint: true` wins even over `destructiveHint: true`. Measured offline on
    all 81 hint combinations (course_lib/data/clients/codex-0.171.0.json, 2026-12-01). A later
    source of `codex-rs/core/src/mcp_tool_call.rs` (`requires_mcp_tool_approval`, openai/codex
    at 002500f) checks `destructive_hint == Some(true)` first; 0.171.0 does not, so a model
    holds for the version it was measured on. With `--dangerously-bypass-approvals-and-sandbox`
    every call runs.
    """

    version = "0.171.0"

    def __init__(self, mode: str = "exec") -> None:
        if mode not in {"exec", "bypass"}:
            raise ValueError(f"Codex modes measured: 'exec' and 'bypass', not {mode!r}")
        self.mode = mode
        self.name = f"Codex CLI {self.version} ({mode})"
        self.source = (
            f"measured offline on Codex CLI {self.version}, 2026-12-01 "
            f"(course_lib/data/clients/codex-{self.version}.json)"
        )

    @staticmethod
    def needs_approval(annotations: Any) -> bool:
        """Codex 0.171.0's rule: approval unless read-only, or declared not destructive and
        closed world."""
        values = declared(annotations)
        if values["readOnlyHint"] is True:
            return False
        return not (values["destructiveHint"] is False and values["openWorldHint"] is False)

    def decide(self, annotations: Any, *, trust: Trust = Trust.UNTRUSTED) -> Decision:
        as_trust(trust)
        values = declared(annotations)
        if self.mode == "bypass":
            return Decision(
                PreCall.ALLOW,
                PostCall.TRUST,
                f"{self.name}: approvals are bypassed, so every call runs.",
            )
        if not self.needs_approval(values):
            why = (
                "readOnlyHint is true"
                if values["readOnlyHint"] is True
                else "destructiveHint and openWorldHint are both declared false"
            )
            pre, before = PreCall.ALLOW, f"{why}, so it runs without approval"
        else:
            pre, before = (
                PreCall.DENY,
                "it needs approval and exec mode has no one to ask, so it fails",
            )
        return Decision(pre, PostCall.TRUST, f"{self.name}: {before}.", retry_safe=False)


CLAUDE_CODE_PLAN = ClaudeCodePolicy("plan")
CLAUDE_CODE_DEFAULT = ClaudeCodePolicy("manual")
CODEX_EXEC = CodexPolicy("exec")

POLICIES: tuple[Policy, ...] = (SPEC, VSCODE, CURSOR_ASK, CLAUDE_CODE_PLAN, TRUST_EVERYTHING)
"""The standard line-up the lessons compare (the reference client first)."""
