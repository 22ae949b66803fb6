"""Command line: ``python -m course_tools COMMAND ...``.

Each command lives in its own module exposing `HELP` (one line), `add_arguments(parser)`
and `run(args) -> int` (the exit status); this file only dispatches, after checking that
the command's extra is installed (`course_tools.extras`).
"""

from __future__ import annotations

import argparse
import importlib
import sys

from .extras import missing_extra

COMMANDS: dict[str, tuple[str, str]] = {  # command: (module, the extra it needs)
    "grade": ("course_tools.grading.cli", "grade"),
    "hub": ("course_tools.hub.cli", "hub"),
    "measure-client": ("course_tools.measure.cli", "measure"),
    "census": ("course_tools.census.cli", "census"),
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Build the parser; with `only`, import just that command."""
    parser = argparse.ArgumentParser(
        prog="python -m course_tools",
        description="The instructor's and operator's tools of the MCP tool-annotations course.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (module_name, _extra) in COMMANDS.items():
        if only is not None and name != only:
            sub.add_parser(name)  # known, so argparse's messages stay right; not imported
            continue
        module = importlib.import_module(module_name)
        command = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    chosen = argv[0] if argv and argv[0] in COMMANDS else None
    if chosen is not None:
        problem = missing_extra(COMMANDS[chosen][1])
        if problem:
            print(f"course_tools {chosen}: {problem}", file=sys.stderr)
            return 2
    args = build_parser(only=chosen).parse_args(argv)
    return int(args._run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
