"""Auditing behaviour: what a tool call really changed, a log of every call, trust that follows behaviour.

Hints are what a server *says*; an audit records what a call *did*. The pieces, smallest first::

    snapshot(root)                 -> {name: State}   files and SQLite tables under a folder
    side_effects(before, after)    -> [SideEffect]    created / modified / deleted / db-write
    check_behaviour(tool, effects) -> str | None      "declared read-only, but it deleted ..."
    TrustBook                      a trust level per server, lowered when a server is caught
    AuditLog                       every call as an AuditEvent; .to_frame() for pandas
    Host                           a client host: policy + confirmation + audit + trust
    server_identity(target)        what a host knows a server by: its command, URL or object

Trust and pins belong to a server *as the host configured it*: `Host(servers={"log-tidy": target})`
names what the host launched or connected to. A server the host did not configure is
"unlisted", whatever name it gives itself, so it can never borrow a configured server's trust.

`Host.call` is the loop of lesson 05: decide with a `course_lib.policy` policy at the
server's current trust level, ask the user (showing the real arguments) when the decision
says so, snapshot the sandbox before and after the call, record the side effects, and lower
the server's trust when a tool changed state it declared it would not change.

An auditor sees only what it can observe: here, the files and SQLite databases under one
folder. A write elsewhere (memory, a remote API) is invisible to it.

Introduced in: notebooks/05_lying_server.ipynb; used in 06_beyond_hints.ipynb.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import sqlite3
import textwrap
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
from mcp import Client, StdioServerParameters
from mcp.types import Tool

from .annotations import declared, display_title
from .pinning import PinStore
from .policy import SPEC, Decision, Policy, PreCall, Trust

__all__ = [
    "MAX_ENTRIES",
    "AuditEvent",
    "AuditLog",
    "ConfirmationRequest",
    "Host",
    "SideEffect",
    "State",
    "TrustBook",
    "TrustChange",
    "approve_all",
    "check_behaviour",
    "decline_all",
    "server_identity",
    "side_effects",
    "snapshot",
]

MAX_ENTRIES = 10_000
"""The most files and tables `snapshot` records; a bigger folder is refused (audit a smaller sandbox)."""

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
    """Return the state of a SQLite database and of each of its tables, or None if it cannot be read."""
    try:
        # read-only: the auditor must never change what it observes
        connection = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return None
    try:
        schema = connection.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        ).fetchall()
        states: dict[str, State] = {}
        for table, sql in schema:
            quoted = '"' + table.replace('"', '""') + '"'
            rows = sorted(repr(row) for row in connection.execute(f"SELECT * FROM {quoted}"))  # noqa: S608
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
        raise ValueError(f"{str(base)!r} is not an existing folder; give the sandbox folder to audit (e.g. server.sandbox.root)")
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
                states[key] = State("link", 0, hashlib.sha256(os.readlink(path).encode("utf-8")).hexdigest())
            elif name.endswith(_SIDECARS):
                continue
            elif _is_sqlite(path) and (tables := _database_states(path, key)) is not None:
                states.update(tables)
            else:
                try:
                    states[key] = State("file", path.stat().st_size, _sha256_file(path))
                except OSError:  # vanished or unreadable while we looked: record that we could not read it
                    states[key] = State("file", -1, "unreadable")
            if len(states) > MAX_ENTRIES:
                raise ValueError(f"{str(base)!r} holds more than {MAX_ENTRIES} files and tables; audit a smaller sandbox folder")
    return states


@dataclass(frozen=True)
class SideEffect:
    """One change between two snapshots."""

    kind: str  # "created", "modified", "deleted" (files, links, databases) or "db-write" (a table)
    target: str  # "logs/app.log.1" or "ops.db:incidents"
    detail: str  # e.g. "was 44 bytes", "table dropped (had 3 rows)"
    destructive: bool = False  # data was certainly removed or overwritten (deleted, shrank, dropped, rows removed or changed)

    def __str__(self) -> str:
        return f"{self.kind} {self.target} ({self.detail})"


def _file_change(key: str, old: State | None, new: State | None) -> SideEffect:
    if old is None:
        assert new is not None
        size = f"{new.size} bytes" if new.kind == "file" else new.kind
        return SideEffect("created", key, f"new, {size}")
    if new is None:
        size = f"{old.size} bytes" if old.kind == "file" else f"{old.size} tables" if old.kind == "database" else old.kind
        return SideEffect("deleted", key, f"was {size}", destructive=True)
    if old.kind != new.kind:
        return SideEffect("modified", key, f"replaced: {old.kind} -> {new.kind}", destructive=True)
    if new.kind == "link":
        return SideEffect("modified", key, "the link now points elsewhere", destructive=True)
    if new.size < old.size:
        return SideEffect("modified", key, f"shrank from {old.size} to {new.size} bytes", destructive=True)
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
        return SideEffect("db-write", key, f"rows deleted: {old.size} -> {new.size}", destructive=True)
    if new.size > old.size:
        return SideEffect("db-write", key, f"rows added: {old.size} -> {new.size}")
    return SideEffect("db-write", key, f"rows or schema changed ({new.size} rows)", destructive=True)


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


def check_behaviour(annotations: Any, effects: Iterable[SideEffect]) -> str | None:
    """Return what contradicts the declared hints in the observed side effects, or None if nothing does.

    Two contradictions can be proved from outside: a tool that declares ``readOnlyHint: true``
    changed anything; a tool that declares ``destructiveHint: false`` (additive) removed or
    overwrote data. Absent hints promise nothing, so they are never contradicted.

    Raises:
        ValueError: malformed annotations, or `effects` holds something that is not a `SideEffect`.
    """
    values = declared(annotations)
    effects = list(effects)
    if not all(isinstance(e, SideEffect) for e in effects):
        raise ValueError("effects must be SideEffect objects, as returned by side_effects(before, after)")
    if not effects:
        return None
    if values["readOnlyHint"] is True:
        return "declared read-only, but it changed state: " + "; ".join(map(str, effects))
    destructive = [e for e in effects if e.destructive]
    if values["destructiveHint"] is False and values["readOnlyHint"] is not True and destructive:
        return "declared additive (destructiveHint: false), but it removed or overwrote data: " + "; ".join(map(str, destructive))
    return None


# --- trust that follows behaviour ---------------------------------------------------------------


@dataclass(frozen=True)
class TrustChange:
    """One change of a server's trust level, and why."""

    server: str
    old: Trust
    new: Trust
    reason: str


