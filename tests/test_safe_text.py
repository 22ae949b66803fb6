"""Untrusted text reaches a terminal only with its control characters escaped.

Control and escape sequences, and the invisible and line-breaking characters a server can hide in a
tool name or description, are shown escaped; the joiners that scripts and emoji need are kept.
"""

import pytest

from course_lib.safe_text import printable, truncated


@pytest.mark.parametrize(
    "hostile",
    [
        "\x1b[2J\x1b[Hno lethal trifecta",  # CSI: clear screen, cursor home
        "\x1b]0;pwned\x07",  # OSC: window title
        "\x9b2J",  # C1 CSI on its own
        "ok\rFAKE",  # carriage return overwrites the line
        "evil\u202etxt.exe",  # bidi override reorders the rest of the line
        "\x00\x7f\x85",
    ],
)
def test_printable_leaves_no_control_character(hostile):
    shown = printable(hostile)
    assert all(ch.isprintable() for ch in shown), repr(shown)


def test_printable_shows_what_was_escaped():
    assert printable("a\x1b[31mb") == "a\\x1b[31mb"
    assert printable("x\u202ey") == "x\\u202ey"


def test_printable_keeps_newlines_only_when_asked():
    assert printable("a\nb") == "a\\x0ab"
    assert printable("a\nb", newlines=True) == "a\nb"
    assert printable("a\tb") == "a\tb"


def test_plain_and_non_ascii_text_is_unchanged():
    assert printable("José 张伟 — ok") == "José 张伟 — ok"


def test_truncated_says_how_much_was_cut():
    assert truncated("abcdef", 3) == "abc… [3 more characters cut]"
    assert truncated("abc", 3) == "abc"
    assert printable("x" * 100_000, limit=10).endswith("[99990 more characters cut]")
    with pytest.raises(ValueError, match="limit"):
        truncated("a", -1)


@pytest.mark.parametrize(
    "hidden",
    [
        "\u2028",  # LINE SEPARATOR: splitlines() and many viewers start a new line here
        "\u2029",  # PARAGRAPH SEPARATOR
        "\u200b",  # ZERO WIDTH SPACE: "read\u200bfile" looks like "readfile"
        "\ufeff",  # ZERO WIDTH NO-BREAK SPACE
        "\U000e0041",  # TAG LATIN CAPITAL LETTER A: hidden ASCII a model reads, a human does not see
        "\u00ad",  # SOFT HYPHEN
    ],
)
def test_invisible_and_line_breaking_characters_are_escaped(hidden):
    shown = printable(f"safe{hidden}tool")
    assert hidden not in shown
    assert len(shown.splitlines()) == 1
    assert shown.startswith("safe\\") and shown.endswith("tool")


def test_joiners_that_scripts_and_emoji_need_are_kept():
    family, persian = "\U0001f468\u200d\U0001f469\u200d\U0001f467", "می\u200cخواهم"
    assert printable(family) == family
    assert printable(persian) == persian
