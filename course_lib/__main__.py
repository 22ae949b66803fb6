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
}

# The instructor's and operator's tools moved to course_tools: the old spellings name the new one.
MOVED = ("grade", "hub", "measure-client")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """Build the parser; with `only`, import just that command (a server must start fast)."""
    parser = argparse.ArgumentParser(
        prog="python -m course_lib",
        description="The MCP tool-annotations course: serve a demo server, inspect a server.",
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
    if argv and argv[0] in MOVED:
        print(
            f"'python -m course_lib {argv[0]}' is now 'python -m course_tools {argv[0]}'",
            file=sys.stderr,
        )
        return 2
    chosen = argv[0] if argv and argv[0] in COMMANDS else None
    args = build_parser(only=chosen).parse_args(argv)
    return int(args._run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
