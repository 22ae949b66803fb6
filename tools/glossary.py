"""The course glossary (book/glossary.csv), and the check for the Chinese renderings it forbids.

Usage:
    python tools/glossary.py     # list every forbidden rendering in the Chinese text; exit 1 if any

book/glossary.csv is the one source of the course's terms: the book's glossary page shows it
(book/glossary.md, through the ``glossary-table`` directive of book/book_extras.py), the Chinese
book's search knows its Chinese terms as words, and tests/test_glossary.py reads it. Its columns:

``term``     the English term, as the book shows it;
``zh``       the Chinese term, binding for the Chinese edition (several separated by 、);
``avoid``    renderings never used for the term (several separated by 、), e.g. 缺省 for "absent";
``matches``  the English words that say the term in running text (separated by spaces; a plural
             counts, and so does a camelCase ending: ``readOnlyHint`` says "hint"); left empty
             on a term with renderings to avoid, they are avoided in all Chinese text;
``meaning``  what the term means in this course, in English (the Chinese book translates it in
             the glossary page's catalog, locales/zh_CN/LC_MESSAGES/book/glossary.po).

The check reads English and Chinese text in pairs: every entry of the Chinese catalogs under
locales/zh_CN/ (msgid, msgstr), every cell of the zh-CN/ notebooks against the English cell with
the same id (source and text outputs), and every ``*.zh-CN.md`` page against its English
namesake. Where the English says a term (or anywhere, for a term without ``matches``), the
Chinese may not use a rendering the term avoids (the 提示 inside the glossary's 提示词 does not
count, nor does a rendering quoted on its own, “缺省”, which names the word rather than uses
it). One case is left to the reviewer: a
rendering that is itself another term the English says too. 提示 is the term for "hint", so in a
message about hints and prompts the check cannot tell which 提示 means what.
"""

from __future__ import annotations

import argparse
import csv
import functools
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import nbformat
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[1]
GLOSSARY = ROOT / "book" / "glossary.csv"
COLUMNS = ("term", "zh", "avoid", "matches", "meaning")
# The glossary page's column headings, in the order it shows them (translated in its catalog).
HEADINGS = ("term", "中文", "avoid", "meaning in this course")
CATALOGS = ROOT / "locales" / "zh_CN"
NOTEBOOK_FOLDERS = ("notebooks", "exercises")
SEPARATOR = "、"


class GlossaryError(ValueError):
    """book/glossary.csv is malformed; the message names the row and what to fix."""


@dataclass(frozen=True)
class Term:
    """One row of the glossary."""

    term: str
    zh: tuple[str, ...]
    avoid: tuple[str, ...]
    matches: tuple[str, ...]
    meaning: str

    def mentions(self, english: str) -> int:
        """How many times `english` says this term (by its `matches` words)."""
        return sum(len(pattern.findall(english)) for pattern in _word_patterns(self.matches))

    def said_in(self, english: str) -> bool:
        """Whether a translation of `english` must not use the renderings this term avoids."""
        return not self.matches or self.mentions(english) > 0

    def use_instead(self) -> str:
        return " or ".join(self.zh)


@dataclass(frozen=True)
class Text:
    """A Chinese text and the English it translates, with where a reader finds it."""

    where: str  # a file, relative to the repository root
    label: str  # the message or cell within it
    english: str
    chinese: str


@dataclass(frozen=True)
class Misrendering:
    """A rendering the glossary forbids, found in a Chinese text."""

    text: Text
    rendering: str
    terms: tuple[Term, ...]  # the terms the English says that avoid this rendering

    def __str__(self) -> str:
        instead = "; ".join(f"for {t.term!r} use {t.use_instead()}" for t in self.terms)
        return (
            f"{self.text.where}: {self.text.label}: {self.rendering} ({instead}) "
            f"in {_excerpt(self.text.chinese, self.rendering)!r}"
        )


def _split(value: str, separator: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in value.split(separator) if part.strip())


