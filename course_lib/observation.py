"""Observing your own server: run each tool in a fresh sandbox, twice, and judge its hints.

`run_tools(build_server, examples)` builds the server on a new temporary folder for each
tool, calls the tool with its example arguments, then once more with the same arguments, and
records what each call changed (`course_lib.audit`'s snapshots). `behaviour_problems` says
where the hints a client acts on (after the spec's defaults) disagree with what was seen:

* a call that changed nothing is read-only; one that changed something is not;
* a call that removed or overwrote data is destructive; one that only added is not;
* a second identical call that changed nothing more is idempotent; one that changed more is not;
* a call that tried to open a network connection is open-world; one that did not is closed.

The server's world is its folder: the network is refused during the calls (the attempt is
recorded), so nothing leaves the machine.

An example call is the learner's claim of the most a tool does: a delete tool's example
deletes something. The sandbox sees only files and SQLite tables under its folder.

Introduced in: exercises/05_your_own_server.ipynb
"""

from __future__ import annotations

import socket
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any
from unittest.mock import patch

from mcp.types import ToolAnnotations

from .annotations import effective
from .audit import SideEffect, side_effects, snapshot
from .checks import NotAttempted, contains_todo
from .connection import connect, run_sync
from .i18n import gettext_ as _

__all__ = ["ToolRun", "behaviour_problems", "run_tools"]

MAX_TOOLS = 10  # tools run per server: the exercise asks for two or three
_NETWORK = (
    (socket.socket, "connect"),
    (socket.socket, "connect_ex"),
    (socket, "getaddrinfo"),
    (socket, "create_connection"),
)  # every way this process opens a connection goes through one of these


@dataclass(frozen=True)
class ToolRun:
    """One tool of a server, called twice with its example arguments in a fresh sandbox."""

    tool: str
    annotations: ToolAnnotations | None
    first: tuple[SideEffect, ...] = ()  # what the first call changed
    again: tuple[SideEffect, ...] = ()  # what the same call, made again, changed
    error: str | None = None  # why the first call could not be made (no example, a tool error)
    reached: tuple[str, ...] = ()  # the network addresses the calls tried to reach (refused)

    def as_plain(self) -> dict[str, Any]:
        """This run as plain values (wire-name annotations, effects as lists), for the grader."""
        return {
            "tool": self.tool,
            "annotations": None
            if self.annotations is None
            else self.annotations.model_dump(by_alias=True, exclude_none=True),
            "first": [[e.kind, e.target, e.destructive] for e in self.first],
            "again": [[e.kind, e.target, e.destructive] for e in self.again],
            "error": self.error,
            "reached": list(self.reached),
        }


def _text(result: Any) -> str:
    parts = [getattr(block, "text", "") for block in getattr(result, "content", [])]
    return " ".join(p for p in parts if p)[:200] or _("no message")


