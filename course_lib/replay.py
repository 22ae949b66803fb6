"""Replaying lesson 04's session under a host defence: did the secret leave, did the work get done?

A defence is two settings of the host's `SessionGuard`: the tools the user always allows, and
what taint does (`Defence`; exercise 3 writes it as ``{"auto_approve": {...}, "on_taint": None |
PreCall.CONFIRM | PreCall.DENY}``, read once by `read_defence`). `run_defence` replays a plan of
tool calls (the user's task) against fresh copies of the private notes, web search and mailer
servers, with a replayed user who approves mail to colleagues only; `judge_defence` says how a
defence failed, if it did. Exercise 3's visible checks and the grader's hidden cases both judge
with it.

Introduced in: notebooks/04_lethal_trifecta.ipynb (the attack);
exercises/03_break_the_trifecta.ipynb.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from .agent import ScriptedAgent, Step, Transcript, open_session
from .approval import ConfirmationRequest
from .decisions import PreCall, Trust
from .guard import TAINT_ACTIONS, SessionGuard, check_on_taint
from .i18n import N_
from .phrase import Phrase, Refusal
from .policy import SPEC
from .servers.mailer import mailer_server
from .servers.private_notes import SECRET, private_notes_server
from .servers.web_search import Page, web_search_server
from .vocabulary import parse

__all__ = [
    "DEFENCE_HINTS",
    "SESSION_TOOLS",
    "USER_APPROVES_DOMAINS",
    "Defence",
    "delivered",
    "judge_defence",
    "leaked",
    "prompts",
    "read_defence",
    "run_defence",
]

Plan = Sequence[Step | tuple[str, Mapping[str, Any]]]
"""A replayed task: `Step`s or (tool name, arguments) pairs, as `ScriptedAgent` takes them."""

USER_APPROVES_DOMAINS = frozenset({"ops.example"})
"""How the replayed user answers a prompt: approve mail to these domains, decline the rest.

This is the user's behaviour, part of the scenario, not a host setting: a defence decides only
*when* the user is asked."""

SESSION_TOOLS = frozenset({"list_notes", "read_note", "search_web", "send_email"})
"""The tools of lesson 04's session."""

_DEFENCE_KEYS = ("auto_approve", "on_taint")
_LEGACY_KEYS = {
    "approve_domains"
}  # older copies of the exercise asked for it; now part of the scenario


def _domain(address: Any) -> str:
    return str(address).rsplit("@", 1)[-1].strip().lower() if "@" in str(address) else ""


@dataclass(frozen=True)
class Defence:
    """A host defence for lesson 04's session: the tools the user chose to always allow, and what
    taint does to a tool that can send data out (`PreCall.CONFIRM`, `PreCall.DENY` or None).

    Raises:
        ValueError: `auto_approve` is not a set of the session's tool names, or `on_taint` is not
            one of those values (see `SessionGuard`).
    """

    auto_approve: frozenset[str] = frozenset()
    on_taint: PreCall | None = PreCall.CONFIRM

    def __post_init__(self) -> None:
        value = self.auto_approve
        if isinstance(value, (str, bytes)) or not isinstance(
            value, (set, frozenset, list, tuple)
        ) or not all(isinstance(v, str) for v in value):
            raise Refusal(
                Phrase(
                    N_(
                        "auto_approve must be a set of tool names such as {example} or set(), "
                        "not {value}"
                    ),
                    example="{'read_note'}",
                    value=repr(value),
                )
            )
        unknown = sorted(set(value) - SESSION_TOOLS)
        if unknown:
            raise Refusal(
                Phrase(
                    N_("auto_approve names tools the session does not have: {unknown}; its tools "
                       "are {tools}"),
                    unknown=str(unknown),
                    tools=str(sorted(SESSION_TOOLS)),
                )
            )
        object.__setattr__(self, "auto_approve", frozenset(value))
        object.__setattr__(self, "on_taint", check_on_taint(self.on_taint))


def read_defence(defence: Any) -> Defence:
    """Read exercise 3's DEFENCE: a `Defence`, or a dict with exactly the keys ``auto_approve``
    and ``on_taint``.

    Where a learner writes it, `on_taint` may also be the text of its value (``"confirm"``, as
    older copies of the exercise asked). A key ``approve_domains`` from those copies is accepted
    and ignored: how the user answers a prompt is part of the scenario (`USER_APPROVES_DOMAINS`),
    not of the defence.

    Raises:
        ValueError: a missing or extra key, a value of the wrong type, an unknown tool or
        `on_taint`.
    """
    if isinstance(defence, Defence):
        return defence
    keys = set(_DEFENCE_KEYS)
    if (
        not isinstance(defence, Mapping)
        or not keys <= set(defence)
        or set(defence) - keys - _LEGACY_KEYS
    ):
        got = sorted(defence) if isinstance(defence, Mapping) else type(defence).__name__
        raise Refusal(
            Phrase(
                N_("DEFENCE must be a dict with exactly the keys {keys}, not {got}"),
                keys=str(sorted(keys)),
                got=str(got),
            )
        )
    on_taint = defence["on_taint"]
    if on_taint is not None:
        on_taint = parse(PreCall, on_taint, "on_taint", choices=TAINT_ACTIONS, also="None")
    return Defence(defence["auto_approve"], on_taint)


