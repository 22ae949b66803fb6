"""The sandbox every course server works in: a root folder no path may leave.

A hostile or mistaken path is refused with a `ToolError` (the client gets an
`isError` result that says why); the server keeps serving.

Files are reached with file descriptors, never by re-opening a checked name: the root
is opened, then each folder of the path with ``os.open(name, O_NOFOLLOW, dir_fd=...)``,
so swapping a folder for a symbolic link between a check and a use cannot lead out.
Symbolic links are not followed at all. A file is opened with ``O_NOFOLLOW | O_NONBLOCK``
and checked with `fstat` on the open descriptor: FIFOs, devices and sockets are refused
(a FIFO cannot hang a worker thread), and so are hard-linked files (``st_nlink > 1``),
which may be the same file as one outside. Reads stop at a limit.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import tempfile
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mcp.server.mcpserver.exceptions import ToolError

__all__ = ["MAX_NAME", "MAX_PATH", "NotInSandbox", "Sandbox", "SandboxError"]

MAX_PATH = 1024  # characters in a whole relative path
MAX_NAME = 255  # characters in one path component (the common filesystem limit)


class SandboxError(ToolError):
    """A path was refused because it is malformed or would leave the sandbox."""


class NotInSandbox(SandboxError):
    """The path is acceptable, but no file or folder has that name in the sandbox."""


class Sandbox:
    """A root folder, and the rules that keep every tool path inside it."""

    def __init__(
        self, root: str | os.PathLike[str] | None = None, *, prefix: str = "course-sandbox-"
    ) -> None:
        """Use the folder `root` (created if missing), or a new temporary folder.

        A temporary folder the sandbox made itself is deleted with it: when the sandbox is
        garbage-collected, or at the latest when Python exits (a notebook's kernel included).
        """
        self._remove: weakref.finalize | None = None
        if root is None:
            root = tempfile.mkdtemp(prefix=prefix)
            self._remove = weakref.finalize(self, shutil.rmtree, root, ignore_errors=True)
        path = Path(root)
        if not path.exists():
            path.mkdir(parents=True)
        if not path.is_dir():
            raise ValueError(
                f"sandbox root {str(path)!r} is not a folder; give a folder the server may use"
            )
        self.root = path.resolve()

    def __repr__(self) -> str:
        return f"Sandbox({str(self.root)!r})"

    def remove_if_temporary(self) -> None:
        """Delete the folder now if the sandbox made it (a folder given as `root` is kept)."""
        if self._remove is not None:
            self._remove()

    def resolve(self, path: str, *, must_exist: bool = False, kind: str = "file") -> Path:
        """Return the absolute path inside the sandbox that `path` names, or refuse it.

        For naming only: a path checked here may be swapped before it is used, so tools
        reach files with `read_bytes`, `append_text`, `delete`, `files`... instead.

        Refused: non-strings, empty names, NUL bytes, over-long names, any `..`
        component, absolute paths outside the root, and paths whose real location
        (after following symlinks) is outside the root. `kind` is what the caller
        expects, "file" (default: the sandbox folder itself is refused) or "folder"
        (``"."`` names the whole sandbox; with `must_exist`, a file is refused); it
        also words the messages.

        Raises:
            SandboxError: the path is refused; the message says why.
        """
        parts = self._checked_parts(path, kind)
        full = self.root.joinpath(*parts)
        real = Path(os.path.realpath(full))
        if real != self.root and self.root not in real.parents:
            raise SandboxError(
                f"path {path!r} leads outside the sandbox (through a symbolic link); refused"
            )
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

    # --- file-descriptor access: nothing below re-opens a name that was checked -------------

    def name(self, path: str, *, kind: str = "file") -> str:
        """The sandbox-relative name of `path` (``""`` for the sandbox itself), checked but not
        opened."""
        return "/".join(self._parts(path, kind))

    def _parts(self, path: str, kind: str) -> tuple[str, ...]:
        parts = self._checked_parts(path, kind)
        if not parts and kind == "file":
            raise SandboxError(f"path {path!r} names the sandbox folder itself, not a file in it")
        return tuple(part for part in parts if part != ".")

    def _checked_parts(self, path: str, kind: str) -> tuple[str, ...]:
        """The components of `path` relative to the root, or a refusal that says what is wrong."""
        if kind not in ("file", "folder"):
            raise ValueError(f"kind must be 'file' or 'folder', not {kind!r}")
        if not isinstance(path, str):
            raise SandboxError(f"path must be a string, not {type(path).__name__}")
        if path.strip() == "":
            if kind == "folder":
                raise SandboxError(
                    "folder is empty: give a folder inside the sandbox, e.g. 'logs' ('.' is the "
                    "whole sandbox)"
                )
            raise SandboxError(
                "path is empty: give a file name inside the sandbox, e.g. 'notes.txt'"
            )
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
                    f"absolute path {path!r} is outside the sandbox; use a path relative to the "
                    "sandbox root"
                ) from None
        parts = candidate.parts
        if any(part == ".." for part in parts):
            raise SandboxError(
                f"path {path!r} contains '..'; paths may not climb out of the sandbox"
            )
        for part in parts:
            if len(part) > MAX_NAME:
                raise SandboxError(
                    f"a name in {path!r} is {len(part)} characters long; the limit is {MAX_NAME}"
                )
        return parts

    @contextmanager
    def _folder_fd(
        self, parts: tuple[str, ...], shown: str, *, create: bool = False
    ) -> Iterator[int]:
        fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            for index, part in enumerate(parts):
                if create:
                    try:
                        os.mkdir(part, 0o755, dir_fd=fd)
                    except FileExistsError:
                        pass
                try:
                    child = os.open(
                        part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd
                    )
                except FileNotFoundError:
                    raise NotInSandbox(
                        f"no folder {'/'.join(parts[: index + 1])!r} in the sandbox"
                    ) from None
                except OSError as exc:
                    if exc.errno in (errno.ENOTDIR, errno.ELOOP) and _is_link(part, fd):
                        raise _link_error(shown) from None
                    if exc.errno == errno.ENOTDIR:
                        raise SandboxError(
                            f"{'/'.join(parts[: index + 1])!r} is a file, not a folder"
                        ) from None
                    raise SandboxError(f"{shown!r} cannot be opened ({exc.strerror})") from None
                os.close(fd)
                fd = child
            yield fd
        finally:
            os.close(fd)

    @contextmanager
    def folder(self, path: str = ".") -> Iterator[int]:
        """Yield an open descriptor of the folder `path` (``"."``: the sandbox), reached without
        following links.

        Raises:
            SandboxError: the path is refused, missing, a file, or goes through a symbolic link.
        """
        with self._folder_fd(self._parts(path, "folder"), path) as fd:
            yield fd

    def make_folders(self, path: str) -> None:
        """Create the folder `path` and its parents inside the sandbox (existing ones are kept)."""
        with self._folder_fd(self._parts(path, "folder"), path, create=True):
            pass

    @contextmanager
    def _file_fd(
        self, path: str, flags: int, *, create: bool = False
    ) -> Iterator[tuple[int, os.stat_result]]:
        parts = self._parts(path, "file")
        with self._folder_fd(parts[:-1], path) as parent:
            try:
                flags |= (
                    os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | (os.O_CREAT if create else 0)
                )
                fd = os.open(parts[-1], flags, 0o644, dir_fd=parent)
            except FileNotFoundError:
                raise NotInSandbox(f"no file {path!r} in the sandbox") from None
            except IsADirectoryError:
                raise SandboxError(f"{path!r} is a folder, not a file") from None
            except OSError as exc:
                if exc.errno == errno.ELOOP or _is_link(parts[-1], parent):
                    raise _link_error(path) from None
                if exc.errno == errno.ENXIO:  # a FIFO with no reader, opened for writing
                    raise _special_error(path) from None
                raise SandboxError(f"{path!r} cannot be opened ({exc.strerror})") from None
        try:
            info = os.fstat(fd)
            if stat.S_ISDIR(info.st_mode):
                raise SandboxError(f"{path!r} is a folder, not a file")
            if not stat.S_ISREG(info.st_mode):
                raise _special_error(path)
            if info.st_nlink > 1:
                raise SandboxError(
                    f"{path!r} is a hard link (the same file has {info.st_nlink} names, maybe one "
                    "outside the "
                    "sandbox); refused"
                )
            yield fd, info
        finally:
            os.close(fd)

    def read_bytes(self, path: str, limit: int) -> bytes:
        """Return the content of the regular file `path`, refusing one larger than `limit` bytes.

        At most `limit` + 1 bytes are read, whatever the file's size becomes meanwhile.

        Raises:
            SandboxError: the path is refused, missing, not a regular file, or too large.
        """
        with self._file_fd(path, os.O_RDONLY) as (fd, info):
            too_big = SandboxError(
                f"{path!r} is larger than {limit} bytes; this tool reads small files only"
            )
            if info.st_size > limit:
                raise too_big
            chunks, size = [], 0
            while size <= limit and (chunk := os.read(fd, min(65_536, limit + 1 - size))):
                chunks.append(chunk)
                size += len(chunk)
            if size > limit:
                raise too_big
            return b"".join(chunks)

    def read_text(self, path: str, limit: int) -> str:
        """Return the UTF-8 text of `path` (see `read_bytes`).

        Raises:
            SandboxError: as `read_bytes`, or the file is not UTF-8 text.
        """
        try:
            return self.read_bytes(path, limit).decode("utf-8")
        except UnicodeDecodeError:
            raise SandboxError(f"{path!r} is not UTF-8 text") from None

    def append_text(self, path: str, text: str) -> str:
        """Append `text` to the regular file `path`, creating it if needed; return its
        sandbox-relative name."""
        with self._file_fd(path, os.O_WRONLY | os.O_APPEND, create=True) as (fd, _):
            data = text.encode("utf-8")
            while data:
                data = data[os.write(fd, data) :]
        return self.name(path)

    def write_new(self, path: str, text: str) -> bool:
        """Create `path` holding `text` unless something already has that name; return whether it
        was written."""
        parts = self._parts(path, "file")
        with self._folder_fd(parts[:-1], path) as parent:
            try:
                fd = os.open(
                    parts[-1],
                    os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                    0o644,
                    dir_fd=parent,
                )
            except FileExistsError:
                return False
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        return True

    def delete(self, path: str) -> bool:
        """Delete the file `path` (a link is refused, not followed); return False if it did not
        exist.

        Raises:
            SandboxError: the path is refused, or names a folder.
        """
        parts = self._parts(path, "file")
        with self._folder_fd(parts[:-1], path) as parent:
            try:
                info = os.stat(parts[-1], dir_fd=parent, follow_symlinks=False)
            except FileNotFoundError:
                return False
            if stat.S_ISDIR(info.st_mode):
                raise SandboxError(f"{path!r} is a folder; this tool deletes files only")
            if stat.S_ISLNK(info.st_mode):
                raise _link_error(path)
            try:
                os.unlink(parts[-1], dir_fd=parent)
            except FileNotFoundError:
                return False
            return True

    def files(self, folder: str = ".") -> list[tuple[str, os.stat_result]]:
        """The regular files directly inside `folder`, sorted by name, with their `lstat` (links are
        skipped)."""
        with self.folder(folder) as fd:
            found = []
            for name in os.listdir(fd):
                try:
                    info = os.stat(name, dir_fd=fd, follow_symlinks=False)
                except FileNotFoundError:
                    continue
                if stat.S_ISREG(info.st_mode):
                    found.append((name, info))
        return sorted(found)

    def check_file(self, path: str) -> os.stat_result:
        """The `fstat` of `path` if it is a regular, single-link file reached without links; refuse
        it otherwise."""
        with self._file_fd(path, os.O_RDONLY) as (_, info):
            return info


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _link_error(path: str) -> SandboxError:
    return SandboxError(
        f"path {path!r} goes through a symbolic link, which could lead outside the sandbox; links "
        "are not followed"
    )


def _special_error(path: str) -> SandboxError:
    return SandboxError(f"{path!r} is not a regular file (a FIFO, device or socket); refused")
