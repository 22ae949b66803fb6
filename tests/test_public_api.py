"""The public API is the lessons' face: `course_lib.__all__` is exactly the set of names the
notebooks, exercises and solutions import, they import only `from course_lib import ...` (never a
submodule), and each public name comes from the module that defines it.

`course_tools` and `course_lib`'s own modules may import submodules; `zh-CN/` is generated from
the English notebooks, so it is not read here."""

from __future__ import annotations

import ast
import importlib
import json
import re
import textwrap
from collections.abc import Iterator
from pathlib import Path

from IPython.core.inputtransformer2 import TransformerManager

import course_lib

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("notebooks", "exercises", "solutions")
_FENCE = re.compile(r"```python\n(.*?)```", re.S)


def _sources(notebook: dict) -> Iterator[str]:
    """The Python a notebook holds: its code cells (magics turned into Python), and the ```python
    blocks of its markdown (code a lesson tells the learner to run)."""
    for cell in notebook["cells"]:
        text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "code":
            yield TransformerManager().transform_cell(text)
        elif cell["cell_type"] == "markdown":
            yield from (textwrap.dedent(block) for block in _FENCE.findall(text))


def course_lib_imports(notebook: dict) -> tuple[set[str], list[str]]:
    """Return (the names imported with `from course_lib import ...`, every other use of a
    course_lib module: a submodule import or a submodule reached as an attribute)."""
    names: set[str] = set()
    other: list[str] = []
    for source in _sources(notebook):
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom) and not node.level and node.module:
                if node.module == "course_lib":
                    names |= {alias.name for alias in node.names}
                elif node.module.startswith("course_lib."):
                    imported = ", ".join(alias.name for alias in node.names)
                    other.append(f"from {node.module} import {imported}")
            elif isinstance(node, ast.Import):
                other += [f"import {a.name}" for a in node.names if a.name.startswith("course_lib.")]
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "course_lib"
                and node.attr not in course_lib._EXPORTS
            ):
                other.append(f"course_lib.{node.attr}")
    return names, other


def _notebooks() -> dict[str, dict]:
    paths = sorted(p for folder in FOLDERS for p in (ROOT / folder).glob("*.ipynb"))
    return {str(p.relative_to(ROOT)): json.loads(p.read_text(encoding="utf-8")) for p in paths}


def test_the_lessons_import_only_from_course_lib_itself():
    found = {name: course_lib_imports(nb)[1] for name, nb in _notebooks().items()}
    bad = [f"{name}: {use}" for name, uses in found.items() for use in uses]
    assert not bad, "import these from course_lib itself (and export them there):\n" + "\n".join(bad)


def test_the_public_names_are_exactly_what_the_lessons_import():
    used: dict[str, list[str]] = {}
    for name, nb in _notebooks().items():
        for imported in course_lib_imports(nb)[0]:
            used.setdefault(imported, []).append(name)
    unknown = [f"{nb}: {name}" for name, nbs in sorted(used.items()) for nb in nbs if name not in course_lib._EXPORTS]
    assert not unknown, "imported but not exported by course_lib:\n" + "\n".join(unknown)
    unused = sorted(set(course_lib._EXPORTS) - set(used))
    assert not unused, f"exported but imported by no notebook, exercise or solution: {unused}"
    assert set(course_lib.__all__) == {"__version__", *course_lib._EXPORTS}


def test_the_face_check_names_a_submodule_import_and_an_attribute_reach():
    """The check above can fail: a cell importing a submodule, a markdown snippet reaching one."""
    notebook = {
        "cells": [
            {"cell_type": "code", "source": "%time 1\nfrom course_lib.servers.mailer import mailer_server\n"},
            {"cell_type": "markdown", "source": "Try:\n\n```python\nimport course_lib\ncourse_lib.replay.run_defence\n```\n"},
            {"cell_type": "code", "source": "from course_lib import connect\nawait connect\n"},
        ]
    }
    names, other = course_lib_imports(notebook)
    assert names == {"connect"}
    assert other == ["from course_lib.servers.mailer import mailer_server", "course_lib.replay"]


def test_each_public_name_is_defined_in_the_module_it_is_listed_under_and_listed_once():
    source = (ROOT / "course_lib" / "__init__.py").read_text()
    for name, module in course_lib._EXPORTS.items():
        assert len(re.findall(rf'"{name}":', source)) == 1, name
        value = getattr(importlib.import_module(f"course_lib.{module}"), name)
        assert getattr(course_lib, name) is value
        assert name in importlib.import_module(f"course_lib.{module}").__all__, (module, name)


def test_every_library_module_says_which_lesson_introduces_it():
    missing = []
    for path in sorted((ROOT / "course_lib").rglob("*.py")):
        if "grading" in path.parts or "servers" in path.parts or path.name in {"__main__.py", "_sandbox.py"}:
            continue
        if path.parent.name == "course_lib" and path.name == "__init__.py":
            continue
        doc = path.read_text().split('"""')[1] if '"""' in path.read_text() else ""
        if "Introduced in:" not in doc:
            missing.append(str(path.relative_to(ROOT)))
    assert not missing, f"modules without an 'Introduced in:' line: {missing}"