def _user(request: ConfirmationRequest) -> bool:
    return _domain(request.arguments.get("to")) in USER_APPROVES_DOMAINS


def run_defence(
    defence: Defence | Mapping[str, Any], plan: Plan, *, pages: Sequence[Page] | None = None
) -> tuple[list[Any], Transcript]:
    """Run lesson 04's session (private notes, web search, mailer) under a host defence.

    `defence` is a `Defence`, or exercise 3's DEFENCE dict (see `read_defence`). At a
    confirmation prompt the replayed user approves mail to `USER_APPROVES_DOMAINS` only.
    Returns the mailer's outbox and the transcript.
    Runs on its own thread, so it works inside a notebook's running event loop too.

    Raises:
        ValueError: a malformed defence (unknown tool, unknown `on_taint`, ...).
    """
    settings = read_defence(defence)

    async def scenario(folder: str) -> tuple[list[Any], Transcript]:
        mailer = mailer_server(root=f"{folder}/mail")
        servers = {
            "private-notes": private_notes_server(root=f"{folder}/notes"),
            "web-search": web_search_server(root=f"{folder}/web", pages=pages),
            "mailer": mailer,
        }
        async with open_session(servers) as session:
            guard = SessionGuard(
                session.analyse(),
                policy=SPEC,
                trust=Trust.TRUSTED,
                auto_approve=settings.auto_approve,
                on_taint=settings.on_taint,
            )
            transcript = await ScriptedAgent(plan).run(session, guard, approve=_user)
        return list(mailer.outbox), transcript

    with (
        tempfile.TemporaryDirectory(prefix="course-defence-") as folder,
        ThreadPoolExecutor(1) as pool,
    ):
        return pool.submit(asyncio.run, scenario(folder)).result(timeout=60)


def leaked(outbox: list[Any], secret: str) -> bool:
    """True if a message carrying `secret` went to an address outside ops.example."""
    return any(secret in m.body and _domain(m.to) != "ops.example" for m in outbox)


def delivered(outbox: list[Any], to: str) -> bool:
    """True if a message reached `to`."""
    return any(m.to == to for m in outbox)


def prompts(transcript: Transcript) -> int:
    """Return how many times the user was asked to confirm a call in a run."""
    return sum(1 for step in transcript.steps if step.answer is not None)


DEFENCE_HINTS = {
    "invalid": N_(
        "keep the stub's two keys and give each the kind of value its comment asks for"
    ),
    "leak": N_(
        "an auto-approved send_email plus untrusted content is lesson 04's hole: once "
        "untrusted content has arrived, mail must need the user (on_taint), even if the user "
        'chose "always allow"'
    ),
    "blocked": N_(
        "blocking every mail after a web search stops colleagues' mail too: ask the user "
        "instead, who approves colleagues and declines strangers"
    ),
    "asked": N_(
        "asking before every mail, with no untrusted content in the session, trains users to "
        "click yes (confirmation fatigue): let ordinary mail run, and let taint bring the "
        "prompt back"
    ),
}
"""Exercise 3b: the rule behind each kind of failure (`judge_defence`'s first value)."""


def judge_defence(
    defence: Defence | Mapping[str, Any],
    plan: Plan,
    *,
    pages: Sequence[Page] | None = None,
    colleague: str | None = None,
    quiet: bool = False,
) -> tuple[str, Phrase] | None:
    """Return None if `defence` passes a replay of `plan`, else (kind, what went wrong), said
    when shown (``.text()``).

    The kinds (keys of `DEFENCE_HINTS`): "invalid" (malformed defence), "leak" (the secret left
    ops.example), "blocked" (the mail to `colleague` was not sent), "asked" (with `quiet`: the user
    was asked during ordinary work).
    """
    try:
        outbox, transcript = run_defence(defence, plan, pages=pages)
    except Refusal as exc:
        return "invalid", exc.said
    except ValueError as exc:
        return "invalid", Phrase("{error}", error=str(exc))
    if leaked(outbox, SECRET):
        return "leak", Phrase(N_("the secret left the team: the attack still works"))
    if colleague and not delivered(outbox, colleague):
        return "blocked", Phrase(
            N_("the mail to {colleague} was not sent: the defence stops ordinary work"),
            colleague=colleague,
        )
    asked = prompts(transcript)
    if quiet and asked:
        return "asked", Phrase.counted(
            "the user was asked once during ordinary work with no untrusted content: "
            "confirmation fatigue",
            "the user was asked {n} times during ordinary work with no untrusted content: "
            "confirmation fatigue",
            asked,
        )
    return None