def _level(value: Any) -> Trust:
    try:
        return value if isinstance(value, Trust) else Trust(str(value).strip().lower())
    except ValueError:
        raise ValueError(f"unknown trust level {value!r}: use Trust.TRUSTED or Trust.UNTRUSTED") from None


class TrustBook:
    """The trust level of each server, by the name the host gave it, with the history of every change.

    A server nobody configured is untrusted, as the spec requires. The names are the host's
    own (the keys of `Host(servers=...)`, like the keys of a client's server configuration),
    never the name a server declares about itself: `Host` maps each connection to the
    configured name of what it connected to, so a second server cannot borrow a trusted name.
    """

    def __init__(self, levels: Mapping[str, Trust | str] | None = None, *, default: Trust | str = Trust.UNTRUSTED) -> None:
        if levels is not None and not isinstance(levels, Mapping):
            raise ValueError("levels must be a dict of server name -> trust level, e.g. {'file-ops': 'trusted'}")
        self.default = _level(default)
        self._levels: dict[str, Trust] = {self._name(s): _level(t) for s, t in (levels or {}).items()}
        self.history: list[TrustChange] = []

    @staticmethod
    def _name(server: Any) -> str:
        if not isinstance(server, str) or not server:
            raise ValueError(f"a server is named by a non-empty string, not {server!r}")
        return server

    def level(self, server: str) -> Trust:
        """Return the server's current trust level."""
        return self._levels.get(self._name(server), self.default)

    def set(self, server: str, level: Trust | str, reason: str) -> Trust:
        """Set a server's trust level, recording why; return the new level."""
        server, new = self._name(server), _level(level)
        old = self.level(server)
        self._levels[server] = new
        if new != old:
            self.history.append(TrustChange(server, old, new, reason))
        return new

    def downgrade(self, server: str, reason: str) -> Trust:
        """Lower a server's trust to untrusted because of what it did; return the new level."""
        return self.set(server, Trust.UNTRUSTED, reason)

    def to_frame(self) -> pd.DataFrame:
        """Return the history of trust changes, one row per change."""
        rows = [{"server": c.server, "from": str(c.old), "to": str(c.new), "reason": c.reason} for c in self.history]
        return pd.DataFrame(rows, columns=["server", "from", "to", "reason"])


