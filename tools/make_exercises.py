"""Generate exercises/NN_name.ipynb from solutions/NN_name.ipynb (the single source).

Usage:
    python tools/make_exercises.py            # write every exercise notebook
    python tools/make_exercises.py --check    # exit 1 if a committed exercise differs

Markers in a solution notebook:

* In a code cell, the lines between ``### BEGIN SOLUTION`` and ``### END SOLUTION`` are the
  answer. In the exercise they become ``# YOUR CODE HERE`` and ``raise NotAttempted()`` at the
  marker's indentation, or, if the region holds lines starting with ``#> ``, those lines
  uncommented (a stub such as ``"read_runbook": TODO,``). ``#>`` lines are comments in the
  solution, so the solution runs as it is.
* In a markdown cell, the text between ``<!-- BEGIN SOLUTION -->`` and ``<!-- END SOLUTION -->``
  becomes ``*Your answer here.*``. Such a cell is a written answer: it holds the region and
  nothing else (the question goes in the markdown cell above it) and carries the
  ``written-answer`` tag, so the grader can collect every learner's text (``grade --written``).
* A cell tagged ``solution-only`` is left out of the exercise.

Exercises are written without outputs or execution counts (so nbval has nothing to compare and
only an error can fail them), with the same cell ids and tags as the solution.
"""

from __future__ import annotations

import argparse
import copy
import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "solutions"
EXERCISES = ROOT / "exercises"

BEGIN = re.compile(r"^(?P<indent>\s*)### BEGIN SOLUTION\s*$")
END = re.compile(r"^\s*### END SOLUTION\s*$")
STUB = re.compile(r"^(?P<indent>\s*)#> ?(?P<text>.*)$")
MD_BEGIN = "<!-- BEGIN SOLUTION -->"
MD_END = "<!-- END SOLUTION -->"
MD_STUB = "*Your answer here.*"
SOLUTION_ONLY = "solution-only"
WRITTEN_ANSWER = "written-answer"


class MarkerError(ValueError):
    """A solution notebook's markers are unbalanced or misplaced."""


def strip_code(source: str, where: str = "cell") -> str:
    """Return a code cell's source with each solution region replaced by its stub.

    Raises:
        MarkerError: a region is not closed, or an END comes without a BEGIN.
    """
    out: list[str] = []
    region: list[str] | None = None
    indent = ""
    for number, line in enumerate(source.split("\n"), start=1):
        begin = BEGIN.match(line)
        if begin:
            if region is not None:
                raise MarkerError(
                    f"{where}, line {number}: BEGIN SOLUTION inside another solution region"
                )
            region, indent = [], begin.group("indent")
            continue
        if END.match(line):
            if region is None:
                raise MarkerError(f"{where}, line {number}: END SOLUTION without BEGIN SOLUTION")
            stubs = [m for m in (STUB.match(r) for r in region) if m]
            if stubs:
                out += [m.group("indent") + m.group("text") for m in stubs]
            else:
                out += [f"{indent}# YOUR CODE HERE", f"{indent}raise NotAttempted()"]
            region = None
            continue
        if region is not None:
            region.append(line)
        else:
            out.append(line)
    if region is not None:
        raise MarkerError(f"{where}: BEGIN SOLUTION is never closed by END SOLUTION")
    return "\n".join(out)


def strip_markdown(source: str, where: str = "cell", tags: list[str] | None = None) -> str:
    """Return a markdown cell's source with each answer region replaced by a placeholder.

    Raises:
        MarkerError: unbalanced markers, or a written answer that is not marked as one (its
            cell must carry the ``written-answer`` tag and hold only the answer region).
    """
    if source.count(MD_BEGIN) != source.count(MD_END):
        raise MarkerError(f"{where}: {MD_BEGIN} and {MD_END} do not pair up")
    pattern = re.compile(re.escape(MD_BEGIN) + r".*?" + re.escape(MD_END), flags=re.DOTALL)
    stripped = pattern.sub(MD_STUB, source)
    if MD_BEGIN in source or WRITTEN_ANSWER in (tags or []):
        if WRITTEN_ANSWER not in (tags or []) or stripped.strip() != MD_STUB:
            raise MarkerError(
                f"{where}: a written answer's cell holds only {MD_BEGIN} ... {MD_END} and "
                f"carries the {WRITTEN_ANSWER!r} tag (put the question in the cell above), "
                "so the grader can collect it"
            )
    return stripped


def make_exercise(solution: nbformat.NotebookNode, name: str = "notebook") -> nbformat.NotebookNode:
    """Return the exercise notebook generated from a solution notebook (which is not modified)."""
    nb = copy.deepcopy(solution)
    cells = []
    for index, cell in enumerate(nb.cells, start=1):
        tags = cell.get("metadata", {}).get("tags", [])
        if SOLUTION_ONLY in tags:
            continue
        where = f"{name}, cell {index}"
        cell.metadata = {"tags": tags} if tags else {}
        if cell.cell_type == "code":
            cell.source = strip_code(cell.source, where)
            cell.outputs = []
            cell.execution_count = None
        elif cell.cell_type == "markdown":
            cell.source = strip_markdown(cell.source, where, tags)
        cells.append(cell)
    nb.cells = cells
    nb.metadata = {
        "kernelspec": nb.metadata.get("kernelspec", {}),
        "language_info": {"name": "python"},
    }
    return nb


def render(solution_path: Path) -> str:
    """Return the text of the exercise generated from `solution_path`, exactly as it is written."""
    solution = nbformat.read(solution_path, as_version=4)
    exercise = make_exercise(solution, solution_path.name)
    nbformat.validate(exercise)
    return nbformat.writes(exercise) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="do not write; exit 1 if an exercise is out of date"
    )
    args = parser.parse_args(argv)
    solutions = sorted(SOLUTIONS.glob("[0-9][0-9]_*.ipynb"))
    if not solutions:
        print(f"no solution notebooks in {SOLUTIONS}", file=sys.stderr)
        return 2
    stale = []
    for path in solutions:
        try:
            text = render(path)
        except MarkerError as exc:
            print(f"{exc}", file=sys.stderr)
            return 2
        target = EXERCISES / path.name
        current = target.read_text(encoding="utf-8") if target.exists() else None
        if current == text:
            continue
        stale.append(target)
        if not args.check:
            target.parent.mkdir(exist_ok=True)
            target.write_text(text, encoding="utf-8")
            print(f"wrote {target.relative_to(ROOT)}", file=sys.stderr)
    orphans = sorted(
        p for p in EXERCISES.glob("[0-9][0-9]_*.ipynb") if not (SOLUTIONS / p.name).exists()
    )
    for orphan in orphans:
        print(f"{orphan.relative_to(ROOT)} has no solution in solutions/", file=sys.stderr)
    if args.check and (stale or orphans):
        for path in stale:
            print(
                f"{path.relative_to(ROOT)} is out of date: run python tools/make_exercises.py",
                file=sys.stderr,
            )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
