"""Generate the Chinese notebooks (zh-CN/) from the English ones plus the gettext catalogs.

Usage:
    python tools/translate_notebooks.py                    # write zh-CN/, execute changed lessons
    python tools/translate_notebooks.py --check            # exit 1 if a Chinese notebook is stale
    python tools/translate_notebooks.py --stale            # list messages not translated yet
    python tools/translate_notebooks.py --update-comments  # refresh the code comments' catalog

One source: the English notebooks (notebooks/, exercises/), the catalogs the book uses
(locales/zh_CN/LC_MESSAGES/<folder>/<name>.po, made by
``python tools/build_book.py --update-catalogs``), the catalog of code comments
(locales/zh_CN/LC_MESSAGES/comments.po, made by ``--update-comments``) and course_lib's own
catalog (course_lib.po, ``python tools/course_catalog.py``), which makes its output Chinese.

In a Chinese notebook every markdown cell is translated block by block (heading, paragraph, list
item, table cell, Mermaid diagram: the same messages Sphinx extracts for the book). Code is the
English code with its ``#`` comments translated and nothing else changed; cell ids and cell
metadata are kept. One cell is added before the first code cell: it sets ``COURSE_LANG=zh_CN``,
so course_lib's checks, tables, prompts and figures speak Chinese, and the notebook's metadata
says ``"language": "zh_CN"``, so the grader writes its feedback in Chinese. Values a learner
types (``"confirm"``, ``PreCall.CONFIRM``) are the same in both editions, and so are scores.

The lessons (zh-CN/notebooks/) are then executed (tools/execute_notebooks.py), so their stored
outputs and figures are the Chinese ones, and strict nbval checks them like the English ones; a
lesson is executed again only when its generated source changed. Exercises are stored without
outputs, like the English ones. ``--check`` compares everything but the outputs with what the
generator makes now, and that every lesson was executed; nbval checks the outputs.

A message with no translation, or a fuzzy one (its English changed since it was translated),
stays English in the generated notebook and is listed by ``--stale``; the test suite fails on it.
"""

from __future__ import annotations

import argparse
import copy
import datetime
import io
import re
import sys
import tokenize
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import nbformat
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po
from markdown_it import MarkdownIt

sys.path.insert(0, str(Path(__file__).resolve().parent))
import glossary  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
LANGUAGE = "zh_CN"
CATALOGS = ROOT / "locales" / LANGUAGE / "LC_MESSAGES"
TARGET = ROOT / "zh-CN"
FOLDERS = ("notebooks", "exercises")
# Book pages written in Markdown (their catalogs are checked for staleness like the notebooks').
BOOK_PAGES = ("book/index.md", "book/glossary.md")
AGENDA = ("book/agenda.md", "README.md", "## Agenda", "## What is in the box")
COMMENTS = CATALOGS / "comments.po"
SETUP_ID = "course-language"
_FIXED_DATE = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)  # stable headers
SETUP = (
    "import os\n"
    "\n"
    'os.environ["COURSE_LANG"] = "zh_CN"  # course_lib 的检查结果、表格和图都用中文显示'
)
# Comments that are instructions to a tool, not to a reader: never translated.
_DIRECTIVE = re.compile(r"^(noqa|type:|fmt:|pragma|pylint:|ruff:)")

_PARSER = MarkdownIt("commonmark").enable("table")
_LINK = re.compile(r"(\]\()(?!https?:|mailto:|#|/)([^)\s#]+)")
# book_extras' glossary table: its headings and meanings are messages of the page.
_GLOSSARY_TABLE = re.compile(r"^```\{glossary-table\}\s+(\S+)\s*$", flags=re.MULTILINE)


@dataclass(frozen=True)
class Stale:
    """A message of an English page whose Chinese entry is missing, empty or fuzzy."""

    catalog: str
    message: str
    reason: str

    def __str__(self) -> str:
        shown = self.message if len(self.message) <= 120 else self.message[:117] + "..."
        return f"{self.catalog}: {self.reason}: {shown!r}"


@dataclass(frozen=True)
class _Edit:
    first: int  # first source line replaced
    last: int  # one past the last
    lines: list[str]


def readme_links_for_book(text: str) -> str:
    """README.md's links are relative to the repository root; its including page is in book/."""
    return re.sub(r"\]\((?!https?:|mailto:|#|/)", "](../", text)


def _msgid(content: str) -> str:
    """The message Sphinx extracts for a block's inline source (lines joined by spaces)."""
    return " ".join(line.strip() for line in content.split("\n")).strip()


