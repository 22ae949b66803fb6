"""Layering: course_lib (the course) never imports course_tools (the instructor's tools); servers
import nothing of the course but the sandbox; grading never imports the learner's modules; analysis
modules never import the connection module; no import cycle in either package."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "course_lib"
TOOLS = ROOT / "course_tools"
PACKAGES = ("course_lib", "course_tools")


def _all_modules() -> list[Path]:
    return [*LIB.rglob("*.py"), *TOOLS.rglob("*.py")]

# What a learner's notebook imports: the check engine and every exercise module (course_lib.exercises.*),
# except the exercises' content, which the grader's hidden cases import too (one source).
LEARNER_MODULES = {"course_lib.checks", "course_lib.exercises"}
SHARED_CONTENT = "course_lib.exercises.content"
GRADING = "course_tools.grading"
ANALYSIS = {
    "annotations", "lint", "policy", "combinations", "legs", "trifecta", "guard", "audit", "tables", "pinning", "feedback"
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every course_lib module `path` imports (absolute names), at any depth in the file."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.startswith(PACKAGES):
                found.add(target)
                found.update(f"{target}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith(PACKAGES))
    existing = {_module_name(p) for p in _all_modules()}
    return {t for t in found if t in existing}


def test_servers_import_nothing_of_the_course_but_the_sandbox():
    for path in (LIB / "servers").glob("*.py"):
        allowed = {"course_lib.servers._sandbox", "course_lib.servers"}
        assert _imports(path) <= allowed | {f"course_lib.servers.{p.stem}" for p in (LIB / "servers").glob("*.py")}, path


def test_the_course_never_imports_the_tools():
    """course_lib is what a learner installs and a graded kernel sees; course_tools may import it,
    never the other way (and a kernel cannot see course_tools at all)."""
    bad = {str(p.relative_to(ROOT)): sorted(m for m in _imports(p) if _inside(m, "course_tools"))
           for p in LIB.rglob("*.py")}
    assert not {k: v for k, v in bad.items() if v}


def test_grading_never_imports_the_learner_modules_but_the_shared_content():
    for path in (TOOLS / "grading").rglob("*.py"):
        learner = {m for m in _imports(path) if any(m == x or m.startswith(x + ".") for x in LEARNER_MODULES)}
        bad = learner - {SHARED_CONTENT}
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_the_shared_content_imports_no_check_engine():
    assert not {m for m in _imports(LIB / "exercises" / "content.py") if _inside(m, "course_lib.checks") or _inside(m, "course_lib.exercises")}


def test_the_hidden_cases_import_the_exercise_content_and_never_write_it_again():
    """Scenarios, tools and answers a learner sees are written once, in course_lib.exercises.content."""
    import importlib

    from course_lib.exercises import content

    shared = {name: getattr(content, name) for name in content.__all__}
    for path in sorted((TOOLS / "grading" / "hidden").glob("ex*.py")):
        module = importlib.import_module(_module_name(path))
        assert any(m == SHARED_CONTENT for m in _imports(path)), f"{path.name} does not use the shared content"
        for name, value in vars(module).items():
            if name.startswith("__") or callable(value) or isinstance(value, type(importlib)):
                continue
            assert name not in shared or value is shared[name], f"{path.name} defines {name} again"
            copies = [s for s, v in shared.items() if v is not value and _same(v, value)]
            assert not copies, f"{path.name}.{name} copies {copies} of course_lib.exercises.content"


def _same(a, b) -> bool:
    try:
        return bool(a == b) and bool(a)
    except Exception:  # noqa: BLE001 - values that cannot be compared are not copies
        return False


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_learner_modules_never_import_grading():
    learner = [p for p in LIB.rglob("*.py") if any(_inside(_module_name(p), m) for m in LEARNER_MODULES)]
    assert any(_module_name(p) == "course_lib.exercises.predict" for p in learner)
    for path in learner:
        bad = {m for m in _imports(path) if _inside(m, GRADING)}
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_nothing_outside_grading_imports_grading():
    """The grader's package is hidden from a graded kernel: what lives outside it must not need it
    (`python -m course_tools grade` reaches it by name, through the command dispatcher)."""
    for path in _all_modules():
        if _inside(_module_name(path), GRADING) or _module_name(path) == "course_tools.__main__":
            continue
        bad = {m for m in _imports(path) if _inside(m, GRADING)}
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_no_module_outside_grading_holds_hidden_cases():
    """A hidden case (one the visible self-check does not run) is written only under grading/, which
    the sandbox hides: part 2d's lying-server and older-Claude-Code cases, for instance."""
    from course_lib.exercises import PARTS
    from course_tools.grading import load_exercises

    right = {"allow": ["mcp__file-ops__read_file"], "ask": ["mcp__file-ops__append_text",
             "mcp__file-ops__set_value"], "deny": ["mcp__file-ops__delete_file"]}
    visible = {o.label for o in PARTS["2d"].run(right)}
    hidden = [c for c in load_exercises()["02_predict_the_client"].cases if c.id.startswith("2d.")]
    hidden_only = {c.label.english().split(": ", 1)[1] for c in hidden} - visible
    assert len(hidden_only) >= 4 and len(visible) >= 4
    outside = {p: p.read_text() for p in _all_modules() if not _inside(_module_name(p), GRADING)}
    for label in hidden_only:
        holders = [str(p.relative_to(ROOT)) for p, text in outside.items() if label in text]
        assert not holders, f"hidden case {label!r} is written in {holders}, outside course_tools/grading/"


def test_analysis_modules_never_connect():
    for name in ANALYSIS:
        assert "course_lib.connection" not in _imports(LIB / f"{name}.py"), name


# Modules allowed over 400 lines (none now); the test fails if any module passes 400.
KNOWN_LONG: dict[str, int] = {}


def test_no_module_is_over_400_lines_beyond_the_known_ones():
    long = {str(p.relative_to(ROOT)): n for p in _all_modules() if (n := len(p.read_text().splitlines())) > 400}
    grown = {k: v for k, v in long.items() if v > KNOWN_LONG.get(k, 400)}
    assert not grown, grown


def test_the_import_graph_has_no_cycle():
    graph = {_module_name(p): _imports(p) for p in _all_modules()}
    done: set[str] = set()

    def visit(node: str, stack: list[str]) -> None:
        if node in stack:
            raise AssertionError(" -> ".join([*stack[stack.index(node):], node]))
        if node in done:
            return
        for child in graph.get(node, ()):
            if child != node and not node.startswith(child + "."):  # a package's own submodules
                visit(child, [*stack, node])
        done.add(node)

    for module in graph:
        visit(module, [])


def test_only_the_plots_package_draws():
    """matplotlib is imported in course_lib/plots/ (the lessons' figures, issue 10) and in the
    instructor's one figure, course_tools/grading/summary_figure.py, only."""
    drawing = []
    instructors_figure = TOOLS / "grading" / "summary_figure.py"
    for path in _all_modules():
        if "plots" in path.relative_to(ROOT).parts or path == instructors_figure:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            if any(n == "matplotlib" or n.startswith("matplotlib.") for n in names):
                drawing.append(str(path.relative_to(ROOT)))
    assert not drawing, f"these modules draw outside the figure modules: {sorted(set(drawing))}"