@functools.cache
def _word_patterns(words: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    plural = "(?:e?s)?"
    return tuple(
        re.compile(
            rf"(?i:\b{re.escape(word)}{plural}\b)"
            rf"|(?<=[a-z]){re.escape(word[:1].upper() + word[1:])}{plural}\b"
        )
        for word in words
    )


def _term(row: dict[str, str], line: int) -> Term:
    missing = [name for name in ("term", "zh", "meaning") if not (row.get(name) or "").strip()]
    if missing:
        raise GlossaryError(f"{GLOSSARY.name} line {line}: {', '.join(missing)} is empty")
    term = Term(
        term=row["term"].strip(),
        zh=_split(row["zh"], SEPARATOR),
        avoid=_split(row.get("avoid") or "", SEPARATOR),
        matches=tuple((row.get("matches") or "").split()),
        meaning=row["meaning"].strip(),
    )
    both = set(term.avoid) & set(term.zh)
    if both:
        raise GlossaryError(
            f"{GLOSSARY.name} line {line} ({term.term}): {both} is both used and avoided"
        )
    return term


def read_terms(path: Path = GLOSSARY) -> list[Term]:
    """The glossary's terms, in the order of the file.

    Raises:
        GlossaryError: a column is missing or a row is incomplete.
    """
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        if tuple(reader.fieldnames or ()) != COLUMNS:
            raise GlossaryError(
                f"{path.name}: the columns must be {', '.join(COLUMNS)} "
                f"(found {', '.join(reader.fieldnames or ())})"
            )
        terms = [_term(row, number) for number, row in enumerate(reader, start=2)]
    seen: set[str] = set()
    for term in terms:
        if term.term in seen:
            raise GlossaryError(f"{path.name}: {term.term!r} is listed twice")
        seen.add(term.term)
    return terms


def page_messages(terms: Iterable[Term]) -> list[str]:
    """The glossary table's translatable messages: its headings and every meaning."""
    return [*HEADINGS, *(term.meaning for term in terms)]


def user_dictionary(terms: Iterable[Term]) -> str:
    """The Chinese terms as a jieba user dictionary (a word a line): search finds them whole."""
    words = dict.fromkeys(word for term in terms for word in term.zh)
    return "".join(f"{word}\n" for word in words)


def misrenderings(text: Text, terms: list[Term]) -> list[Misrendering]:
    """The forbidden renderings in `text`: see the module's docstring for the rule."""
    found = []
    for rendering in dict.fromkeys(r for term in terms for r in term.avoid):
        meant = tuple(t for t in terms if rendering in t.avoid and t.said_in(text.english))
        if not meant:
            continue
        # Quoted on its own (“缺省”), a rendering is named, as when a text says which one to avoid.
        chinese = text.chinese.replace(f"“{rendering}”", "")
        longer = {w for t in terms for w in t.zh if rendering in w and w != rendering}
        for word in sorted(longer, key=len, reverse=True):
            chinese = chinese.replace(word, "")
        legitimate = any(t.mentions(text.english) for t in terms if rendering in t.zh)
        if rendering in chinese and not legitimate:
            found.append(Misrendering(text, rendering, meant))
    return found


def _excerpt(text: str, word: str, width: int = 24) -> str:
    at = text.find(word)
    start, end = max(0, at - width), at + len(word) + width
    flat = " ".join(text[start:end].split())
    return ("…" if start else "") + flat + ("…" if end < len(text) else "")


def _label(english: str) -> str:
    flat = " ".join(english.split())
    return repr(flat if len(flat) <= 70 else flat[:67] + "...")


def _joined(value: str | Iterable[str] | None) -> str:
    """A catalog entry's text: plural forms are joined."""
    return value if isinstance(value, str) else " ".join(value or ())


def catalog_texts(root: Path = ROOT) -> Iterator[Text]:
    """Every translated entry of every Chinese catalog (fuzzy ones too; obsolete ones are gone)."""
    for path in sorted((root / CATALOGS.relative_to(ROOT)).rglob("*.po")):
        with path.open("rb") as handle:
            catalog = read_po(handle)
        for message in catalog:
            english, chinese = _joined(message.id), _joined(message.string)
            if english and chinese:
                yield Text(_shown(path, root), f"msgid {_label(english)}", english, chinese)


def _text(value: str | list[str]) -> str:
    return value if isinstance(value, str) else "".join(value)


def _cell_text(cell: nbformat.NotebookNode) -> str:
    parts = [_text(cell.source)]
    for output in cell.get("outputs", []):
        if output.get("output_type") == "stream":
            parts.append(_text(output.get("text", "")))
        for kind in ("text/plain", "text/markdown", "text/html"):
            parts.append(_text(output.get("data", {}).get(kind, "")))
    return "\n".join(parts)


def notebook_texts(root: Path = ROOT) -> Iterator[Text]:
    """Every cell of every Chinese notebook, with the English cell of the same id."""
    for folder in NOTEBOOK_FOLDERS:
        for path in sorted((root / "zh-CN" / folder).glob("*.ipynb")):
            source = root / folder / path.name
            english = (
                {c.get("id"): c for c in nbformat.read(source, as_version=4).cells}
                if source.exists()
                else {}
            )
            for number, cell in enumerate(nbformat.read(path, as_version=4).cells):
                match = english.get(cell.get("id"))
                yield Text(
                    _shown(path, root),
                    f"cell {number}",
                    _cell_text(match) if match is not None else "",
                    _cell_text(cell),
                )


def page_texts(root: Path = ROOT) -> Iterator[Text]:
    """Every Chinese page (README.zh-CN.md, docs/*.zh-CN.md) with its English namesake, whole."""
    for path in sorted([*root.glob("*.zh-CN.md"), *(root / "docs").rglob("*.zh-CN.md")]):
        source = path.with_name(path.name.replace(".zh-CN.md", ".md"))
        english = source.read_text(encoding="utf-8") if source.exists() else ""
        chinese = path.read_text(encoding="utf-8")
        for number, line in enumerate(chinese.splitlines(), start=1):
            if line.strip():
                yield Text(_shown(path, root), f"line {number}", english, line)


def _shown(path: Path, root: Path = ROOT) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def chinese_texts(root: Path = ROOT) -> Iterator[Text]:
    """All the Chinese text of the course the check reads."""
    yield from catalog_texts(root)
    yield from notebook_texts(root)
    yield from page_texts(root)


def check(root: Path = ROOT, terms: list[Term] | None = None) -> list[Misrendering]:
    """Every forbidden rendering in the course's Chinese text."""
    terms = read_terms() if terms is None else terms
    return [found for text in chinese_texts(root) for found in misrenderings(text, terms)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="The rule and the columns of book/glossary.csv: see this file's docstring.",
    )
    parser.parse_args(argv)
    try:
        found = check()
    except GlossaryError as exc:
        print(f"glossary: {exc}", file=sys.stderr)
        return 1
    for problem in found:
        print(problem)
    print(f"{len(found)} forbidden rendering(s) in the Chinese text", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
