"""Text that is translated when it is shown, not when it is made: a catalog template and its values.

The grader judges a submission in one place and writes the feedback later, in each student's
language; `inspect` finds a problem in one module and prints it in another. A `Phrase` carries
what to say until then: a template marked for the catalog (``N_``), the values to fill in, and,
for a count, the plural form (``ngettext``). ``phrase.text()`` says it in the language in use,
``phrase.text("zh_CN")`` in another, ``phrase.english()`` in English (what the instructor's files
and machine-readable output hold).

A value is data (a tool name, a count, ``PREDICTIONS['B']``: shown as it is, never translated) or
itself a `Phrase` (a word such as "trusted": translated too). A template without values is shown
as translated, unformatted, so text from elsewhere (already in the learner's language, or braces
and all) can be a `Phrase` too.

(Not "Message": `course_lib.servers.mailer.Message` is a mail.)

Introduced in: no lesson (plumbing for the grader's feedback and `python -m course_lib inspect`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from .i18n import ENGLISH, gettext_, ngettext_, using

__all__ = ["Phrase", "Refusal", "Value", "as_phrase"]

Value = Union[str, int, float, "Phrase", tuple["Phrase", ...]]
"""What fills a placeholder: data as it is, a `Phrase` translated, several Phrases as a list."""


@dataclass(frozen=True, init=False)
class Phrase:
    """What to say, in no language yet: ``Phrase(N_("scenario {key}: {tool}"), key="A", ...)``.

    For a count, `Phrase.counted`: the template is the singular, `plural` the plural, and
    ``{n}`` is `count`.
    """

    template: str
    values: tuple[tuple[str, Value], ...]
    plural: str
    count: int

    def __init__(self, template: str, /, **values: Value) -> None:
        object.__setattr__(self, "template", template)
        object.__setattr__(self, "values", tuple(sorted(values.items())))
        object.__setattr__(self, "plural", "")
        object.__setattr__(self, "count", 0)

    @classmethod
    def counted(cls, singular: str, plural: str, count: int, /, **values: Value) -> Phrase:
        """A message about `count` things, in the form the language uses for that number."""
        said = cls(singular, **values)
        object.__setattr__(said, "plural", plural)
        object.__setattr__(said, "count", count)
        return said

    @classmethod
    def listing(cls, items: tuple[Phrase, ...]) -> Phrase:
        """Several phrases as one, separated as the language separates items ("; ", "；")."""
        return cls("{items}", items=items)

    def text(self, lang: str | None = None) -> str:
        """The phrase in `lang`, or in the language in use."""
        if lang is not None:
            with using(lang):
                return self.text()
        shown = {name: _shown(value) for name, value in self.values}
        if self.plural:
            return ngettext_(self.template, self.plural, self.count).format(n=self.count, **shown)
        template = gettext_(self.template)
        return template.format(**shown) if shown else template

    def english(self) -> str:
        """The phrase in English: what the instructor's files and machine-readable output hold."""
        return self.text(ENGLISH)


def _shown(value: Value) -> str | int | float:
    if isinstance(value, Phrase):
        return value.text()
    if isinstance(value, tuple):
        return gettext_("; ").join(item.text() for item in value)
    return value


def as_phrase(said: str | Phrase) -> Phrase:
    """`said` as a Phrase: a plain string is shown as it is (translated if the catalog has it)."""
    return said if isinstance(said, Phrase) else Phrase(said)


class Refusal(ValueError):
    """A `ValueError` whose message is a `Phrase`: said in the language in use when shown (a
    learner's self-check, a traceback), in English with ``said.english()``."""

    def __init__(self, said: Phrase) -> None:
        super().__init__(said)
        self.said = said

    def __str__(self) -> str:
        return self.said.text()
