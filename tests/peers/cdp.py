"""A small Chrome DevTools Protocol driver for Debian's headless Chromium (no browser download).

Only what the JupyterLab test needs: open a page, evaluate JavaScript, wait for a condition,
take a screenshot. Uses `websocket-client`, which JupyterLab's own dependencies install.
"""

from __future__ import annotations

import base64
import itertools
import json
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import websocket

LAUNCH_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--hide-scrollbars",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
]


class BrowserError(RuntimeError):
    """Chromium did not start, or a page did not reach the expected state in time."""


class Chromium:
    """One headless Chromium process with a fresh profile, driven over the DevTools Protocol."""

    def __init__(self, executable: str, profile: Path, *, width: int = 1400, height: int = 1000, timeout: float = 30) -> None:
        self.profile = profile
        self.process = subprocess.Popen(
            [executable, *LAUNCH_FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + timeout
        while not (port_file.exists() and port_file.read_text().strip()):
            if self.process.poll() is not None:
                raise BrowserError(f"chromium exited with status {self.process.returncode} before opening its debugging port")
            if time.monotonic() > deadline:
                self.close()
                raise BrowserError(f"chromium did not open its debugging port within {timeout} s")
            time.sleep(0.1)
        port = int(port_file.read_text().splitlines()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=timeout) as answer:
            pages = [t for t in json.load(answer) if t.get("type") == "page"]
        if not pages:
            raise BrowserError("chromium has no page to drive")
        self.socket = websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=timeout, suppress_origin=True)
        self._ids = itertools.count(1)
        self.send("Page.enable")
        self.send("Runtime.enable")
        self.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)
        # a headless page never has the window focus; web apps that follow focus (JupyterLab's
        # "current notebook") need it to behave as they do for a person
        self.send("Emulation.setFocusEmulationEnabled", enabled=True)

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        """Send one DevTools command and return its result (events received meanwhile are dropped)."""
        message_id = next(self._ids)
        self.socket.send(json.dumps({"id": message_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == message_id:
                if "error" in message:
                    raise BrowserError(f"{method} failed: {message['error']}")
                return message.get("result", {})

    def evaluate(self, expression: str) -> Any:
        """Evaluate JavaScript in the page (promises are awaited) and return its JSON value."""
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise BrowserError(f"JavaScript error: {details.get('exception', {}).get('description') or details.get('text')}")
        return result.get("result", {}).get("value")

    def navigate(self, url: str) -> None:
        self.send("Page.navigate", url=url)

    def wait_for(self, expression: str, *, timeout: float, what: str) -> Any:
        """Poll a JavaScript expression until it is truthy; return its value, or raise naming `what`."""
        deadline = time.monotonic() + timeout
        last: Any = None
        while time.monotonic() < deadline:
            try:
                last = self.evaluate(expression)
            except BrowserError as exc:  # the page may be between two documents
                last = str(exc)
            else:
                if last:
                    return last
            time.sleep(0.25)
        raise BrowserError(f"timed out after {timeout} s waiting for {what} (last value: {last!r})")

    def screenshot(self, path: Path) -> Path:
        data = self.send("Page.captureScreenshot", format="png")["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        socket = getattr(self, "socket", None)
        if socket is not None:
            try:
                socket.close()
            except OSError:
                pass
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        shutil.rmtree(self.profile, ignore_errors=True)
