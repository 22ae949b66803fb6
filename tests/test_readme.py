"""The README is for learners: short, with every other topic one link away in a docs/ page the book renders.

A learner needs what the course is, the two set-up commands, the agenda, the exercises and where to go
next. The instructor's grading, the hub, measure-client, inspect's flags, the book build, the benchmarks
and contributing live in docs/, each page linked from the README and rendered in the book.
"""

from __future__ import annotations

import ast
import fnmatch
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md"))
MAX_LINES = 150


def _toctree_entries() -> set[str]:
    index = (ROOT / "book" / "index.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```\{toctree\}\n(.*?)```", index, flags=re.DOTALL)
    entries = set()
    for block in blocks:
        for line in block.splitlines():
            line = line.strip()
            if line and not line.startswith(":"):
                entries.add((Path("book") / line).as_posix())
    return {re.sub(r"^book/\.\./", "", entry) for entry in entries}


def _include_patterns() -> list[str]:
    conf = ast.parse((ROOT / "book" / "conf.py").read_text(encoding="utf-8"))
    for node in conf.body:
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "include_patterns":
            return list(ast.literal_eval(node.value))
    raise AssertionError("book/conf.py sets no include_patterns")


def _marked(text: str, marker: str) -> str:
    return text.split(f"<!-- {marker} -->", 1)[1].split(f"<!-- /{marker} -->", 1)[0].strip()


def test_the_readme_is_at_most_150_lines():
    lines = README.count("\n") + (not README.endswith("\n"))
    assert lines <= MAX_LINES, (
        f"README.md has {lines} lines; keep it to {MAX_LINES} (a learner's set-up, agenda, exercises "
        "and links): move the rest to a page in docs/ and link it in one line"
    )


@pytest.mark.parametrize("page", DOCS)
def test_every_docs_page_is_linked_from_the_readme(page):
    assert f"]({page})" in README or f"]({page}#" in README, (
        f"README.md should link {page} in its 'Where to go next' list"
    )


@pytest.mark.parametrize("page", DOCS)
def test_every_docs_page_is_rendered_in_the_book(page):
    assert any(fnmatch.fnmatch(page, pattern) for pattern in _include_patterns()), (
        f"{page} is not in book/conf.py's include_patterns"
    )
    assert page.removesuffix(".md") in _toctree_entries(), (
        f"{page} is not in a toctree of book/index.md (add ../{page.removesuffix('.md')})"
    )


def test_the_readme_book_command_is_the_one_the_book_guide_explains():
    command = _marked(README, "ci:book-command")
    assert command.startswith("```bash") and "tools/build_book.py" in command
    body = command.removeprefix("```bash").removesuffix("```").strip()
    guide = (ROOT / "docs" / "book.md").read_text(encoding="utf-8")
    assert body in guide, "docs/book.md should give the README's book command unchanged"


def test_the_readme_links_the_chinese_readme_at_its_top():
    head = README.split("## ", 1)[0]
    assert "](README.zh-CN.md)" in head, "README.md should link README.zh-CN.md above its first section"


def test_the_readme_says_how_to_start_as_root_and_in_powershell_5_1():
    setup = README.split("## Set up", 1)[1].split("\n## ", 1)[0]
    assert "--allow-root" in setup, "a container runs as root: say that jupyter lab needs --allow-root"
    assert "PowerShell 5.1" in setup and "if ($?)" in setup, (
        "PowerShell 5.1 rejects &&: say how to run the set-up without it"
    )
