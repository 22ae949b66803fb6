"""Which addresses a CLI tries to reach during one measured run, seen with ``strace``.

Every contained run is started under ``strace -f -e trace=connect`` (`process.COMMAND_PREFIX`),
and each ``connect()`` to an IPv4 or IPv6 address is collected. Loopback (127.0.0.0/8, ::1)
is where the stand-in and the measurement servers are; anything else is a CLI reaching out
(the machine has no route there, so the attempt fails, but it is recorded). A DNS query shows
as a connect to port 53 of the resolver.

Introduced in: docs/measure.md (what each CLI tries to reach).
"""

from __future__ import annotations

import ipaddress
import re
import shutil
import tempfile
from collections import Counter
from pathlib import Path

from .adapter import ClientAdapter
from .errors import MeasureError
from .harness import PLAN
from .process import COMMAND_PREFIX
from .scratch import Workspace, workspace
from .servers import MeasurementServers
from .standin import Script

__all__ = ["outside_connections", "parse_connects"]

_INET = re.compile(r'sin_port=htons\((\d+)\), sin_addr=inet_addr\("([0-9.]+)"\)')
_INET6 = re.compile(r'sin6_port=htons\((\d+)\),.*?inet_pton\(AF_INET6, "([0-9a-fA-F:.]+)"')


def parse_connects(text: str) -> Counter[str]:
    """Count ``address:port`` of every IPv4/IPv6 connect() in strace output."""
    found: Counter[str] = Counter()
    for line in text.splitlines():
        if "connect(" not in line:
            continue
        for port, address in _INET.findall(line) + _INET6.findall(line):
            found[f"{address}:{port}"] += 1
    return found


def _shown(target: str) -> str:
    """A target as recorded: a DNS query is named as such (the resolver's address is local)."""
    return "DNS query (port 53)" if target.endswith(":53") else target


def _outside(target: str) -> bool:
    address = target.rsplit(":", 1)[0]
    try:
        return not ipaddress.ip_address(address).is_loopback
    except ValueError:
        return True


def outside_connections(adapter: ClientAdapter, cli: str, mode: str) -> dict[str, int]:
    """Run one cell of `adapter` under strace and return the non-loopback targets it tried.

    Raises:
        MeasureError: strace is not installed.
    """
    strace = shutil.which("strace")
    if strace is None:
        raise MeasureError("strace is not installed (Debian/Ubuntu: sudo apt-get install strace)")
    with tempfile.TemporaryDirectory(prefix="measure-trace-") as folder:
        trace = Path(folder) / "connect"
        prefix = (strace, "-f", "-qq", "-ff", "-e", "trace=connect", "-o", str(trace))
        token = COMMAND_PREFIX.set(prefix)
        try:
            with MeasurementServers(Path(folder), adapter.servers) as servers, workspace() as tmp:
                setting = adapter.settings()["none"]
                adapter.run_turn(
                    cli, servers, Workspace(Path(tmp)), mode, setting, Script.one_per_turn(PLAN)
                )
        finally:
            COMMAND_PREFIX.reset(token)
        seen: Counter[str] = Counter()
        for part in Path(folder).glob("connect*"):
            seen += parse_connects(part.read_text(encoding="utf-8", errors="replace"))
    shown: Counter[str] = Counter()
    for target, count in seen.items():
        if _outside(target):
            shown[_shown(target)] += count
    return dict(sorted(shown.items()))
