"""``python -m course_lib inspect [--json] -- CMD [ARGS...] [-- CMD2 ARGS...]``: inspect any stdio
MCP server.

For each server: its tools table (declared and effective hints, display title, risk
profile) and the findings of the annotation check; then, for all servers together as one
session, the lethal-trifecta status. Works with servers on the 2026 protocol and with
older ones (1.x Python SDK, most npm servers): the SDK's "auto" mode sends the 2026
`server/discover` request and falls back to the legacy `initialize` handshake when the
server does not understand it.

The text report is in the learner's language (``COURSE_LANG=zh_CN``: Chinese), what a server
sent always shown as it sent it, escaped; ``--json`` keeps its English texts (data for scripts).
The session's own status and caveats (`course_lib.trifecta`) are English in both.

Exit status: as `EPILOG` below says (`--help` prints it).

Introduced in: notebooks/04_lethal_trifecta.ipynb (guide: docs/inspect.md)
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shlex
import sys
import textwrap
import unicodedata
from typing import Any

import anyio
from mcp.types import Tool

from .annotations import HINTS, classify, declared, display_title, effective
from .i18n import beside
from .i18n import gettext_ as _
from .i18n import ngettext_ as ngettext
from .inspection import (
    DEFAULT_TIMEOUT,
    LEGACY_HANDSHAKE,
    MAX_TOOLS,
    ServerInspection,
    inspect_servers,
)
from .legs import Leg
from .lint import Finding, check_annotations
from .safe_text import printable, truncated
from .server_command import ServerCommand, env_assignments, parse_command, read_env_file
from .server_process import orphans_killed
from .trifecta import SessionReport, analyse_session

HELP = (
    "inspect MCP servers started as commands: tools, hints, annotation findings and the session's "
    "lethal trifecta"
)

EXIT_OK = 0
EXIT_TRIFECTA = 1
EXIT_USAGE = 2
EXIT_UNREACHABLE = 3
MAX_LISTED = 5  # suppliers named per leg in the text report
MAX_CELL = 60  # characters of a name or title shown in a table cell
MAX_ROWS = 200  # tools shown in one server's text table (--json has them all)
WIDTH = 100  # characters of a line of prose in the text report (a projector's width)
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


def _cell(raw: Any, eff: Any) -> str:
    show = {True: "true", False: "false", None: "-"}
    if raw is None:
        return f"- → {show.get(eff, eff)}" if eff != "n/a" else "-"
    if eff == "n/a":
        return f"{show[raw]} (n/a)"
    return show[raw]


def _columns(text: str) -> int:
    """How many columns `text` takes on a terminal: a wide character (汉字) takes two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _padded(text: str, width: int) -> str:
    return text + " " * (width - _columns(text))


