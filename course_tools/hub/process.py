"""A hub started and stopped from Python: for the benchmark and the peer test.

The hub runs in its own session; the proxy and every learner's server are its children, each
in a session of its own. `stop` asks the hub to shut down (it stops the servers it spawned),
then ends whichever of the hub's descendants is left (Linux: found through /proc).
An instructor starts the hub with ``jupyterhub -f`` instead.

Introduced in: docs/hub.md
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from .api import HubAPI, HubError
from .config import CONFIG_NAME, TOKEN_NAME, HubSettings
from .runtime import hub_runtime_dir

__all__ = ["RunningHub", "descendants", "free_port", "still_running"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def descendants(pid: int) -> list[int]:
    """Every live descendant of `pid` (Linux /proc), children first."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found, queue = [], [pid]
    while queue:
        for child in children.get(queue.pop(0), []):
            found.append(child)
            queue.append(child)
    return found


def _alive(pid: int) -> bool:
    """Whether `pid` is a process that still runs: a zombie (ended, not yet reaped) is not."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def still_running(pids: list[int], wait: float = 5.0) -> list[int]:
    """The processes of `pids` still running after up to `wait` s (a SIGKILL takes a moment)."""
    deadline = time.monotonic() + wait
    while True:
        left = [pid for pid in pids if _alive(pid)]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


class RunningHub:
    """``with RunningHub(settings) as hub: hub.api ...``; the config must already be written."""

    def __init__(self, settings: HubSettings, *, ready_timeout: float = 60) -> None:
        self.settings = settings.resolved()
        self.ready_timeout = ready_timeout
        self.log_path = self.settings.hub_dir / "jupyterhub.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.stopped: list[int] = []  # the processes `stop` ended or found ended
        token = (self.settings.hub_dir / TOKEN_NAME).read_text().strip()
        self.api = HubAPI(self.settings.url, token)

    def start(self) -> RunningHub:
        log = open(self.log_path, "ab")  # noqa: SIM115 (closed with the process)
        self.process = subprocess.Popen(
            [
                str(self.settings.venv_bin / "jupyterhub"),
                "-f",
                str(self.settings.hub_dir / CONFIG_NAME),
            ],
            cwd=self.settings.hub_dir,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        log.close()
        try:
            self._wait_until_ready()
        except BaseException:  # not ready, an error, or Ctrl-C: stop what was started
            self.stop()
            raise
        return self

    def _wait_until_ready(self) -> None:
        assert self.process is not None
        deadline = time.monotonic() + self.ready_timeout
        while True:
            if self.process.poll() is not None:
                raise HubError(
                    f"the hub exited with status {self.process.returncode}; its log: "
                    f"{self.log_tail()}"
                )
            try:
                status, _ = self.api.call("GET", "/")
                if status < 400:
                    return
            except HubError:
                pass
            if time.monotonic() > deadline:
                raise HubError(
                    f"the hub did not answer within {self.ready_timeout:.0f} s; its log: "
                    f"{self.log_tail()}"
                )
            time.sleep(0.5)

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return "(no log)"

    def stop(self, timeout: float = 60) -> None:
        """SIGTERM to the hub (it stops its servers and proxy), then SIGKILL to what is left;
        then delete the hub's kernel runtime folders (`runtime.hub_runtime_dir`)."""
        if self.process is None:
            return
        group = self.process.pid
        left = descendants(group)
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                pass
        for pid in [group, *left]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.process.wait()
        self.stopped = [group, *left]
        try:
            shutil.rmtree(hub_runtime_dir(self.settings.hub_dir), ignore_errors=True)
        except RuntimeError:
            pass  # the private parent was made by someone else: this hub could not use it

    def __enter__(self) -> RunningHub:  # noqa: PYI034 (Python 3.10 has no typing.Self)
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
