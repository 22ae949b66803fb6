"""The "annotated-file-ops" demo server: four tools, four risk profiles, honest annotations.

| tool         | profile          | readOnly | destructive | idempotent | openWorld |
|--------------|------------------|----------|-------------|------------|-----------|
| read_file    | read-only        | true     | (n/a)       | (n/a)      | false     |
| append_text  | additive         | false    | false       | false      | false     |
| set_value    | idempotent write | false    | false       | true       | false     |
| delete_file  | destructive      | false    | true        | true       | false     |

Every path stays inside the sandbox folder (`root`). Run it for a real client with
``python -m course_lib serve file-ops --root DIR``.

Introduced in: notebooks/00_start_here.ipynb
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

from ._demo import DemoServer
from ._sandbox import Sandbox

__all__ = ["MAX_READ_BYTES", "NAME", "FileOps", "KeyValueStore", "file_ops_server"]

NAME = "annotated-file-ops"
MAX_READ_BYTES = 1_000_000


@dataclass
class KeyValueStore:
    """An in-memory store that keeps every value ever set, so setting never destroys data."""

    history: dict[str, list[str]] = field(default_factory=dict)

    def get(self, key: str) -> str | None:
        values = self.history.get(key)
        return values[-1] if values else None

    def set(self, key: str, value: str) -> bool:
        """Set `key` to `value`; return False (a no-op) when it already holds that value."""
        if self.get(key) == value:
            return False
        self.history.setdefault(key, []).append(value)
        return True


@dataclass(eq=False)
class FileOps(DemoServer):
    """The file-ops server, its sandbox, and `store`: the key-value store behind `set_value`."""

    store: KeyValueStore


def file_ops_server(root: str | os.PathLike[str] | None = None) -> FileOps:
    """Build a fresh file-ops server working in the sandbox folder `root`.

    `root` defaults to a new temporary folder. The handle holds the `server`, its `sandbox`
    (whose `.root` is the folder) and the in-memory `store` behind `set_value`.
    """
    sandbox = Sandbox(root, prefix="file-ops-")
    store = KeyValueStore()
    server = MCPServer(
        NAME,
        instructions="Reads, appends to and deletes text files in one sandbox folder; keeps a "
        "small key-value store.",
        log_level="WARNING",
    )

    @server.tool(
        structured_output=False,  # plain text results; also spares a client the jsonschema import
        title="Read a text file",
        annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False),
    )
    def read_file(path: str) -> str:
        """Return the text of a UTF-8 file in the sandbox."""
        return sandbox.read_text(path, MAX_READ_BYTES)

    @server.tool(
        structured_output=False,  # plain text results; also spares a client the jsonschema import
        title="Append text to a file",
        annotations=ToolAnnotations(
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=False,
            open_world_hint=False,
        ),
    )
    def append_text(path: str, text: str) -> str:
        """Append `text` to a file in the sandbox, creating the file if needed. Existing text is kept."""  # noqa: E501
        return f"appended {len(text)} characters to {sandbox.append_text(path, text)}"

    @server.tool(
        structured_output=False,  # plain text results; also spares a client the jsonschema import
        title="Set a value",
        annotations=ToolAnnotations(
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=True,
            open_world_hint=False,
        ),
    )
    def set_value(key: str, value: str) -> str:
        """Set `key` to `value` in the server's key-value store. Earlier values are kept in its history."""  # noqa: E501
        if not key:
            raise ToolError("key is empty: give a name such as 'owner'")
        if store.set(key, value):
            return f"{key} = {value!r}"
        return f"{key} already is {value!r}: nothing changed"

    @server.tool(
        structured_output=False,  # plain text results; also spares a client the jsonschema import
        title="Delete a file",
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
        ),
    )
    def delete_file(path: str) -> str:
        """Delete a file in the sandbox. Deleting a file that is already gone is not an error."""
        if not sandbox.delete(path):
            return f"{path} does not exist: nothing to delete"
        return f"deleted {path}"

    return FileOps(server, sandbox, store)
