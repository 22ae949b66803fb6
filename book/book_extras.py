"""Sphinx extension of the course book: translatable Mermaid diagrams, the glossary table, the
settings of each language, the language switch and the exercise note.

* A Mermaid diagram is one gettext message: its whole source. A translator copies it and
  translates the labels, keeping node ids and arrows; a diagram that no longer parses fails the
  browser test (tests/peers/test_book_browser.py), which checks every diagram became an SVG.
  Mermaid is loaded as a classic script, so diagrams draw on pages opened from disk (file://),
  where browsers refuse to load ES modules.
* ``glossary-table PATH`` shows book/glossary.csv (tools/glossary.py reads it): headings and
  meanings are translated in the page's catalog; terms and their Chinese are the same in both books.
* ``language_settings`` in conf.py holds what differs by language (title, author, search);
  the Chinese search index splits words with jieba, with the glossary's terms as a user dictionary.
* Exercise pages open with a note that they are meant to be run in JupyterLab.
"""

from __future__ import annotations

import logging
import shutil
import sys
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ExtensionError
from sphinx.search import languages as search_languages
from sphinx.search.zh import SearchChinese
from sphinx.util.docutils import SphinxDirective
from sphinxcontrib import mermaid as sphinx_mermaid

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import glossary  # noqa: E402
from translate_notebooks import readme_links_for_book  # noqa: E402

# Mermaid's ES-module build, from the npm package pinned in book/package-lock.json.
MERMAID_DIST = ROOT / "book" / "node_modules" / "mermaid" / "dist"
# The classic (non-module) build: one script defining window.mermaid, which also works from disk.
MERMAID_FILES = ("mermaid.min.js",)
MERMAID_SCRIPT = "mermaid/mermaid.min.js"  # under the site's _static/
# sphinxcontrib-mermaid's page script imports Mermaid as an ES module; it takes the global instead.
MERMAID_IMPORT = "import mermaid from {{ mermaid_js_url }};"
MERMAID_GLOBAL = "const mermaid = window.mermaid;"
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


