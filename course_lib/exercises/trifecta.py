"""Exercise 3, "Break the trifecta": the visible checks of the legs and of the defence (its
answers and scenarios are in `course_lib.exercises.content`).

Part 3a checks every leg; part 3b replays each scenario with `course_lib.replay`.

Introduced in: exercises/03_break_the_trifecta.ipynb
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..checks import Mark, Part, contains_todo, crashed, failed, name_set, not_attempted, passed
from ..legs import Leg, as_leg
from ..i18n import N_
from ..i18n import gettext_ as _
from ..replay import DEFENCE_HINTS, SESSION_TOOLS, judge_defence, read_defence
from .content import TRIFECTA_ANSWERS, TRIFECTA_SCENARIOS

__all__ = ["PARTS"]

_LEG_HINTS = {
    Leg.PRIVATE_DATA: N_(
        "which tool hands the model the team's secrets? the hints cannot say: the host knows"
    ),
    Leg.UNTRUSTED_CONTENT: N_("whose output was written by strangers? an open-world read"),
    Leg.EXTERNAL_COMMUNICATION: N_(
        "which tools can carry data outside the team? look at what leaves the host with each "
        "call: a mail does, and so does a search query, which goes to a search engine outside "
        "(lesson 04, section 3)"
    ),
}


def _by_leg(answer: Mapping[Any, Any]) -> dict[Leg, Any] | Mark:
    """The answer's values by `Leg` (a key may also be the leg's text, as older copies had it)."""
    found: dict[Leg, Any] = {}
    for key, value in answer.items():
        try:
            found[as_leg(key)] = value
        except ValueError:
            legs = ", ".join(f"Leg.{leg.name}" for leg in Leg)
            return failed(
                "LEGS",
                _("{key} is not a leg of the trifecta").format(key=repr(key)),
                _("the keys are {legs}").format(legs=legs),
            )
    return found


def _check_3a(answer: Any) -> list[Mark]:
    if not isinstance(answer, Mapping):
        return [
            failed(
                "LEGS",
                _("expected a dict of leg -> set of tool names, got {type}").format(
                    type=type(answer).__name__
                ),
            )
        ]
    by_leg = _by_leg(answer)
    if isinstance(by_leg, Mark):
        return [by_leg]
    outcomes = []
    for leg, accepted in TRIFECTA_ANSWERS.items():
        if leg not in by_leg:
            outcomes.append(
                failed(
                    _(str(leg)),
                    _("no entry for Leg.{name}").format(name=leg.name),
                    _("keep the three legs of the stub as keys"),
                )
            )
            continue
        value = by_leg[leg]
        label = _(str(leg))
        if contains_todo(value):
            outcomes.append(not_attempted(label))
            continue
        names = name_set(value)
        if names is None:
            outcomes.append(
                failed(
                    label, _("expected a set of tool names, got {value}").format(value=repr(value))
                )
            )
        elif names - SESSION_TOOLS:
            outcomes.append(
                failed(
                    label,
                    _("not tools of the session: {names}").format(
                        names=sorted(names - SESSION_TOOLS)
                    ),
                )
            )
        elif frozenset(names) in accepted:
            outcomes.append(passed(label))
        else:
            outcomes.append(
                failed(label, _("not {names}").format(names=sorted(names)), _(_LEG_HINTS[leg]))
            )
    return outcomes


def _check_3b(answer: Any) -> list[Mark]:
    if isinstance(answer, Mapping) and contains_todo(answer):
        return [not_attempted(key) for key in TRIFECTA_SCENARIOS]
    try:
        defence = read_defence(answer)
    except ValueError as exc:
        return [failed("DEFENCE", str(exc), _(DEFENCE_HINTS["invalid"]))]
    outcomes = []
    for key, scenario in TRIFECTA_SCENARIOS.items():
        colleague = scenario["plan"][-1][1]["to"]
        quiet = scenario.get("quiet", False)
        try:
            problem = judge_defence(defence, scenario["plan"], colleague=colleague, quiet=quiet)
        except Exception as exc:  # noqa: BLE001 - reported as a failed check
            outcomes.append(crashed(key, exc))
            continue
        if problem is None:
            outcomes.append(passed(f"{key}: {_(scenario['must'])}"))
        else:
            kind, message = problem
            outcomes.append(failed(key, message.text(), _(DEFENCE_HINTS[kind])))
    return outcomes


PARTS = (
    Part(
        "3a",
        N_("find the trifecta"),
        _check_3a,
        N_("replace each TODO with a set of tool names"),
        N_("legs"),
    ),
    Part(
        "3b",
        N_("a defence that keeps the work"),
        _check_3b,
        N_("replace each TODO in DEFENCE"),
        N_("scenarios"),
    ),
)
