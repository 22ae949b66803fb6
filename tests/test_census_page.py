"""docs/clients.md shows exactly what the committed measurements say, and the book lists it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_census_page_tables_are_generated_from_the_committed_measurements():
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "census_page.py"), "--check"],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_census_page_is_in_the_books_toctree():
    assert "../docs/clients" in (ROOT / "book" / "index.md").read_text(encoding="utf-8")
