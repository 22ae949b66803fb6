"""Text into the course's vocabularies (`PreCall`, `Trust`, `Leg`, ...), once, where it comes in.

The vocabularies are plain `Enum`s, so ``PreCall.ALLOW == "allow"`` is False and a value is
never a string in disguise. Text turns into a value in one place, at the edge where it arrives
(a settings file, a command-line flag, JSON, a learner's exercise answer): `parse`. Everywhere
else a function takes the value itself and refuses a string with a message that names the value
to write instead: `member`.

Introduced in: notebooks/02_defaults.ipynb (the decision values); used by every vocabulary.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from typing import Any, NoReturn, TypeVar

from .i18n import N_
from .phrase import Phrase, Refusal

__all__ = ["member", "parse"]

E = TypeVar("E", bound=Enum)


def _normal(text: str) -> str:
    return " ".join(text.lower().split())


def _find(kind: type[E], text: str) -> E | None:
    wanted = _normal(text)
    return next((m for m in kind if wanted in {_normal(str(m.value)), m.name.lower()}), None)


def _spelled(kind: type[Enum], members: Sequence[Enum], also: str = "") -> Phrase:
    """The values to write, ``PreCall.CONFIRM, PreCall.DENY or None`` (`also` translated)."""
    names = [f"{kind.__name__}.{m.name}" for m in members]
    if not also and len(names) == 1:
        return Phrase("{name}", name=names[0])
    *first, last = names + [also] if also else names
    shown_last = Phrase(also) if also else Phrase("{name}", name=last)
    return Phrase(N_("{first} or {last}"), first=", ".join(first), last=shown_last)


def member(
    kind: type[E], value: Any, what: str, *, choices: Sequence[E] = (), also: str = ""
) -> E:
    """Return `value` if it is a member of `kind` (one of `choices`, if given).

    `also` names a value the caller accepts besides (e.g. "None (no defence)"), for the message.

    Raises:
        ValueError: anything else. A string gets the member to write instead: ``trust must be
            Trust.TRUSTED or Trust.UNTRUSTED, not the string 'trusted': write Trust.TRUSTED``.
    """
    allowed = list(choices) or list(kind)
    if isinstance(value, kind) and value in allowed:
        return value
    if not isinstance(value, str):
        _refuse(what, _spelled(kind, allowed, also), Phrase("{value}", value=repr(value)[:80]))
    shown = Phrase(N_("the string {text}"), text=repr(value[:80]))
    match = _find(kind, value)
    if match is None or match not in allowed:
        _refuse(what, _spelled(kind, allowed, also), shown)
    name = kind.__name__
    write = Phrase(
        N_("{got}: write {name}.{member} (from course_lib import {name})"),
        got=shown,
        name=name,
        member=match.name,
    )
    _refuse(what, _spelled(kind, allowed, also), write)


def parse(
    kind: type[E], value: Any, what: str, *, choices: Sequence[E] = (), also: str = ""
) -> E:
    """Read a value of `kind` (one of `choices`, if given) from text that came in: the member
    itself, or its value or name as text (``"confirm with warning"`` or ``"WARN"``), case and
    spacing ignored.

    Raises:
        ValueError: anything else, naming the values to use.
    """
    allowed = list(choices) or list(kind)
    match = value if isinstance(value, kind) else None
    if isinstance(value, str):
        match = _find(kind, value)
    if match is not None and match in allowed:
        return match
    _refuse(what, _spelled(kind, allowed, also), Phrase("{value}", value=repr(value)[:80]))


def _refuse(what: str, allowed: Phrase, got: Phrase) -> NoReturn:
    said = Phrase(N_("{what} must be {allowed}, not {got}"), what=what, allowed=allowed, got=got)
    raise Refusal(said)
