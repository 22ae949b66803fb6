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

__all__ = ["member", "parse"]

E = TypeVar("E", bound=Enum)


def _normal(text: str) -> str:
    return " ".join(text.lower().split())


def _find(kind: type[E], text: str) -> E | None:
    wanted = _normal(text)
    return next((m for m in kind if wanted in {_normal(str(m.value)), m.name.lower()}), None)


def _spelled(kind: type[Enum], members: Sequence[Enum], also: str = "") -> str:
    names = [f"{kind.__name__}.{m.name}" for m in members] + ([also] if also else [])
    return ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else names[0]


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
    advice = ""
    if isinstance(value, str):
        match = _find(kind, value)
        shown = f"the string {value[:80]!r}"
        if match is not None and match in allowed:
            name = kind.__name__
            advice = f": write {name}.{match.name} (from course_lib import {name})"
    else:
        shown = repr(value)[:80]
    _refuse(f"{what} must be {_spelled(kind, allowed, also)}, not {shown}{advice}")


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
    _refuse(f"{what} must be {_spelled(kind, allowed, also)}, not {repr(value)[:80]}")


def _refuse(message: str) -> NoReturn:
    raise ValueError(message)
