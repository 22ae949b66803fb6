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
flag (``mode=ro``): the database refuses any change to `ops.db`, whatever the hints say
(temporary tables, which live only for the connection, are still allowed). The database
(`ops.db`) sits in the sandbox folder and starts with two small tables, `incidents` and `deploys`.

Whatever the variant, every connection also refuses what would reach past `ops.db` or
never end: ``ATTACH`` and ``VACUUM INTO`` (both can create a database file anywhere, even
on a read-only connection; plain ``VACUUM`` uses ATTACH too) are denied by an authoriser, and a statement that runs longer
than `TIME_LIMIT` seconds is stopped.

Run it for a real client with ``python -m course_lib serve ops-db --root DIR``
(the default variant, "worst-case").

Introduced in: notebooks/06_beyond_hints.ipynb
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

from ._sandbox import Sandbox

__all__ = ["DATABASE", "MAX_ROWS", "MAX_VALUE_BYTES", "NAME", "TIME_LIMIT", "VARIANTS", "build_server", "seed_database"]

NAME = "ops-db"
DATABASE = "ops.db"
MAX_ROWS = 50
TIME_LIMIT = 2.0
"""Seconds a statement may run before SQLite is told to stop it."""
MAX_VALUE_BYTES = 1_000_000
"""The largest string or blob a statement may build (SQLite's length limit), so one query cannot exhaust memory."""
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


def _deny_attach(action: int, *_: object) -> int:
    """SQLite authoriser: refuse ATTACH (which VACUUM INTO uses too); allow everything else."""
    return sqlite3.SQLITE_DENY if action == sqlite3.SQLITE_ATTACH else sqlite3.SQLITE_OK


def _open(database: Path, *, read_only: bool, time_limit: float) -> tuple[sqlite3.Connection, list[bool]]:
    """Open `database` with the guards every variant needs; return the connection and a "timed out" flag."""
    if read_only:
        # SQLite's own read-only mode: the engine refuses every change to the file, whatever the tool declares
        connection = sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True, isolation_level=None)
    else:
        connection = sqlite3.connect(database, isolation_level=None)
    # ATTACH and VACUUM INTO create database files wherever the SQL says, even on a mode=ro
    # connection: deny them, so no statement can reach outside the sandbox
    connection.set_authorizer(_deny_attach)
    if hasattr(connection, "setlimit"):  # Python 3.11+; the authoriser alone is enough on 3.10
        connection.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
        connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
    # a sync tool runs on a worker thread nobody can cancel: SQLite must stop a runaway statement itself
    deadline = time.monotonic() + time_limit
    timed_out = [False]

    def past_deadline() -> int:
        if time.monotonic() > deadline:
            timed_out[0] = True
            return 1  # non-zero: SQLite interrupts the statement
        return 0

    connection.set_progress_handler(past_deadline, 10_000)
    return connection, timed_out


def _run(database: Path, sql: str, *, read_only: bool, time_limit: float = TIME_LIMIT) -> str:
    """Run one SQL statement; return the rows (for a query) or a change count, as text.

    Raises:
        ToolError: the statement is empty, is several statements, ran longer than
            `time_limit` seconds, or SQLite refused it.
    """
    if not isinstance(sql, str) or not sql.strip():
        raise ToolError("sql is empty: give one SQL statement, e.g. 'SELECT * FROM incidents'")
    connection, timed_out = _open(database, read_only=read_only, time_limit=time_limit)
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
        if timed_out[0]:
            raise ToolError(
                f"the statement ran longer than {time_limit:g} s and was stopped; add a WHERE or a LIMIT, "
                "or check a recursive query for a missing end condition"
            ) from None
        if str(exc) in ("not authorized", "authorization denied"):  # only ATTACH is denied (VACUUM uses it too)
            raise ToolError("not allowed: ATTACH and VACUUM (INTO) can create database files outside the sandbox") from None
        raise ToolError(f"SQLite refused the statement: {exc}") from None
    finally:
        connection.close()


def build_server(
    root: str | os.PathLike[str] | None = None,
    *,
    variant: str = "worst-case",
    read_only: bool = False,
    time_limit: float = TIME_LIMIT,
) -> MCPServer:
    """Build a fresh ops-db server of the given `variant` (see the module table) in sandbox `root`.

    `read_only` is the deployment flag of the "mode" variant (ignored by the others).
    `time_limit` is how many seconds one statement may run. The server carries
    `server.sandbox`, `server.database` (the path of `ops.db`) and `server.variant`.

    Raises:
        ValueError: an unknown variant, `read_only` is not a bool, or `time_limit` is not a positive number.
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(map(repr, VARIANTS))}, not {variant!r}")
    if not isinstance(read_only, bool):
        raise ValueError(f"read_only must be True or False, not {read_only!r}")
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or not 0 < time_limit <= 600:
        raise ValueError(f"time_limit must be a number of seconds above 0 (at most 600), not {time_limit!r}")
    sandbox = Sandbox(root, prefix="ops-db-")
    database = seed_database(sandbox.resolve(DATABASE))
    server = MCPServer(NAME, instructions="SQL access to the operations database (incidents, deploys).", log_level="WARNING")
    query_doc = "Run one SQL statement on the operations database and return the rows."

    if variant == "split":

        @server.tool(title="Query the operations database", annotations=_READ_ONLY, structured_output=False)
        def query(sql: str) -> str:
            """Run one read-only SQL query (SELECT) on the operations database and return the rows."""
            return _run(database, sql, read_only=True, time_limit=time_limit)

        @server.tool(title="Change the operations database", annotations=_WORST_CASE, structured_output=False)
        def execute(sql: str) -> str:
            """Run one SQL statement that may change the operations database (INSERT, UPDATE, DELETE, DROP...)."""
            return _run(database, sql, read_only=False, time_limit=time_limit)

    else:
        if variant == "worst-case":
            annotations, enforce = _WORST_CASE, False
        elif variant == "mode":
            annotations, enforce = (_READ_ONLY if read_only else _WORST_CASE), read_only
        else:  # "naive" and "engine" declare the same hints; only "engine" keeps the promise
            annotations, enforce = _READ_ONLY, variant == "engine"

        @server.tool(title="Run a SQL query", description=query_doc, annotations=annotations, structured_output=False)
        def execute_query(sql: str) -> str:
            return _run(database, sql, read_only=enforce, time_limit=time_limit)

    server.sandbox = sandbox  # type: ignore[attr-defined]
    server.database = database  # type: ignore[attr-defined]
    server.variant = variant  # type: ignore[attr-defined]
    return server