def tools_lines(tools: list[Tool]) -> list[str]:
    """Return a plain-text table: declared value, or "- → default" where a hint is absent."""
    if not tools:
        return ["  " + _("(no tools)")]
    header = [_("tool"), _("title"), *[h.removesuffix("Hint") for h in HINTS], _("profile")]
    rows = []
    for tool in tools[:MAX_ROWS]:
        raw, eff = declared(tool.annotations), effective(tool.annotations).as_wire()
        name, title = (
            printable(truncated(text, MAX_CELL)) for text in (tool.name, display_title(tool))
        )
        profile = beside(str(classify(tool.annotations)))  # 只读 (read-only) in Chinese
        rows.append([name, title, *[_cell(raw[h], eff[h]) for h in HINTS], profile])
    widths = [max(_columns(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = [
        "  " + "  ".join(_padded(c, w) for c, w in zip(r, widths)).rstrip() for r in [header, *rows]
    ]
    if len(tools) > MAX_ROWS:
        more = len(tools) - MAX_ROWS
        lines.append(
            "  "
            + ngettext(
                "... and {n} more tool not shown (see --json)",
                "... and {n} more tools not shown (see --json)",
                more,
            ).format(n=more)
        )
    return lines


def _count(items: Any, noun: str) -> str:
    return f"{len(items)} {noun}{'' if len(items) == 1 else 's'}"


def _label(found: ServerInspection, used: set[str]) -> str:
    base = found.name or os.path.basename(found.argv[0])
    label, n = base, 2
    while label in used:
        label, n = f"{base}#{n}", n + 1
    used.add(label)
    return label


def report(results: list[ServerInspection]) -> tuple[dict[str, Any], list[str]]:
    """Return the JSON document and the text lines for inspected servers."""
    used: set[str] = set()
    labels = [_label(r, used) for r in results]
    lines: list[str] = []
    servers = []
    for label, found in zip(labels, results):
        findings = found.malformed + [f for tool in found.tools for f in check_annotations(tool)]
        servers.append(_server_document(label, found, findings))
        lines += _server_lines(label, found, findings)
    inspected = {label: found.tools for label, found in zip(labels, results) if found.ok}
    document: dict[str, Any] = {"servers": servers, "session": None}
    if inspected:
        session = analyse_session(inspected)
        document["session"] = session.as_dict()
        lines += _session_lines(session, len(inspected), len(results) - len(inspected))
    return document, lines


def _server_document(label: str, found: ServerInspection, findings: list[Finding]) -> dict:
    """One server of the JSON document: its texts in English, as data."""
    return {
        "label": label,
        "command": found.argv,
        "env": found.env_names,
        "ok": found.ok,
        "error": found.error,
        "server_info": {"name": found.name, "version": found.version} if found.ok else None,
        "protocol": found.protocol,
        "handshake": found.handshake,
        "fallback": found.fallback.english() if found.fallback else None,
        "more_tools_not_read": found.more_tools,
        "tools": [
            {
                "name": t.name,
                "title": display_title(t),
                "declared": declared(t.annotations),
                "effective": effective(t.annotations).as_wire(),
                "profile": str(classify(t.annotations)),
            }
            for t in found.tools
        ],
        "findings": [f.as_dict() for f in findings],
    }


def _server_lines(label: str, found: ServerInspection, findings: list[Finding]) -> list[str]:
    """One server in the text report, in the learner's language: what it is, tools, findings."""
    lines = [f"== {label}: {found.command}"]
    if found.env_names:
        names = ", ".join(found.env_names)
        count = len(found.env_names)
        env = ngettext("env: {names} (value not shown)", "env: {names} (values not shown)", count)
        lines.append("  " + env.format(names=names))
    if not found.ok:
        return [*lines, "  " + _("ERROR: {error}").format(error=found.error), ""]
    count = len(found.tools)
    lines.append(
        "  "
        + ngettext(
            "server {name}{version}; protocol {protocol} via {handshake}; {n} tool",
            "server {name}{version}; protocol {protocol} via {handshake}; {n} tools",
            count,
        ).format(
            name=found.name or _("(unnamed)"),
            version=f" {found.version}" if found.version else "",
            protocol=found.protocol,
            handshake=_(LEGACY_HANDSHAKE)
            if found.handshake == LEGACY_HANDSHAKE
            else found.handshake,
            n=count,
        )
    )
    if found.fallback:
        lines.append("  " + _("note: {note}").format(note=found.fallback.text()))
    if found.more_tools:
        lines.append(
            "  "
            + _(
                "note: the server lists more than {max} tools; only the first {max} were read"
            ).format(max=MAX_TOOLS)
        )
    lines += tools_lines(found.tools)
    shown = _("findings ({n}):").format(n=len(findings)) if findings else _("findings: none")
    lines.append("  " + shown)
    for f in findings[:MAX_ROWS]:
        said = _("{tool}: {severity} {message}").format(
            tool=f.tool, severity=f.shown_severity, message=f.message
        )
        lines += _wrapped(said, "  - ")
    if len(findings) > MAX_ROWS:
        more = len(findings) - MAX_ROWS
        lines.append(
            "  "
            + ngettext(
                "... and {n} more finding (see --json)",
                "... and {n} more findings (see --json)",
                more,
            ).format(n=more)
        )
    lines.append("")
    return lines


def _session_lines(session: SessionReport, servers: int, skipped: int) -> list[str]:
    """The text report's last part: the session's trifecta status, legs and caveats."""
    counted = {
        "servers": ngettext("{n} server", "{n} servers", servers).format(n=servers),
        "tools": ngettext("{n} tool", "{n} tools", len(session.tools)).format(n=len(session.tools)),
    }
    if skipped:
        head = _("== session: {servers}, {tools} ({skipped} not inspected)")
    else:
        head = _("== session: {servers}, {tools}")
    lines = [head.format(skipped=skipped, **counted)]
    lines += _wrapped(session.status, "  ")
    for leg in Leg:
        suppliers = [f"{s.tool} ({s.basis})" for s in session.supplies if s.leg is leg]
        if len(suppliers) > MAX_LISTED:
            more = len(suppliers) - MAX_LISTED
            suppliers = [*suppliers[:MAX_LISTED], _("and {n} more (see --json)").format(n=more)]
        lines.append(f"  {str(leg) + ':':24} {', '.join(suppliers) or '-'}")
    lines.append("  " + _("what the hints cannot tell:"))
    for caveat in session.caveats:
        lines += _wrapped(caveat, "  - ")
    return lines


def _wrapped(text: str, first: str) -> list[str]:
    """`text` in lines of at most `WIDTH` characters, the first after `first`, the rest indented."""
    return textwrap.wrap(
        text,
        WIDTH,
        initial_indent=first,
        subsequent_indent=" " * len(first) if first.endswith("- ") else first + "  ",
        break_long_words=False,
        break_on_hyphens=False,
    )


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
