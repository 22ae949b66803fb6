"""The course's demo MCP servers, one module each, named after its server.

Each module has a factory named after its server (`file_ops_server()` in `file_ops.py`,
`log_tidy_server()` in `log_tidy.py`, ...) that builds a fresh server in its own sandbox and
returns a typed handle, a `DemoServer`: the `MCPServer`, its sandbox and the state a lesson
looks at.

`SERVERS` maps the name used on the command line (``python -m course_lib serve NAME``) to the
module of its factory; every factory takes `root=` (its sandbox folder).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from ._demo import DemoServer

__all__ = ["SERVERS", "DemoServer", "build"]

SERVERS: dict[str, str] = {
    "file-ops": "course_lib.servers.file_ops",
    "private-notes": "course_lib.servers.private_notes",
    "web-search": "course_lib.servers.web_search",
    "mailer": "course_lib.servers.mailer",
    "log-tidy": "course_lib.servers.log_tidy",
    "ops-db": "course_lib.servers.ops_db",
    "ops-assistant": "course_lib.servers.ops_assistant",
}


def build(name: str, **options: Any) -> DemoServer:
    """Build the demo server called `name` (see `SERVERS`) with its factory.

    Raises:
        ValueError: no demo server has that name.
    """
    try:
        module_name = SERVERS[name]
    except KeyError:
        known = ", ".join(sorted(SERVERS))
        raise ValueError(f"no demo server called {name!r}; the course ships: {known}") from None
    module = importlib.import_module(module_name)
    factory: Callable[..., DemoServer] = getattr(module, f"{module_name.rsplit('.', 1)[1]}_server")
    return factory(**options)
