"""The "ops-db" demo server: SQL on a real SQLite database, where risk depends on the arguments.

One `execute_query(sql)` tool runs a SELECT or a DROP TABLE alike; annotations describe the
tool, not the call. `variant` picks how the server answers that (facts §5.4):

| variant      | tools           | hints                                | engine enforces?      |
|--------------|-----------------|--------------------------------------|-----------------------|
| "naive"      | execute_query   | readOnly true (wrong for a DROP)     | no                    |
| "worst-case" | execute_query   | readOnly false, destructive true     | no                    |
| "split"      | query / execute | query read-only; execute destructive | query: yes            |
| "mode"       | execute_query   | derived from `read_only=`            | when `read_only=True` |
| "engine"     | execute_query   | readOnly true (as "naive")           | yes, read-only URI    |

"Enforced by the engine" means the tool opens the database with SQLite's read-only URI
flag (``mode=ro``): the database refuses any change to `ops.db`, whatever the hints say
(temporary tables, which live only for the connection, are still allowed). The database
(`ops.db`) sits in the sandbox folder and starts with two small tables, `incidents` and `deploys`.

Whatever the variant, every connection also refuses what would reach past `ops.db` or
never end: ``ATTACH`` and ``VACUUM INTO`` (both can create a database file anywhere, even
on a read-only connection; plain ``VACUUM`` uses ATTACH too), ``load_extension()`` and
``fts3_tokenizer()`` (which hands out native memory addresses) are denied by an authoriser;
a statement still running after `TIME_LIMIT` seconds is interrupted by a timer (and no
single call may run long: LIKE/GLOB patterns are short, `instr` and `replace` are linear);
a result is cut at `MAX_ROWS` rows and `MAX_RESULT_CHARS` characters. `ops.db` is checked
on every call: a symbolic link, hard link or special file in its place is refused.

Run it for a real client with ``python -m course_lib serve ops-db --root DIR``
(the default variant, "worst-case").

Introduced in: notebooks/06_beyond_hints.ipynb
"""

from __future__ import annotations

import os
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

from ._demo import DemoServer
from ._sandbox import Sandbox
from ._sql_guards import MAX_VALUE_BYTES, open_guarded

__all__ = [
    "DATABASE",
    "MAX_RESULT_CHARS",
    "MAX_ROWS",
    "MAX_VALUE_BYTES",
    "NAME",
    "TIME_LIMIT",
    "VARIANTS",
    "OpsDb",
    "ops_db_server",
    "seed_database",
]

