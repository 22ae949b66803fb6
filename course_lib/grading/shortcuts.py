"""Parts that say "write it yourself": find an answer that calls the course's own reference instead.

Part 2b asks for the reference client's rules, part 4a for a behaviour check, and both say
not to call the library's version. The library is visible in a graded kernel by design (the
lessons teach it), so no sandbox can stop the call; the grader reads the learner's code cells
instead, here, with `ast`, and a part whose answer reaches a forbidden name scores 0 with a
note that says why.

What is read: every definition of the part's target (`predict`, `contradiction`) in any code
cell, and, transitively, the notebook's own functions and values it uses. A forbidden name
counts when that code names it (``decide(...)``, ``course_lib.SPEC``, ``fb.reference_pair``,
an import of it, or a string that spells it); importing a name without using it in the answer
does not. An obfuscated call (names assembled at run time) can evade this reading: the
instructor's guide says so.

Exercise 3 has no such rule: its answers are data (sets of tools, a defence's two settings),
and calling the replay harness to search for them learns no more than the visible self-check
already tells.

Introduced in: docs/instructor.md
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .cases import Exercise
from .results import ExerciseResult

__all__ = ["RULES", "Rule", "apply_rules", "find_shortcut"]

_CLIENT = frozenset(
    {
        # course_lib.policy and course_lib.clients: the reference client and the other models
        "policy", "clients", "decide", "SPEC", "SpecPolicy", "TRUST_EVERYTHING",
        "TrustEverythingPolicy", "IgnoreHintsPolicy", "VSCODE", "VSCodePolicy", "CURSOR_ASK",
        "ReadOnlyModePolicy", "POLICIES", "CLAUDE_CODE_DEFAULT", "CLAUDE_CODE_PLAN",
        "ClaudeCodePolicy", "CODEX_EXEC", "CodexPolicy", "as_policy", "as_policies",
        # course_lib.feedback (the self-check's reference answer) and course_lib.combinations
        "feedback", "reference_pair", "decision_hint", "contradiction_hint",
        "combinations", "decisions_table", "decision_matrix", "combinations_table",
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
        frozenset({"check_behaviour", "contradiction_hint", "feedback"}),
        "the course's behaviour check",
        "the check",
    ),
)


def _parse(source: str) -> ast.Module | None:
    """A code cell as an AST (IPython syntax such as magics turned into Python), or None."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        source = TransformerManager().transform_cell(source)
    except Exception:  # noqa: BLE001 - without IPython, or a cell it cannot transform: read as is
        pass
    try:
        tree = compile(
            source, "<cell>", "exec", flags=ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
        )
    except (SyntaxError, ValueError):
        return None
    return tree if isinstance(tree, ast.Module) else None


# A module-level name is bound to code (a def, a class, a value) or to an imported origin.
Binding = ast.AST | str


def _bindings(trees: Iterable[ast.Module]) -> dict[str, list[Binding]]:
    found: dict[str, list[Binding]] = {}

    def bind(name: str, what: Binding) -> None:
        found.setdefault(name, []).append(what)

    def targets(node: ast.AST, value: ast.AST) -> None:
        for name in ast.walk(node):
            if isinstance(name, ast.Name):
                bind(name.id, value)

    def visit(statements: list[ast.stmt]) -> None:
        for node in statements:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bind(node.name, node)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    targets(target, node.value)
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
                targets(node.target, node.value)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    bind(alias.asname or alias.name.split(".")[0], alias.name)
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    origin = f"{node.module or ''}.{alias.name}"
                    bind("*" if alias.name == "*" else alias.asname or alias.name, origin)
            elif isinstance(node, (ast.For, ast.AsyncFor)):
                targets(node.target, node.iter)
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    if item.optional_vars is not None:
                        targets(item.optional_vars, item.context_expr)
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(node, field, None)
                if isinstance(inner, list) and not isinstance(
                    node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
                ):
                    visit([s for s in inner if isinstance(s, ast.stmt)])
                    for handler in (h for h in inner if isinstance(h, ast.ExceptHandler)):
                        visit(handler.body)

    for tree in trees:
        visit(tree.body)
    return found


def _forbidden_in_origin(origin: str, forbidden: frozenset[str]) -> str | None:
    parts = [p for p in origin.split(".") if p]
    hits = [p for p in parts if p in forbidden]
    return hits[-1] if hits else None  # the most specific: reference_pair, not feedback


def _uses(node: ast.AST, forbidden: frozenset[str]) -> tuple[str | None, list[str]]:
    """(a forbidden name `node` spells, or None; the names it loads and does not bind, in the
    order of the source)."""
    stored = {
        n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
    }
    stored |= {a.arg for n in ast.walk(node) if isinstance(n, ast.arguments) for a in _args(n)}
    loads: list[ast.Name] = []
    hit = None
    for item in ast.walk(node):
        if isinstance(item, ast.Name) and isinstance(item.ctx, ast.Load):
            loads.append(item)
        elif isinstance(item, ast.Attribute) and item.attr in forbidden:
            hit = hit or item.attr
        elif isinstance(item, ast.Constant) and isinstance(item.value, str):
            hit = hit or _forbidden_in_origin(item.value, forbidden)
        elif isinstance(item, ast.Import):
            for alias in item.names:
                hit = hit or _forbidden_in_origin(alias.name, forbidden)
        elif isinstance(item, ast.ImportFrom):
            for alias in item.names:
                hit = hit or _forbidden_in_origin(f"{item.module or ''}.{alias.name}", forbidden)
    loads.sort(key=lambda n: (n.lineno, n.col_offset))
    return hit, [n for n in dict.fromkeys(n.id for n in loads) if n not in stored]


def _args(arguments: ast.arguments) -> list[ast.arg]:
    extra = [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, *extra]


def find_shortcut(sources: Sequence[str], rule: Rule) -> str | None:
    """The forbidden name the answer to `rule`'s part reaches in these code cells, or None."""
    trees = [t for t in (_parse(s) for s in sources) if t is not None]
    bindings = _bindings(trees)
    todo, seen = deque([rule.target]), set()
    while todo:  # breadth first, in the order of the source: the name reported is the first used
        name = todo.popleft()
        if name in seen:
            continue
        seen.add(name)
        if name not in bindings:
            if name in rule.forbidden:  # bound by a star import
                return name
            continue
        for binding in bindings[name]:
            if isinstance(binding, str):
                hit = _forbidden_in_origin(binding, rule.forbidden)
                if hit:
                    return hit
                continue
            hit, loads = _uses(binding, rule.forbidden)
            if hit:
                return hit
            todo.extend(n for n in loads if n not in seen)
    return None


def apply_rules(result: ExerciseResult, exercise: Exercise, sources: Sequence[str]) -> None:
    """Score 0 every case of a part whose answer uses a forbidden name, with a note saying why."""
    for rule in RULES:
        if rule.exercise != exercise.number:
            continue
        cases = [c for c in result.cases if c.id.startswith(rule.part + ".")]
        name = find_shortcut(sources, rule) if cases else None
        if name is None:
            continue
        total = round(sum(c.max_points for c in cases), 2)
        result.notes.append(
            f"part {rule.part} calls {rule.what} (`{name}`) instead of writing {rule.task}: "
            f"0 of {total:g}; write {rule.task} yourself, as the part asks"
        )
        for case in cases:
            case.status, case.points = "failed", 0.0
            case.detail = f"calls `{name}` from the course library"
            case.feedback = f"uses `{name}` from the course instead of your own code"
            case.hint = f"write {rule.task} yourself, as the part asks"
