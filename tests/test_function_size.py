"""Functions a reader can hold: none over 80 lines, none over ruff's complexity of 15.

Length is counted from the `def` line to the function's last line (docstring and comments
included), for every function and method in course_lib/ and course_tools/, nested ones too.
Complexity is ruff's C901 (mccabe) at max-complexity 15, configured in pyproject.toml and run
by test_lint_and_types.py; this file checks that the configuration stays.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 80
PACKAGES = ("course_lib", "course_tools")



def functions(
    tree: ast.AST, prefix: str = ""
) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every function in `tree` with its qualified name (``Class.method``, ``outer.inner``)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = f"{prefix}{node.name}"
            if not isinstance(node, ast.ClassDef):
                yield name, node
            yield from functions(node, f"{name}.")
        else:
            yield from functions(node, prefix)


def long_functions(source: str, where: str) -> list[str]:
    found = []
    for name, node in functions(ast.parse(source)):
        lines = (node.end_lineno or node.lineno) - node.lineno + 1
        if lines > MAX_LINES:
            found.append(f"{where}:{node.lineno} {name} is {lines} lines")
    return found


def test_no_function_in_the_packages_is_over_80_lines():
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found += long_functions(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())
    assert not found, (
        f"functions over {MAX_LINES} lines (split them into well-named pieces):\n" + "\n".join(found)
    )


def test_the_length_check_names_a_long_method_and_a_long_nested_function():
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_LINES))
    source = f"class Host:\n    def call(self):\n    {body.replace(chr(10), chr(10) + '    ')}\n"
    source += f"def outer():\n    def inner():\n    {body.replace(chr(10), chr(10) + '    ')}\n    return inner\n"
    source += "def short():\n    return 1\n"
    found = long_functions(source, "m.py")
    assert [f.split(" ")[1] for f in found] == ["Host.call", "outer", "outer.inner"]


def test_ruff_holds_every_function_to_a_complexity_of_15():
    lint = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["ruff"]["lint"]
    assert "C90" in lint["select"]
    assert lint["mccabe"]["max-complexity"] == 15
    ignored = {pattern for pattern, rules in lint["per-file-ignores"].items() if "C901" in rules or "C90" in rules}
    assert not ignored, f"C901 switched off for {sorted(ignored)}"
