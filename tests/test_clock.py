"""The clock holds: the run of show leaves slack, and the README, the lessons and the plan agree.

The run of show is the `| block | 120 | 90 |` table in docs/instructor.md. Both sessions must leave
at least 10 minutes for questions, breaks and a failed install; the README agenda and each lesson's
**Time** line must give the same minutes; and each lesson's core must fit its minutes when read
alone, by the estimate of `tools/reading_time.py`.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("reading_time", ROOT / "tools" / "reading_time.py")
assert _spec and _spec.loader
reading_time = importlib.util.module_from_spec(_spec)
sys.modules["reading_time"] = reading_time  # dataclasses look their module up by name
_spec.loader.exec_module(reading_time)
Estimate, estimate = reading_time.Estimate, reading_time.estimate

LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
SLACK = 10


def _rows(text: str, header: str) -> list[list[str]]:
    """The rows of the markdown table whose header line starts with `header`."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def _minutes(cell: str) -> int:
    """The minutes a table cell gives: its leading number, or 0 for take-home."""
    found = re.match(r"\d+", cell)
    if found:
        return int(found.group(0))
    assert cell.startswith("take-home"), (
        f"a run-of-show cell should start with minutes or 'take-home': {cell!r}"
    )
    return 0


def run_of_show() -> list[tuple[str, int, int]]:
    text = (ROOT / "docs" / "instructor.md").read_text(encoding="utf-8")
    return [
        (row[0], _minutes(row[1]), _minutes(row[2])) for row in _rows(text, "| block | 120 | 90 |")
    ]


def test_both_session_plans_leave_at_least_ten_minutes_of_slack():
    plan = run_of_show()
    assert len(plan) >= 10, f"the run of show has only {len(plan)} blocks"
    assert sum(row[1] for row in plan) <= 120 - SLACK, (
        f"the 120-minute plan adds up to {sum(r[1] for r in plan)}"
    )
    assert sum(row[2] for row in plan) <= 90 - SLACK, (
        f"the 90-minute plan adds up to {sum(r[2] for r in plan)}"
    )


def test_the_instructor_guide_states_the_sums_the_table_adds_up_to():
    plan = run_of_show()
    text = (ROOT / "docs" / "instructor.md").read_text(encoding="utf-8")
    total_120, total_90 = sum(r[1] for r in plan), sum(r[2] for r in plan)
    stated = f"120-minute plan adds up to {total_120} minutes and the 90-minute plan to {total_90}"
    assert stated in " ".join(text.split()), f"docs/instructor.md should say: {stated}"


def test_the_readme_agenda_gives_the_minutes_of_the_run_of_show():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    agenda = _rows(readme, "| # | Lesson | Minutes |")
    plan = run_of_show()
    assert len(agenda) == len(plan), (
        f"README agenda has {len(agenda)} rows, the run of show {len(plan)} blocks"
    )
    for row, (block, minutes_120, _) in zip(agenda, plan):
        number = row[0]
        if number != "ex":
            assert block.startswith(number), (
                f"README row {number} stands where the run of show has {block!r}"
            )
        else:
            assert block.startswith("exercise"), (
                f"README exercise row stands where the run of show has {block!r}"
            )
        assert _minutes(row[2]) == minutes_120, (
            f"README says {row[2]!r} for {block!r}; the run of show {minutes_120}"
        )


def _time_line(path: Path) -> str:
    second = "".join(json.loads(path.read_text(encoding="utf-8"))["cells"][1]["source"])
    found = re.search(r"\*\*Time:\*\*(.*?)(?:\n\n|$)", second, flags=re.DOTALL)
    assert found, f"{path.name}: no **Time:** line in its second cell"
    return " ".join(found.group(1).split())


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_each_lesson_states_the_minutes_of_the_run_of_show(path: Path):
    block = next(row for row in run_of_show() if row[0].startswith(path.name[:2] + " "))
    line = _time_line(path)
    stated = re.match(r"about (\d+) minutes", line)
    assert stated, f"{path.name}: the Time line should start 'about N minutes': {line!r}"
    assert int(stated.group(1)) == block[1], (
        f"{path.name} says {stated.group(1)} minutes, the 120-minute plan {block[1]}"
    )
    short = re.search(r"(\d+) in the 90-minute session", line)
    minutes_90 = int(short.group(1)) if short else int(stated.group(1))
    assert minutes_90 == block[2], (
        f"{path.name} implies {minutes_90} minutes at 90, the plan gives {block[2]}"
    )


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_each_lesson_core_can_be_read_in_its_minutes(path: Path):
    block = next(row for row in run_of_show() if row[0].startswith(path.name[:2] + " "))
    core = estimate(path)
    assert core.minutes <= block[1], (
        f"{path.name}: its core takes about {core.minutes:.1f} minutes to read "
        f"({core.words} words, "
        f"{core.code_lines} code lines in {core.code_cells} cells), the plan gives {block[1]}: "
        "tighten it or move depth into a 'Going deeper (optional)' section"
    )


def _notebook(tmp_path: Path, cells: list[tuple[str, str]]) -> Path:
    path = tmp_path / "lesson.ipynb"
    cells_json = [
        {
            "cell_type": kind,
            "metadata": {},
            "source": source,
            **({"outputs": [], "execution_count": None} if kind == "code" else {}),
        }
        for kind, source in cells
    ]
    path.write_text(
        json.dumps({"cells": cells_json, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}),
        encoding="utf-8",
    )
    return path


def test_the_estimate_counts_the_core_and_leaves_out_optional_parts(tmp_path: Path):
    path = _notebook(
        tmp_path,
        [
            ("markdown", "## 1. Core\n\n" + "word " * 96),
            ("code", "a = 1\n\nb = 2\na + b"),
            ("markdown", "## Going deeper (optional)\n\n" + "skipped " * 500),
            ("code", "not = 'counted'\n" * 30),
            ("markdown", "### Still optional\n\nskipped too"),
            ("markdown", "## Summary\n\n- one two"),
            ("markdown", "## Exercises\n\nnot counted here"),
            ("markdown", "### Going further\n\nnor this"),
        ],
    )
    core = estimate(path)
    assert core == Estimate(words=3 + 96 + 5, code_lines=3, code_cells=1)
    assert core.minutes == pytest.approx(104 / 200 + (3 * 4 + 10) / 60)


def test_a_heading_inside_a_code_block_does_not_end_an_optional_part(tmp_path: Path):
    path = _notebook(
        tmp_path,
        [
            (
                "markdown",
                "## Going deeper (optional)\n\n```python\n# 1. not a heading\n```\n\nskipped",
            ),
            ("markdown", "## 2. Core\n\nread"),
        ],
    )
    assert estimate(path).words == 4
