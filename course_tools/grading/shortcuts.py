"""Parts that say "write it yourself": flag an answer that seems to use the course's reference.

Part 2b asks for the reference client's rules and says not to call the library's version,
which lesson 03 uses. The library is visible in a graded kernel by design (the lessons teach
it), so no sandbox can stop the call; the grader reads the learner's code cells instead, here,
with `ast`. A static reading has false positives and false negatives, so it
never takes points away: a part whose answer reaches a forbidden name keeps what its probes
earned, its exercise gets the status "review" and a note asks the instructor to read it.

What is read: the definitions of the part's target (`predict`) in force after
the last cell, and, transitively, the notebook's own functions and values they use (including
containers filled later, `global` writes in functions, walrus, `globals()[...]` and a module
written with `%%writefile`). A forbidden name counts only when it comes from `course_lib`: an
import of it, an attribute whose base is a `course_lib` import (``course_lib.SPEC``,
``fb.reference_pair``), or a string passed to `getattr`, `__import__` or `importlib`. Code
that cannot be read (too long, too deep) is flagged the same way. An obfuscated call (names
assembled at run time) evades this reading: the instructor's guide says so.

Exercise 3 has no such rule: its answers are data (sets of tools, a defence's two settings),
and calling the replay harness to search for them learns no more than the visible self-check
already tells. Nor has part 4a (`contradiction`): lesson 05 shows the rule it asks for as a
table and never calls the library's check, and the library no longer offers that check among
the names lessons import.

Introduced in: docs/instructor.md
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from course_lib.i18n import N_
from course_lib.phrase import Phrase

from .bindings import Bindings, cell_bindings, imported, read_bindings, root_name
from .cases import Exercise
from .cells import Unreadable
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
    what: str  # what the forbidden names are, for the note (a catalog template)
    task: str  # what the part asks the learner to write (a catalog template)


RULES = (
    Rule("02", "2b", "predict", _CLIENT, N_("the course's reference client"), N_("the rules")),
)

_IMPORTERS = frozenset({"__import__", "import_module"})


def _hit(origin: str, forbidden: frozenset[str]) -> str | None:
    """The forbidden name an origin such as ``course_lib.feedback.reference_pair`` reaches."""
    parts = origin.split(".")
    hits = [p for p in parts[1:] if p in forbidden] if parts[0] == "course_lib" else []
    return hits[-1] if hits else None  # the most specific: decide, not SPEC, in SPEC.decide


def _origin(
    node: ast.AST, local: dict[str, str], module: Bindings, memo: dict[int, str | None]
) -> str | None:
    """Where an expression comes from when it is an imported module or one of its names.

    `memo` holds what is already known, so a long chain such as a.b.c... costs its length once."""
    if id(node) not in memo:
        memo[id(node)] = _resolve(node, local, module, memo)
    return memo[id(node)]


def _resolve(
    node: ast.AST, local: dict[str, str], module: Bindings, memo: dict[int, str | None]
) -> str | None:
    if isinstance(node, ast.Name):
        if node.id in local:
            return local[node.id]
        return next((b for b in module.bindings.get(node.id, ()) if isinstance(b, str)), None)
    if isinstance(node, ast.Attribute):
        base = _origin(node.value, local, module, memo)
        return f"{base}.{node.attr}" if base else None
    if isinstance(node, ast.Subscript) and root_name(node) == "sys":  # sys.modules["course_lib"]
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


def _uses(node: ast.AST, rule: Rule, module: Bindings) -> tuple[str | None, list[str]]:
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
            for name, origin in imported(item):
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


def _written(origin: str, rule: Rule, module: Bindings) -> str | None:
    """A forbidden name used anywhere in a file the notebook wrote and imports (`origin`)."""
    name = origin.lstrip(".").split(".")[0]
    trees = module.written.get(name, [])
    if trees and name not in module.verdicts:
        inner = Bindings()  # a written file cannot lead back into the notebook
        for tree in trees:
            for bound, more in cell_bindings(tree, inner).items():
                inner.bindings.setdefault(bound, []).extend(more)
        module.verdicts[name] = next((h for t in trees if (h := _uses(t, rule, inner)[0])), None)
    return module.verdicts.get(name)


def find_shortcut(sources: Sequence[str], rule: Rule) -> str | None:
    """The forbidden name the answer to `rule`'s part reaches in these code cells, or None.

    Raises whatever the reading of pathological code raises (RecursionError, MemoryError):
    `apply_rules` turns that into a note."""
    module = read_bindings(sources)
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
            what = Phrase(
                N_("code could not be checked ({size} characters, more than {most})"),
                size=f"{size:,}",
                most=f"{MAX_SOURCE_CHARS:,}",
            )
        else:
            try:
                name = find_shortcut(sources, rule)
            except Exception as exc:  # noqa: BLE001 - pathological code must not stop the grader
                why = str(exc) if isinstance(exc, Unreadable) else type(exc).__name__
                name, what = "", Phrase(N_("code could not be read by the check ({why})"), why=why)
            if name is None:
                continue
            if name:
                what = Phrase(
                    N_("answer appears to use {what} (`{name}`)"), what=Phrase(rule.what), name=name
                )
        result.notes.append(
            Phrase(
                N_(
                    "part {part}'s {what}; the part asks you to write {task} yourself, so your "
                    "instructor will read it before trusting its {points} points"
                ),
                part=rule.part,
                what=what,
                task=Phrase(rule.task),
                points=f"{earned:g}",
            )
        )
        if result.status == "graded":
            result.status = REVIEW
