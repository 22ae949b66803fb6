"""Sphinx configuration of the course book (English source, Simplified Chinese from locales/).

Build it with ``python tools/build_book.py`` (both languages). The source directory is the
repository root, so lessons, exercises and the guides in docs/ are read where they live and
their relative links resolve as they do in JupyterLab; only the files in ``include_patterns``
are part of the book.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

project = "MCP tool annotations"
author = "the course authors"
copyright = "the course authors, MIT licence"
root_doc = "book/index"

extensions = ["myst_nb", "sphinxcontrib.mermaid", "book_extras"]

include_patterns = [
    "book/*.md",
    "notebooks/[0-9][0-9]_*.ipynb",
    "exercises/[0-9][0-9]_*.ipynb",
    "docs/*.md",
]
# The READMEs are not pages: the agenda page includes README.md's agenda (translated through its
# catalog), and README.zh-CN.md is a Chinese class's entry on GitHub, not a page of either book.
exclude_patterns = ["**/.ipynb_checkpoints", "book/node_modules", "README.md", "README.zh-CN.md"]

# Lessons are read with the outputs of their one clean run; nothing executes at build time.
nb_execution_mode = "off"
myst_fence_as_directive = ["mermaid"]
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]

# Mermaid is served from the site itself (copied from book/node_modules by book_extras), as a
# classic script: browsers refuse ES modules on pages opened from disk.
mermaid_use_local = "mermaid/mermaid.min.js"
mermaid_include_elk = False
mermaid_include_zenuml = False
mermaid_d3_zoom = False
# A diagram keeps its proportions (the plugin's default is a fixed 500 px height, which shrank tall
# diagrams' labels to 8 px); _static/mermaid-fit.js keeps labels at 12 px or more, and a wider
# diagram scrolls sideways.
mermaid_height = "auto"
mermaid_fullscreen_button = "⤢"  # the default, ⛶, is missing from common Linux fonts
mermaid_init_config = {
    "startOnLoad": False,
    "flowchart": {"htmlLabels": False, "subGraphTitleMargin": {"top": 4, "bottom": 14}},
}

html_theme = "sphinx_book_theme"
html_title = "MCP tool annotations"
html_static_path = ["_static"]
html_css_files = ["book.css"]
html_show_sourcelink = False
html_copy_source = False
html_last_updated_fmt = None
html_theme_options = {
    "show_toc_level": 2,
    "use_download_button": False,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "navigation_with_keys": False,
    "show_prev_next": True,
}

# What differs by language, applied by book_extras on top of the settings in this file
# (tools/build_book.py builds each language with -D language=...). Chinese search splits words
# with jieba, which book_extras gives the glossary's terms (book/glossary.csv) as words.
language_settings = {
    "en": {"html_title": "MCP tool annotations"},
    "zh_CN": {
        "html_title": "MCP 工具注解",
        "author": "课程作者",
        "copyright": "课程作者，MIT 许可证",
        "html_search_language": "zh",
        "html_theme_options": {"search_bar_text": "搜索…"},
    },
}
html_search_options: dict[str, str] = {}

# Translations: one catalog per page under locales/<language>/LC_MESSAGES/<docname>.po.
locale_dirs = ["locales"]  # relative to the source directory, the repository root
gettext_compact = False
gettext_uuid = False
gettext_location = False
gettext_additional_targets: list[str] = []

templates_path = ["_templates"]
html_sidebars = {
    "**": ["navbar-logo.html", "language-switch.html", "search-field.html", "sbt-sidebar-nav.html"]
}

# The build fails on any warning (tools/build_book.py passes -W); this is the whole allow-list.
suppress_warnings: list[str] = []
# A fixed light theme: pydata-sphinx-theme logs a console error on a first visit without one.
html_context = {"default_mode": "light"}
