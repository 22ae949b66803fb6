"""Parts that say "write it yourself": flag an answer that seems to use the course's reference.

Part 2b asks for the reference client's rules, part 4a for a behaviour check, and both say
not to call the library's version. The library is visible in a graded kernel by design (the
lessons teach it), so no sandbox can stop the call; the grader reads the learner's code cells
instead, here, with `ast`. A static reading has false positives and false negatives, so it
never takes points away: a part whose answer reaches a forbidden name keeps what its probes
earned, its exercise gets the status "review" and a note asks the instructor to read it.

What is read: the definitions of the part's target (`predict`, `contradiction`) in force after
the last cell, and, transitively, the notebook's own functions and values they use (including
containers filled later, `global` writes in functions, walrus, `globals()[...]` and a module
written with `%%writefile`). A forbidden name counts only when it comes from `course_lib`: an
import of it, an attribute whose base is a `course_lib` import (``course_lib.SPEC``,
``fb.reference_pair``), or a string passed to `getattr`, `__import__` or `importlib`. Code
that cannot be read (too long, too deep) is flagged the same way. An obfuscated call (names
assembled at run time) evades this reading: the instructor's guide says so.

Exercise 3 has no such rule: its answers are data (sets of tools, a defence's two settings),
and calling the replay harness to search for them learns no more than the visible self-check
already tells.

Introduced in: docs/instructor.md
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from .cases import Exercise
from .cells import TRANSFORM_BUDGET, Unreadable, parse_cell, written_file
from .results import ExerciseResult

__all__ = ["MAX_SOURCE_CHARS", "REVIEW", "RULES", "Rule", "apply_rules", "find_shortcut"]

REVIEW = "review"  # the exercise status of a flagged part (results.STATUSES ranks it)
MAX_SOURCE_CHARS = 200_000  # code the check reads per notebook; more is flagged, not read

_CLIENT = frozenset(
    {
        # course_lib.policy and course_lib.clients: the reference client and the other models
        "decide", "SPEC", "SpecPolicy", "TRUST_EVERYTHING",
        "TrustEverythingPolicy", "IgnoreHintsPolicy", "VSCODE", "VSCodePolicy", "CURSOR_ASK",
        "ReadOnlyModePolicy", "POLICIES", "CLAUDE_CODE_DEFAULT", "CLAUDE_CODE_PLAN",
        "ClaudeCodePolicy", "CODEX_EXEC", "CodexPolicy", "as_policy", "as_policies",
        # the self-check's reference answer, the 81-combination tables, the exercises' checkers
        "reference_pair", "decision_hint", "contradiction_hint", "decisions_table",
        "decision_matrix", "combinations_table", "exercises",
        # things that decide with the reference client inside: the guard, the host, the replay
        "SessionGuard", "guard", "Host", "host", "defences", "replay",
    }
)  # fmt: skip


@dataclass(frozen=True)
class Rule:
    """A part whose answer (`target`) must not use `forbidden` names of the course library."""

    exercise: str  # the exercise's two-digit number
    part: str  # its cases are those whose id starts with "<part>."
    target: str
    forbidden: frozenset[str]
    what: str  # what the forbidden names are, for the note
    task: str  # what the part asks the learner to write


RULES = (
    Rule("02", "2b", "predict", _CLIENT, "the course's reference client", "the rules"),
    Rule(
        "04",
        "4a",
        "contradiction",
        frozenset({"check_behaviour", "contradiction_hint", "Host", "host", "exercises"}),
        "the course's behaviour check",
        "the check",
    ),
)

_FILLS = frozenset({"update", "append", "extend", "insert", "add", "setdefault", "__setitem__"})
_IMPORTERS = frozenset({"__import__", "import_module"})


# A module-level name is bound to code (a def, a class, a value) or to an imported origin.
Binding = ast.AST | str


@dataclass
class _Module:
    """The names a notebook (or a file it wrote) binds, as they stand after its last cell."""

    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    star: list[str] = field(default_factory=list)  # modules imported with *
    written: dict[str, list[ast.Module]] = field(default_factory=dict)  # %%writefile name.py
    verdicts: dict[str, str | None] = field(default_factory=dict)  # per written file, once


def _scope(node: ast.AST) -> Iterator[ast.AST]:
    """`node` and what it contains, without entering a def, class or lambda."""
    todo = [node]
    while todo:
        item = todo.pop()
        yield item
        if item is node or not isinstance(
            item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
        ):
            todo.extend(ast.iter_child_nodes(item))


def _root(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _is_globals(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "globals"
    )


def _imported(node: ast.Import | ast.ImportFrom) -> Iterator[tuple[str, str]]:
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
    for name in _scope(target):
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
        yield from _imported(node)


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
            root = _root(target)
            if root:
                yield root, node.value


def _filled(node: ast.Call) -> Iterator[tuple[str, Binding]]:
    """Names a method call adds to: ``TABLE.update(...)``, ``globals().update(x=...)``."""
    if not isinstance(node.func, ast.Attribute):
        return
    root = _root(node.func.value)
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


def _cell(tree: ast.Module, into: _Module) -> dict[str, list[Binding]]:
    """Add the cell's additive bindings to `into`; return the names the cell (re)binds."""
    found: dict[str, list[Binding]] = {}
    for node in _scope(tree):  # module-level statements and expressions, at any depth
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


