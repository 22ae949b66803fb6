"""Command line: ``python -m course_lib COMMAND ...``.

Each command lives in its own module exposing `HELP` (one line), `add_arguments(parser)`
and `run(args) -> int` (the exit status); this file only dispatches.
"""

from __future__ import annotations

import argparse
import importlib
import sys

COMMANDS: dict[str, str] = {
    "serve": "course_lib.serve",
    "inspect": "course_lib.inspect_cmd",
    "grade": "course_lib.grading.cli",
    "hub": "course_lib.hub.cli",
    "measure-client": "course_lib.measure.cli",
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Build the parser; with `only`, import just that command (a server must start fast)."""
    parser = argparse.ArgumentParser(
        prog="python -m course_lib",
        description="Tools of the MCP tool-annotations course.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, module_name in COMMANDS.items():
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
    args = build_parser(only=chosen).parse_args(argv)
    return int(args._run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
