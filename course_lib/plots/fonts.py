"""Fonts for figures in the learner's language: Chinese labels drawn in a CJK font, not boxes.

Matplotlib's default font (DejaVu Sans) has no Chinese glyphs. With ``COURSE_LANG=zh_CN``,
`localise_fonts` gives every text of a figure a CJK family first and DejaVu Sans as the fallback
(for the Latin letters and symbols). It edits no `rcParams`. It uses the first CJK font the
system has (Noto Sans CJK, Source Han Sans, Microsoft YaHei, PingFang, SimHei, WenQuanYi); with
none, the text stays as it is and matplotlib warns about the missing glyphs.

Introduced in: docs/book.md (the Chinese class).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..i18n import ENGLISH, language

__all__ = ["CJK_FAMILIES", "cjk_family", "localise_fonts"]

CJK_FAMILIES = (
    "Noto Sans CJK SC",
    "Source Han Sans SC",
    "Microsoft YaHei",
    "PingFang SC",
    "SimHei",
    "WenQuanYi Zen Hei",
    "WenQuanYi Micro Hei",
    "Noto Serif CJK SC",
)


@lru_cache(maxsize=1)
def cjk_family() -> str | None:
    """The first CJK font family matplotlib can use here, or None."""
    from matplotlib import font_manager

    def known() -> str | None:
        names = {f.name for f in font_manager.fontManager.ttflist}
        return next((family for family in CJK_FAMILIES if family in names), None)

    found = known()
    if found is None:  # a font cache older than the fonts: register the system's CJK files
        for path in font_manager.findSystemFonts():
            if "CJK" in path or "wqy" in path.lower():
                try:
                    font_manager.fontManager.addfont(path)
                except (OSError, RuntimeError, ValueError):
                    continue
        found = known()
    return found


def localise_fonts(figure: Any) -> Any:
    """Give every text of `figure` a CJK font when the language is not English; return it."""
    if language() == ENGLISH or figure is None:
        return figure
    family = cjk_family()
    if family is None:
        return figure
    from matplotlib.text import Text

    for text in figure.findobj(Text):
        text.set_fontfamily([family, "DejaVu Sans"])
    return figure