def _module(sources: Sequence[str]) -> _Module:
    module, extra, budget = _Module(), _Module(), [TRANSFORM_BUDGET]
    for source in sources:
        written = written_file(source)
        if written:  # a file the notebook writes and may import: read as a module of its own
            tree = parse_cell(written[1], budget)
            if tree is not None:
                module.written.setdefault(written[0], []).append(tree)
            continue
        tree = parse_cell(source, budget)
        if tree is not None:
            module.bindings.update(_cell(tree, extra))  # the last cell to bind a name wins
            module.star += extra.star
            extra.star = []
    for name, more in extra.bindings.items():
        module.bindings.setdefault(name, []).extend(more)
    return module


def _hit(origin: str, forbidden: frozenset[str]) -> str | None:
    """The forbidden name an origin such as ``course_lib.feedback.reference_pair`` reaches."""
    parts = origin.split(".")
    hits = [p for p in parts[1:] if p in forbidden] if parts[0] == "course_lib" else []
    return hits[-1] if hits else None  # the most specific: decide, not SPEC, in SPEC.decide


def _origin(
    node: ast.AST, local: dict[str, str], module: _Module, memo: dict[int, str | None]
) -> str | None:
    """Where an expression comes from when it is an imported module or one of its names.

    `memo` holds what is already known, so a long chain such as a.b.c... costs its length once."""
    if id(node) not in memo:
        memo[id(node)] = _resolve(node, local, module, memo)
    return memo[id(node)]


def _resolve(
    node: ast.AST, local: dict[str, str], module: _Module, memo: dict[int, str | None]
) -> str | None:
    if isinstance(node, ast.Name):
        if node.id in local:
            return local[node.id]
        return next((b for b in module.bindings.get(node.id, ()) if isinstance(b, str)), None)
    if isinstance(node, ast.Attribute):
        base = _origin(node.value, local, module, memo)
        return f"{base}.{node.attr}" if base else None
    if isinstance(node, ast.Subscript) and _root(node) == "sys":  # sys.modules["course_lib"]
        key = node.slice
        return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None
    if isinstance(node, ast.Call) and node.args:
        name = (
            node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        )
        text = [
            a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
        ]
        if name in _IMPORTERS and text:
            return text[0]
        if name == "getattr" and len(node.args) > 1 and text:
            base = _origin(node.args[0], local, module, memo)
            return f"{base}.{text[0]}" if base else None
    return None


