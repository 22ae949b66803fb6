"""Exercise 4, "Catch the liar": the visible checks of the side-effect check and of the audit.

Part 4a runs `contradiction` on every way to annotate a tool (82) against eight kinds of
observed side effects (none; a file created, a file grown, rows added; a file deleted, a file
overwritten, rows removed; a creation and a deletion): an additive tool breaks its promise by any
effect marked `destructive`, whatever its kind. Part 4b checks every tool called in `CALLS`.

Introduced in: exercises/04_catch_the_liar.ipynb
"""

from __future__ import annotations

from typing import Any

from ..audit import SideEffect, check_behaviour
from ..checks import (
    TODO,
    Mark,
    Part,
    Status,
    crashed,
    failed,
    name_set,
    not_attempted,
    passed,
)
from ..feedback import contradiction_hint
from ..i18n import N_
from ..i18n import gettext_ as _
from .annotate import hint_states
from .content import HONEST_TOOLS, LIAR

__all__ = ["EFFECTS", "PARTS"]

EFFECTS: dict[str, tuple[SideEffect, ...]] = {
    N_("no side effect"): (),
    N_("it created a file"): (SideEffect("created", "logs/summary.txt", "new, 12 bytes"),),
    N_("it appended to a file"): (SideEffect("modified", "notes.txt", "grew from 12 to 20 bytes"),),
    N_("it added table rows"): (SideEffect("db-write", "ops.db:audit", "rows added: 3 -> 4"),),
    N_("it deleted a file"): (
        SideEffect("deleted", "logs/app.log.1", "was 44 bytes", destructive=True),
    ),
    N_("it overwrote a file"): (
        SideEffect("modified", "notes.txt", "rewritten, still 12 bytes", destructive=True),
    ),
    N_("it removed table rows"): (
        SideEffect("db-write", "ops.db:incidents", "rows deleted: 3 -> 1", destructive=True),
    ),
    N_("it created one file and deleted another"): (
        SideEffect("created", "a.txt", "new, 3 bytes"),
        SideEffect("deleted", "b.txt", "was 9 bytes", destructive=True),
    ),
}
"""Part 4a: the kinds of observed side effects each annotation is tried against."""

_HONEST_WHY = {
    "annotated-file-ops/append_text": N_("appending adds (additive)"),
    "annotated-file-ops/read_file": N_("reading changed nothing"),
    "annotated-file-ops/set_value": N_("setting a value is an idempotent write"),
    "annotated-file-ops/delete_file": N_(
        "it declares destructiveHint: true, so its delete breaks nothing"
    ),
    "log-tidy/disk_usage": N_("it only measured"),
}


def _check_4a(answer: Any) -> list[Mark]:
    if not callable(answer):
        return [
            failed(
                "contradiction",
                _("expected a function, got {type}").format(type=type(answer).__name__),
            )
        ]
    outcomes = []
    for label, hints in hint_states():
        for what, effects in EFFECTS.items():
            tag = _("declared {label}; {what}").format(label=label, what=_(what))
            try:
                got = answer(None if hints is None else dict(hints), list(effects))
            except (Exception, SystemExit) as exc:
                outcomes.append(crashed(tag, exc))
                if outcomes[-1].status is Status.NOT_ATTEMPTED:
                    return outcomes
                continue
            expected = check_behaviour(hints, effects) is not None
            if got is not None and not (isinstance(got, str) and got.strip()):
                outcomes.append(
                    failed(
                        tag,
                        _("return None or a sentence, not {value}").format(value=repr(got)),
                        _("e.g. 'declared read-only, but it created a file'"),
                    )
                )
            elif (got is not None) == expected:
                outcomes.append(passed(tag))
            elif expected:
                outcomes.append(
                    failed(
                        tag,
                        _("a lie went unnoticed (you returned None)"),
                        contradiction_hint(hints, True).text(),
                    )
                )
            else:
                outcomes.append(
                    failed(
                        tag,
                        _("a false alarm: {value}").format(value=repr(got)),
                        contradiction_hint(hints, False).text(),
                    )
                )
    return outcomes


def _check_4b(answer: Any) -> list[Mark]:
    if answer is TODO:
        return [not_attempted("LIARS")]
    names = name_set(answer)
    if names is None:
        return [
            failed(
                "LIARS",
                _("expected a set of 'server/tool' names, got {value}").format(value=repr(answer)),
                _("e.g. {'some-server/some_tool'}"),
            )
        ]
    outcomes = []
    if LIAR in names:
        outcomes.append(passed(_("the tool that broke its promise is caught")))
    else:
        outcomes.append(
            failed(
                _("the tool that broke its promise"),
                _("a tool that broke its declared promise is not in your set"),
                _(
                    "run every call of CALLS through observe_calls and your contradiction(); a "
                    "read-only promise is broken by any change at all (check part 4a)"
                ),
            )
        )
    for name in sorted(HONEST_TOOLS):
        if name in names:
            outcomes.append(
                failed(
                    name,
                    _("false alarm: it kept every promise it declared"),
                    _(_HONEST_WHY[name]),
                )
            )
        else:
            outcomes.append(passed(_("an honest tool is not accused")))
    unknown = sorted(names - HONEST_TOOLS - {LIAR})
    if unknown:
        outcomes.append(
            failed(
                "LIARS",
                _("{names} are not tools called in CALLS").format(names=unknown),
                _("use the 'server/tool' names of CALLS"),
            )
        )
    return outcomes


PARTS = (
    Part(
        "4a",
        N_("the side-effect check"),
        _check_4a,
        N_("write the body of contradiction"),
        N_("inputs"),
    ),
    Part(
        "4b",
        N_("catch the liar"),
        _check_4b,
        N_("replace TODO with the set of lying tools"),
        N_("tools"),
    ),
)
