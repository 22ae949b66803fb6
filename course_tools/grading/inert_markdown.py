"""Learners' text placed in Markdown the instructor reads, shown as text and never as markup.

A learner chooses their folder's name and every word of a written answer, so either may hold
``<script>``, ``[a link](...)``, ``**bold**``, a table or a heading. Placed in a Markdown file
raw, that is live markup once rendered (GitHub, JupyterLab, markdown-it-py). Here each ASCII
character that would be markup where it stands is backslash-escaped (the spec lets any ASCII
punctuation be escaped, and an escaped character is always literal text), control characters
are escaped as `printable()` does for the terminal, and trailing spaces (a hard line break)
are dropped. What renders is exactly the learner's text, as plain paragraphs.

Introduced in: docs/instructor.md (section 8, after grading)
"""

from __future__ import annotations

import re

from course_lib.safe_text import printable

__all__ = ["inline", "quoted"]

# ASCII characters with a meaning wherever they stand in CommonMark or its common extensions
# (tables, strikethrough, footnotes, attributes). The rest of ASCII punctuation is literal
# unless one of these comes first ("(" only after "]", "!" only before "["), so it is left as
# it is and a paragraph stays readable in the raw file too.
_MARKUP = re.compile(r"([\\`*_{}\[\]<&|~^])")
# Characters that start a block only at the start of a line: a heading, a quote, a list item,
# a thematic break or a setext underline ("- ", "+ ", "---", "===", "# ", "> ").
_LINE_START = re.compile(r"^(\s*)([-+=#>])")
# "1." or "1)" opening a line starts an ordered list: escape its full stop or parenthesis.
_LIST_NUMBER = re.compile(r"^(\s*\d{1,9})([.)])")


def _line(text: str) -> str:
    escaped = _MARKUP.sub(r"\\\1", text.rstrip())
    escaped = _LINE_START.sub(r"\1\\\2", escaped)
    return _LIST_NUMBER.sub(r"\1\\\2", escaped)


def inline(text: str) -> str:
    """`text` (a name, a label) as literal Markdown on one line: no markup, no control character.

    A line feed or any other control character becomes a visible escape (``\\x0a``).
    """
    return _line(printable(text))


def quoted(text: str) -> str:
    """`text` (a learner's answer) as a Markdown block quote of literal paragraphs.

    Lines are kept; every line is quoted, so nothing in the text can end the quote or start a
    block of its own. Empty text gives an empty string.
    """
    lines = printable(text, newlines=True).strip("\n").split("\n")
    if lines == [""]:
        return ""
    return "\n".join(f"> {_line(line)}".rstrip() for line in lines)
