"""The closing recap after lesson 06: seven questions, one per idea of the course, self-checked.

`check("recap", ANSWERS)` marks each answer (a letter, "a", "b" or "c") right or wrong; a wrong
one gets a hint that states the rule and names the lesson that teaches it. The questions
themselves are in the lesson's markdown, so a learner reads them; only the keys are here.

Introduced in: notebooks/06_beyond_hints.ipynb
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..checks import TODO, Mark, Part, failed, not_attempted, passed
from ..i18n import N_
from ..i18n import gettext_ as _

__all__ = ["PARTS", "QUESTIONS"]


@dataclass(frozen=True)
class RecapQuestion:
    """One recap question: its right letter and the rule a wrong answer is shown."""

    right: str
    hint: str


QUESTIONS: dict[str, RecapQuestion] = {
    "q1": RecapQuestion(
        "b",
        N_(
            "annotations are the server's claims: a client relies on them only for a server it "
            "trusts (lesson 01, lesson 05)"
        ),
    ),
    "q2": RecapQuestion(
        "b",
        N_(
            "an absent hint takes the spec's default: not read-only, destructive, not idempotent, "
            "open world (lesson 02)"
        ),
    ),
    "q3": RecapQuestion(
        "a",
        N_(
            "replacing the running version overwrites it (destructive); deploying the same version "
            "again changes nothing more (idempotent): both can be true (lesson 03, exercise 1)"
        ),
    ),
    "q4": RecapQuestion(
        "b",
        N_(
            "idempotent means a repeat has no further effect; it says nothing about safety "
            "(lesson 03)"
        ),
    ),
    "q5": RecapQuestion(
        "b",
        N_(
            "once untrusted content is in the session, ask before any tool that can send data "
            "out; mail to colleagues still goes, after a question (lesson 04, exercise 3)"
        ),
    ),
    "q6": RecapQuestion(
        "a",
        N_(
            "the spec: annotations from a server that is not trusted are untrusted, so the client "
            "decides as if they were absent (lesson 05)"
        ),
    ),
    "q7": RecapQuestion(
        "a",
        N_(
            "a lying server alone beats only the hints; approval and the token's scope fail only "
            "in other ways (lesson 06, section 3)"
        ),
    ),
}
_LETTERS = ("a", "b", "c")


def _mark(key: str, answer: Any) -> Mark:
    question = QUESTIONS[key]
    if answer is TODO:
        return not_attempted(key)
    letter = answer.strip().lower() if isinstance(answer, str) else answer
    if letter not in _LETTERS:
        return failed(
            key,
            _("answer with one letter, 'a', 'b' or 'c' (got {value})").format(value=repr(answer)),
        )
    if letter == question.right:
        return passed(key)
    return failed(key, _("'{letter}' is not it").format(letter=letter), _(question.hint))


def _run(answers: Any) -> list[Mark]:
    if not isinstance(answers, Mapping):
        return [
            failed(
                "answers",
                _("write ANSWERS as a dict: {example}").format(example="{'q1': 'a', ...}"),
            )
        ]
    unknown = sorted(str(k) for k in answers if k not in QUESTIONS)
    marks = [_mark(key, answers.get(key, TODO)) for key in QUESTIONS]
    if unknown:
        marks.append(
            failed("answers", _("no question named {names}").format(names=", ".join(unknown)))
        )
    return marks


PARTS = (
    Part(
        "recap",
        N_("the course in seven questions"),
        _run,
        not_attempted_help=N_("replace each TODO with the letter of your answer"),
        unit=N_("questions"),
        graded=False,
        heading=N_("Recap ({title})"),
    ),
)
