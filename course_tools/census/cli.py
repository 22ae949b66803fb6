"""``python -m course_tools census {lock,install,run,page}``: real servers' annotations.

`run` installs each server from its lock file (skipping those already installed from the same
lock), starts each with no network but loopback and placeholder credentials, reads its tools
as `inspect` does, checks them against the raw `tools/list` JSON, and prints the headline
figures. `--check` compares the run with the committed data (course_lib/data/census) and fails
naming every change; `--write` replaces the committed data. `lock` re-resolves the pins (it
needs the registries); `install` only installs; `page` rewrites book/census.md from the data.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .data import DATA, differences, write
from .locks import install, make_lock, servers_to_install
from .offline import NamespaceError, make_sandbox, run_offline
from .page import PAGE, render
from .servers import SERVERS
from .survey import CONCURRENT, TIMEOUT, CensusRun

HELP = "install real MCP servers from lock files, read their annotations offline, check the data"
DEFAULT_ROOT = Path(os.environ.get("COURSE_CENSUS_DIR", Path(".peers") / "census"))
EXIT_OK, EXIT_CHANGED, EXIT_USAGE, EXIT_FAILED = 0, 1, 2, 3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "action",
        choices=("lock", "install", "run", "page"),
        help="lock: re-resolve the pins; install; run the census; page: rewrite book/census.md",
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=DEFAULT_ROOT,
        metavar="DIR",
        help=f"where servers are installed and run (default {DEFAULT_ROOT})",
    )
    parser.add_argument("--only", nargs="+", metavar="LABEL", help="just these servers")
    parser.add_argument(
        "--no-isolation",
        action="store_true",
        help="run the servers with the network (where namespaces are not allowed)",
    )
    what = parser.add_mutually_exclusive_group()
    what.add_argument(
        "--check",
        action="store_true",
        help="exit 1, naming each change, if the run differs from the committed data",
    )
    what.add_argument("--write", action="store_true", help="replace the committed data")


def _say(text: str) -> None:
    print(f"census: {text}", flush=True)


def _install_all(root: Path, only: list[str] | None) -> None:
    wanted = {s.slug for s in SERVERS if only is None or s.label in only}
    todo = [s for s in servers_to_install() if s.slug in wanted or s.slug == "node22"]

    def one(server: object) -> str:
        return "installed" if install(root, server) else "up to date"  # type: ignore[arg-type]

    with ThreadPoolExecutor(3) as pool:
        for server, result in zip(todo, pool.map(one, todo)):
            _say(f"{server.registry} {server.package}: {result}")


def _lock_all(only: list[str] | None) -> None:
    for server in servers_to_install():
        if only is None or server.label in only:
            make_lock(server)
            _say(f"locked {server.package}")


def about(census: CensusRun, isolated: bool, seconds: float) -> dict[str, object]:
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=False)
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
        "isolation": "network namespace (unshare -rn), loopback only" if isolated else "none",
        "credentials": "placeholders only (no key is real)",
        "timeout_seconds": TIMEOUT,
        "concurrent": CONCURRENT,
        "python": platform.python_version(),
        "node": node.stdout.strip(),
        "servers": len(census.servers),
        "listed": sum(r.status == "listed" for r in census.servers),
        "tools": len(census.tools),
        "run_seconds": round(seconds),
    }


def headline(census: CensusRun) -> list[str]:
    """The figures a reader wants first."""
    listed = [r for r in census.servers if r.status == "listed"]
    tools = census.tools
    if not tools:
        return ["no tools listed"]
    share = {
        h: sum(getattr(t, h) != "" for t in tools) / len(tools)
        for h in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
    }
    by_registry = {reg: sum(r.registry == reg for r in listed) for reg in ("npm", "pypi")}
    return [
        f"{len(listed)} of {len(census.servers)} servers listed tools "
        f"({by_registry['npm']} npm, {by_registry['pypi']} PyPI); {len(tools)} tools",
        f"{sum(t.has_annotations for t in tools) / len(tools):.0%} of tools have annotations; "
        + ", ".join(f"{h} {v:.0%}" for h, v in share.items()),
        f"mismatches between inspect and the raw JSON: {sum(r.mismatches for r in listed)}; "
        f"malformed tools: {sum(r.malformed for r in listed)}",
        f"servers completing the trifecta alone: "
        f"{sum(r.trifecta_alone == 'yes' for r in listed)} of {len(listed)}",
    ]


def run(args: argparse.Namespace) -> int:
    known = {s.label for s in SERVERS}
    if args.only and set(args.only) - known:
        _say(f"unknown server(s) {sorted(set(args.only) - known)}; known: {sorted(known)}")
        return EXIT_USAGE
    root = args.root.resolve()
    try:
        if args.action == "lock":
            _lock_all(args.only)
            return EXIT_OK
        if args.action == "page":
            PAGE.write_text(render(), encoding="utf-8")
            _say(f"wrote {PAGE}")
            return EXIT_OK
        started = time.monotonic()
        _install_all(root, args.only)
        _say(f"installed in {time.monotonic() - started:.0f} s")
        if args.action == "install":
            return EXIT_OK
        started = time.monotonic()
        census = run_offline(root, make_sandbox(root), args.only, isolate=not args.no_isolation)
    except NamespaceError as exc:
        _say(
            f"cannot run the servers offline: {exc}. Run the census where user namespaces are "
            "allowed (as root, or with unprivileged user namespaces on), or add --no-isolation "
            "to run them with the network (the data is then marked isolation: none)"
        )
        return EXIT_FAILED
    except RuntimeError as exc:
        _say(str(exc))
        return EXIT_FAILED
    seconds = time.monotonic() - started
    _say(f"ran {len(census.servers)} servers in {seconds:.0f} s")
    for line in headline(census):
        _say(line)
    if args.write:
        write(DATA, census, about(census, not args.no_isolation, seconds))
        _say(f"wrote {DATA}")
    if args.check:
        changes = differences(DATA, census, args.only)
        for change in changes:
            _say(f"changed: {change}")
        if changes:
            _say(f"{len(changes)} changes against the committed data")
            return EXIT_CHANGED
        _say("the run matches the committed data")
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(EXIT_USAGE)
