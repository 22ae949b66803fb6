"""What a notebook's code binds to each name, as it stands after the last cell.

Read with `ast`, never run: a name is bound to a def, a class, a value or an imported origin
(``course_lib.feedback.reference_pair``); a container filled later (``TABLE[k] = v``,
``TABLE.update(...)``), a `global` written in a function and ``globals()[...]`` add to a name
rather than rebind it. A ``%%writefile NAME.py`` cell is kept as a module of its own. Used by
`shortcuts`, which follows an answer through these bindings.

Introduced in: docs/instructor.md
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from .cells import TRANSFORM_BUDGET, parse_cell, written_file

__all__ = [
    "Binding",
    "Bindings",
    "cell_bindings",
    "imported",
    "read_bindings",
    "root_name",
    "scope",
]

_FILLS = frozenset({"update", "append", "extend", "insert", "add", "setdefault", "__setitem__"})


# A module-level name is bound to code (a def, a class, a value) or to an imported origin.
Binding = ast.AST | str


@dataclass
class Bindings:
    """The names a notebook (or a file it wrote) binds, as they stand after its last cell."""

    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    star: list[str] = field(default_factory=list)  # modules imported with *
    written: dict[str, list[ast.Module]] = field(default_factory=dict)  # %%writefile name.py
    verdicts: dict[str, str | None] = field(default_factory=dict)  # per written file, once


def scope(node: ast.AST) -> Iterator[ast.AST]:
    """`node` and what it contains, without entering a def, class or lambda."""
    todo = [node]
    while todo:
        item = todo.pop()
        yield item
        if item is node or not isinstance(
            item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
        ):
            todo.extend(ast.iter_child_nodes(item))


def root_name(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _is_globals(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "globals"
    )


def imported(node: ast.Import | ast.ImportFrom) -> Iterator[tuple[str, str]]:
    """(name bound, where it comes from) for each name an import binds (none for a star)."""
    for alias in node.names:
        if isinstance(node, ast.ImportFrom):
            if alias.name != "*":
                yield alias.asname or alias.name, f"{node.module or ''}.{alias.name}"
        elif alias.asname:
            yield alias.asname, alias.name
        else:  # import a.b binds a
            yield alias.name.split(".")[0], alias.name.split(".")[0]


def _names(target: ast.AST, stored_only: bool = False) -> Iterator[str]:
    """The plain names in an assignment target (``a, (b, c)``)."""
    for name in scope(target):
        if isinstance(name, ast.Name) and (not stored_only or isinstance(name.ctx, ast.Store)):
            yield name.id


def _bindings(node: ast.AST) -> Iterator[tuple[str, Binding]]:
    """What one node at module level (re)binds: (name, what it is bound to)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield node.name, node
    elif isinstance(node, ast.Assign):
        for target in node.targets:
            yield from ((name, node.value) for name in _names(target, stored_only=True))
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        if isinstance(node.target, ast.Name):
            yield node.target.id, node.value
    elif isinstance(node, ast.NamedExpr):
        yield node.target.id, node.value
    elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        yield from ((name, node.iter) for name in _names(node.target))
    elif isinstance(node, ast.withitem) and node.optional_vars is not None:
        yield from ((name, node.context_expr) for name in _names(node.optional_vars))
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        yield from imported(node)


def _assigned_into(node: ast.Assign | ast.AugAssign) -> Iterator[tuple[str, Binding]]:
    """Names an assignment adds to: ``globals()["x"] = v``, ``X += v``, ``TABLE[k] = v``."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    for target in targets:
        if isinstance(target, ast.Subscript) and _is_globals(target.value):
            key = target.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                yield key.value, node.value
        elif isinstance(target, ast.Name) and isinstance(node, ast.AugAssign):
            yield target.id, node.value  # X += ...
        elif isinstance(target, (ast.Subscript, ast.Attribute)):
            root = root_name(target)
            if root:
                yield root, node.value


def _filled(node: ast.Call) -> Iterator[tuple[str, Binding]]:
    """Names a method call adds to: ``TABLE.update(...)``, ``globals().update(x=...)``."""
    if not isinstance(node.func, ast.Attribute):
        return
    root = root_name(node.func.value)
    if root and node.func.attr in _FILLS:
        yield root, node
    if _is_globals(node.func.value) and node.func.attr == "update":
        yield from ((k.arg, k.value) for k in node.keywords if k.arg)


def _global_writes(node: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[tuple[str, Binding]]:
    """The `global` names a function writes, each bound to the function."""
    declared = {n for g in ast.walk(node) if isinstance(g, ast.Global) for n in g.names}
    for inner in ast.walk(node) if declared else ():
        if (
            isinstance(inner, ast.Name)
            and inner.id in declared
            and isinstance(inner.ctx, ast.Store)
        ):
            yield inner.id, node


def _additions(node: ast.AST) -> Iterator[tuple[str, Binding]]:
    """What adds to a name instead of rebinding it, anywhere (in functions too)."""
    if isinstance(node, (ast.Assign, ast.AugAssign)):
        yield from _assigned_into(node)
    elif isinstance(node, ast.Call):
        yield from _filled(node)
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        yield from _global_writes(node)


def cell_bindings(tree: ast.Module, into: Bindings) -> dict[str, list[Binding]]:
    """Add the cell's additive bindings to `into`; return the names the cell (re)binds."""
    found: dict[str, list[Binding]] = {}
    for node in scope(tree):  # module-level statements and expressions, at any depth
        if isinstance(node, ast.ImportFrom) and node.names[0].name == "*":
            into.star.append(node.module or "")
            continue
        for name, what in _bindings(node):
            found.setdefault(name, []).append(what)
    # A container filled (TABLE[k] = v, TABLE.update(...)), a `global` written, globals()[...].
    for node in ast.walk(tree):
        for name, what in _additions(node):
            into.bindings.setdefault(name, []).append(what)
    return found


def read_bindings(sources: Sequence[str]) -> Bindings:
    module, extra, budget = Bindings(), Bindings(), [TRANSFORM_BUDGET]
    for source in sources:
        written = written_file(source)
        if written:  # a file the notebook writes and may import: read as a module of its own
            tree = parse_cell(written[1], budget)
            if tree is not None:
                module.written.setdefault(written[0], []).append(tree)
            continue
        tree = parse_cell(source, budget)
        if tree is not None:
            module.bindings.update(cell_bindings(tree, extra))  # the last cell to bind a name wins
            module.star += extra.star
            extra.star = []
    for name, more in extra.bindings.items():
        module.bindings.setdefault(name, []).extend(more)
    return module
