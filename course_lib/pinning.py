"""Definition pinning: remember a fingerprint of each approved tool and notice any change.

A rug pull is a server changing a tool's definition (description, schema, hints) after the
user approved it (facts §5.2). Neither the protocol nor the SDK flags it: the next
`tools/list` simply returns the new definition. A client defends itself by pinning: at
approval it stores a fingerprint of the whole definition; before each later use it compares,
and a different fingerprint means "ask the user again".

    pins = PinStore()
    pins.approve(tools)            # the user approved these definitions
    pins.check(tool).status        # "approved", "changed" (re-approve!) or "new"
    pins.table(tools)              # one row per tool, with the fields that changed

Introduced in: notebooks/06_beyond_hints.ipynb
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from mcp.types import Tool

from .annotations import Tools, as_tool, as_tools

__all__ = ["PinCheck", "PinStore", "changed_fields", "definition", "fingerprint"]


def _tool(tool: Tool | Mapping[str, Any]) -> Tool:
    return as_tool(tool)  # strict: a malformed tool dict is refused, not silently fixed by the SDK


def definition(tool: Tool | Mapping[str, Any]) -> dict[str, Any]:
    """Return the pinned part of a tool definition: everything the server sent, as wire JSON.

    Absent fields are left out, so an absent hint and a hint set to false differ.

    Raises:
        ValueError: `tool` is not a `Tool` or a tool dict.
    """
    return _tool(tool).model_dump(mode="json", by_alias=True, exclude_none=True)


def fingerprint(tool: Tool | Mapping[str, Any]) -> str:
    """Return a SHA-256 fingerprint of a tool's definition (``"sha256:"`` and 64 hex digits).

    Two definitions have the same fingerprint exactly when their wire JSON is equal
    (key order does not matter).

    Raises:
        ValueError: `tool` is not a `Tool` or a tool dict.
    """
    return _fingerprint(definition(tool))


def _fingerprint(pinned: Mapping[str, Any]) -> str:
    canonical = json.dumps(pinned, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def changed_fields(old: Mapping[str, Any], new: Mapping[str, Any], prefix: str = "") -> list[str]:
    """Return the dotted paths that differ between two definitions.

    For example ``["annotations.readOnlyHint", "description"]``.
    """
    paths = []
    for key in sorted(set(old) | set(new)):
        path = f"{prefix}{key}"
        a, b = old.get(key), new.get(key)
        if isinstance(a, Mapping) and isinstance(b, Mapping):
            paths += changed_fields(a, b, prefix=f"{path}.")
        elif a != b or (key in old) != (key in new):
            paths.append(path)
    return paths


@dataclass(frozen=True)
class PinCheck:
    """The result of comparing a tool with its pinned definition."""

    tool: str
    status: str  # "approved" (unchanged), "changed" (needs re-approval) or "new" (never approved)
    changed: tuple[str, ...] = ()  # dotted paths of the fields that differ (for "changed")

    @property
    def needs_approval(self) -> bool:
        """True when the user must (re-)approve the tool before it is used."""
        return self.status != "approved"


class PinStore:
    """The approved definition of each tool, keyed by server and tool name."""

    def __init__(self) -> None:
        self._pins: dict[tuple[str, str], dict[str, Any]] = {}

    def __len__(self) -> int:
        return len(self._pins)

    def __repr__(self) -> str:
        return f"<PinStore: {len(self)} approved definition(s)>"

    @staticmethod
    def _server(server: str) -> str:
        if not isinstance(server, str):
            raise ValueError(
                f"server must be a name such as 'log-tidy', not {type(server).__name__}"
            )
        return server

    def approve(self, tools: Tools, *, server: str = "") -> list[str]:
        """Pin the current definition of each tool (the user approved it); return the fingerprints.

        Raises:
            ValueError: `tools` holds something that is not a tool.
        """
        server = self._server(server)
        pinned = []
        for tool in as_tools(tools):  # each tool checked and dumped once
            self._pins[(server, tool.name)] = wire = definition(tool)
            pinned.append(_fingerprint(wire))
        return pinned

    def check(self, tool: Tool | Mapping[str, Any], *, server: str = "") -> PinCheck:
        """Compare a tool with its pinned definition.

        Raises:
            ValueError: `tool` is not a tool.
        """
        server = self._server(server)
        tool = _tool(tool)
        pinned = self._pins.get((server, tool.name))
        if pinned is None:
            return PinCheck(tool.name, "new")
        changes = changed_fields(pinned, definition(tool))
        return (
            PinCheck(tool.name, "changed", tuple(changes))
            if changes
            else PinCheck(tool.name, "approved")
        )

    def table(self, tools: Tools, *, server: str = "") -> pd.DataFrame:
        """Return one row per tool: its status against the pins and the fields that changed."""
        rows = []
        for tool in as_tools(tools):
            result = self.check(tool, server=server)
            rows.append(
                {"tool": result.tool, "status": result.status, "changed": ", ".join(result.changed)}
            )
        return pd.DataFrame(rows, columns=["tool", "status", "changed"]).set_index("tool")

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the pins to a JSON file (so approvals survive a restart); return its path."""
        path = Path(path)
        data = [
            {"server": s, "tool": t, "definition": d} for (s, t), d in sorted(self._pins.items())
        ]
        path.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> PinStore:
        """Read pins written by `save`.

        Raises:
            ValueError: the file is not a pin file written by `save`.
        """
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            store = cls()
            for item in data:
                store._pins[(str(item["server"]), str(item["tool"]))] = dict(item["definition"])
        except (OSError, ValueError, TypeError, KeyError) as exc:
            raise ValueError(
                f"cannot read pins from {str(path)!r}: {exc}; give a file written by PinStore.save"
            ) from None
        return store
