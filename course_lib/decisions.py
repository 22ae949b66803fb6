"""The decision vocabulary: what a client decides before a tool call and after it.

`PreCall` (allow, confirm, confirm with warning, deny) and `PostCall` (trust output, treat as
untrusted) are the two answers; `Trust` is the server's trust level a client decides at;
`Decision` holds both answers with the reason; `Outcome` is what then happened to the call
(it ran, the user was asked, it was refused or hidden...). Every module that records or shows
a decision uses these values, and turns them into text only for display.

They are plain `Enum`s: ``PreCall.ALLOW == "allow"`` is False. Text becomes a value once, where
it comes in (a settings file, a command-line flag, JSON, a learner's exercise answer), with
`course_lib.vocabulary.parse`; an API that takes one of these values refuses a string with a
message naming the value to write (`course_lib.vocabulary.member`).

Introduced in: notebooks/02_defaults.ipynb.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from .vocabulary import member

__all__ = ["Decision", "Outcome", "PostCall", "PreCall", "Trust", "as_trust"]


class PreCall(Enum):
    """What a client does before a tool call, from least to most friction."""

    ALLOW = "allow"
    CONFIRM = "confirm"
    WARN = "confirm with warning"  # a confirmation that stresses the call may delete or overwrite
    DENY = "deny"

    def __str__(self) -> str:
        return self.value


class PostCall(Enum):
    """What a client does with a tool's output before the model sees it.

    `TRUST` ("trust output") means the output goes to the model without review for untrusted
    content; it does not mean the client checked it. `UNTRUSTED` means the client reviews or
    sanitises it first (VS Code asks the user to review it).
    """

    TRUST = "trust output"
    UNTRUSTED = "treat as untrusted"

    def __str__(self) -> str:
        return self.value


class Trust(Enum):
    """How far a client believes a given server's hints (its trust level)."""

    TRUSTED = "trusted"
    UNTRUSTED = "untrusted"

    def __str__(self) -> str:
        return self.value


class Outcome(Enum):
    """What happened to one attempted tool call: in a host's audit log, or in a measurement."""

    RAN = "ran"  # it ran (nobody was asked, or the user approved)
    ERROR = "tool error"  # it ran, and the tool answered with an error
    ASK = "asked"  # the user was asked (a measurement records the prompt, not an answer)
    ASK_HEADLESS = "would ask"  # it needed the user, but a headless run cannot ask: it failed
    NOT_RUN = "not run"  # the user was asked and declined
    DENY = "denied"  # the client refused it without asking
    HIDDEN = "hidden"  # the tool was removed from the tools the model is offered

    def __str__(self) -> str:
        return self.value


def as_trust(trust: Any) -> Trust:
    """Return `trust` if it is a `Trust` level.

    Raises:
        ValueError: anything else, e.g. the string "trusted" (write `Trust.TRUSTED`).
    """
    return member(Trust, trust, "trust")


@dataclass(frozen=True)
class Decision:
    """A client's two answers for one tool: before the call and after it, with the reason."""

    pre_call: PreCall
    post_call: PostCall
    reason: str  # one sentence a learner can read
    retry_safe: bool = False  # may the client repeat the call after a failure without asking?

    def __str__(self) -> str:
        return f"{self.pre_call} / {self.post_call}"
