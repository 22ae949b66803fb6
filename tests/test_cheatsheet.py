"""The cheat sheet (book/cheatsheet.md) says what the course's sources say: the fields and defaults
of the pinned SDK, and the measured clients' rows exactly as committed, with version and date."""

from __future__ import annotations

import re
from pathlib import Path

from course_lib import FIELDS, measured_table
from course_lib.measured import committed

PAGE = Path(__file__).resolve().parents[1] / "book" / "cheatsheet.md"
CLIENTS = {"Claude Code": "claude-code", "Codex": "codex", "Copilot": "copilot"}


def _table_after(heading: str) -> list[list[str]]:
    text = PAGE.read_text(encoding="utf-8").split(f"## {heading}", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in text.splitlines() if line.startswith("|")]
    cells = [[c.strip() for c in row.strip("|").split("|")] for row in rows]
    return [cells[0], *cells[2:]]  # the header, then the rows (no separator line)


def test_the_fields_table_names_every_field_its_sdk_attribute_and_its_default():
    header, *rows = _table_after("The five fields and their defaults")
    assert header[:2] == ["wire name", "SDK attribute (`mcp` 2.x)"]
    assert [(r[0], r[1]) for r in rows] == [(f"`{f.wire_name}`", f"`{f.attribute}`") for f in FIELDS]
    defaults = {f.wire_name: f.default for f in FIELDS}
    for row, field in zip(rows, FIELDS):
        if defaults[field.wire_name] is None:
            assert row[2].startswith("none"), row
        else:
            assert row[2].startswith(f"`{str(defaults[field.wire_name]).lower()}`"), row


def test_the_measured_rows_are_the_committed_measurements_with_their_versions_and_date():
    text = PAGE.read_text(encoding="utf-8")
    header, *rows = _table_after("What measured clients did")
    assert len(rows) >= 4 and len(header) >= 4
    dates = set()
    for column, title in enumerate(header[1:], start=1):
        match = re.fullmatch(r"(Claude Code|Codex|Copilot) (\d[\w.]*) (\w+)", title)
        assert match, title
        client, version, mode = CLIENTS[match[1]], match[2], match[3]
        dates.add(committed(client, version).date)
        table = measured_table(client, version, modes=[mode])
        for row in rows:
            assert row[column] == table.loc[row[0], mode], (title, row[0])
    assert all(f"on {date}" in text for date in dates)
