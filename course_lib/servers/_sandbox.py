"""The sandbox every course server works in: a root folder no path may leave.

A hostile or mistaken path is refused with a `ToolError` (the client gets an
`isError` result that says why); the server keeps serving.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from mcp.server.mcpserver.exceptions import ToolError

__all__ = ["MAX_NAME", "MAX_PATH", "Sandbox", "SandboxError"]

MAX_PATH = 1024  # characters in a whole relative path
MAX_NAME = 255  # characters in one path component (the common filesystem limit)


class SandboxError(ToolError):
    """A path was refused because it is malformed or would leave the sandbox."""


class Sandbox:
    """A root folder, and the rules that keep every tool path inside it."""

    def __init__(self, root: str | os.PathLike[str] | None = None, *, prefix: str = "course-sandbox-") -> None:
        if root is None:
            root = tempfile.mkdtemp(prefix=prefix)
        path = Path(root)
        if not path.exists():
            path.mkdir(parents=True)
        if not path.is_dir():
            raise ValueError(f"sandbox root {str(path)!r} is not a folder; give a folder the server may use")
        self.root = path.resolve()

    def __repr__(self) -> str:
        return f"Sandbox({str(self.root)!r})"

    def resolve(self, path: str, *, must_exist: bool = False, kind: str = "file") -> Path:
        """Return the absolute path inside the sandbox that `path` names, or refuse it.

        Refused: non-strings, empty names, NUL bytes, over-long names, any `..`
        component, absolute paths outside the root, and paths whose real location
        (after following symlinks) is outside the root. `kind` is what the caller
        expects, "file" (default: the sandbox folder itself is refused) or "folder"
        (``"."`` names the whole sandbox; with `must_exist`, a file is refused); it
        also words the messages.

        Raises:
            SandboxError: the path is refused; the message says why.
        """
        if kind not in ("file", "folder"):
            raise ValueError(f"kind must be 'file' or 'folder', not {kind!r}")
        if not isinstance(path, str):
            raise SandboxError(f"path must be a string, not {type(path).__name__}")
        if path.strip() == "":
            if kind == "folder":
                raise SandboxError("folder is empty: give a folder inside the sandbox, e.g. 'logs' ('.' is the whole sandbox)")
            raise SandboxError("path is empty: give a file name inside the sandbox, e.g. 'notes.txt'")
        if "\x00" in path:
            raise SandboxError("path contains a NUL byte, which no file name may contain")
        if len(path) > MAX_PATH:
            raise SandboxError(f"path is {len(path)} characters long; the limit is {MAX_PATH}")
        candidate = Path(path)
        if candidate.is_absolute():
            try:
                candidate = candidate.relative_to(self.root)
            except ValueError:
                raise SandboxError(
                    f"absolute path {path!r} is outside the sandbox; use a path relative to the sandbox root"
                ) from None
        parts = candidate.parts
        if any(part == ".." for part in parts):
            raise SandboxError(f"path {path!r} contains '..'; paths may not climb out of the sandbox")
        for part in parts:
            if len(part) > MAX_NAME:
                raise SandboxError(f"a name in {path!r} is {len(part)} characters long; the limit is {MAX_NAME}")
        full = self.root.joinpath(*parts)
        real = Path(os.path.realpath(full))
        if real != self.root and self.root not in real.parents:
            raise SandboxError(f"path {path!r} leads outside the sandbox (through a symbolic link); refused")
        if real == self.root and kind == "file":
            raise SandboxError(f"path {path!r} names the sandbox folder itself, not a file in it")
        if must_exist and not real.exists():
            raise SandboxError(f"no {kind} {path!r} in the sandbox")
        if must_exist and kind == "folder" and not real.is_dir():
            raise SandboxError(f"{path!r} is a file, not a folder")
        return real

    def relative(self, path: Path) -> str:
        """Return `path` as the sandbox-relative name a client would use."""
        return path.relative_to(self.root).as_posix()