@contextmanager
def _network_refused(reached: list[str]) -> Iterator[None]:
    """Refuse every network connection opened in this process, recording where it went."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        target = args[1] if len(args) > 1 and isinstance(args[0], socket.socket) else args[:1]
        reached.append(str(target)[:100])
        raise OSError(_("the exercise's sandbox has no network: the attempt is recorded"))

    with ExitStack() as stack:
        for owner, name in _NETWORK:
            stack.enter_context(patch.object(owner, name, refuse))
        yield


async def _run_one(
    build: Callable[[str], Any], name: str, arguments: Mapping[str, Any] | None
) -> ToolRun:
    with tempfile.TemporaryDirectory(prefix="own-server-") as root:
        server = build(root)
        async with connect(server) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            annotations = listed[name].annotations
            if arguments is None:
                return ToolRun(name, annotations, error=_("EXAMPLES has no call for it"))
            reached: list[str] = []
            before = snapshot(root)
            with _network_refused(reached):
                result = await client.call_tool(name, dict(arguments))
            middle = snapshot(root)
            if result.is_error and not reached:
                return ToolRun(
                    name,
                    annotations,
                    error=_("the call failed: {message}").format(message=_text(result)),
                )
            with _network_refused(reached):
                await client.call_tool(name, dict(arguments))
            after = snapshot(root)
    return ToolRun(
        name,
        annotations,
        tuple(side_effects(before, middle)),
        tuple(side_effects(middle, after)),
        reached=tuple(dict.fromkeys(reached)),
    )


def run_tools(
    build: Callable[[str], Any], examples: Mapping[str, Mapping[str, Any]]
) -> list[ToolRun]:
    """Call each tool of `build(root)`'s server twice with `examples[tool]`; return the runs.

    `build` takes a folder and returns the server (an `MCPServer`) whose tools work in it;
    each tool gets a new, empty temporary folder. Synchronous: call it in a cell without
    `await`.

    Raises:
        NotAttempted: the server has no tools yet, or `examples` still holds `TODO`.
        ValueError: `build` is not callable, or `examples` is not a dict of argument dicts.
    """
    if not callable(build):
        raise ValueError(
            _("give the function that builds your server, not {value}").format(value=repr(build))
        )
    if contains_todo(examples):
        raise NotAttempted(_("EXAMPLES is still TODO: give one example call per tool"))
    if not isinstance(examples, Mapping) or not all(
        isinstance(a, Mapping) for a in examples.values()
    ):
        raise ValueError(_("EXAMPLES must be a dict: tool name -> a dict of its arguments"))

    async def work() -> list[ToolRun]:
        with tempfile.TemporaryDirectory(prefix="own-server-") as root:
            async with connect(build(root)) as client:
                names = [t.name for t in (await client.list_tools()).tools][:MAX_TOOLS]
        if not names:
            raise NotAttempted(_("your server has no tools yet: write two or three"))
        return [await _run_one(build, name, examples.get(name)) for name in names]

    return run_sync(work)


def _open_world_problems(run: ToolRun, open_world: bool) -> list[tuple[str, str, str]]:
    if open_world and not run.reached:
        return [
            (
                "openWorldHint",
                _(
                    "the call reached nothing outside its folder, yet openWorldHint is true "
                    "(declared or by default)"
                ),
                _("declare openWorldHint: false, or give an example call that reaches the network"),
            )
        ]
    if not open_world and run.reached:
        return [
            (
                "openWorldHint",
                _("declares openWorldHint: false, but the call tried to reach {address}").format(
                    address=run.reached[0]
                ),
                _("a tool that reaches the network is open-world"),
            )
        ]
    return []


def _effects(effects: tuple[SideEffect, ...]) -> str:
    return "; ".join(map(str, effects[:3])) + ("; ..." if len(effects) > 3 else "")


def behaviour_problems(run: ToolRun) -> list[tuple[str, str, str]]:
    """Return (field, problem, hint) for each effective hint that the observed calls contradict.

    The hints are the effective ones (absent hints take the spec's defaults). An empty list
    means the annotations agree with what both calls did. `field` is the wire name of the
    hint at fault, or "annotations" (none at all) or "example" (no call could be made).
    """
    if run.annotations is None:
        return [
            (
                "annotations",
                _("it has no annotations"),
                _("add annotations=ToolAnnotations(...) to @server.tool"),
            )
        ]
    if run.error is not None:
        return [
            (
                "example",
                run.error,
                _("give EXAMPLES[tool] arguments with which the call succeeds"),
            )
        ]
    hints = effective(run.annotations).as_wire()
    problems = _open_world_problems(run, hints["openWorldHint"] is True)
    if hints["readOnlyHint"] is True:
        if run.first:
            return problems + [
                (
                    "readOnlyHint",
                    _("declares readOnlyHint: true, but the call changed: {effects}").format(
                        effects=_effects(run.first)
                    ),
                    _("a tool that changes anything is not read-only"),
                )
            ]
        return problems
    if not run.first:
        return problems + [
            (
                "readOnlyHint",
                _("the call changed nothing, yet readOnlyHint is not true"),
                _("declare readOnlyHint: true, or give an example call that changes something"),
            )
        ]
    return problems + _write_problems(run, hints)


def _write_problems(run: ToolRun, hints: dict[str, bool | str]) -> list[tuple[str, str, str]]:
    """The problems of a tool that changed something: its destructive and idempotent hints."""
    problems: list[tuple[str, str, str]] = []
    destroyed = tuple(e for e in run.first if e.destructive)
    if hints["destructiveHint"] is False and destroyed:
        problems.append(
            (
                "destructiveHint",
                _(
                    "declares destructiveHint: false, but the call removed or overwrote: {effects}"
                ).format(effects=_effects(destroyed)),
                _("a tool that removes or overwrites data is destructive"),
            )
        )
    if hints["destructiveHint"] is True and not destroyed:
        problems.append(
            (
                "destructiveHint",
                _("the call only added, yet destructiveHint is true (declared or by default)"),
                _(
                    "declare destructiveHint: false, or give an example call that removes or "
                    "overwrites"
                ),
            )
        )
    if hints["idempotentHint"] is True and run.again:
        problems.append(
            (
                "idempotentHint",
                _(
                    "declares idempotentHint: true, but the same call again changed: {effects}"
                ).format(effects=_effects(run.again)),
                _("idempotent means a second identical call changes nothing more"),
            )
        )
    if hints["idempotentHint"] is False and not run.again:
        problems.append(
            (
                "idempotentHint",
                _("the same call again changed nothing more, yet idempotentHint is false"),
                _("declare idempotentHint: true"),
            )
        )
    return problems
