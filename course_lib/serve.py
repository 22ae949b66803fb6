"""``python -m course_lib serve NAME --root DIR``: a demo server over stdio for a real client.

Introduced in: notebooks/00_start_here.ipynb
"""

from __future__ import annotations

import argparse
import os
import signal
import sys

from .servers import SERVERS, build

HELP = (
    "run one of the course's demo MCP servers over stdio (for Claude Code, the MCP Inspector, ...)"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", choices=sorted(SERVERS), help="which demo server to run")
    parser.add_argument(
        "--root",
        metavar="DIR",
        help=(
            "sandbox folder the server may use (created if missing; default: a new temporary "
            "folder)"
        ),
    )


def run(args: argparse.Namespace) -> int:
    try:
        demo = build(args.name, root=args.root)
    except (ValueError, OSError) as exc:
        print(f"course_lib serve: {exc}", file=sys.stderr)
        return 2

    # Python's exit handlers do not run when a signal ends the process: a client that stops
    # the server with SIGTERM (as the SDK does after a grace period) still gets the temporary
    # sandbox removed.
    def stop(signum: int, _frame: object) -> None:
        demo.sandbox.remove_if_temporary()
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    # stdout carries the protocol; anything for humans goes to stderr
    print(f"{args.name}: serving over stdio, sandbox {demo.sandbox.root}", file=sys.stderr)
    demo.server.run("stdio")
    return 0