# Pages whose Chinese catalog may be incomplete: the guides in docs/ (for instructors, not
# learners). While any of a page's messages is untranslated, the Chinese page says so under its
# title; once its catalog is complete, the note goes.
MAY_BE_PARTLY_TRANSLATED = "docs/"
PARTLY_TRANSLATED_NOTE = {
    "docs/instructor": (
        "讲师指南尚未全部译为中文，未译的段落显示英文原文。"
        "面向学习者的内容（各课、练习、术语表和课程安排）均已译为中文。"
    ),
}
PARTLY_TRANSLATED_DEFAULT_NOTE = (
    "本页尚未全部译为中文，未译的段落显示英文原文。"
    "面向学习者的内容（各课、练习、术语表和课程安排）均已译为中文。"
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


def _inline(text: str) -> list[nodes.Node]:
    """The nodes of a one-line text in which backticks mark code."""
    return [
        nodes.literal(part, part) if number % 2 else nodes.Text(part)
        for number, part in enumerate(text.split("`"))
        if part
    ]


class GlossaryTable(SphinxDirective):
    """``glossary-table PATH``: the terms of a glossary CSV file (tools/glossary.py) as a table."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        relative, path = self.env.relfn2path(self.arguments[0])
        self.env.note_dependency(relative)
        try:
            terms = glossary.read_terms(Path(path))
        except (OSError, glossary.GlossaryError) as exc:
            raise self.error(f"glossary-table: {exc}") from exc
        group = nodes.tgroup(cols=len(glossary.HEADINGS))
        group += [nodes.colspec(colwidth=1) for _ in glossary.HEADINGS]
        group += nodes.thead("", self._row(glossary.HEADINGS, translated=set(range(4))))
        body = nodes.tbody()
        for term in terms:
            cells = (term.term, "、".join(term.zh), "、".join(term.avoid), term.meaning)
            body += self._row(cells, translated={3})
        group += body
        return [nodes.table("", group, classes=["book-glossary"])]

    def _row(self, cells: tuple[str, ...], translated: set[int]) -> nodes.row:
        """A table row; the cells numbered in `translated` are messages of the page's catalog."""
        source, line = self.get_source_info()
        row = nodes.row()
        for number, text in enumerate(cells):
            paragraph = nodes.paragraph(text, "", *_inline(text))
            paragraph.source, paragraph.line = source, line
            if number not in translated:
                paragraph["translatable"] = False
            row += nodes.entry("", paragraph)
        return row


def _insert_note(doctree: nodes.document, text: str) -> None:
    """Put a note with `text` (backticks mark code) right under the page title."""
    note = nodes.note()
    note += nodes.paragraph("", "", *_inline(text))
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is None:
        doctree.insert(0, note)
        return
    title = next(iter(section.findall(nodes.title)))
    section.insert(section.index(title) + 1, note)


def _fully_translated(doctree: nodes.document) -> bool:
    """Whether the page's catalog translated every message of the page (fuzzy ones do not count)."""
    progress = doctree.get("translation_progress") or {}
    return progress.get("translated", 0) == progress.get("total", -1)


def add_page_notes(app: Sphinx, doctree: nodes.document) -> None:
    """Exercise pages say they run in JupyterLab; a partly translated Chinese page says so."""
    docname = app.env.docname
    language = app.config.language if app.config.language in EXERCISE_NOTE else "en"
    if docname.startswith("exercises/"):
        path = f"{docname}.ipynb"
        _insert_note(doctree, EXERCISE_NOTE[language].format(path=path, zh_path=f"zh-CN/{path}"))
    elif (
        language == "zh_CN"
        and docname.startswith(MAY_BE_PARTLY_TRANSLATED)
        and not _fully_translated(doctree)
    ):
        _insert_note(doctree, PARTLY_TRANSLATED_NOTE.get(docname, PARTLY_TRANSLATED_DEFAULT_NOTE))


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


def load_mermaid_as_a_classic_script() -> None:
    """Make sphinxcontrib-mermaid's page script use window.mermaid instead of importing a module.

    Browsers refuse ES modules on a page opened from disk (file://), so the diagrams of a book
    opened as a file would stay source text. Raises ExtensionError if the plugin's script changed.
    """
    template = sphinx_mermaid._MERMAID_JS
    if MERMAID_GLOBAL in template:
        return
    if MERMAID_IMPORT not in template:
        raise ExtensionError(
            "sphinxcontrib-mermaid's page script no longer starts with "
            f"{MERMAID_IMPORT!r}: update load_mermaid_as_a_classic_script in book/book_extras.py"
        )
    sphinx_mermaid._MERMAID_JS = template.replace(MERMAID_IMPORT, MERMAID_GLOBAL, 1)


def add_mermaid_script(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """Where the plugin puts its page script (a page with a diagram, or one without a doctree
    such as search.html): Mermaid's classic build before it, and mermaid-fit.js, which keeps a
    diagram's labels readable (at least 12 px)."""
    if doctree is None or doctree.next_node(sphinx_mermaid.mermaid) is not None:
        priority = app.config.mermaid_js_priority - 1
        app.add_js_file(MERMAID_SCRIPT, priority=priority, defer="defer")
        app.add_js_file("mermaid-fit.js", priority=priority)


def apply_language_settings(app: Sphinx, config: Config) -> None:
    """Apply conf.py's ``language_settings`` of the language being built (dicts are merged)."""
    for name, value in config.language_settings.get(config.language, {}).items():
        if isinstance(value, dict):
            value = {**config[name], **value}
        config[name] = value
    if config.html_search_language == "zh":
        _chinese_search(app, config)


def _chinese_search(app: Sphinx, config: Config) -> None:
    """Chinese search: jieba splits words, and knows the glossary's terms as words.

    jieba's dictionary cache goes into this build's own folder, not the shared temporary one,
    where another local user could put a cache of their own for the build to load.
    """
    import jieba

    jieba.setLogLevel(logging.WARNING)
    folder = Path(app.doctreedir).parent / "jieba"
    folder.mkdir(parents=True, exist_ok=True)
    jieba.dt.tmp_dir = str(folder)
    words = folder / "glossary-words.txt"
    words.write_text(glossary.user_dictionary(glossary.read_terms()), encoding="utf-8")
    config.html_search_options = {**config.html_search_options, "dict": str(words)}


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
    up = "../" * (pagename.count("/") + 1)  # from this page to the site's root, above en/, zh-CN/
    context["book_languages"] = [
        (name, f"{up}{SITE_FOLDER[code]}/{pagename}.html", code == here)
        for code, name in LANGUAGES.items()
    ]


class SearchChineseWithItsStemmer(SearchChinese):
    """Chinese search whose language_data.js names the stemmer it ships, and splits Chinese queries.

    Sphinx 9.0's Chinese search ships english-stemmer.js (Latin words in Chinese text) but writes
    ``window.Stemmer = ChineseStemmer``, a ReferenceError on every page of the Chinese book.
    """

    language_name = "English"
    # Sphinx looks each word of a query up whole; a Chinese query has no spaces between its words.
    js_splitter_code = (Path(__file__).with_name("chinese_query.js")).read_text(encoding="utf-8")


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
    app.add_directive("glossary-table", GlossaryTable)
    app.add_config_value("language_settings", {}, "env", types=frozenset({dict}))
    load_mermaid_as_a_classic_script()
    search_languages["zh"] = SearchChineseWithItsStemmer
    app.connect("config-inited", apply_language_settings)
    app.connect("doctree-read", add_page_notes)
    app.connect("include-read", readme_links_from_book)
    app.connect("builder-inited", check_mermaid)
    app.connect("build-finished", copy_mermaid)
    app.connect("html-page-context", other_languages)
    app.connect("html-page-context", add_mermaid_script)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
