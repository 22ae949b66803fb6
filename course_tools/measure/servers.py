"""The measurement MCP servers of one measurement: started once, each on a socket bound here.

Every run of a CLI in one measurement connects to the same servers; runs are one after the
other, so the events a run caused are the log lines it added (`calls_since`). Each server
gets a listening socket this process bound on 127.0.0.1 (so no other process can take the
port between choosing it and listening on it) and the measurement's secret (`token`), which
every request must carry; a request without it is refused and logged as ``forged``
(`course_tools.measure.profiles.RequireToken`).

Introduced in: docs/measure.md.
"""

from __future__ import annotations

import http.client
import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .errors import MeasureError
from .profiles import TOKEN_VARIABLE, read_log

__all__ = ["MeasurementServers", "new_token"]


def new_token() -> str:
    """A fresh secret for one measurement (URL-safe, 32 random bytes)."""
    return secrets.token_urlsafe(32)


class MeasurementServers:
    """The named measurement servers, over Streamable HTTP on 127.0.0.1, as a context manager."""

    def __init__(
        self,
        folder: Path,
        names: Sequence[str] = ("profiles", "other", "gate"),
        *,
        token: str | None = None,
    ) -> None:
        self.names = tuple(names)
        self.log = folder / "calls.jsonl"
        self.token = token or new_token()
        self.ports: dict[str, int] = {}
        self._processes: list[subprocess.Popen[bytes]] = []

    def __enter__(self) -> MeasurementServers:
        try:
            for name in self.names:
                self._start(name)
            for name, port in self.ports.items():
                self._wait_until_serving(name, port)
        except BaseException:
            self.__exit__()
            raise
        return self

    def _start(self, name: str) -> None:
        listening = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            listening.bind(("127.0.0.1", 0))
            listening.listen(64)
            self.ports[name] = int(listening.getsockname()[1])
            env = {**os.environ, TOKEN_VARIABLE: self.token}
            fd = listening.fileno()
            command = [sys.executable, "-m", "course_tools.measure.profiles", name]
            command += ["--log", str(self.log), "--fd", str(fd)]
            self._processes.append(
                subprocess.Popen(
                    command,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    pass_fds=(fd,),
                    env=env,
                )
            )
        finally:
            listening.close()  # the server holds its own copy

    def _wait_until_serving(self, name: str, port: int, timeout: float = 120.0) -> None:
        """Wait until the server answers an authenticated HTTP request (any status will do)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            try:
                connection.request("GET", "/mcp", headers=self.headers)
                connection.getresponse().read()
                return
            except OSError:
                time.sleep(0.2)
            finally:
                connection.close()
        raise MeasureError(
            f"the measurement server {name} did not answer on 127.0.0.1:{port} within "
            f"{timeout:.0f} s"
        )

    def __exit__(self, *exc: object) -> None:
        for process in self._processes:
            process.terminate()
        for process in self._processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)

    @property
    def headers(self) -> dict[str, str]:
        """The header every request to a measurement server must carry."""
        return {"Authorization": f"Bearer {self.token}"}

    def url(self, name: str) -> str:
        """The server's URL, for a client that sends `headers`."""
        return f"http://127.0.0.1:{self.ports[name]}/mcp"

    def secret_url(self, name: str) -> str:
        """The server's URL with the secret in its path, for a client that cannot send headers."""
        return f"http://127.0.0.1:{self.ports[name]}/{self.token}/mcp"

    def mark(self) -> int:
        return len(read_log(self.log))

    def calls_since(self, mark: int) -> list[dict[str, Any]]:
        return read_log(self.log)[mark:]

    def forged(self) -> list[dict[str, Any]]:
        """Every request refused for want of the secret, so far."""
        return [e for e in read_log(self.log) if e.get("event") == "forged"]
