"""The guards on the SQL demo server's engine: what SQLite is told to refuse, and the
functions replaced by versions a time limit can stop.

SQLite runs some functions (LIKE/GLOB, instr, replace, two-argument trim) inside one C call
that `Connection.interrupt()` cannot reach, in time that grows with the product of their
inputs' lengths; those are replaced by linear versions or given short inputs. ATTACH,
VACUUM INTO, extension loading, `fts3_tokenizer()` and the PRAGMAs that move files are
denied by an authoriser, each with its own message.

Introduced in: notebooks/06_beyond_hints.ipynb (through `course_lib.servers.ops_db`).
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

__all__ = ["MAX_COLUMNS", "MAX_PATTERN", "MAX_VALUE_BYTES", "open_guarded"]

MAX_VALUE_BYTES = 1_000_000
"""The largest string or blob a statement may build (SQLite's length limit), so one query cannot
exhaust memory."""
MAX_COLUMNS = 100
MAX_PATTERN = 100
"""The longest LIKE/GLOB pattern: SQLite matches one inside one C call no timer can interrupt."""

_REFUSED = {
    "attach": "not allowed: ATTACH and VACUUM (INTO) can create database files outside the sandbox",
    "load_extension": (
        "not allowed: load_extension() would load native code from a file; extensions are disabled"
    ),
    "fts3_tokenizer": (
        "not allowed: fts3_tokenizer() exposes native memory addresses; it is disabled"
    ),
    "pragma": (
        "not allowed: this PRAGMA changes where or how SQLite writes files (journal, temporary "
        "files)"
    ),
}
_FILE_PRAGMAS = frozenset({"journal_mode", "temp_store_directory", "data_store_directory"})


def _authoriser(refused: list[str]) -> Any:
    """An SQLite authoriser denying ATTACH and the dangerous functions, noting why in `refused`."""

    def authorise(action: int, arg1: object, arg2: object, *_: object) -> int:
        if action == sqlite3.SQLITE_ATTACH:
            refused.append(_REFUSED["attach"])
            return sqlite3.SQLITE_DENY
        if (
            action == sqlite3.SQLITE_PRAGMA
            and str(arg1).lower() in _FILE_PRAGMAS
            and arg2 is not None
        ):
            refused.append(
                _REFUSED["pragma"]
            )  # WAL adds -wal/-shm files; a directory may be anywhere
            return sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_FUNCTION and isinstance(arg2, str) and arg2.lower() in _REFUSED:
            refused.append(_REFUSED[arg2.lower()])
            return sqlite3.SQLITE_DENY
        return sqlite3.SQLITE_OK

    return authorise


def _text(value: object) -> str | bytes | None:
    return value if value is None or isinstance(value, (str, bytes)) else str(value)


def _instr(haystack: object, needle: object) -> int | None:
    """SQLite's instr() in linear time (SQLite's own is quadratic in one uninterruptible call)."""
    haystack, needle = _text(haystack), _text(needle)
    if haystack is None or needle is None:
        return None
    if isinstance(haystack, bytes) != isinstance(needle, bytes):
        haystack, needle = str(haystack), str(needle)
    return haystack.find(needle) + 1  # type: ignore[arg-type]


def _replace(text: object, old: object, new: object) -> str | bytes | None:
    """SQLite's replace() in linear time (see `_instr`); refuses a result over MAX_VALUE_BYTES."""
    text, old, new = _text(text), _text(old), _text(new)
    if text is None or old is None or new is None:
        return None
    if not old:
        return text
    if not (isinstance(text, bytes) and isinstance(old, bytes) and isinstance(new, bytes)):
        text, old, new = (
            v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in (text, old, new)
        )
    if len(text) + text.count(old) * max(0, len(new) - len(old)) > MAX_VALUE_BYTES:  # type: ignore[arg-type]
        raise sqlite3.DataError(
            f"not allowed: replace() would build a value over {MAX_VALUE_BYTES} bytes"
        )
    return text.replace(old, new)  # type: ignore[arg-type]


