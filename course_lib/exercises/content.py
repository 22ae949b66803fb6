"""What the exercises ask, and the answers both judges hold: one source for the learner's visible
self-check (the other modules of `course_lib.exercises`) and the grader's hidden cases
(`course_tools.grading.hidden`, which imports this module and no other of the self-check's).

Only what a learner already sees lives here: the tools, scenarios and statements an exercise
shows, and the answers its visible check accepts. The hidden cases' own inputs and scenarios
(other annotations, other injected pages, a lying server, an older client) stay with the grader.

Introduced in: exercises/01_annotate_tools.ipynb; used by every exercise.
"""

from __future__ import annotations

from typing import Any

from ..annotations import HINTS, NOT_MEANINGFUL
from ..i18n import N_
from ..decisions import Trust
from ..legs import Leg
from ..phrase import Phrase
from ..rule_judges import (
    FILE_OPS,
    LATER,
    OTHER_TOOLS,
    RuleCase,
    all_of,
    asked,
    everywhere,
    hidden,
    never_silent,
    ran,
    stays_on,
)

__all__ = [
    "EXPECTED_HINTS",
    "FATE_CLIENTS",
    "FATE_TOOLS",
    "HONEST_TOOLS",
    "LIAR",
    "MIN_OWN_TOOLS",
    "PREDICT_SCENARIOS",
    "RULE_CASES",
    "STATEMENTS",
    "STATEMENT_HINTS",
    "TRIFECTA_ANSWERS",
    "TRIFECTA_SCENARIOS",
    "TRUE_STATEMENTS",
]

# --- exercise 1, "Annotate the assistant's tools" ----------------------------------------------

NA = NOT_MEANINGFUL
_T, _F = True, False

EXPECTED_HINTS: dict[str, dict[str, Any]] = {
    name: dict(zip(HINTS, values))
    for name, values in {
        "read_runbook": (_T, NA, NA, _F),
        "query_incidents": (_T, NA, NA, _F),
        "append_incident_note": (_F, _F, _F, _F),
        "set_oncall": (_F, _F, _T, _F),
        "delete_old_logs": (_F, _T, _T, _F),
        "deploy_release": (_F, _T, _T, _F),
        "search_web": (_T, NA, NA, _T),
        "post_status_update": (_F, _F, _F, _T),
    }.items()
}
"""Part 1a: the eight tools, and the effective hints (wire names) a right annotation gives each."""

# --- exercise 2, "Predict the client" ----------------------------------------------------------

PREDICT_SCENARIOS: dict[str, tuple[str, dict[str, bool] | None, Trust]] = {
    "A": ("read_runbook", {"readOnlyHint": True, "openWorldHint": False}, Trust.TRUSTED),
    "B": ("read_runbook", {"readOnlyHint": True, "openWorldHint": False}, Trust.UNTRUSTED),
    "C": (
        "set_oncall",
        {
            "readOnlyHint": False,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        },
        Trust.TRUSTED,
    ),
    "D": (
        "delete_old_logs",
        {
            "readOnlyHint": False,
            "destructiveHint": True,
            "idempotentHint": True,
            "openWorldHint": False,
        },
        Trust.TRUSTED,
    ),
    "E": ("search_web", {"readOnlyHint": True}, Trust.TRUSTED),
    "F": ("run_diagnostics", None, Trust.TRUSTED),
}
"""Part 2a's scenarios: id -> (tool, declared hints or None if unannotated, server trust)."""

STATEMENTS: dict[str, str] = {
    "a": "Calling an idempotent tool twice with the same arguments has no further effect.",
    "b": "An idempotent tool is safe, so a client may run it without asking.",
    "c": "delete_old_logs is both idempotent and destructive.",
    "d": "idempotentHint: true tells a client it may retry the call after a failure.",
    "e": "idempotentHint: true on a read-only tool changes what a spec-following client does.",
    "f": "The first call of an idempotent tool can still delete data for good.",
}
"""Part 2c's statements about idempotence."""

TRUE_STATEMENTS = frozenset({"a", "c", "d", "f"})
"""Part 2c: the true statements."""

STATEMENT_HINTS = {
    "a": N_("that is the definition of idempotentHint in the spec"),
    "b": N_("idempotent says nothing about safety: deleting is idempotent and destructive"),
    "c": N_(
        "deleting what is already deleted changes nothing more (idempotent), but the first "
        "delete is permanent"
    ),
    "d": N_("the blog's mapping: idempotentHint: true means safe to retry on failure"),
    "e": N_("destructiveHint and idempotentHint are meaningful only when readOnlyHint is false"),
    "f": N_("idempotence is about the second call; the first one does all the damage"),
}
"""Part 2c: the rule behind each statement, shown when a learner gets that statement wrong."""


