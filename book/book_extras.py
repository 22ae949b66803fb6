"""Sphinx extension of the course book: translatable Mermaid diagrams and the exercise note.

* A Mermaid diagram is one gettext message: its whole source. A translator copies it and
  translates the labels, keeping node ids and arrows; a diagram that no longer parses fails the
  browser test (tests/peers/test_book_browser.py), which checks every diagram became an SVG.
* Exercise pages open with a note that they are meant to be run in JupyterLab.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.search import languages as search_languages
from sphinx.search.zh import SearchChinese
from sphinxcontrib import mermaid as sphinx_mermaid

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from translate_notebooks import readme_links_for_book  # noqa: E402

# Mermaid's ES-module build, from the npm package pinned in book/package-lock.json.
MERMAID_DIST = ROOT / "book" / "node_modules" / "mermaid" / "dist"
MERMAID_FILES = ("mermaid.esm.min.mjs", "chunks/mermaid.esm.min/*.mjs")
MERMAID_MISSING = (
    "Mermaid is missing ({path}). The book serves Mermaid from the site itself, "
    "from the npm package "
    "pinned in book/package-lock.json: install it once with\n\n    npm ci --prefix book\n\n"
    "(needs Node.js and npm; Debian: apt-get install nodejs npm), then build again."
)
LANGUAGES = {"en": "English", "zh_CN": "中文"}
SITE_FOLDER = {"en": "en", "zh_CN": "zh-CN"}

EXERCISE_NOTE = {
    "en": (
        "This exercise is a notebook to run in JupyterLab: open `{path}` after the README's set-up "
        "command. Its check cells need a running kernel, so this page shows the task only."
    ),
    "zh_CN": (
        "本练习是一个要在 JupyterLab 中运行的 notebook：按 README 的安装命令装好环境后，打开 "
        "`{zh_path}`（中文版）或 `{path}`（英文版）。检查单元需要运行中的内核，因此本页只展示题目。"
    ),
}


# Pages the Chinese edition leaves in English for now: the guides in docs/ (for instructors,
# operators and contributors; the lessons, exercises, glossary and agenda are translated).
ENGLISH_ONLY = "docs/"
ENGLISH_ONLY_NOTE = {
    "docs/instructor": (
        "讲师指南目前只有英文版。面向学习者的内容（各课、练习、术语表和课程安排）均已译为中文。"
    ),
}
ENGLISH_ONLY_DEFAULT_NOTE = (
    "本页目前只有英文版。面向学习者的内容（各课、练习、术语表和课程安排）均已译为中文。"
)


class mermaid(sphinx_mermaid.mermaid, addnodes.translatable):
    """A Mermaid diagram whose whole source is one translatable message."""

    def preserve_original_messages(self) -> None:
        self["original_source"] = self["source"]

    def apply_translated_message(self, original_message: str, translated_message: str) -> None:
        self["code"] = self["code"].replace(original_message, translated_message)
        self["source"] = translated_message

    def extract_original_messages(self) -> list[str]:
        return [self.get("original_source", self["source"])]


class TranslatableMermaid(sphinx_mermaid.Mermaid):
    """The ``mermaid`` directive, making nodes whose source gettext extracts."""

    def run(self, **kwargs: Any) -> list[nodes.Node]:
        result = super().run(**kwargs)
        source = self.get_mm_code()
        if not isinstance(source, str):
            return result
        for index, node in enumerate(result):
            for old in list(node.findall(sphinx_mermaid.mermaid)):
                new = mermaid(**old.attributes)
                new["source"] = source
                new.source, new.line = self.state_machine.get_source_and_line(self.lineno)
                if old is node:
                    result[index] = new
                else:
                    old.replace_self(new)
        return result


def _insert_note(doctree: nodes.document, text: str) -> None:
    """Put a note with `text` (backticks mark code) right under the page title."""
    note = nodes.note()
    paragraph = nodes.paragraph()
    for number, part in enumerate(text.split("`")):
        paragraph += nodes.literal(part, part) if number % 2 else nodes.Text(part)
    note += paragraph
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is None:
        doctree.insert(0, note)
        return
    title = next(iter(section.findall(nodes.title)))
    section.insert(section.index(title) + 1, note)


def add_page_notes(app: Sphinx, doctree: nodes.document) -> None:
    """Exercise pages say they run in JupyterLab; English-only pages of the Chinese book say so."""
    docname = app.env.docname
    language = app.config.language if app.config.language in EXERCISE_NOTE else "en"
    if docname.startswith("exercises/"):
        path = f"{docname}.ipynb"
        _insert_note(doctree, EXERCISE_NOTE[language].format(path=path, zh_path=f"zh-CN/{path}"))
    elif language == "zh_CN" and docname.startswith(ENGLISH_ONLY):
        _insert_note(doctree, ENGLISH_ONLY_NOTE.get(docname, ENGLISH_ONLY_DEFAULT_NOTE))


def readme_links_from_book(
    app: Sphinx, relative_path: Any, parent_docname: str, content: list[str]
) -> None:
    """README.md is included into a page in book/: its links are relative to the repository root."""
    if str(relative_path) != "README.md":
        return
    content[0] = readme_links_for_book(content[0])


def check_mermaid(app: Sphinx) -> None:
    if app.builder.format == "html" and not (MERMAID_DIST / MERMAID_FILES[0]).exists():
        raise ExtensionError(MERMAID_MISSING.format(path=MERMAID_DIST / MERMAID_FILES[0]))


def copy_mermaid(app: Sphinx, exception: Exception | None) -> None:
    """Put Mermaid's ES module and its chunks (no source maps) into the site's _static/mermaid/."""
    if exception is not None or app.builder.format != "html":
        return
    target = Path(app.outdir) / "_static" / "mermaid"
    for pattern in MERMAID_FILES:
        for source in MERMAID_DIST.glob(pattern):
            destination = target / source.relative_to(MERMAID_DIST)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, destination)


def other_languages(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """Links to this page in the other language(s), for the sidebar's language switch."""
    here = app.config.language if app.config.language in LANGUAGES else "en"
    up = "../" * (pagename.count("/") + 1)
    context["book_languages"] = [
        (name, f"{up}../{SITE_FOLDER[code]}/{pagename}.html", code == here)
        for code, name in LANGUAGES.items()
    ]


class SearchChineseWithItsStemmer(SearchChinese):
    """Chinese search whose language_data.js names the stemmer it ships.

    Sphinx 9.0's Chinese search ships english-stemmer.js (Latin words in Chinese text) but writes
    ``window.Stemmer = ChineseStemmer``, a ReferenceError on every page of the Chinese book.
    """

    language_name = "English"


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension("sphinxcontrib.mermaid")
    app.add_node(
        mermaid,
        override=True,
        **{
            fmt: (getattr(sphinx_mermaid, f"{fmt}_visit_mermaid"), None)
            for fmt in ("html", "latex", "texinfo", "text", "man")
            if hasattr(sphinx_mermaid, f"{fmt}_visit_mermaid")
        },
    )
    app.add_directive("mermaid", TranslatableMermaid, override=True)
    search_languages["zh"] = SearchChineseWithItsStemmer
    app.connect("doctree-read", add_page_notes)
    app.connect("include-read", readme_links_from_book)
    app.connect("builder-inited", check_mermaid)
    app.connect("build-finished", copy_mermaid)
    app.connect("html-page-context", other_languages)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
