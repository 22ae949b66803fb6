"""Asking the user: what a host shows before a call, and who answers.

`ConfirmationRequest` is the prompt (the tool, the real arguments, why the user is asked);
an `Approver` plays the user, returning True to allow. `approve_all` and `decline_all` are
the two extreme users. The scripted agent (lesson 04) and the `Host` (lesson 05) ask the
same way.

Introduced in: notebooks/04_lethal_trifecta.ipynb; used in 05_lying_server and 06_beyond_hints.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcp.types import ToolAnnotations

from .decisions import PreCall
from .i18n import ENGLISH, language
from .i18n import gettext_ as _

__all__ = ["Approver", "ConfirmationRequest", "answer_text", "approve_all", "decline_all"]


@dataclass(frozen=True)
class ConfirmationRequest:
    """What the user sees before a call: the tool, the real arguments, and why they are asked."""

    server: str
    tool: str
    title: str
    arguments: dict[str, Any]
    decision: PreCall
    reason: str
    annotations: ToolAnnotations | None = None  # as the server declared them

    @property
    def text(self) -> str:
        """The prompt as a host would show it."""
        warning = ""
        if self.decision is PreCall.WARN:
            warning = _("  WARNING: this call may delete or overwrite data.") + "\n"
        wide = language() != ENGLISH  # Chinese: no spaces to break at, two columns a character
        why = textwrap.fill(
            _("why you are asked: {reason}").format(reason=self.reason),
            width=48 if wide else 90,
            initial_indent="  ",
            subsequent_indent="    ",
            break_on_hyphens=False,
            break_long_words=wide,
        )
        arguments = json.dumps(self.arguments, sort_keys=True, ensure_ascii=False)
        question = _("Allow {title} ({tool}) from server {server}?").format(
            title=repr(self.title), tool=self.tool, server=repr(self.server)
        )
        shown = _("  arguments: {arguments}").format(arguments=arguments)
        return f"{question}\n{warning}{shown}\n{why}"


Approver = Callable[[ConfirmationRequest], bool]
"""The user at a prompt: gets a `ConfirmationRequest`, returns True to allow the call."""


def approve_all(request: ConfirmationRequest) -> bool:
    """A user who clicks "Allow" on every prompt (approval fatigue)."""
    return True


def decline_all(request: ConfirmationRequest) -> bool:
    """A user who declines every prompt (or a host with nobody to ask)."""
    return False


def answer_text(answer: bool | None) -> str:
    """The user's answer at a prompt, in words: "not asked", "approved" or "declined"."""
    return "not asked" if answer is None else "approved" if answer else "declined"
