"""Untrusted text made safe to print: control characters escaped, length bounded.

Server names, tool titles, descriptions, server stderr, student names and kernel output all
come from outside. Printed raw, an ESC/CSI/OSC sequence (or a C1 control such as U+009B)
can move the cursor, repaint the screen or retitle the window. Everything from outside goes
through `printable()` before it reaches a terminal, in text and in JSON output alike.

Introduced in: no lesson (plumbing for every command that prints untrusted text).
"""

from __future__ import annotations

import unicodedata

__all__ = ["printable", "truncated"]

# Bidirectional overrides and isolates reorder what follows them on screen (a "Trojan Source"
# trick); they are format characters (category Cf), not controls, so they are listed here.
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Line and paragraph separators (U+2028/9) end a line for many tools (Python's splitlines);
# other format characters are invisible (zero-width spaces, tag characters that smuggle
# hidden ASCII to a model). Only the joiners that scripts and emoji need are kept.
_ESCAPED = frozenset({"Cc", "Cs", "Co", "Cn", "Cf", "Zl", "Zp"})
_JOINERS = frozenset("\u200c\u200d")


def _escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def truncated(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, saying how much was cut."""
    if limit < 0:
        raise ValueError(f"limit must be 0 or more, not {limit}")
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit} more characters cut]"


def printable(text: str, *, newlines: bool = False, limit: int | None = None) -> str:
    """`text` with every control character escaped (`\\x1b`, `\\x9b`, `\\u202e`…).

    C0 controls, DEL, C1 controls, bidirectional overrides, surrogates, line separators,
    invisible format characters and other non-printing code points (category Cc, Cs, Co,
    Cn, Cf but the zero-width joiners, Zl, Zp) become visible escapes. Tabs and, with
    `newlines=True`, line feeds are kept; a carriage return is always escaped, since it lets
    later text overwrite a line. With `limit`, the *input* is cut first
    (see `truncated`), so a huge string costs no more than `limit` characters of work.
    """
    if limit is not None:
        text = truncated(text, limit)
    out: list[str] = []
    for char in text:
        if char == "\t" or (newlines and char == "\n"):
            out.append(char)
        elif char in _BIDI or (unicodedata.category(char) in _ESCAPED and char not in _JOINERS):
            out.append(_escape(char))
        else:
            out.append(char)
    return "".join(out)
