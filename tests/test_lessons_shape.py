"""Every lesson has the course's shape and is stored as one clean top-to-bottom run."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
STORED_WITH_OUTPUTS = LESSONS + sorted((ROOT / "solutions").glob("*.ipynb"))
MACHINE_SPECIFIC = re.compile(r"/tmp/|/home/|/root/|/work/|0x[0-9a-f]{8,}")


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def markdown(nb: dict) -> str:
    return "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


def test_lessons_are_numbered_from_00_without_gaps():
    numbers = [int(p.name[:2]) for p in LESSONS]
    assert numbers == list(range(len(numbers))), [p.name for p in LESSONS]


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_lesson_opens_with_title_promise_goals_and_time(path: Path):
    cells = load(path)["cells"]
    first, second = "".join(cells[0]["source"]), "".join(cells[1]["source"])
    assert first.startswith(f"# {path.name[:2]} · "), "cell 1 is '# NN · Title'"
    assert "\n> " in first, "cell 1 carries a one-line '> promise'"
    assert "You will be able to" in second and "Time" in second


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_lesson_ends_with_summary_and_exercises(path: Path):
    text = markdown(load(path))
    assert "## Summary" in text and "## Exercises" in text
    assert text.index("## Summary") < text.index("## Exercises")


@pytest.mark.parametrize("path", STORED_WITH_OUTPUTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_notebook_is_stored_from_one_clean_run(path: Path):
    nb = load(path)
    code = [c for c in nb["cells"] if c["cell_type"] == "code" and "".join(c["source"]).strip()]
    assert [c["execution_count"] for c in code] == list(range(1, len(code) + 1)), "re-run top to bottom"
    for index, cell in enumerate(code, start=1):
        tags = cell.get("metadata", {}).get("tags", [])
        for output in cell["outputs"]:
            if output["output_type"] == "error":
                assert "raises-exception" in tags, f"cell [{index}] stores an unexpected {output['ename']}"
            text = json.dumps(output.get("text", "")) + json.dumps(output.get("data", {}).get("text/plain", ""))
            found = MACHINE_SPECIFIC.search(text)
            assert not found, f"cell [{index}] output holds machine-specific {found.group(0)!r}"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_lesson_links_point_to_files_that_exist(path: Path):
    for target in re.findall(r"\]\(([^)#:]+\.(?:ipynb|md))\)", markdown(load(path))):
        assert (path.parent / target).resolve().exists(), f"broken link to {target}"
