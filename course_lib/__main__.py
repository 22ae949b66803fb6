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
    "inspect": "course_lib.inspect",
    "grade": "course_lib.grading.cli",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m course_lib",
        description="Tools of the MCP tool-annotations course.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, module_name in COMMANDS.items():
        module = importlib.import_module(module_name)
        command = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(command)
        command.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args._run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