def _blocks(markdown: str) -> Iterator[tuple[str, str, list[int], str | None]]:
    """Yield (kind, message, source line map, extra) for each translatable block, in order."""
    tokens = _PARSER.parse(markdown)
    for index, token in enumerate(tokens):
        if token.type in ("heading_open", "paragraph_open", "th_open", "td_open"):
            inline = tokens[index + 1]
            if inline.type == "inline" and inline.content.strip():
                row_map = token.map
                if token.type in ("th_open", "td_open"):
                    row = next(t for t in reversed(tokens[:index]) if t.type == "tr_open")
                    row_map = row.map
                yield (
                    token.type.split("_")[0],
                    _msgid(inline.content),
                    list(row_map or [0, 0]),
                    inline.content,
                )
        elif token.type == "fence" and token.info.strip() == "mermaid":
            yield "mermaid", token.content.rstrip("\n"), list(token.map or [0, 0]), None


def messages(markdown: str) -> list[str]:
    """The translatable messages of a markdown text, in order (duplicates kept)."""
    return [message for _, message, _, _ in _blocks(markdown)]


def _escape_cell(text: str) -> str:
    return re.sub(r"(?<!\\)\|", r"\\|", text)


def translate_markdown(markdown: str, translations: Mapping[str, str]) -> tuple[str, list[str]]:
    """Return `markdown` with every translated block replaced, and the messages left in English."""
    lines = markdown.split("\n")
    edits: list[_Edit] = []
    untranslated: list[str] = []
    rows: dict[int, list[str]] = {}
    for kind, message, (first, last), content in _blocks(markdown):
        translated = translations.get(message)
        if not translated:
            untranslated.append(message)
        if kind in ("th", "td"):
            rows.setdefault(first, []).append(_escape_cell(translated or message))
            continue
        if not translated:
            continue
        if kind == "mermaid":
            edits.append(_Edit(first + 1, last - 1, translated.split("\n")))
            continue
        head = (content or "").split("\n")[0].strip()
        line = lines[first]
        start = line.find(head) if head else -1
        if kind == "heading" and line.lstrip().startswith("#"):
            prefix = re.match(r"\s*#+\s*", line).group(0)  # type: ignore[union-attr]
        elif start >= 0:
            prefix = line[:start]
        else:  # cannot place it safely: keep the English
            untranslated.append(message)
            continue
        edits.append(_Edit(first, last, [prefix + translated]))
    for row, cells in rows.items():
        indent = re.match(r"\s*", lines[row]).group(0)  # type: ignore[union-attr]
        edits.append(_Edit(row, row + 1, [indent + "| " + " | ".join(cells) + " |"]))
    for edit in sorted(edits, key=lambda e: e.first, reverse=True):
        lines[edit.first : edit.last] = edit.lines
    return "\n".join(lines), untranslated


def code_comments(source: str) -> list[tuple[int, int, str]]:
    """The ``#`` comments of a code cell a reader is meant to read: (line, column, text).

    Found with the tokenizer, so a ``#`` inside a string is not a comment; a cell the tokenizer
    cannot read (an IPython magic, say) has none.
    """
    found = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return []
    for token in tokens:
        if token.type != tokenize.COMMENT:
            continue
        text = token.string[1:].strip()
        if re.search(r"\w", text) and not _DIRECTIVE.match(text):
            found.append((token.start[0] - 1, token.start[1], text))
    return found


def translate_code(source: str, translations: Mapping[str, str]) -> tuple[str, list[str]]:
    """Return `source` with each comment translated (the code before it unchanged), and the
    comments left in English."""
    lines = source.split("\n")
    left = []
    for row, column, text in code_comments(source):
        translated = translations.get(text)
        if not translated:
            left.append(text)
            continue
        lines[row] = lines[row][:column] + "# " + translated
    return "\n".join(lines), left


def comment_messages() -> list[tuple[str, str]]:
    """Every comment of every English notebook's code, with the page it comes from."""
    return [
        (text, _page(path))
        for path in english_notebooks()
        for cell in nbformat.read(path, as_version=4).cells
        if cell.cell_type == "code"
        for _row, _column, text in code_comments(cell.source)
    ]


def update_comments() -> Catalog:
    """The comments' catalog merged with the comments the notebooks have now; written."""
    template = Catalog(domain="comments")
    for text, page in comment_messages():
        template.add(text, None, [(page, None)])
    if COMMENTS.exists():
        with COMMENTS.open("rb") as handle:
            catalog = read_po(handle, locale=LANGUAGE)
    else:
        catalog = Catalog(locale=LANGUAGE, domain="comments", project="course")
    catalog.update(template, no_fuzzy_matching=False)
    catalog.obsolete.clear()
    catalog.fuzzy, catalog.project, catalog.version = False, "course code comments", ""
    catalog.creation_date = catalog.revision_date = _FIXED_DATE
    catalog.header_comment = (
        "# Chinese (zh_CN) code comments of the notebooks and exercises.\n"
        "# Made by python tools/translate_notebooks.py --update-comments; translate msgstr only."
    )
    out = io.BytesIO()
    write_po(out, catalog, width=100, include_lineno=False)
    COMMENTS.write_bytes(out.getvalue())
    return catalog


