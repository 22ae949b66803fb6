"""The course's demo MCP servers. Each module exposes `build_server(...)` returning a fresh
`MCPServer`.

`SERVERS` maps the name used on the command line (``python -m course_lib serve NAME``)
to the module path of its factory; every factory takes `root=` (its sandbox folder).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["SERVERS", "build"]

SERVERS: dict[str, str] = {
    "file-ops": "course_lib.servers.file_ops",
    "private-notes": "course_lib.servers.private_notes",
    "web-search": "course_lib.servers.web_search",
    "mailer": "course_lib.servers.mailer",
    "log-tidy": "course_lib.servers.cleanup",
    "ops-db": "course_lib.servers.sql_query",
    "ops-assistant": "course_lib.servers.ops_scoped",
}


def build(name: str, **options: Any) -> Any:
    """Build the demo server called `name` (see `SERVERS`).

    Raises:
        ValueError: no demo server has that name.
    """
    try:
        module_name = SERVERS[name]
    except KeyError:
        known = ", ".join(sorted(SERVERS))
        raise ValueError(f"no demo server called {name!r}; the course ships: {known}") from None
    factory: Callable[..., Any] = importlib.import_module(module_name).build_server
    return factory(**options)