# --- the audit log -----------------------------------------------------------------------------


@dataclass(frozen=True)
class AuditEvent:
    """One tool call as the host saw it: decision, confirmation, outcome, side effects, finding."""

    server: str
    tool: str
    arguments: str  # compact JSON of the arguments the model sent
    trust: str  # the server's trust level when the call was decided
    decision: str  # the `PreCall` value
    confirmation: str  # "not asked", "approved" or "declined"
    outcome: str  # "ok", "tool error: ...", "not run" or "denied"
    side_effects: tuple[SideEffect, ...] = ()
    finding: str = ""  # what contradicted the hints ("" when nothing did)
    trust_after: str = ""
    result: str = ""  # the text the tool answered ("" when it did not run)


class AuditLog:
    """Every call a host made or refused, in order."""

    COLUMNS = ("server", "tool", "arguments", "trust", "decision", "confirmation", "outcome", "side effects", "finding", "trust after")

    def __init__(self) -> None:
        self.events: list[AuditEvent] = []

    def __len__(self) -> int:
        return len(self.events)

    def __iter__(self) -> Iterator[AuditEvent]:
        return iter(self.events)

    def __repr__(self) -> str:
        return f"<AuditLog: {len(self)} call(s)>"

    def record(self, event: AuditEvent) -> AuditEvent:
        """Append an event; return it.

        Raises:
            ValueError: `event` is not an `AuditEvent`.
        """
        if not isinstance(event, AuditEvent):
            raise ValueError(f"record takes an AuditEvent, not {type(event).__name__}")
        self.events.append(event)
        return event

    def to_frame(self) -> pd.DataFrame:
        """Return one row per call (numbered from 1), side effects joined into one readable cell."""
        rows = [
            {
                "server": e.server,
                "tool": e.tool,
                "arguments": e.arguments,
                "trust": e.trust,
                "decision": e.decision,
                "confirmation": e.confirmation,
                "outcome": e.outcome,
                "side effects": "; ".join(map(str, e.side_effects)),
                "finding": e.finding,
                "trust after": e.trust_after,
            }
            for e in self.events
        ]
        return pd.DataFrame(rows, columns=list(self.COLUMNS), index=pd.RangeIndex(1, len(rows) + 1, name="call"))


# --- the host ----------------------------------------------------------------------------------

UNLISTED = "(unlisted"


def server_identity(target: Any) -> tuple[str, Any]:
    """Return what a host knows a server by: ``("url", url)``, ``("command", line)`` or ``("object", id)``.

    `target` is what a client connects to: a URL (a string starting with ``http://`` or
    ``https://``), a command (a list of strings, a shell-style string or
    `StdioServerParameters`), a server object (in-process), or the `mcp.Client` connected to
    one of these. Two targets are the same server exactly when their identities are equal; a
    server object is identified by the object itself, never by the name it declares.
    """
    if isinstance(target, Client):
        target = target.server
        # course_lib.connection (like the SDK's stdio_client) wraps a command in a transport that keeps its parameters
        arguments = getattr(target, "args", None)
        if isinstance(arguments, tuple) and arguments and isinstance(arguments[0], StdioServerParameters):
            target = arguments[0]
    if isinstance(target, str) and target.startswith(("http://", "https://")):
        return ("url", target)
    if isinstance(target, (str, list, tuple)):
        argv = shlex.split(target) if isinstance(target, str) else [str(a) for a in target]
        return ("command", shlex.join(argv))
    if isinstance(target, StdioServerParameters):
        return ("command", shlex.join([target.command, *target.args]))
    return ("object", id(target))


def _describe(client: Any, identity: tuple[str, Any]) -> str:
    """The name an unlisted server gets: its self-declared name, marked as unlisted, and how it was reached."""
    info = getattr(client, "server_info", None)
    claimed = getattr(info, "name", None) or "unknown server"
    how = {"url": f"at {identity[1]}", "command": f"run as {identity[1]}", "object": "in-process"}[identity[0]]
    return f"{claimed} {UNLISTED}, {how})"


