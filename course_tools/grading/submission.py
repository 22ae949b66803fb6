"""Reading one submission safely: inside its folder, a regular file, within size and time limits.

Introduced in: docs/instructor.md
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat

from course_lib.i18n import N_, normalise
from course_lib.phrase import Phrase

__all__ = [
    "notebook_language",
    "MAX_CELLS",
    "MAX_NOTEBOOK_BYTES",
    "READ_TIMEOUT",
    "Loaded",
    "Refused",
    "load",
    "read_bounded",
]

MAX_NOTEBOOK_BYTES = 20_000_000
MAX_CELLS = 1_000  # the course's longest exercise has 21 cells
READ_TIMEOUT = 10.0  # seconds to read one submission file (a stalled network or FUSE mount)
PARSE_TIMEOUT = 60.0  # seconds to parse it (at most MAX_CELLS cells get that far)


@dataclass(frozen=True)
class Loaded:
    """A submission as read: the notebook (None if refused), its sha256, why it was refused, and
    a note for the instructor (a hard link, say)."""

    nb: Any | None
    sha256: str = ""
    problem: Phrase | None = None
    note: Phrase | None = None


class Refused(Exception):
    """A submission file the grader will not open; `why` says why."""

    def __init__(self, why: Phrase) -> None:
        super().__init__(why.english())
        self.why = why


def _open_beneath(root: Path, path: Path) -> int:
    """Open `path` without leaving `root` through a link; refuse anything but a regular file.

    The path is resolved, must lie inside `root`, and is then opened one component at a time
    with O_NOFOLLOW from a descriptor of `root`, so a link swapped in meanwhile cannot lead out.
    The file is opened non-blocking (a FIFO cannot hang the grader) and checked with fstat.
    """
    real_root, real = os.path.realpath(root), os.path.realpath(path)
    if real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep):
        raise Refused(
            Phrase(
                N_(
                    "it is a link to a file outside the submissions folder; hand in the notebook "
                    "itself"
                )
            )
        )
    nofollow, nonblock = getattr(os, "O_NOFOLLOW", 0), getattr(os, "O_NONBLOCK", 0)
    if os.open in os.supports_dir_fd and nofollow:
        parts = os.path.relpath(real, real_root).split(os.sep)
        fd = os.open(real_root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            for part in parts[:-1]:
                inner = os.open(
                    part, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | nofollow, dir_fd=fd
                )
                os.close(fd)
                fd = inner
            leaf = os.open(parts[-1], os.O_RDONLY | nofollow | nonblock, dir_fd=fd)
        finally:
            os.close(fd)
    else:  # Windows: no dir_fd; the resolved path was checked above
        leaf = os.open(real, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    if not stat.S_ISREG(os.fstat(leaf).st_mode):
        os.close(leaf)
        raise Refused(
            Phrase(N_("it is not a regular file (a FIFO, device or folder named like a notebook)"))
        )
    return leaf


def read_bounded(root: Path, path: Path, limit: int) -> bytes:
    """Read at most `limit` + 1 bytes of a submission (one more tells that it is too large)."""
    return _read(root, path, limit)[0]


def _read(root: Path, path: Path, limit: int) -> tuple[bytes, int]:
    """`read_bounded`, and how many names the file has on disk (more than 1: a hard link)."""
    fd = _open_beneath(root, path)
    try:
        links = os.fstat(fd).st_nlink
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks), links
    finally:
        os.close(fd)


async def _in_thread(work: Callable[[], Any], timeout: float) -> Any:
    """Run blocking `work` in a daemon thread, bounded by `timeout`.

    A stuck read is abandoned, not awaited.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(ok: bool, value: Any) -> None:
        if not future.done():
            future.set_result(value) if ok else future.set_exception(value)

    def target() -> None:
        try:
            value = work()
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting coroutine
            loop.call_soon_threadsafe(settle, False, exc)
        else:
            loop.call_soon_threadsafe(settle, True, value)

    threading.Thread(target=target, name="course-grade-read", daemon=True).start()
    return await asyncio.wait_for(future, timeout)


def _parse(data: bytes) -> tuple[Any | None, Phrase | None]:
    """(notebook, None) or (None, why not): the cell count is checked before nbformat reads it."""
    try:
        raw = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return None, Phrase(N_("not a readable notebook (not JSON)"))
    cells = raw.get("cells") if isinstance(raw, dict) else None
    count = len(cells) if isinstance(cells, list) else 0
    if count > MAX_CELLS:
        return None, Phrase(
            N_(
                "the notebook has {count} cells; the grader reads notebooks of at most {most} "
                "cells: hand in the exercise's notebook without the extra cells"
            ),
            count=f"{count:,}",
            most=f"{MAX_CELLS:,}",
        )
    try:
        nb = nbformat.reads(data.decode("utf-8"), as_version=4)
        cells = list(nb.cells)
    except Exception as exc:  # noqa: BLE001 - any unreadable file is an invalid notebook
        return None, Phrase(N_("not a readable notebook ({error})"), error=type(exc).__name__)
    code = [c for c in cells if isinstance(c, dict) and c.get("cell_type") == "code"]
    if not all(isinstance(c.get("source"), str) for c in code):
        return None, Phrase(N_("a code cell has no readable source"))
    return nb, None


def _hard_link_note(links: int, digest: str) -> Phrase | None:
    if links <= 1:
        return None
    return Phrase(
        N_(
            "the notebook is a hard link ({links} names for one file, which may live outside the "
            "submissions folder): it was read once, as a copy (sha256 {digest}), and that copy "
            "was graded; check that it is the learner's own file"
        ),
        links=links,
        digest=digest[:12],
    )


def _took_longer(what: str, seconds: float) -> Phrase:
    return Phrase(
        N_("{what} took longer than {seconds} s"), what=Phrase(what), seconds=f"{seconds:g}"
    )


def notebook_language(nb: Any) -> str:
    """The language a notebook asks for its feedback in (metadata ``language``, e.g. ``zh_CN``):
    one the course ships, else English (the value is the learner's text, never trusted)."""
    metadata = getattr(nb, "metadata", None)
    value = metadata.get("language") if isinstance(metadata, dict) else None
    return normalise(value if isinstance(value, str) and len(value) <= 32 else None)


async def load(path: Path, root: Path | None = None) -> Loaded:
    """Read and parse one submission, in a thread and within time limits (never raises).

    The file is read once; everything after works on that copy of its bytes.
    """
    try:
        data, links = await _in_thread(
            lambda: _read(root or path.parent, path, MAX_NOTEBOOK_BYTES), READ_TIMEOUT
        )
    except Refused as exc:
        return Loaded(None, problem=Phrase(N_("not opened: {why}"), why=exc.why))
    except asyncio.TimeoutError:
        return Loaded(None, problem=_took_longer(N_("reading the file"), READ_TIMEOUT))
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        return Loaded(None, problem=Phrase(N_("cannot read the file ({why})"), why=why))
    if len(data) > MAX_NOTEBOOK_BYTES:
        most = MAX_NOTEBOOK_BYTES // 1_000_000
        return Loaded(None, problem=Phrase(N_("the file is larger than {most} MB"), most=most))
    digest = hashlib.sha256(data).hexdigest()
    note = _hard_link_note(links, digest)
    try:
        nb, problem = await _in_thread(lambda: _parse(data), PARSE_TIMEOUT)
    except asyncio.TimeoutError:
        nb, problem = None, _took_longer(N_("reading the notebook"), PARSE_TIMEOUT)
    return Loaded(nb, digest, problem, note)
