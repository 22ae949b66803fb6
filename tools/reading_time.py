"""Estimate how long a learner needs for each lesson's core, from its words and code.

Usage: python tools/reading_time.py [notebooks/NN_name.ipynb ...]   (default: every lesson)

The method (docs/instructor.md, "How the minutes were estimated"):
- prose: every word of a markdown cell (tables and diagrams included) at 200 words a minute;
- code: 4 seconds per non-blank line to read it (about as long as 13 words of prose), plus
  10 seconds per code cell to run it and read what it shows;
- only the core counts: a section whose heading says "optional", "Going deeper" or
  "Going further", and the "Exercises" section (timed as exercises), are left out, down to the
  next heading of the same or a higher level.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

WORDS_PER_MINUTE = 200
SECONDS_PER_CODE_LINE = 4
SECONDS_PER_CODE_CELL = 10
OPTIONAL_HEADING = re.compile(r"optional|going deeper|going further|^exercises\b", re.IGNORECASE)
HEADING = re.compile(r"^(#{1,6})\s+(.*\S)\s*$")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Estimate:
    """A lesson's core: its words, code lines and code cells, and the minutes they take."""

    words: int
    code_lines: int
    code_cells: int

    @property
    def minutes(self) -> float:
        seconds = self.code_lines * SECONDS_PER_CODE_LINE + self.code_cells * SECONDS_PER_CODE_CELL
        return self.words / WORDS_PER_MINUTE + seconds / 60


def _blocks(source: str) -> list[tuple[int | None, str, str]]:
    """Split a markdown cell at its headings: (level or None, heading text, block text)."""
    blocks: list[tuple[int | None, str, str]] = [(None, "", "")]
    outside = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), source)
    for line, plain in zip(source.splitlines(), outside.splitlines() + [""] * source.count("\n")):
        heading = HEADING.match(plain)
        if heading:
            blocks.append((len(heading.group(1)), heading.group(2), line + "\n"))
        else:
            level, title, text = blocks[-1]
            blocks[-1] = (level, title, text + line + "\n")
    return blocks


def estimate(path: Path) -> Estimate:
    """The core of one lesson notebook, without its optional and exercise sections."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    words = lines = code_cells = 0
    skipping: int | None = None  # level of the optional heading being skipped
    for cell in cells:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            for level, title, text in _blocks(source):
                if level is not None and skipping is not None and level <= skipping:
                    skipping = None
                if level is not None and skipping is None and OPTIONAL_HEADING.search(title):
                    skipping = level
                if skipping is None:
                    words += len(text.split())
        elif cell["cell_type"] == "code" and skipping is None:
            code = [line for line in source.splitlines() if line.strip()]
            if code:
                lines += len(code)
                code_cells += 1
    return Estimate(words, lines, code_cells)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    args = parser.parse_args(argv)
    paths = args.notebooks or sorted(
        Path(__file__).resolve().parent.parent.glob("notebooks/[0-9][0-9]_*.ipynb")
    )
    print(f"{'lesson':28} {'words':>6} {'code lines':>10} {'code cells':>10} {'minutes':>8}")
    for path in paths:
        core = estimate(path)
        print(
            f"{path.name:28} {core.words:6} {core.code_lines:10} {core.code_cells:10}"
            f" {math.ceil(core.minutes):8}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
