"""Read a learner's settings file for ``measure-client claude-code --settings``, bounded.

The file is whatever path the command line names: a FIFO would block a plain ``open`` forever,
a huge file would be read whole, and JSON nested 200,000 deep ends the standard decoder in a
`RecursionError`. Here the file is opened without blocking, must be a regular file of at most
`MAX_SETTINGS_BYTES`, and its nesting is counted before it is decoded.

Introduced in: docs/measure.md (measure your own rules).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

__all__ = ["MAX_SETTINGS_BYTES", "MAX_SETTINGS_DEPTH", "read_settings"]

MAX_SETTINGS_BYTES = 1_000_000
MAX_SETTINGS_DEPTH = 64


def _depth(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON text (strings are skipped)."""
    deepest = depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def read_settings(path: Path) -> Any:
    """The decoded JSON of settings file `path`.

    Raises:
        ValueError: it is missing, not a regular file (a FIFO, a device, a folder), larger than
            `MAX_SETTINGS_BYTES`, nested deeper than `MAX_SETTINGS_DEPTH`, or not JSON; the
            message names the file and what to do.
    """
    shown = str(path)[:200]
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise ValueError(f"cannot open settings file {shown}: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(
                f"settings file {shown} is not a regular file (a FIFO, device or folder): "
                "give the path of a .claude/settings.json file"
            )
        if info.st_size > MAX_SETTINGS_BYTES:
            raise ValueError(
                f"settings file {shown} is too large ({info.st_size:,} bytes; at most "
                f"{MAX_SETTINGS_BYTES:,}): a settings file holds a few rules"
            )
        raw = handle.read(MAX_SETTINGS_BYTES + 1)
    if len(raw) > MAX_SETTINGS_BYTES:
        raise ValueError(f"settings file {shown} is too large (it grew while being read)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"settings file {shown} is not UTF-8 text") from None
    if _depth(text) > MAX_SETTINGS_DEPTH:
        raise ValueError(
            f"settings file {shown} is nested more than {MAX_SETTINGS_DEPTH} levels deep: a "
            'settings file looks like {"permissions": {"allow": ["mcp__server__tool"]}}'
        )
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"settings file {shown} is not valid JSON: {exc}") from None