def stale_comments() -> list[Stale]:
    """Comments of the English code with no current Chinese entry in comments.po."""
    translations, fuzzy = read_catalog(COMMENTS)
    shown = COMMENTS.relative_to(ROOT).as_posix()
    found, seen = [], set()
    for text, _page_name in comment_messages():
        if text in translations or text in seen:
            continue
        seen.add(text)
        reason = "fuzzy (review it, then drop the flag)" if text in fuzzy else "missing"
        found.append(Stale(shown, text, reason))
    return found


def catalog_path(page: str) -> Path:
    """The catalog of a book page by its path from the root (notebooks/01_fields.ipynb)."""
    return CATALOGS / Path(page).with_suffix(".po")


def read_catalog(path: Path) -> tuple[dict[str, str], set[str]]:
    """Return (translations that count, fuzzy message ids) of one .po file; empty if missing."""
    if not path.exists():
        return {}, set()
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=LANGUAGE)
    translations, fuzzy = {}, set()
    for entry in catalog:
        if not entry.id or not isinstance(entry.id, str):
            continue
        if entry.fuzzy:
            fuzzy.add(entry.id)
        elif isinstance(entry.string, str) and entry.string:
            translations[entry.id] = entry.string
    return translations, fuzzy


def _relink(markdown: str, folder: str) -> str:
    """Keep relative links working from zh-CN/<folder>/: a link to another translated notebook stays
    (it now opens the Chinese one); a link to anything else in the repository gets one more
    ``../``."""

    def fix(match: re.Match[str]) -> str:
        target = match.group(2)
        resolved = (ROOT / folder / target).resolve()
        if not resolved.exists() or (
            resolved.parent.parent == ROOT and resolved.parent.name in FOLDERS
        ):
            return match.group(0)
        return match.group(1) + "../" + target

    return _LINK.sub(fix, markdown)


def english_notebooks() -> list[Path]:
    return [p for folder in FOLDERS for p in sorted((ROOT / folder).glob("[0-9][0-9]_*.ipynb"))]


