"""Red team: invisible and line-breaking characters a server can put in a tool name or description."""

from __future__ import annotations

import pytest

from course_lib.safe_text import printable


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