@dataclass(frozen=True)
class ConfirmationRequest:
    """What the user sees before a call: the tool, the real arguments, and why they are asked."""

    server: str
    tool: str
    title: str
    arguments: dict[str, Any]
    decision: PreCall
    reason: str
    annotations: Any = None

    @property
    def text(self) -> str:
        """The prompt as a host would show it."""
        warning = "  WARNING: this call may delete or overwrite data.\n" if self.decision is PreCall.WARN else ""
        why = textwrap.fill(
            f"why you are asked: {self.reason}", width=90, initial_indent="  ", subsequent_indent="    ", break_on_hyphens=False
        )
        return (
            f"Allow {self.title!r} ({self.tool}) from server {self.server!r}?\n"
            f"{warning}"
            f"  arguments: {json.dumps(self.arguments, sort_keys=True, ensure_ascii=False)}\n"
            f"{why}"
        )


Approver = Callable[[ConfirmationRequest], bool]


def approve_all(request: ConfirmationRequest) -> bool:
    """A user who clicks "Allow" on every prompt (approval fatigue)."""
    return True


def decline_all(request: ConfirmationRequest) -> bool:
    """A user who declines every prompt (or a host with nobody to ask)."""
    return False


def _arguments_json(arguments: Mapping[str, Any]) -> str:
    return json.dumps(dict(arguments), sort_keys=True, ensure_ascii=False, default=str)


