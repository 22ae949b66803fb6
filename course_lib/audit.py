"""Auditing behaviour: what a tool call really changed, and whether that contradicts its hints.

Hints are what a server *says*; an audit records what a call *did*. The pieces, smallest first::

    snapshot(root)                 -> {name: State}   files and SQLite tables under a folder
    side_effects(before, after)    -> [SideEffect]    created / modified / deleted / db-write
    check_behaviour(tool, effects) -> str | None      "declared read-only, but it deleted ..."

The host that brackets every call with snapshots and logs it is `course_lib.host.Host`.

An auditor sees only what it can observe: here, the files and SQLite databases under one
folder. A write elsewhere (memory, a remote API) is invisible to it.

Introduced in: notebooks/05_lying_server.ipynb; used in 06_beyond_hints.ipynb.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from .annotations import AnnotationsLike, declared

__all__ = [
    "MAX_ENTRIES",
    "SideEffect",
    "State",
    "check_behaviour",
    "side_effects",
    "snapshot",
]

MAX_ENTRIES = 10_000
"""The most files and tables `snapshot` records; a bigger folder is refused."""

_SQLITE_MAGIC = b"SQLite format 3\x00"
_SIDECARS = ("-journal", "-wal", "-shm")  # SQLite's temporary companions of a database file


# --- observing state ---------------------------------------------------------------------------


@dataclass(frozen=True)
class State:
    """What `snapshot` records of one thing: its kind, its size and a digest of its content."""

    kind: str  # "file", "folder", "link", "database" or "table"
    size: int  # bytes (file), tables (database), rows (table); 0 for a folder or a link
    digest: str  # SHA-256 of the content (of a link: of its target; "" for a folder)


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def _is_sqlite(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(16) == _SQLITE_MAGIC
    except OSError:
        return False


def _database_states(path: Path, name: str) -> dict[str, State] | None:
    """Return the state of a SQLite database and of each of its tables (None if unreadable)."""
    try:
        # read-only: the auditor must never change what it observes
        connection = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return None
    try:
        schema = connection.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE "
            "'sqlite_%' ORDER BY name"
        ).fetchall()
        states: dict[str, State] = {}
        for table, sql in schema:
            quoted = '"' + table.replace('"', '""') + '"'
            # noqa: S608
            rows = sorted(repr(row) for row in connection.execute(f"SELECT * FROM {quoted}"))
            digest = hashlib.sha256("\n".join([sql or "", *rows]).encode("utf-8")).hexdigest()
            states[f"{name}:{table}"] = State("table", len(rows), digest)
        schema_digest = hashlib.sha256(repr(schema).encode("utf-8")).hexdigest()
        states[name] = State("database", len(schema), schema_digest)
        return states
    except sqlite3.Error:
        return None
    finally:
        connection.close()


def snapshot(root: str | os.PathLike[str]) -> dict[str, State]:
    """Record the state of everything under the folder `root`.

    Keys are paths relative to `root` with ``/`` separators (``"logs/app.log"``); folders are
    recorded too (so an empty folder created or removed is seen). A SQLite
    database is recorded by its content, not its bytes: one "database" entry (its table
    count) and one "table" entry per table, keyed ``"ops.db:incidents"`` (row count and a
    digest of the schema and rows). Symbolic links are recorded, never followed. SQLite's
    temporary files (``-journal``, ``-wal``, ``-shm``) are skipped.

    Raises:
        ValueError: `root` is not an existing folder, or holds more than `MAX_ENTRIES` entries.
    """
    if not isinstance(root, (str, os.PathLike)):
        raise ValueError(f"root must be a folder path, not {type(root).__name__}")
    base = Path(root)
    if not base.is_dir():
        raise ValueError(
            f"{str(base)!r} is not an existing folder; give the sandbox folder to audit (e.g. "
            "server.sandbox.root)"
        )
    states: dict[str, State] = {}
    for folder, dirs, files in os.walk(base, followlinks=False):
        dirs.sort()
        here = Path(folder)
        for name in sorted(files) + sorted(dirs):
            path = here / name
            key = path.relative_to(base).as_posix()
            if name in dirs and not path.is_symlink():
                states[key] = State("folder", 0, "")
            elif path.is_symlink():
                states[key] = State(
                    "link", 0, hashlib.sha256(os.readlink(path).encode("utf-8")).hexdigest()
                )
            elif name.endswith(_SIDECARS):
                continue
            elif _is_sqlite(path) and (tables := _database_states(path, key)) is not None:
                states.update(tables)
            else:
                try:
                    states[key] = State("file", path.stat().st_size, _sha256_file(path))
                except OSError:
                    # vanished or unreadable while we looked: record that we could not read it
                    states[key] = State("file", -1, "unreadable")
            if len(states) > MAX_ENTRIES:
                raise ValueError(
                    f"{str(base)!r} holds more than {MAX_ENTRIES} files and tables; audit a "
                    "smaller sandbox folder"
                )
    return states


@dataclass(frozen=True)
class SideEffect:
    """One change between two snapshots."""

    kind: str  # "created", "modified", "deleted" (files, links, databases) or "db-write" (a table)
    target: str  # "logs/app.log.1" or "ops.db:incidents"
    detail: str  # e.g. "was 44 bytes", "table dropped (had 3 rows)"
    # data was certainly removed or overwritten (deleted, shrank, dropped, rows removed or
    # changed)
    destructive: bool = False

    def __str__(self) -> str:
        return f"{self.kind} {self.target} ({self.detail})"


def _file_change(key: str, old: State | None, new: State | None) -> SideEffect:
    if old is None:
        assert new is not None
        size = f"{new.size} bytes" if new.kind == "file" else new.kind
        return SideEffect("created", key, f"new, {size}")
    if new is None:
        size = (
            f"{old.size} bytes"
            if old.kind == "file"
            else f"{old.size} tables"
            if old.kind == "database"
            else old.kind
        )
        return SideEffect("deleted", key, f"was {size}", destructive=True)
    if old.kind != new.kind:
        return SideEffect("modified", key, f"replaced: {old.kind} -> {new.kind}", destructive=True)
    if new.kind == "link":
        return SideEffect("modified", key, "the link now points elsewhere", destructive=True)
    if new.size < old.size:
        return SideEffect(
            "modified", key, f"shrank from {old.size} to {new.size} bytes", destructive=True
        )
    if new.size > old.size:
        return SideEffect("modified", key, f"grew from {old.size} to {new.size} bytes")
    return SideEffect("modified", key, f"rewritten, still {new.size} bytes", destructive=True)


def _table_change(key: str, old: State | None, new: State | None) -> SideEffect:
    if old is None:
        assert new is not None
        return SideEffect("db-write", key, f"table created ({new.size} rows)")
    if new is None:
        return SideEffect("db-write", key, f"table dropped (had {old.size} rows)", destructive=True)
    if new.size < old.size:
        return SideEffect(
            "db-write", key, f"rows deleted: {old.size} -> {new.size}", destructive=True
        )
    if new.size > old.size:
        return SideEffect("db-write", key, f"rows added: {old.size} -> {new.size}")
    return SideEffect(
        "db-write", key, f"rows or schema changed ({new.size} rows)", destructive=True
    )


def side_effects(before: Mapping[str, State], after: Mapping[str, State]) -> list[SideEffect]:
    """Return every change between two snapshots (from `snapshot`), sorted by target.

    A database whose schema changed is reported through its tables; a database created or
    deleted as a whole is reported as one file change.

    Raises:
        ValueError: `before` or `after` is not a snapshot.
    """
    for label, snap in (("before", before), ("after", after)):
        if not isinstance(snap, Mapping) or not all(isinstance(v, State) for v in snap.values()):
            raise ValueError(f"{label} must be a snapshot: the dict returned by snapshot(root)")
    effects = []
    for key in sorted(set(before) | set(after)):
        old, new = before.get(key), after.get(key)
        if old == new:
            continue
        kind = (new or old).kind  # type: ignore[union-attr]
        if kind == "table":
            database = key.rsplit(":", 1)[0]
            if (database in before) != (database in after):
                continue  # the whole database appeared or vanished: reported once, as a file
            effects.append(_table_change(key, old, new))
        elif kind == "database" and old is not None and new is not None:
            continue  # schema changes show up as table changes
        else:
            effects.append(_file_change(key, old, new))
    return effects


def check_behaviour(annotations: AnnotationsLike, effects: Iterable[SideEffect]) -> str | None:
    """Return what in the observed side effects contradicts the declared hints, or None.

    Two contradictions can be proved from outside: a tool that declares ``readOnlyHint: true``
    changed anything; a tool that declares ``destructiveHint: false`` (additive) removed or
    overwrote data. Absent hints promise nothing, so they are never contradicted.

    Raises:
        ValueError: malformed annotations, or `effects` holds something that is not a `SideEffect`.
    """
    values = declared(annotations)
    effects = list(effects)
    if not all(isinstance(e, SideEffect) for e in effects):
        raise ValueError(
            "effects must be SideEffect objects, as returned by side_effects(before, after)"
        )
    if not effects:
        return None
    if values["readOnlyHint"] is True:
        return "declared read-only, but it changed state: " + "; ".join(map(str, effects))
    destructive = [e for e in effects if e.destructive]
    if values["destructiveHint"] is False and values["readOnlyHint"] is not True and destructive:
        return (
            "declared additive (destructiveHint: false), but it removed or overwrote data: "
            + "; ".join(map(str, destructive))
        )
    return None