def _uses(node: ast.AST, rule: Rule, module: _Module) -> tuple[str | None, list[str]]:
    """(a forbidden name `node` reaches, or None; the names it loads and does not bind, in
    the order of the source)."""
    stored = {
        n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
    }
    stored |= {a.arg for n in ast.walk(node) if isinstance(n, ast.arguments) for a in _args(n)}
    local: dict[str, str] = {}
    memo: dict[int, str | None] = {}
    hit = None
    for item in ast.walk(node):  # imports inside the code
        if isinstance(item, (ast.Import, ast.ImportFrom)):
            for name, origin in _imported(item):
                local[name] = origin
                hit = hit or _hit(origin, rule.forbidden) or _written(origin, rule, module)
    loads: list[ast.Name] = []
    for item in ast.walk(node):
        if isinstance(item, ast.Name) and isinstance(item.ctx, ast.Load):
            loads.append(item)
        elif isinstance(item, (ast.Attribute, ast.Call, ast.Subscript)):
            found = _origin(item, local, module, memo)
            hit = hit or (_hit(found, rule.forbidden) if found else None)
        if isinstance(item, ast.Call) and getattr(item.func, "id", "") == "getattr":
            names = [a.value for a in item.args[1:2] if isinstance(a, ast.Constant)]
            hit = hit or next((n for n in names if n in rule.forbidden), None)
    loads.sort(key=lambda n: (n.lineno, n.col_offset))
    return hit, [n for n in dict.fromkeys(n.id for n in loads) if n not in stored]


def _args(arguments: ast.arguments) -> list[ast.arg]:
    extra = [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, *extra]


def _written(origin: str, rule: Rule, module: _Module) -> str | None:
    """A forbidden name used anywhere in a file the notebook wrote and imports (`origin`)."""
    name = origin.lstrip(".").split(".")[0]
    trees = module.written.get(name, [])
    if trees and name not in module.verdicts:
        inner = _Module()  # a written file cannot lead back into the notebook
        for tree in trees:
            for bound, more in _cell(tree, inner).items():
                inner.bindings.setdefault(bound, []).extend(more)
        module.verdicts[name] = next((h for t in trees if (h := _uses(t, rule, inner)[0])), None)
    return module.verdicts.get(name)


def find_shortcut(sources: Sequence[str], rule: Rule) -> str | None:
    """The forbidden name the answer to `rule`'s part reaches in these code cells, or None.

    Raises whatever the reading of pathological code raises (RecursionError, MemoryError):
    `apply_rules` turns that into a note."""
    module = _module(sources)
    todo, seen, scanned = deque([rule.target]), set(), set()
    while todo:  # breadth first, in the order of the source: the name reported is the first used
        name = todo.popleft()
        if name in seen:
            continue
        seen.add(name)
        if name not in module.bindings:
            if name in rule.forbidden and any(
                _hit(f"{m}.{name}", rule.forbidden) for m in module.star
            ):
                return name
            continue
        for binding in module.bindings[name]:
            if isinstance(binding, str):
                hit = _hit(binding, rule.forbidden) or _written(binding, rule, module)
                if hit:
                    return hit
                continue
            if id(binding) in scanned:  # one function may bind many names: read it once
                continue
            scanned.add(id(binding))
            hit, loads = _uses(binding, rule, module)
            if hit:
                return hit
            todo.extend(n for n in loads if n not in seen)
    return None


def apply_rules(result: ExerciseResult, exercise: Exercise, sources: Sequence[str]) -> None:
    """Flag for review a part whose answer seems to use a forbidden name, or cannot be read.

    Points are never taken away: a static reading can be wrong both ways. The exercise's status
    becomes "review" (unless a more serious one is set) and a note says why, kindly, since the
    learner reads it too."""
    size = sum(len(s) for s in sources)
    for rule in RULES:
        cases = [c for c in result.cases if c.id.startswith(rule.part + ".")]
        earned = round(sum(c.points for c in cases), 2)
        if rule.exercise != exercise.number or not earned:  # no points, nothing to trust
            continue
        if size > MAX_SOURCE_CHARS:  # bounded time and memory, whatever the notebook holds
            what = (
                f"code could not be checked ({size:,} characters, more than {MAX_SOURCE_CHARS:,})"
            )
        else:
            try:
                name = find_shortcut(sources, rule)
            except Exception as exc:  # noqa: BLE001 - pathological code must not stop the grader
                why = str(exc) if isinstance(exc, Unreadable) else type(exc).__name__
                name, what = "", f"code could not be read by the check ({why})"
            if name is None:
                continue
            what = what if not name else f"answer appears to use {rule.what} (`{name}`)"
        result.notes.append(
            f"part {rule.part}'s {what}; the part asks you to write {rule.task} yourself, so your "
            f"instructor will read it before trusting its {earned:g} points"
        )
        if result.status == "graded":
            result.status = REVIEW