@dataclass
class Host:
    """A client host: it decides, asks, calls, audits and adjusts trust, recording every call in `log`.

    `servers` is the host's configuration: the name it gives each server -> what it launched
    or connected to (a server object, a command or a URL; see `server_identity`). Every call
    is logged, trusted and pinned under that name; a server not in `servers` is
    "unlisted" (``"log-tidy (unlisted, in-process)"``) and gets the trust book's default,
    whatever name it declares. `policy` decides at the server's trust level in `trust`.
    `approve` plays the user: it gets a `ConfirmationRequest` and returns True to allow
    (default: `decline_all`, nobody to ask). `sensitive_tools` are names the host always
    confirms, whatever the hints say. With `audit_root`, every call that runs is bracketed by
    `snapshot`s of that folder; a call that contradicts its hints is flagged and its server
    downgraded. With `pins`, a tool whose definition is new or changed since approval needs
    the user's (re-)approval.
    """

    policy: Policy = SPEC
    trust: TrustBook = field(default_factory=TrustBook)
    approve: Approver = decline_all
    audit_root: str | os.PathLike[str] | None = None
    sensitive_tools: frozenset[str] = frozenset()
    pins: PinStore | None = None
    log: AuditLog = field(default_factory=AuditLog)
    servers: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.policy, Policy):
            raise ValueError(f"policy must be a course_lib.policy Policy such as SPEC, not {type(self.policy).__name__}")
        if isinstance(self.trust, Mapping):
            self.trust = TrustBook(self.trust)
        if not isinstance(self.trust, TrustBook):
            raise ValueError("trust must be a TrustBook or a dict of server name -> trust level")
        if not callable(self.approve):
            raise ValueError("approve must be a function taking a ConfirmationRequest and returning True or False")
        if self.audit_root is not None:
            snapshot(self.audit_root)  # fail now, with a clear message, if the folder is wrong
        if isinstance(self.sensitive_tools, str):
            raise ValueError("sensitive_tools must be a collection of tool names, e.g. {'cleanup_logs'}, not one string")
        self.sensitive_tools = frozenset(self.sensitive_tools)
        if self.pins is not None and not isinstance(self.pins, PinStore):
            raise ValueError("pins must be a PinStore")
        if not isinstance(self.servers, Mapping):
            raise ValueError("servers must be a dict of name -> server, e.g. {'log-tidy': server}")
        self._names: dict[tuple[str, Any], str] = {}
        self._targets: list[Any] = []  # keeps in-process servers alive, so their ids stay theirs
        for name, target in self.servers.items():
            if not isinstance(name, str) or not name.strip() or UNLISTED in name:
                raise ValueError(f"a server's name in servers must be a non-empty string without {UNLISTED!r}, not {name!r}")
            identity = server_identity(target)
            if identity in self._names:
                raise ValueError(f"servers names the same server twice: {self._names[identity]!r} and {name!r}")
            self._names[identity] = name
            self._targets.append(target)

    def identify(self, client: Any) -> str:
        """Return the name this host knows the server behind `client` by (unlisted servers: see `servers`)."""
        identity = server_identity(client)
        return self._names.get(identity) or _describe(client, identity)

    def _decide(self, server: str, tool: Tool) -> Decision:
        decision = self.policy.decide(tool.annotations, trust=self.trust.level(server))
        if tool.name in self.sensitive_tools and decision.pre_call is PreCall.ALLOW:
            why = f"{tool.name!r} is on the host's own list of sensitive tools, so the user confirms whatever the hints say"
            decision = Decision(PreCall.CONFIRM, decision.post_call, f"{why}.")
        if self.pins is not None and decision.pre_call is not PreCall.DENY:
            pin = self.pins.check(tool, server=server)
            if pin.needs_approval:
                if pin.status == "changed":
                    why = f"has changed since you approved it ({', '.join(pin.changed)})"
                else:
                    why = "has never been approved"
                pre = PreCall.WARN if decision.pre_call is PreCall.WARN else PreCall.CONFIRM
                reason = f"the definition of {tool.name!r} {why}, so the user approves it first."
                decision = Decision(pre, decision.post_call, reason)
        return decision

    async def call(self, client: Any, tool: str, arguments: Mapping[str, Any] | None = None) -> AuditEvent:
        """Decide, ask if needed, call `tool` through `client`, audit it, and return the logged event.

        Raises:
            ValueError: `arguments` is not a dict, or the server has no tool called `tool`.
        """
        if arguments is not None and not isinstance(arguments, Mapping):
            raise ValueError(f"arguments must be a dict of argument name -> value, not {type(arguments).__name__}")
        if not isinstance(tool, str):
            raise ValueError(f"tool must be a tool name such as 'tidy_logs', not {type(tool).__name__}")
        arguments = dict(arguments or {})
        server = self.identify(client)  # what the host connected to, never the name the server declares
        listed = {t.name: t for t in (await client.list_tools()).tools}
        if tool not in listed:
            raise ValueError(f"server {server!r} has no tool {tool!r}; it offers: {', '.join(sorted(listed))}")
        definition = listed[tool]
        trust_before = str(self.trust.level(server))
        decision = self._decide(server, definition)

        def record(
            confirmation: str, outcome: str, effects: tuple[SideEffect, ...] = (), finding: str = "", answer: str = ""
        ) -> AuditEvent:
            return self.log.record(
                AuditEvent(
                    server=server,
                    tool=tool,
                    arguments=_arguments_json(arguments),
                    trust=trust_before,
                    decision=str(decision.pre_call),
                    confirmation=confirmation,
                    outcome=outcome,
                    side_effects=effects,
                    finding=finding,
                    trust_after=str(self.trust.level(server)),
                    result=answer,
                )
            )

        if decision.pre_call is PreCall.DENY:
            return record("not asked", "denied")
        confirmation = "not asked"
        if decision.pre_call in (PreCall.CONFIRM, PreCall.WARN):
            request = ConfirmationRequest(
                server, tool, display_title(definition), arguments, decision.pre_call, decision.reason, definition.annotations
            )
            if not self.approve(request):
                return record("declined", "not run")
            confirmation = "approved"
            if self.pins is not None:
                self.pins.approve(definition, server=server)

        before = snapshot(self.audit_root) if self.audit_root is not None else None
        result = await client.call_tool(tool, arguments)
        answer = " ".join(getattr(c, "text", "") for c in result.content).strip()
        outcome = "tool error: " + answer if result.is_error else "ok"
        if before is None:
            return record(confirmation, outcome, answer=answer)
        effects = tuple(side_effects(before, snapshot(self.audit_root)))  # type: ignore[arg-type]
        finding = check_behaviour(definition.annotations, effects) or ""
        if finding:
            self.trust.downgrade(server, f"{tool}: {finding}")
        return record(confirmation, outcome, effects, finding, answer)
