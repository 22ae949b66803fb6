"""Sized for a projector: code lines up to 88 characters, text outputs up to 100, lesson markdown
cells up to 150 words.

The instructor guide promises a zoom at which 88 characters of code fit the screen; a longer line
scrolls sideways in front of the room. A markdown cell of more than 150 words no longer fits
beside its code: split it, or move depth into a 'Going deeper' part.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAX_CODE_LINE = 88
MAX_MARKDOWN_WORDS = 150
NOTEBOOKS = sorted(
    path
    for folder in ("notebooks", "exercises", "solutions")
    for path in (ROOT / folder).glob("*.ipynb")
)
LESSONS = sorted((ROOT / "notebooks").glob("*.ipynb"))
FENCE = re.compile(r"^\s*```(\w*)[^\n]*\n(.*?)^\s*```", re.MULTILINE | re.DOTALL)


def _cells(path: Path) -> list[tuple[int, dict]]:
    return list(enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"], start=1))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_code_line_is_wider_than_the_projector(path: Path):
    too_wide = [
        f"cell {number}, {len(line)} characters: {line[:60]}..."
        for number, cell in _cells(path)
        if cell["cell_type"] == "code"
        for line in "".join(cell["source"]).splitlines()
        if len(line) > MAX_CODE_LINE
    ]
    assert not too_wide, (
        f"{path.parent.name}/{path.name}: code lines over {MAX_CODE_LINE} characters:\n"
        + "\n".join(too_wide)
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_code_line_shown_in_markdown_is_wider_than_the_projector(path: Path):
    too_wide = [
        f"cell {number}, {len(line)} characters: {line[:60]}..."
        for number, cell in _cells(path)
        if cell["cell_type"] == "markdown"
        for language, block in FENCE.findall("".join(cell["source"]))
        if language != "mermaid"  # drawn as a diagram, not shown as code
        for line in block.splitlines()
        if len(line) > MAX_CODE_LINE
    ]
    assert not too_wide, (
        f"{path.parent.name}/{path.name}: code lines over {MAX_CODE_LINE} characters:\n"
        + "\n".join(too_wide)
    )


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_no_lesson_markdown_cell_is_longer_than_the_projector_shows(path: Path):
    too_long = [
        f"cell {number}, {len(text.split())} words: {text[:60]!r}..."
        for number, cell in _cells(path)
        if cell["cell_type"] == "markdown"
        for text in ["".join(cell["source"])]
        if len(text.split()) > MAX_MARKDOWN_WORDS
    ]
    assert not too_long, (
        f"{path.name}: markdown cells over {MAX_MARKDOWN_WORDS} words:\n" + "\n".join(too_long)
    )


MAX_OUTPUT_LINE = 100


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_no_stored_text_output_line_is_wider_than_the_projector(path: Path):
    """A lesson's printed and displayed text (not its HTML tables or figures) fits 100 columns."""
    wide = []
    for number, cell in _cells(path):
        for output in cell.get("outputs", []):
            text = output.get("text") or output.get("data", {}).get("text/plain", "")
            for line in "".join(text).splitlines():
                if len(line) > MAX_OUTPUT_LINE:
                    wide.append(f"cell {number}: {len(line)} characters: {line[:60]}...")
    assert not wide, f"{path.name}: output lines over {MAX_OUTPUT_LINE}:\n" + "\n".join(wide)
