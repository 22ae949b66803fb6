"""``python -m course_lib inspect [--json] -- CMD [ARGS...] [-- CMD2 ARGS...]``: inspect any stdio
MCP server.

For each server: its tools table (declared and effective hints, display title, risk
profile) and the findings of the annotation check; then, for all servers together as one
session, the lethal-trifecta status. Works with servers on the 2026 protocol and with
older ones (1.x Python SDK, most npm servers): the SDK's "auto" mode sends the 2026
`server/discover` request and falls back to the legacy `initialize` handshake when the
server does not understand it.

The report (`course_lib.inspect_report`) is in the learner's language; ``--json`` keeps English.

Exit status: as `EPILOG` below says (`--help` prints it).

Introduced in: notebooks/04_lethal_trifecta.ipynb (guide: docs/inspect.md)
"""

from __future__ import annotations

import argparse
import json
import logging
import shlex
import sys
from typing import Any

import anyio

from .inspect_report import report
from .inspection import DEFAULT_TIMEOUT, ServerInspection, inspect_servers
from .safe_text import printable
from .server_command import ServerCommand, env_assignments, parse_command, read_env_file
from .server_process import orphans_killed

HELP = (
    "inspect MCP servers started as commands: tools, hints, annotation findings and the session's "
    "lethal trifecta"
)

EXIT_OK = 0
EXIT_TRIFECTA = 1
EXIT_USAGE = 2
EXIT_UNREACHABLE = 3
EPILOG = """\
examples:
  python -m course_lib inspect -- python -m course_lib serve file-ops
  python -m course_lib inspect --json -- npx -y @modelcontextprotocol/server-everything
  python -m course_lib inspect -- python -m course_lib serve private-notes \\
                               -- python -m course_lib serve web-search \\
                               -- python -m course_lib serve mailer
  python -m course_lib inspect --server "uvx mcp-server-fetch" --server "python my_server.py"
  python -m course_lib inspect --env BRAVE_API_KEY=... -- npx -y @brave/brave-search-mcp-server
  python -m course_lib inspect --env-file keys.env -- mcp-server-brave-search

Each `--` starts one server command (its own arguments follow it, untouched); `--server`
takes one shell-quoted command and may be repeated. All servers are one session.
A server gets only PATH, HOME and a few more variables: give it what it needs with --env or
--env-file (every server), or with NAME=VALUE words before its program (that server only).
Values are never shown: the report names the variables, and hides their values in errors.
exit status: 0 inspected, 1 trifecta complete with --fail-on-trifecta, 2 usage, 3 a server could not
be inspected
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EPILOG
    parser.add_argument(
        "--json", action="store_true", help="print one JSON document instead of tables"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help="give up on a server that has not listed its tools after this long (default "
        f"{DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument(
        "--mode",
        choices=("auto", "legacy"),
        default="auto",
        help="auto: try the 2026 server/discover, fall back to the legacy handshake (default); "
        "legacy: handshake only",
    )
    parser.add_argument(
        "--server",
        action="append",
        default=[],
        metavar="CMD",
        help="a server command as one shell-quoted string; repeat for more servers",
    )
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="start every server with this environment variable (repeat for more); the value is "
        "never shown",
    )
    parser.add_argument(
        "--env-file",
        action="append",
        default=[],
        metavar="FILE",
        help="read NAME=VALUE lines (as docker --env-file does: # comments, no quotes) for every "
        "server",
    )
    parser.add_argument(
        "--fail-on-trifecta",
        action="store_true",
        help="exit with status 1 when the session has all three legs",
    )
    parser.add_argument(
        "command",
        nargs=argparse.REMAINDER,
        metavar="-- CMD [ARGS...]",
        help="a server command; repeat `-- CMD [ARGS...]` for more servers (put options before "
        "the first --)",
    )


def split_commands(tokens: list[str], servers: list[str]) -> list[list[str]]:
    """Return the server commands: one per `--server` string, then one per `--`-separated group.

    Raises:
        ValueError: no command at all, an empty command, or a `--server` string that does not parse
            (its text is not repeated: it may hold a key).
    """
    commands: list[list[str]] = []
    for text in servers:
        try:
            argv = shlex.split(text)
        except ValueError as exc:
            raise ValueError(
                f"a --server string is not a valid shell command ({exc}); check the quotes"
            ) from None
        if not argv:
            raise ValueError(
                "--server was given an empty command; give a program and its arguments"
            )
        commands.append(argv)
    groups: list[list[str]] = [[]]
    for token in tokens:
        if token == "--":
            groups.append([])
        else:
            groups[-1].append(token)
    if groups[0] and len(groups) > 1:
        raise ValueError(
            f"put '--' before the first server command too: `{groups[0][0]}` and "
            f"{_count(groups[0][1:], 'more word')} came before it"
        )
    commands += [g for g in groups if g]
    if not commands:
        raise ValueError(
            'no server to inspect: give one as `-- CMD [ARGS...]` or `--server "CMD ARGS"`'
        )
    return commands


def _count(items: Any, noun: str) -> str:
    return f"{len(items)} {noun}{'' if len(items) == 1 else 's'}"


def server_commands(args: argparse.Namespace) -> list[ServerCommand]:
    """The servers to inspect, each with its variables: `--env-file`s, then `--env`s, then its
    own `NAME=VALUE` words (a later one wins).

    Raises:
        ValueError: a malformed command, `--env` or `--env-file` (never quoting a value).
    """
    common: dict[str, str] = {}
    for path in args.env_file:
        common.update(read_env_file(path))
    common.update(env_assignments(args.env))
    words = split_commands(list(args.command), list(args.server))
    return [parse_command(argv).with_env(common) for argv in words]


def run(args: argparse.Namespace) -> int:
    try:
        commands = server_commands(args)
        if not args.timeout > 0:
            raise ValueError(
                f"--timeout must be a positive number of seconds, not {args.timeout:g}"
            )
    except ValueError as exc:
        print(f"course_lib inspect: {exc}", file=sys.stderr)
        return EXIT_USAGE
    mcp_logger = logging.getLogger("mcp")
    level = mcp_logger.level
    # the SDK logs parse errors of foreign output with tracebacks
    mcp_logger.setLevel(logging.CRITICAL + 1)
    try:

        async def inspect_all() -> list[ServerInspection]:
            return await inspect_servers(commands, timeout=args.timeout, mode=args.mode)

        with orphans_killed():  # a server's grandchild in a session of its own, too
            results = anyio.run(inspect_all)
    finally:
        mcp_logger.setLevel(level)
    document, lines = report(results)
    status = EXIT_OK
    if not all(r.ok for r in results):
        status = EXIT_UNREACHABLE
    elif args.fail_on_trifecta and document["session"] and document["session"]["trifecta"]:
        status = EXIT_TRIFECTA
    document["exit_status"] = status
    # Every string from a server was escaped as it was read; this is the last line of defence.
    if args.json:
        print(json.dumps(_printable_tree(document), indent=2, ensure_ascii=False))
    else:
        print("\n".join(printable(line) for line in lines))
    return status


def _printable_tree(value: Any) -> Any:
    """`value` (a JSON document) with control characters escaped in every string, keys included."""
    if isinstance(value, str):
        return printable(value, newlines=True)
    if isinstance(value, dict):
        return {_printable_tree(k): _printable_tree(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_printable_tree(v) for v in value]
    return value