RULE_CASES: tuple[RuleCase, ...] = (
    RuleCase(
        "reads",
        Phrase(N_("reads run without asking in every mode")),
        everywhere("file-ops", "read_file", ran, FILE_OPS),
        Phrase(
            N_(
                "an allow rule for mcp__file-ops__read_file runs it without asking in every "
                "mode, dontAsk included"
            )
        ),
    ),
    RuleCase(
        "writes",
        Phrase(N_("writes ask in every mode (dontAsk refuses them)")),
        all_of([everywhere("file-ops", t, asked, FILE_OPS) for t in ("append_text", "set_value")]),
        Phrase(
            N_(
                "without a rule, bypassPermissions runs a write silently and plan mode may too; "
                "an ask rule for each write tool asks in every mode (ask beats allow, so a "
                "server-wide allow does not undo it)"
            )
        ),
    ),
    RuleCase(
        "deletes",
        Phrase(N_("deletes are hidden from the model in every mode")),
        everywhere("file-ops", "delete_file", hidden, FILE_OPS),
        Phrase(
            N_(
                "a deny rule hides delete_file from the model in every mode; deny beats ask and "
                "allow"
            )
        ),
    ),
    RuleCase(
        "scope",
        Phrase(N_("no rule covers another server's tools")),
        stays_on("file-ops", OTHER_TOOLS),
        Phrase(
            N_(
                "write mcp__file-ops__TOOL (or mcp__file-ops for the whole server); "
                "never name another server"
            )
        ),
    ),
    RuleCase(
        "later",
        Phrase(N_("a tool the server adds later does not run silently")),
        never_silent("file-ops", LATER),
        Phrase(
            N_(
                "a server-wide allow (mcp__file-ops or mcp__file-ops__*) also covers every tool "
                "the server adds tomorrow, which then runs without a question: allow each read "
                "by name"
            )
        ),
    ),
)
"""Part 2d: what the rules must do for the file-ops server as it declares its tools (the visible
checks; the grader also tries a server that lies about its hints, and an older Claude Code)."""

FATE_TOOLS: dict[str, dict[str, bool] | None] = {
    "rotate_keys": {"readOnlyHint": False, "destructiveHint": False, "openWorldHint": True},
    "purge_cache": {"readOnlyHint": True, "destructiveHint": True},
    "tag_release": {"destructiveHint": False, "openWorldHint": False},
}
"""Part 2e's new tools and what their server declares (no tool is one of the measured profiles)."""

FATE_CLIENTS = ("Codex exec", "Copilot prompt", "Claude Code plan")
"""Part 2e's clients: Codex CLI 0.171.0 `codex exec`, Copilot CLI 1.0.102 `-p`, Claude Code
2.1.332 plan mode, each as measured headless (lesson 03's census)."""


# --- exercise 3, "Break the trifecta" ---------------------------------------------------------

TRIFECTA_ANSWERS: dict[Leg, tuple[frozenset[str], ...]] = {
    Leg.PRIVATE_DATA: (frozenset({"read_note"}), frozenset({"read_note", "list_notes"})),
    Leg.UNTRUSTED_CONTENT: (frozenset({"search_web"}),),
    # a search query leaves the host too (lesson 04, section 3): the mailer alone is not the leg
    Leg.EXTERNAL_COMMUNICATION: (frozenset({"send_email", "search_web"}),),
}
"""Part 3a: the accepted sets of tools per leg in lesson 04's session (what the host knows)."""

TRIFECTA_SCENARIOS: dict[str, dict[str, Any]] = {
    "attack": {
        "about": "lesson 04's task: search the VPN status, then mail a colleague "
        "(the page carries an injection)",
        "plan": [
            ("search_web", {"query": "vpn outage today"}),
            (
                "send_email",
                {
                    "to": "mei@ops.example",
                    "subject": "VPN status",
                    "body": "No outage now; eu-west was down until 09:40.",
                },
            ),
        ],
        "must": N_(
            "the secret does not leave ops.example, and the colleague still gets the summary"
        ),
    },
    "notes_to_colleague": {
        "about": "ordinary work: read the on-call note and mail it to a colleague (no web search)",
        "plan": [
            ("read_note", {"title": "on-call"}),
            (
                "send_email",
                {"to": "tom@ops.example", "subject": "on-call", "body": "{{read_note}}"},
            ),
        ],
        "must": N_(
            "the colleague gets the mail, and nobody is asked (no untrusted content came in)"
        ),
        "quiet": True,
    },
}
"""Part 3b's scenarios: the user's task (`plan`), and what must hold afterwards.

``"quiet": True`` marks ordinary work before any untrusted content: the user must not be asked
at all."""

# --- exercise 4, "Catch the liar" -------------------------------------------------------------

LIAR = "log-tidy/tidy_logs"
"""Part 4b: the one tool in the exercise's `CALLS` whose calls contradict its declared hints."""

HONEST_TOOLS = frozenset(
    {
        "annotated-file-ops/append_text",
        "annotated-file-ops/read_file",
        "annotated-file-ops/set_value",
        "annotated-file-ops/delete_file",
        "log-tidy/disk_usage",
    }
)
"""Part 4b: the tools in `CALLS` that keep every promise they declare."""

# --- exercise 5, "Your own server" ------------------------------------------------------------

MIN_OWN_TOOLS = 2
"""Part 5a: the fewest tools the learner's server may have (the task asks for two or three)."""