NAME = "ops-db"
DATABASE = "ops.db"
MAX_ROWS = 50
TIME_LIMIT = 2.0
"""Seconds a statement may run before SQLite is told to stop it."""
MAX_RESULT_CHARS = 20_000
"""The most characters a result returns, however many rows and columns it has."""
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
"""  # noqa: E501 (the schema text is stored in the database as written)

_READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
_WORST_CASE = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False
)


def _checked(sandbox: Sandbox) -> Path:
    """The path of `ops.db`, after checking (on every call) that it is still a plain file in the
    sandbox."""
    # refuses a symbolic link, hard link, FIFO or device put in its place
    sandbox.check_file(DATABASE)
    return sandbox.root / DATABASE


def seed_database(path: str | os.PathLike[str]) -> Path:
    """Create the demo database at `path` unless something (even a dangling link) is already there;
    return its path."""
    path = Path(path)
    if not os.path.lexists(path):
        with sqlite3.connect(
            f"{path.absolute().as_uri()}?mode=rwc&nofollow=1", uri=True
        ) as connection:
            connection.executescript(_SEED_SQL)
        connection.close()
    return path


def _rows(cursor: sqlite3.Cursor) -> str:
    """The rows as text: at most `MAX_ROWS` rows and `MAX_RESULT_CHARS` characters, fetched one at a
    time."""
    lines = [" | ".join(column[0] for column in cursor.description)]
    size = len(lines[0])
    for count, row in enumerate(iter(cursor.fetchone, None)):
        if count == MAX_ROWS:
            lines.append(f"... (first {MAX_ROWS} rows shown)")
            break
        budget = MAX_RESULT_CHARS - size  # no value is turned into more text than could be shown
        line = " | ".join(
            str(v[:budget] if isinstance(v, (str, bytes)) else v)[:budget] for v in row
        )
        if size + len(line) > MAX_RESULT_CHARS:
            lines.append(line[: max(0, MAX_RESULT_CHARS - size)])
            lines.append(
                f"... (result cut at {MAX_RESULT_CHARS} characters; select fewer columns or "
                "shorter values)"
            )
            break
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)


def _run(database: Path, sql: str, *, read_only: bool, time_limit: float = TIME_LIMIT) -> str:
    """Run one SQL statement; return the rows (for a query) or a change count, as text.

    Raises:
        ToolError: the statement is empty, is several statements, ran longer than
            `time_limit` seconds, or SQLite refused it.
    """
    if not isinstance(sql, str) or not sql.strip():
        raise ToolError("sql is empty: give one SQL statement, e.g. 'SELECT * FROM incidents'")
    try:
        connection, refused = open_guarded(database, read_only=read_only)
    except sqlite3.Error as exc:  # e.g. a link planted at ops.db-wal or ops.db-journal
        raise ToolError(
            f"SQLite could not open {DATABASE} ({exc}); check the files beside it"
        ) from None
    # A sync tool runs on a worker thread nobody can cancel: a timer thread interrupts the
    # statement from outside (a progress handler is not called inside one long C call).
    lock, state = threading.Lock(), {"done": False, "timed_out": False}

    def stop() -> None:
        with lock:
            if not state["done"]:
                state["timed_out"] = True
                connection.interrupt()

    timer = threading.Timer(time_limit, stop)
    timer.daemon = True
    timer.start()
    try:
        cursor = connection.execute(sql)
        if cursor.description is None:
            changed = f"; {cursor.rowcount} row(s) changed" if cursor.rowcount >= 0 else ""
            return f"statement ran{changed}"
        return _rows(cursor)
    except (sqlite3.Error, sqlite3.Warning) as exc:
        if state["timed_out"]:
            raise ToolError(
                f"the statement ran longer than {time_limit:g} s and was stopped; add a WHERE or "
                "a LIMIT, "
                "or check a recursive query for a missing end condition"
            ) from None
        if refused:
            raise ToolError(refused[0]) from None
        raise ToolError(f"SQLite refused the statement: {exc}") from None
    finally:
        with lock:
            state["done"] = True
            timer.cancel()
        connection.close()


@dataclass(eq=False)
class OpsDb(DemoServer):
    """The ops-db server, its sandbox, the path of its `database` (`ops.db`) and its `variant`."""

    database: Path
    variant: str


def ops_db_server(
    root: str | os.PathLike[str] | None = None,
    *,
    variant: str = "worst-case",
    read_only: bool = False,
    time_limit: float = TIME_LIMIT,
) -> OpsDb:
    """Build a fresh ops-db server of the given `variant` (see the module table) in sandbox `root`.

    `read_only` is the deployment flag of the "mode" variant (ignored by the others).
    `time_limit` is how many seconds one statement may run.

    Raises:
        ValueError: an unknown variant, `read_only` is not a bool, or `time_limit` is not a positive
        number.
    """
    if variant not in VARIANTS:
        raise ValueError(
            f"variant must be one of {', '.join(map(repr, VARIANTS))}, not {variant!r}"
        )
    if not isinstance(read_only, bool):
        raise ValueError(f"read_only must be True or False, not {read_only!r}")
    if (
        isinstance(time_limit, bool)
        or not isinstance(time_limit, (int, float))
        or not 0 < time_limit <= 600
    ):
        raise ValueError(
            f"time_limit must be a number of seconds above 0 (at most 600), not {time_limit!r}"
        )
    sandbox = Sandbox(root, prefix="ops-db-")
    database = seed_database(sandbox.root / sandbox.name(DATABASE))
    sandbox.check_file(DATABASE)
    server = MCPServer(
        NAME,
        instructions="SQL access to the operations database (incidents, deploys).",
        log_level="WARNING",
    )
    query_doc = "Run one SQL statement on the operations database and return the rows."

    if variant == "split":

        @server.tool(
            title="Query the operations database", annotations=_READ_ONLY, structured_output=False
        )
        def query(sql: str) -> str:
            """Run one read-only SQL query (SELECT) on the operations database and return the rows."""  # noqa: E501
            return _run(_checked(sandbox), sql, read_only=True, time_limit=time_limit)

        @server.tool(
            title="Change the operations database", annotations=_WORST_CASE, structured_output=False
        )
        def execute(sql: str) -> str:
            """Run one SQL statement that may change the operations database (INSERT, UPDATE, DELETE, DROP...)."""  # noqa: E501
            return _run(_checked(sandbox), sql, read_only=False, time_limit=time_limit)

    else:
        if variant == "worst-case":
            annotations, enforce = _WORST_CASE, False
        elif variant == "mode":
            annotations, enforce = (_READ_ONLY if read_only else _WORST_CASE), read_only
        else:  # "naive" and "engine" declare the same hints; only "engine" keeps the promise
            annotations, enforce = _READ_ONLY, variant == "engine"

        @server.tool(
            title="Run a SQL query",
            description=query_doc,
            annotations=annotations,
            structured_output=False,
        )
        def execute_query(sql: str) -> str:
            return _run(_checked(sandbox), sql, read_only=enforce, time_limit=time_limit)

    return OpsDb(server, sandbox, database, variant)
