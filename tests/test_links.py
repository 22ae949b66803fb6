"""Every relative link a reader can follow resolves: lessons, exercises, solutions, README and docs.

A link is `[text](target)` outside code; a relative target must name a file or folder that exists
(relative to the file that holds the link), and a `#fragment` into a markdown file must name one of
its headings, as GitHub builds heading anchors.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(
    [ROOT / "README.md", ROOT / "README.zh-CN.md", *(ROOT / "docs").rglob("*.md")]
    + [
        path
        for folder in ("notebooks", "exercises", "solutions")
        for path in (ROOT / folder).glob("*.ipynb")
    ]
)
FENCED = re.compile(r"^\s*```.*?^\s*```", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


def _markdown(path: Path) -> str:
    if path.suffix == ".md":
        return path.read_text(encoding="utf-8")
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def relative_links(text: str) -> list[str]:
    """The targets of the links in `text` that point into the repository."""
    prose = INLINE_CODE.sub("", FENCED.sub("", text))
    return [
        t
        for t in LINK.findall(prose)
        if not re.match(r"[a-z][a-z0-9+.-]*:", t, flags=re.IGNORECASE)
    ]


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a markdown heading."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(path: Path):
    broken = []
    for target in relative_links(_markdown(path)):
        file_part, _, fragment = target.partition("#")
        resolved = (path.parent / unquote(file_part)).resolve() if file_part else path
        if not resolved.exists():
            broken.append(f"{target}: no such file")
        elif fragment and resolved.suffix == ".md":
            anchors = {
                github_anchor(h)
                for h in HEADING.findall(FENCED.sub("", resolved.read_text(encoding="utf-8")))
            }
            if fragment.lower() not in anchors:
                broken.append(f"{target}: no heading with anchor #{fragment} in {resolved.name}")
    assert not broken, f"{path.relative_to(ROOT)} has broken links:\n" + "\n".join(broken)


def test_the_link_finder_finds_relative_links_and_only_those():
    text = (
        "See [lesson](notebooks/01_fields.ipynb),"
        " [guide](docs/instructor.md#how-the-minutes-were-estimated),\n"
        "[web](https://example.com/x.ipynb) and `[not](a-link.md)`; ![image](pic.png).\n"
        "```\n[in code](missing.md)\n```\n"
    )
    assert relative_links(text) == [
        "notebooks/01_fields.ipynb",
        "docs/instructor.md#how-the-minutes-were-estimated",
    ]


def test_github_anchors_match_the_headings_they_are_made_from():
    assert github_anchor("How the minutes were estimated") == "how-the-minutes-were-estimated"
    assert github_anchor("2. Run of show") == "2-run-of-show"
    assert (
        github_anchor("Connect the demo server to `Claude Code`")
        == "connect-the-demo-server-to-claude-code"
    )