def _page(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _markdown_of(page: str) -> str:
    """The markdown of a book page as the book reads it (notebook cells, the README's agenda, the
    toctree captions, the glossary table's messages)."""
    path = ROOT / page
    if path.suffix == ".ipynb":
        nb = nbformat.read(path, as_version=4)
        return "\n\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    text = path.read_text(encoding="utf-8")
    if page == AGENDA[0]:
        title = text.split("\n", 1)[0]
        readme = (ROOT / AGENDA[1]).read_text(encoding="utf-8")
        part = readme.split(AGENDA[2], 1)[1].split(AGENDA[3], 1)[0]
        return title + "\n\n" + readme_links_for_book(part)
    captions = re.findall(r"^:caption: (.+)$", text, flags=re.MULTILINE)
    tables = [
        message
        for name in _GLOSSARY_TABLE.findall(text)
        for message in glossary.page_messages(glossary.read_terms(path.parent / name))
    ]
    return "\n\n".join([text, *captions, *tables])


def translated_pages() -> list[str]:
    """Every page whose Chinese must be current: lessons, exercises, glossary, index, agenda."""
    return [_page(p) for p in english_notebooks()] + list(BOOK_PAGES) + [AGENDA[0]]


def stale_messages(markdown: str, catalog: Path, shown: str) -> list[Stale]:
    """Messages of `markdown` with no translation in `catalog`, or one made from older English."""
    if not catalog.exists():
        return [
            Stale(
                shown,
                "(whole file)",
                "catalog missing (run python tools/build_book.py --update-catalogs)",
            )
        ]
    translations, fuzzy = read_catalog(catalog)
    found: list[Stale] = []
    seen: set[str] = set()
    for message in messages(markdown):
        if message in seen or message in translations:
            continue
        seen.add(message)
        reason = (
            "fuzzy (the English changed: review the translation, then drop the fuzzy flag)"
            if message in fuzzy
            else "missing"
        )
        found.append(Stale(shown, message, reason))
    return found


def stale(pages: list[str] | None = None) -> list[Stale]:
    """Every message of every translated page whose Chinese entry is missing, empty or fuzzy."""
    found: list[Stale] = []
    for page in pages or translated_pages():
        catalog = catalog_path(page)
        found += stale_messages(_markdown_of(page), catalog, catalog.relative_to(ROOT).as_posix())
    return found if pages else found + stale_comments()


def translate_notebook(path: Path) -> tuple[nbformat.NotebookNode, list[str]]:
    """Return the Chinese notebook made from `path`, and the messages left in English.

    Outputs are the English ones still; `write` executes a lesson to make them Chinese.
    """
    translations, _ = read_catalog(catalog_path(_page(path)))
    comments, _ = read_catalog(COMMENTS)
    nb = copy.deepcopy(nbformat.read(path, as_version=4))
    left: list[str] = []
    folder = path.parent.name
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.source, untranslated = translate_code(cell.source, comments)
        else:
            text, untranslated = translate_markdown(cell.source, translations)
            cell.source = _relink(text, folder)
        left += untranslated
    first_code = next((i for i, c in enumerate(nb.cells) if c.cell_type == "code"), len(nb.cells))
    setup = nbformat.v4.new_code_cell(SETUP)
    setup["id"] = SETUP_ID
    nb.cells.insert(first_code, setup)
    nb.metadata.setdefault("language_info", {})
    nb.metadata["language"] = LANGUAGE  # the grader's feedback language (docs/grading.md)
    return nb, left


def without_outputs(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """`nb` as the generator decides it: sources, ids and metadata; no outputs or counts."""
    bare = copy.deepcopy(nb)
    for cell in bare.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    bare.metadata.pop("kernelspec", None)
    return bare


def is_current(path: Path, target: Path) -> bool:
    """True if `target` holds what the generator makes from `path` now (outputs aside), and a
    lesson was executed (every code cell has its execution count)."""
    if not target.exists():
        return False
    committed = nbformat.read(target, as_version=4)
    generated, _ = translate_notebook(path)
    if nbformat.writes(without_outputs(committed)) != nbformat.writes(without_outputs(generated)):
        return False
    code = [c for c in committed.cells if c.cell_type == "code"]
    return not executed(path) or all(c.execution_count for c in code)


def executed(path: Path) -> bool:
    """True for a lesson, whose Chinese notebook stores the outputs of one clean run."""
    return path.parent.name == "notebooks"


def render(path: Path) -> str:
    """The text of the Chinese notebook generated from `path`, before it is executed."""
    nb, _ = translate_notebook(path)
    nbformat.validate(nb)
    return nbformat.writes(nb) + "\n"


def target_of(path: Path) -> Path:
    return TARGET / path.parent.name / path.name


def _execute(target: Path) -> None:
    """Run a Chinese lesson top to bottom and store its outputs (tools/execute_notebooks.py)."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from execute_notebooks import Refused, execute
    finally:
        sys.path.pop(0)
    print(f"executing {target.relative_to(ROOT)} ...", file=sys.stderr)
    try:
        execute(target)
    except Refused as exc:
        raise SystemExit(f"translate_notebooks: {exc}") from None


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--check",
        action="store_true",
        help="do not write; exit 1 if a Chinese notebook is out of date",
    )
    mode.add_argument(
        "--stale",
        action="store_true",
        help="list messages whose translation is missing or fuzzy; exit 1 if any",
    )
    mode.add_argument(
        "--update-comments",
        action="store_true",
        help="merge the English code's comments into locales/zh_CN/LC_MESSAGES/comments.po",
    )
    parser.add_argument(
        "--execute-all",
        action="store_true",
        help="execute every Chinese lesson again (after course_lib.po changed, say)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    if args.update_comments:
        catalog = update_comments()
        left = [m.id for m in catalog if m.id and (m.fuzzy or not m.string)]
        print(f"wrote {COMMENTS.relative_to(ROOT)}: {len(left)} to translate", file=sys.stderr)
        return 0
    if args.stale:
        problems = stale()
        for problem in problems:
            print(problem)
        print(f"{len(problems)} message(s) need a translation", file=sys.stderr)
        return 1 if problems else 0
    sources = english_notebooks()
    outdated = []
    for path in sources:
        target = target_of(path)
        current = is_current(path, target)
        if current and not (args.execute_all and executed(path) and not args.check):
            continue
        if not current:
            outdated.append(target)
        if not args.check:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(render(path), encoding="utf-8")
            print(f"wrote {target.relative_to(ROOT)}", file=sys.stderr)
            if executed(path):
                _execute(target)
    expected = {target_of(p) for p in sources}
    orphans = sorted(p for f in FOLDERS for p in (TARGET / f).glob("*.ipynb") if p not in expected)
    for orphan in orphans:
        print(f"{orphan.relative_to(ROOT)} has no English source: delete it", file=sys.stderr)
    if args.check and (outdated or orphans):
        for target in outdated:
            print(
                f"{target.relative_to(ROOT)} is out of date: "
                "run python tools/translate_notebooks.py",
                file=sys.stderr,
            )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
