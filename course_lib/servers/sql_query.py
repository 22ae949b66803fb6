"""The "ops-db" demo server: SQL on a real SQLite database, where risk depends on the arguments.

One `execute_query(sql)` tool runs a SELECT or a DROP TABLE alike; annotations describe the
tool, not the call. `variant` picks how the server answers that (facts §5.4):

| variant          | tools                          | hints                                  | enforced by the engine? |
|------------------|--------------------------------|----------------------------------------|-------------------------|
| "naive"          | execute_query                  | readOnly true (wrong for a DROP)       | no                      |
| "worst-case"     | execute_query                  | readOnly false, destructive true       | no                      |
| "split"          | query / execute                | query read-only; execute destructive   | query: yes              |
| "mode"           | execute_query                  | derived from `read_only=`              | when `read_only=True`   |
| "engine"         | execute_query                  | readOnly true (as "naive")             | yes: read-only connection |

"Enforced by the engine" means the tool opens the database with SQLite's read-only URI
flag (``mode=ro``): SQLite itself refuses any write, whatever the hints say. The database
(`ops.db`) sits in the sandbox folder and starts with two small tables, `incidents` and `deploys`.

Run it for a real client with ``python -m course_lib serve ops-db --root DIR``
(the default variant, "worst-case").

Introduced in: notebooks/06_beyond_hints.ipynb
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

from ._sandbox import Sandbox

__all__ = ["DATABASE", "MAX_ROWS", "NAME", "VARIANTS", "build_server", "seed_database"]

NAME = "ops-db"
DATABASE = "ops.db"
MAX_ROWS = 50
VARIANTS = ("naive", "worst-case", "split", "mode", "engine")

_SEED_SQL = """
CREATE TABLE incidents (id INTEGER PRIMARY KEY, opened TEXT NOT NULL, service TEXT NOT NULL,
                        severity TEXT NOT NULL, summary TEXT NOT NULL);
INSERT INTO incidents VALUES
  (41, '2026-11-27', 'billing', 'low', 'slow invoice export'),
  (42, '2026-11-28', 'payments', 'high', 'payment gateway timeouts'),
  (43, '2026-11-29', 'search', 'medium', 'stale search index');
CREATE TABLE deploys (id INTEGER PRIMARY KEY, day TEXT NOT NULL, service TEXT NOT NULL, version TEXT NOT NULL);
INSERT INTO deploys VALUES
  (1, '2026-11-28', 'payments', '3.4.1'),
  (2, '2026-11-29', 'search', '1.9.0');
"""

_READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
_WORST_CASE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False)


def seed_database(path: str | os.PathLike[str]) -> Path:
    """Create the demo database at `path` unless a file is already there; return its path."""
    path = Path(path)
    if not path.exists():
        with sqlite3.connect(path) as connection:
            connection.executescript(_SEED_SQL)
        connection.close()
    return path


def _run(database: Path, sql: str, *, read_only: bool) -> str:
    """Run one SQL statement; return the rows (for a query) or a change count, as text.

    Raises:
        ToolError: the statement is empty, is several statements, or SQLite refused it.
    """
    if not isinstance(sql, str) or not sql.strip():
        raise ToolError("sql is empty: give one SQL statement, e.g. 'SELECT * FROM incidents'")
    if read_only:
        # SQLite's own read-only mode: the engine refuses every write, whatever the tool declares
        connection = sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True, isolation_level=None)
    else:
        connection = sqlite3.connect(database, isolation_level=None)
    try:
        cursor = connection.execute(sql)
        if cursor.description is None:
            changed = f"; {cursor.rowcount} row(s) changed" if cursor.rowcount >= 0 else ""
            return f"statement ran{changed}"
        header = [column[0] for column in cursor.description]
        rows = cursor.fetchmany(MAX_ROWS + 1)
        lines = [" | ".join(header)] + [" | ".join(str(v) for v in row) for row in rows[:MAX_ROWS]]
        if len(rows) > MAX_ROWS:
            lines.append(f"... (first {MAX_ROWS} rows shown)")
        return "\n".join(lines)
    except (sqlite3.Error, sqlite3.Warning) as exc:
        raise ToolError(f"SQLite refused the statement: {exc}") from None
    finally:
        connection.close()


def build_server(
    root: str | os.PathLike[str] | None = None,
    *,
    variant: str = "worst-case",
    read_only: bool = False,
) -> MCPServer:
    """Build a fresh ops-db server of the given `variant` (see the module table) in sandbox `root`.

    `read_only` is the deployment flag of the "mode" variant (ignored by the others). The
    server carries `server.sandbox`, `server.database` (the path of `ops.db`) and `server.variant`.

    Raises:
        ValueError: an unknown variant, or `read_only` is not a bool.
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(map(repr, VARIANTS))}, not {variant!r}")
    if not isinstance(read_only, bool):
        raise ValueError(f"read_only must be True or False, not {read_only!r}")
    sandbox = Sandbox(root, prefix="ops-db-")
    database = seed_database(sandbox.resolve(DATABASE))
    server = MCPServer(NAME, instructions="SQL access to the operations database (incidents, deploys).", log_level="WARNING")
    query_doc = "Run one SQL statement on the operations database and return the rows."

    if variant == "split":

        @server.tool(title="Query the operations database", annotations=_READ_ONLY)
        def query(sql: str) -> str:
            """Run one read-only SQL query (SELECT) on the operations database and return the rows."""
            return _run(database, sql, read_only=True)

        @server.tool(title="Change the operations database", annotations=_WORST_CASE)
        def execute(sql: str) -> str:
            """Run one SQL statement that may change the operations database (INSERT, UPDATE, DELETE, DROP...)."""
            return _run(database, sql, read_only=False)

    else:
        if variant == "worst-case":
            annotations, enforce = _WORST_CASE, False
        elif variant == "mode":
            annotations, enforce = (_READ_ONLY if read_only else _WORST_CASE), read_only
        else:  # "naive" and "engine" declare the same hints; only "engine" keeps the promise
            annotations, enforce = _READ_ONLY, variant == "engine"

        @server.tool(title="Run a SQL query", description=query_doc, annotations=annotations)
        def execute_query(sql: str) -> str:
            return _run(database, sql, read_only=enforce)

    server.sandbox = sandbox  # type: ignore[attr-defined]
    server.database = database  # type: ignore[attr-defined]
    server.variant = variant  # type: ignore[attr-defined]
    return server
