"""The grader precompiles course_lib before grading, and removes bytecode whose source is gone.

A kernel sees course_lib's folders, `__pycache__` included. A `.pyc` left from a module that
was deleted (red team 2: `rules_exercise.cpython-311.pyc`, which held hidden cases) can be
unmarshalled by a submission, so `_compile_course` deletes every `.pyc` with no source next to it.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import course_lib
from course_tools.grading.cli import _compile_course

TAG = sys.implementation.cache_tag


def _package(root: Path) -> Path:
    package = root / "pkg"
    (package / "sub").mkdir(parents=True)
    for path in (package / "__init__.py", package / "mod.py", package / "sub" / "__init__.py"):
        path.write_text("X = 1\n")
    return package


def test_orphan_bytecode_is_removed_and_live_bytecode_kept(tmp_path):
    package = _package(tmp_path)
    orphans = [
        package / "__pycache__" / f"gone.{TAG}.pyc",  # a deleted module's bytecode
        package / "sub" / "__pycache__" / f"gone.{TAG}.opt-1.pyc",
        package / "gone.pyc",  # sourceless bytecode beside the sources: importable as is
    ]
    for orphan in orphans:
        orphan.parent.mkdir(exist_ok=True)
        orphan.write_bytes(b"hidden cases")
    _compile_course(package)
    assert not [p for p in orphans if p.exists()]
    live = Path(importlib.util.cache_from_source(str(package / "mod.py")))
    assert live.is_file()  # compiled, not removed
    assert Path(importlib.util.cache_from_source(str(package / "sub" / "__init__.py"))).is_file()


def test_the_grader_clears_an_orphan_planted_in_course_lib():
    cache = Path(course_lib.__file__).parent / "__pycache__"
    orphan = cache / f"rules_exercise_planted_by_a_test.{TAG}.pyc"
    cache.mkdir(exist_ok=True)
    orphan.write_bytes(b"stale")
    try:
        _compile_course()
        assert not orphan.exists()
    finally:
        orphan.unlink(missing_ok=True)