def _noting(function: Any, refused: list[str]) -> Any:
    """`function`, noting in `refused` why it refused.

    SQLite itself reports only "user-defined function raised exception".
    """

    def noted(*args: object) -> object:
        try:
            return function(*args)
        except sqlite3.DataError as exc:
            refused.append(str(exc))
            raise

    return noted


def _trimmer(left: bool, right: bool) -> Any:
    """SQLite's two-argument trim/ltrim/rtrim in linear time.

    SQLite's own takes len(X) * len(Y) steps in one call no interrupt reaches.
    """

    def trim(text: object, chars: object) -> str | None:
        text, chars = _text(text), _text(chars)
        if text is None or chars is None:
            return None
        text, chars = (
            v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in (text, chars)
        )
        keep, start, end = set(chars), 0, len(text)
        while left and start < end and text[start] in keep:
            start += 1
        while right and end > start and text[end - 1] in keep:
            end -= 1
        return text[start:end]

    return trim


_matcher = threading.local()


def _matching(operator: str, max_arguments: int, refused: list[str]) -> Any:
    """SQLite's `operator` (LIKE or GLOB), refusing patterns longer than `MAX_PATTERN` (noted in
    `refused`).

    SQLite matches a pattern inside one C call that no interrupt reaches, in time that grows
    with the pattern's length times the text's: a short pattern keeps every call short.
    The matching itself is SQLite's own, on a private in-memory connection.
    """
    escape = " ESCAPE ?" if max_arguments == 3 else ""
    sql = f"SELECT ? {operator} ?{escape}"

    def match(pattern: object, value: object, *escape_char: object) -> object:
        if isinstance(pattern, (str, bytes)) and len(pattern) > MAX_PATTERN:
            refused.append(
                f"not allowed: the {operator} pattern is {len(pattern)} characters long; the "
                f"limit is {MAX_PATTERN} "
                "(a long pattern over a long text runs inside one SQLite call that cannot be "
                "stopped)"
            )
            raise sqlite3.DataError(refused[-1])
        connection = getattr(_matcher, "connection", None)
        if connection is None:
            connection = _matcher.connection = sqlite3.connect(":memory:")
        return connection.execute(sql, (value, pattern, *escape_char)).fetchone()[0]

    return match


def open_guarded(database: Path, *, read_only: bool) -> tuple[sqlite3.Connection, list[str]]:
    """Open `database` with the guards every variant needs; return the connection and what it
    refused."""
    # nofollow: SQLite itself refuses to open ops.db if it has become a symbolic link
    mode = "ro" if read_only else "rw"
    # mode=ro is SQLite's own read-only mode: the engine refuses every change to the file,
    # whatever the tool declares
    connection = sqlite3.connect(
        f"{database.as_uri()}?mode={mode}&nofollow=1", uri=True, isolation_level=None
    )
    if not read_only:  # before the authoriser, which refuses journal_mode changes
        connection.execute(
            "PRAGMA journal_mode=MEMORY"
        )  # no journal file beside ops.db to plant a link at
    # ATTACH and VACUUM INTO create database files wherever the SQL says, even on a mode=ro
    # connection: deny them, so no statement can reach outside the sandbox
    refused: list[str] = []
    connection.set_authorizer(_authoriser(refused))
    if hasattr(connection, "setlimit"):  # Python 3.11+; the authoriser alone is enough on 3.10
        limits = {"ATTACHED": 0, "LENGTH": MAX_VALUE_BYTES, "COLUMN": MAX_COLUMNS}
        for name, value in limits.items():
            connection.setlimit(getattr(sqlite3, f"SQLITE_LIMIT_{name}"), value)
    connection.create_function("instr", 2, _instr, deterministic=True)
    for operator, arguments in (("LIKE", 2), ("LIKE", 3), ("GLOB", 2)):
        connection.create_function(
            operator.lower(), arguments, _matching(operator, arguments, refused), deterministic=True
        )
    connection.create_function("replace", 3, _noting(_replace, refused), deterministic=True)
    for name, left, right in (("trim", True, True), ("ltrim", True, False), ("rtrim", False, True)):
        connection.create_function(name, 2, _trimmer(left, right), deterministic=True)
    return connection, refused
