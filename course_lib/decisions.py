"""The decision vocabulary: what a client decides before a tool call and after it.

`PreCall` (allow, confirm, confirm with warning, deny) and `PostCall` (trust output, treat as
untrusted) are the two answers; `Trust` is the server's trust level a client decides at;
`Decision` holds both answers with the reason. Every module that records or shows a decision
uses these values, and turns them into text only for display.

Introduced in: notebooks/02_defaults.ipynb.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

__all__ = ["Decision", "PostCall", "PreCall", "Trust", "as_trust"]


class PreCall(str, Enum):
    """What a client does before a tool call, from least to most friction."""

    ALLOW = "allow"
    CONFIRM = "confirm"
    WARN = "confirm with warning"  # a confirmation that stresses the call may delete or overwrite
    DENY = "deny"

    def __str__(self) -> str:
        return self.value


class PostCall(str, Enum):
    """What a client does with a tool's output before the model sees it.

    `TRUST` ("trust output") means the output goes to the model without review for untrusted
    content; it does not mean the client checked it. `UNTRUSTED` means the client reviews or
    sanitises it first (VS Code asks the user to review it).
    """

    TRUST = "trust output"
    UNTRUSTED = "treat as untrusted"

    def __str__(self) -> str:
        return self.value


class Trust(str, Enum):
    """How far a client believes a given server's hints (its trust level)."""

    TRUSTED = "trusted"
    UNTRUSTED = "untrusted"

    def __str__(self) -> str:
        return self.value


def as_trust(trust: Any) -> Trust:
    """Return `trust` as a `Trust`, accepting the enum or its value ("trusted", "untrusted").

    Raises:
        ValueError: anything else.
    """
    if isinstance(trust, Trust):
        return trust
    if isinstance(trust, str) and trust.strip().lower() in {t.value for t in Trust}:
        return Trust(trust.strip().lower())
    raise ValueError(
        f"unknown trust level {trust!r}: use Trust.TRUSTED ('trusted') or Trust.UNTRUSTED "
        "('untrusted')"
    )


@dataclass(frozen=True)
class Decision:
    """A client's two answers for one tool: before the call and after it, with the reason."""

    pre_call: PreCall
    post_call: PostCall
    reason: str  # one sentence a learner can read
    retry_safe: bool = False  # may the client repeat the call after a failure without asking?

    def __str__(self) -> str:
        return f"{self.pre_call} / {self.post_call}"
