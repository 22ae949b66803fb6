"""A server command as a user writes it: the program, its arguments and the variables it needs.

Real servers read their keys from the environment (`BRAVE_API_KEY=... mcp-server-brave-search`).
`inspect` takes them as `--env NAME=VALUE` and `--env-file FILE`, or as a shell would: leading
`NAME=VALUE` words, with or without `env` before them. Either way the words are taken off the
command, so the report names the real program, and values are never shown: `redacted` hides them
in any text a server sends back.

Introduced in: docs/inspect-real-servers.md ("Servers that need a key")
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "HIDDEN",
    "ServerCommand",
    "env_assignments",
    "parse_command",
    "read_env_file",
    "redacted",
]

HIDDEN = "***"
"""What a variable's value is replaced with wherever it would be shown."""
MIN_HIDDEN = 4  # shorter values ("1", "x", "on") are not hidden: they would blank ordinary words
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ENV_PROGRAMS = {"env", "/usr/bin/env", "/bin/env"}


@dataclass(frozen=True)
class ServerCommand:
    """A server's program and arguments (`argv`), and the extra variables it is started with."""

    argv: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)

    @property
    def env_names(self) -> list[str]:
        """The names of the extra variables, sorted: what a report may show of them."""
        return sorted(self.env)

    def with_env(self, common: Mapping[str, str]) -> ServerCommand:
        """This command with `common` variables added (its own assignments win)."""
        return ServerCommand(self.argv, {**common, **self.env})


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _assignment(word: str) -> tuple[str, str] | None:
    name, equals, value = word.partition("=")
    return (name, value) if equals and _NAME.fullmatch(name) else None


def parse_command(words: Iterable[str]) -> ServerCommand:
    """Split `env NAME=VALUE ... PROGRAM ARGS` (or `NAME=VALUE ... PROGRAM ARGS`) into its parts.

    Raises:
        ValueError: `env` with options (`-i`, `-u`, ...), or assignments with no program after them.
    """
    argv = list(words)
    env: dict[str, str] = {}
    start = 1 if argv and argv[0] in _ENV_PROGRAMS else 0
    index = start
    while index < len(argv) and (pair := _assignment(argv[index])) is not None:
        env[pair[0]] = pair[1]
        index += 1
    if start and index < len(argv) and argv[index].startswith("-"):
        raise ValueError(
            f"`env {argv[index]}` is not supported in a server command: give the server its "
            "variables with --env NAME=VALUE or --env-file FILE"
        )
    if index == len(argv) and index > 0:
        raise ValueError(
            "a server command has variables but no program after them: write "
            "`-- NAME=VALUE PROGRAM ARGS...` or use --env NAME=VALUE"
        )
    return ServerCommand(tuple(argv[index:]), env)


def env_assignments(texts: Iterable[str], option: str = "--env") -> dict[str, str]:
    """Parse `NAME=VALUE` option values; an error names the option by its position, never its text.

    Raises:
        ValueError: a value with no `=`, or a name that is not a variable name.
    """
    env: dict[str, str] = {}
    for number, text in enumerate(texts, start=1):
        name, equals, value = text.partition("=")
        if not equals:
            raise ValueError(
                f"the {_ordinal(number)} {option} has no '=': write {option} NAME=VALUE (what "
                "you typed is not repeated here, in case it is a key)"
            )
        if not _NAME.fullmatch(name):
            shown = repr(name) if len(name) <= 40 else "its name"
            raise ValueError(
                f"the {_ordinal(number)} {option} names {shown}, which is not a variable name: use "
                "letters, digits and '_', not starting with a digit"
            )
        env[name] = value
    return env


def read_env_file(path: str | os.PathLike[str]) -> dict[str, str]:
    """Read an env file in Docker's `--env-file` format: one `NAME=VALUE` a line, the value as
    written (no quotes are removed); `#` comment lines and blank lines are skipped, and a line
    with a bare `NAME` passes on that variable from this process's environment.

    Raises:
        ValueError: the file cannot be read, or a line is not `NAME=VALUE` (named by its number,
            never by its text).
    """
    shown = os.fspath(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not UTF-8 text"
        raise ValueError(f"--env-file {shown}: cannot read it ({reason})") from None
    env: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.lstrip()
        if not stripped or stripped.startswith("#"):
            continue
        name, equals, value = stripped.partition("=")
        if not _NAME.fullmatch(name):
            raise ValueError(
                f"--env-file {shown}: line {number} is not NAME=VALUE (its text is not repeated "
                "here, in case it holds a key)"
            )
        if not equals:
            if name not in os.environ:
                raise ValueError(
                    f"--env-file {shown}: line {number} passes on {name}, which is not set here"
                )
            value = os.environ[name]
        env[name] = value
    return env


def redacted(text: str, values: Iterable[str]) -> str:
    """`text` with every value of `MIN_HIDDEN` or more characters replaced by `HIDDEN`."""
    for value in sorted({v for v in values if len(v) >= MIN_HIDDEN}, key=len, reverse=True):
        text = text.replace(value, HIDDEN)
    return text
