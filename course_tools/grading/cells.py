"""Read a notebook's code cells as Python syntax trees, in bounded time.

A cell is Python, or IPython syntax (magics, `!` commands, `?` help) that IPython's own
reader, `TransformerManager`, turns into Python. That reader tokenizes the whole cell again
for each line it rewrites (a cell of 25,000 magics took minutes), so its cost, (escaped lines
+ 1) x characters, is capped per notebook by a budget the caller passes; past it, the cell
raises `Unreadable`. The body of a cell magic (%%time, %%capture) is read as Python, as
IPython runs it; a `%%writefile NAME.py` cell is a file the notebook writes.

Introduced in: docs/instructor.md
"""

from __future__ import annotations

import ast
import re

__all__ = ["TRANSFORM_BUDGET", "Unreadable", "parse_cell", "written_file"]

TRANSFORM_BUDGET = 500_000  # (escaped lines + 1) x characters given to IPython, per notebook
_ESCAPED = re.compile(r"^[ \t]*[%!?]|\?[ \t]*$", re.MULTILINE)
_CELL_MAGIC = re.compile(r"\A\s*%%\w+[^\n]*\n")
_WRITEFILE = re.compile(r"\A\s*%%(?:writefile|file)\s+(?:-a\s+)?(\S+?)(?:\.py)?\s*\n")


class Unreadable(Exception):
    """Code that will not be read in bounded time; the message says why."""


def written_file(source: str) -> tuple[str, str] | None:
    """(module name, text) of a `%%writefile` cell, or None for any other cell."""
    match = _WRITEFILE.match(source)
    if match is None:
        return None
    return match.group(1).replace("\\", "/").rsplit("/", 1)[-1], source[match.end() :]


def _compile(source: str) -> ast.Module | None:
    tree = compile(
        source, "<cell>", "exec", flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    )
    return tree if isinstance(tree, ast.Module) else None


def parse_cell(source: str, budget: list[int]) -> ast.Module | None:
    """A code cell as a syntax tree, or None when it is not Python (IPython could not run it).

    `budget` is the notebook's remaining allowance for IPython's reader, spent here. Raises
    `Unreadable` past it; RecursionError and MemoryError (absurdly deep or large code) also
    propagate, for the caller to report."""
    magic = _CELL_MAGIC.match(source)
    source = source[magic.end() :] if magic else source
    try:
        return _compile(source)
    except (SyntaxError, ValueError):
        pass
    budget[0] -= (len(_ESCAPED.findall(source)) + 1) * len(source)
    if budget[0] < 0:
        raise Unreadable("too much IPython syntax (magics, ! and ?) to read in bounded time")
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        return _compile(TransformerManager().transform_cell(source))
    except (ImportError, SyntaxError, ValueError, RuntimeError):  # IPython cannot run it either
        return None
