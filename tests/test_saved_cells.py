"""The rule a lesson teaches is a cell the learner reads and runs, and the library runs that code.

A code cell whose first line reads ``# Saved in course_lib/MODULE.py: the library runs this same
code.`` holds functions that MODULE defines word for word (d2l's ``#@save`` idea, kept by this
test instead of a generator). Each saved function is also used by the library outside its own
definition, so the cell is not a copy that nothing runs: change the cell, change the module.
"""

from __future__ import annotations

import ast
import json
import re
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
MARKER = re.compile(r"# Saved in (course_lib/[\w/]+\.py): the library runs this same code\.")


def saved_cells(notebook: dict) -> list[tuple[int, str, str]]:
    """Return (cell number from 1, module path, cell source) for every saved cell."""
    found = []
    for number, cell in enumerate(notebook["cells"], start=1):
        source = "".join(cell["source"])
        first = source.split("\n", 1)[0].strip()
        if cell["cell_type"] == "code" and first.startswith("# Saved in"):
            marker = MARKER.fullmatch(first)
            assert marker, f"cell {number}: write the first line as '# Saved in course_lib/X.py: ...'"
            found.append((number, marker.group(1), source))
    return found


def _functions(source: str) -> dict[str, str]:
    """The top-level functions of `source`, by name, as their exact text."""
    tree = ast.parse(source)
    return {
        node.name: textwrap.dedent(ast.get_source_segment(source, node) or "")
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
    }


def problems(notebook: dict) -> list[str]:
    """What is wrong with a notebook's saved cells (empty when each matches its module)."""
    found = []
    for number, module, source in saved_cells(notebook):
        tree = ast.parse(source)
        others = [n for n in tree.body if not isinstance(n, ast.FunctionDef)]
        if others or not tree.body:
            found.append(f"cell {number}: a saved cell holds only function definitions")
        path = ROOT / module
        if not path.is_file():
            found.append(f"cell {number}: {module} does not exist")
            continue
        library = _functions(path.read_text(encoding="utf-8"))
        for name, text in _functions(source).items():
            if name not in library:
                found.append(f"cell {number}: {module} defines no function {name}")
            elif library[name] != text:
                found.append(f"cell {number}: {name} differs from its text in {module}")
            elif not _used_elsewhere(name, path):
                found.append(f"cell {number}: nothing in course_lib calls {name}")
    return found


def _used_elsewhere(name: str, defined_in: Path) -> bool:
    """True if course_lib uses `name` somewhere other than its own definition."""
    for path in (ROOT / "course_lib").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        own = {
            id(node)
            for top in tree.body
            if isinstance(top, ast.FunctionDef) and top.name == name and path == defined_in
            for node in ast.walk(top)
        }
        for node in ast.walk(tree):
            used = (isinstance(node, ast.Name) and node.id == name) or (
                isinstance(node, ast.Attribute) and node.attr == name
            )
            if used and id(node) not in own:
                return True
    return False


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_each_saved_cell_is_the_code_the_library_runs(path: Path):
    found = problems(_load(path))
    assert not found, f"{path.name}:\n" + "\n".join(found)


def test_lessons_04_to_06_each_show_their_rule_as_a_saved_cell():
    shown = {p.name[:2]: {m for _, m, _ in saved_cells(_load(p))} for p in LESSONS}
    assert "course_lib/guard.py" in shown["04"]  # the taint rule
    assert "course_lib/defences.py" in shown["06"]  # each defence's decision
    assert "course_lib/servers/ops_assistant.py" in shown["06"]  # the server's scope check
    assert "course_lib/monitoring.py" in shown["06"]  # each signal's formula


def _cell(source: str) -> dict:
    return {"cells": [{"cell_type": "code", "source": source}]}


def test_a_saved_cell_that_drifted_from_the_library_is_named():
    rule = _functions((ROOT / "course_lib" / "guard.py").read_text(encoding="utf-8"))["taints"]
    head = "# Saved in course_lib/guard.py: the library runs this same code.\n"
    assert problems(_cell(head + rule)) == []
    drifted = rule.replace("UNTRUSTED_CONTENT", "EXTERNAL_COMMUNICATION")
    assert problems(_cell(head + drifted)) == ["cell 1: taints differs from its text in course_lib/guard.py"]
    assert problems(_cell(head + "def unknown():\n    pass")) == [
        "cell 1: course_lib/guard.py defines no function unknown"
    ]
    assert problems(_cell(head + rule + "\ntaints('x', None)")) == [
        "cell 1: a saved cell holds only function definitions"
    ]
    with pytest.raises(AssertionError, match="write the first line"):
        problems(_cell("# Saved in guard.py\ndef taints():\n    pass"))
