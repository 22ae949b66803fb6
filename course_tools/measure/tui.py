"""The interactive terminal, measured: does an approval dialog appear, and what does it say?

Headless runs cannot show a prompt, so for the clients that implement `ClientAdapter.tui`
each profile's tool is called once in the real TUI, in a tmux pseudo-terminal (120 x 40):
the CLI starts in its private HOME and project, the prompt is typed, and the screen is read
until the adapter's dialog pattern appears (a dialog) or the tool ran or failed (none). The
dialog's text is kept as captured, with the private folders' paths replaced by ``PROJECT``
and ``HOME``, every line stripped of control characters (`course_lib.safe_text.printable`).
One tmux session per profile, on a private socket; its server detaches, so it is re-parented
to this process (a child subreaper while the session lasts) and killed with everything it
started when the session ends.

Introduced in: docs/measure.md (``measure-client CLIENT --tui``); results in docs/clients.md.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from course_lib.safe_text import printable
from course_lib.server_process import orphans_killed

from .adapter import ClientAdapter
from .errors import MeasureError
from .harness import PROMPT
from .scratch import Workspace
from .servers import MeasurementServers
from .standin import Script

__all__ = ["dialogs"]

WIDTH, HEIGHT = 120, 40
_BOX = "─│╭╮╰╯┌┐└┘├┤┬┴┼━┃▔▁"
_BORDERS = re.compile(r"^[│┃]\s?|\s*[│┃]\s*$")
STARTUP_SECONDS = 90.0
DIALOG_SECONDS = 120.0


class _Tmux:
    """One tmux server on a private socket, one session, driven by send-keys/capture-pane."""

    def __init__(self, folder: Path) -> None:
        tmux = shutil.which("tmux")
        if tmux is None:
            raise MeasureError("tmux is not installed (Debian/Ubuntu: sudo apt-get install tmux)")
        self.base = [tmux, "-S", str(folder / "tmux.sock")]

    def start(self, command: str, env: dict[str, str]) -> None:
        """Start the session's server with `env` as its whole environment (the session inherits
        it), so no secret is on a command line."""
        size = ["-x", str(WIDTH), "-y", str(HEIGHT)]
        run = [*self.base, "new-session", "-d", "-s", "m", *size, command]
        subprocess.run(run, check=True, env=env)

    def screen(self) -> str:
        done = subprocess.run(
            [*self.base, "capture-pane", "-p", "-t", "m"], capture_output=True, text=True
        )
        return done.stdout

    def type(self, text: str) -> None:
        subprocess.run([*self.base, "send-keys", "-t", "m", "-l", text], check=False)
        time.sleep(1.0)
        subprocess.run([*self.base, "send-keys", "-t", "m", "Enter"], check=False)

    def close(self) -> None:
        subprocess.run([*self.base, "kill-server"], capture_output=True, check=False)


def _wait(tmux: _Tmux, pattern: re.Pattern[str], seconds: float) -> str | None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        screen = tmux.screen()
        if pattern.search(screen):
            return screen
        time.sleep(1.0)
    return None


def _cleaned(screen: str, work: Workspace) -> list[str]:
    text = screen.replace(str(work.project), "PROJECT").replace(str(work.home), "HOME")
    text = re.sub(r"/tmp/measure-[A-Za-z0-9_]+", "TMP", text)
    lines = []
    for line in text.splitlines():
        inner = _BORDERS.sub("", line).rstrip()
        if inner.strip(_BOX + " "):
            lines.append(printable(inner, limit=WIDTH))
    return lines


def _one(
    adapter: ClientAdapter, cli: str, servers: MeasurementServers, tool: str
) -> dict[str, Any]:
    """Call `tool` once in the TUI; say whether a dialog appeared and what it said."""
    spec = adapter.tui()
    assert spec is not None
    folders = tempfile.TemporaryDirectory(prefix="measure-tui-", ignore_cleanup_errors=True)
    # tmux's server detaches; as the subreaper we get it back and kill it with all it started
    with folders as tmp, orphans_killed():
        work = Workspace(Path(tmp) / "work")
        (Path(tmp) / "tmux").mkdir(mode=0o700)
        tmux = _Tmux(Path(tmp) / "tmux")
        try:
            with adapter.interactive(cli, servers, work, Script.one_per_turn([tool])) as session:
                args, env, stand_in = session
                command = " ".join(shlex.quote(a) for a in args)
                tmux.start(f"cd {shlex.quote(str(work.project))} && exec {command}", env)
                if _wait(tmux, spec["ready"], STARTUP_SECONDS) is None:
                    return {
                        "dialog": None,
                        "note": "the TUI never became ready",
                        **_last(tmux, work),
                    }
                tmux.type(PROMPT)
                either = re.compile(f"{spec['dialog'].pattern}|{spec['done'].pattern}")
                screen = _wait(tmux, either, DIALOG_SECONDS)
                if screen is None:
                    return {
                        "dialog": None,
                        "note": "neither a dialog nor a result",
                        **_last(tmux, work),
                    }
                shown = spec["dialog"].search(screen) is not None
                lines = _cleaned(screen, work)
                return {
                    "dialog": shown,
                    "text": _dialog_lines(lines, spec) if shown else lines[-8:],
                }
        finally:
            tmux.close()


def _last(tmux: _Tmux, work: Workspace) -> dict[str, Any]:
    return {"text": _cleaned(tmux.screen(), work)[-8:]}


def _dialog_lines(lines: list[str], spec: dict[str, Any]) -> list[str]:
    """The dialog's own lines: from the first that matches `spec['start']` to the end."""
    for index, line in enumerate(lines):
        if spec["start"].search(line):
            return lines[index:]
    return lines[-14:]


def dialogs(adapter: ClientAdapter, cli: str, tools: list[str]) -> dict[str, Any]:
    """For each planned tool, the interactive TUI's dialog (or none), one session each.

    Raises:
        MeasureError: the adapter has no TUI driver, or tmux is missing.
    """
    if adapter.tui() is None:
        raise MeasureError(f"{adapter.pin.title}'s interactive TUI is not driven by the course")
    found: dict[str, Any] = {}
    with (
        tempfile.TemporaryDirectory(prefix="measure-servers-") as folder,
        MeasurementServers(Path(folder), adapter.servers) as servers,
    ):
        for tool in tools:
            found[tool.split("__", 2)[2]] = _one(adapter, cli, servers, tool)
    return found
