"""The language of what a learner reads: one setting, ``COURSE_LANG``, read through gettext.

English is the default. ``COURSE_LANG=zh_CN`` (an environment variable, set before Jupyter or the
grader starts, or in a notebook's first cell) makes self-check messages, hints, tables, plots,
the demo host's prompts and the grader's feedback Chinese; `set_language` does the same from
Python. Values a learner types (``"confirm"``, ``PreCall.CONFIRM``) never change with it.

The catalog source is ``locales/zh_CN/LC_MESSAGES/course_lib.po``; the compiled ``.mo`` ships
with the package (``course_lib/locale/``), so the runtime needs nothing but the standard library.
``python tools/course_catalog.py`` extracts, merges and compiles it.

Introduced in: docs/book.md (the Chinese class); used by every learner-facing module.
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path

__all__ = [
    "DOMAIN",
    "ENGLISH",
    "LANGUAGES",
    "LOCALE_DIR",
    "N_",
    "VARIABLE",
    "beside",
    "gettext_",
    "language",
    "ngettext_",
    "normalise",
    "set_language",
    "translate",
    "using",
]

VARIABLE = "COURSE_LANG"
ENGLISH = "en"
LANGUAGES = (ENGLISH, "zh_CN")  # the languages the course ships
DOMAIN = "course_lib"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"

_chosen: str | None = None  # set_language's choice; None: follow the environment variable
# `using`'s choice, per asyncio task: the grader judges students of both languages at once.
_within: ContextVar[str | None] = ContextVar("course_language", default=None)


def normalise(value: str | None) -> str:
    """A known language from a setting's text (``zh_CN``, ``zh-CN``, ``zh_CN.UTF-8``), else
    English."""
    text = (value or "").strip().split(".")[0].replace("-", "_")
    for known in LANGUAGES:
        if text.lower() == known.lower():
            return known
    return ENGLISH


def language() -> str:
    """The language in use: `using`'s, else `set_language`'s, else ``COURSE_LANG``, else English."""
    within = _within.get()
    if within is not None:
        return within
    return _chosen if _chosen is not None else normalise(os.environ.get(VARIABLE))


def set_language(value: str | None) -> str:
    """Choose the language (``"zh_CN"`` or ``"en"``; None follows ``COURSE_LANG`` again).

    Returns the language now in use. A language the course does not ship means English.
    """
    global _chosen
    _chosen = None if value is None else normalise(value)
    return language()


@contextmanager
def using(value: str | None) -> Iterator[str]:
    """Use a language inside a ``with`` block, in this thread or asyncio task only (the grader
    judges each student so, and writes their feedback)."""
    token = _within.set(normalise(value))
    try:
        yield language()
    finally:
        _within.reset(token)


@cache
def _catalog(lang: str) -> gettext.NullTranslations:
    if lang == ENGLISH:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, localedir=LOCALE_DIR, languages=[lang], fallback=True)


def gettext_(message: str) -> str:
    """`message` in the language in use (itself when it has no translation)."""
    return _catalog(language()).gettext(message)


def ngettext_(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for `n`, in the language in use."""
    return _catalog(language()).ngettext(singular, plural, n)


def translate(message: str, lang: str | None = None) -> str:
    """A message marked with `N_` (or any catalog message), in `lang` or the language in use."""
    return _catalog(normalise(lang) if lang is not None else language()).gettext(message)


def beside(value: str) -> str:
    """A value a learner types, with its translation beside it (``确认 (confirm)``) when the
    language in use has one; the value alone in English."""
    shown = gettext_(value)
    return value if shown == value else f"{shown} ({value})"


def N_(message: str) -> str:  # noqa: N802 - the gettext convention for "mark, translate later"
    """Mark a message for the catalog without translating it now (a constant shown later)."""
    return message
