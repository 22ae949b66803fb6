"""The hub's REST API, as the instructor's service (its token is in the hub folder) uses it.

Every call has a timeout (`HubAPI.timeout`, seconds). A hub that is busy starting 30 servers
on 2 cores can take longer than that to answer: that raises `HubBusy`, which a caller that polls
(prestart) treats as "no news yet". A hub that is not there at all (`HubUnreachable`) or refuses
the token (`TokenRefused`) is an error the operator must fix; every message says what to do.

Introduced in: docs/hub.md
"""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from dataclasses import dataclass
from enum import Enum
from typing import Any
from urllib.parse import quote

from course_lib.safe_text import printable

__all__ = [
    "HubAPI",
    "HubBusy",
    "HubError",
    "HubUnreachable",
    "ServerState",
    "StartAnswer",
    "TokenRefused",
]

MAX_ANSWER = 1_000_000  # bytes read from any answer


class HubError(RuntimeError):
    """The hub did not answer, or answered with an error; the message says which and what to do."""


class HubUnreachable(HubError):
    """Nothing answers at the hub's address (not started, stopped, or another address)."""


class TokenRefused(HubError):
    """The hub answered 401 or 403: the API token is not one this hub knows."""


class HubBusy(HubError):
    """The hub did not answer within the timeout: it is busy (or stuck); asking later may work."""


class StartAnswer(Enum):
    """What the hub said to a request to start a learner's server."""

    READY = "ready"  # 201: started and answering, or 400: it was already running
    STARTING = "starting"  # 202: the spawn goes on in the background
    BUSY = "busy"  # 429: too many spawns at once (the hub's concurrent_spawn_limit); ask later


@dataclass(frozen=True)
class ServerState:
    """A learner's default server as the hub reports it."""

    exists: bool  # the hub knows the user
    ready: bool
    pending: str | None  # "spawn", "stop" or None


def _timed_out(error: BaseException) -> bool:
    reason = getattr(error, "reason", None)
    return isinstance(error, (TimeoutError, socket.timeout)) or isinstance(
        reason, (TimeoutError, socket.timeout)
    )


def _message(answer: Any) -> str:
    """The hub's error message from a JSON answer ({"status": ..., "message": ...})."""
    if isinstance(answer, dict) and answer.get("message"):
        return printable(str(answer["message"]), limit=300)
    return printable(str(answer), limit=300)


class HubAPI:
    """Calls ``{url}/hub/api/...`` with ``Authorization: token ...``, each within `timeout` s."""

    def __init__(self, url: str, token: str, timeout: float = 30) -> None:
        self.url, self.token, self.timeout = url.rstrip("/"), token, timeout

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """One request; return (status, decoded JSON or None). Error statuses are returned too.

        Raises:
            TokenRefused: the hub answered 401 or 403.
            HubBusy: no answer within `timeout` seconds.
            HubUnreachable: nothing answers at the hub's address.
        """
        status, raw = self.request(method, path, body)
        return status, _decoded(raw)

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, bytes]:
        """One request; return (status, the answer's first MAX_ANSWER bytes). Raises as `call`."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"{self.url}/hub/api{path}",
            data=data,
            method=method,
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                return answer.status, answer.read(MAX_ANSWER)
        except urllib.error.HTTPError as error:
            with error:  # closes the connection it holds
                return self._error_answer(error)
        except (urllib.error.URLError, OSError) as error:
            if _timed_out(error):
                raise HubBusy(
                    f"the hub did not answer {method} {path} within {self.timeout:g} s: it is "
                    "busy (a class starting at once keeps it busy); give it more time with "
                    "--request-timeout"
                ) from None
            reason = getattr(error, "reason", error)
            raise HubUnreachable(
                f"no hub answers at {self.url} ({printable(str(reason), limit=200)}): start it "
                "with jupyterhub -f HUB_DIR/jupyterhub_config.py, or give its address with "
                "--hub-url"
            ) from None

    @staticmethod
    def _error_answer(error: urllib.error.HTTPError) -> tuple[int, bytes]:
        if error.code in (401, 403):
            raise TokenRefused(
                f"the hub refused the API token ({error.code}): use the api_token file from "
                "the hub folder that `hub config` wrote, with the hub started from that "
                "folder's jupyterhub_config.py"
            ) from None
        try:
            return error.code, error.read(MAX_ANSWER)
        except OSError:
            return error.code, b""

    def ensure_user(self, name: str) -> None:
        """Create user `name` unless the hub knows it.

        Raises:
            HubError: the hub would not create it (the message is the hub's).
        """
        status, _ = self.call("GET", f"/users/{quote(name)}")
        if status == 404:
            status, answer = self.call("POST", f"/users/{quote(name)}")
            if status not in (200, 201, 409):
                raise HubError(
                    f"the hub would not create user {name} ({status}): {_message(answer)}"
                )
        elif status >= 400:
            raise HubError(f"the hub answered {status} about user {name}")

    def start(self, name: str) -> StartAnswer:
        """Ask for `name`'s server.

        Raises:
            HubError: the hub would not start it, or the spawn failed at once (the hub's message).
        """
        status, answer = self.call("POST", f"/users/{quote(name)}/server")
        if status == 201:
            return StartAnswer.READY
        if status == 202:
            return StartAnswer.STARTING
        if status == 429:
            return StartAnswer.BUSY
        if status == 400 and "already running" in _message(answer):
            return StartAnswer.READY
        raise HubError(f"the hub would not start the server ({status}): {_message(answer)}")

    def stop(self, name: str) -> None:
        self.call("DELETE", f"/users/{quote(name)}/server")

    def state(self, name: str) -> ServerState:
        """The server's state.

        Raises:
            HubError: the hub answered with a server error.
        """
        status, user = self.call("GET", f"/users/{quote(name)}")
        if status >= 500:
            raise HubError(f"the hub answered {status} about user {name}")
        if status == 404 or not isinstance(user, dict):
            return ServerState(False, False, None)
        server = (user.get("servers") or {}).get("", {})
        return ServerState(
            True, bool(server.get("ready")), server.get("pending") or user.get("pending")
        )

    def spawn_failure(self, name: str) -> str | None:
        """Why the hub's last spawn of `name`'s server failed (the hub's words), or None.

        None means the hub has no failed spawn to report: the server was never started. Read
        from the spawn's progress stream, which ends at once with a "failed" event.
        """
        status, raw = self.request("GET", f"/users/{quote(name)}/server/progress")
        if status != 200:
            return None  # 400 "not starting": nothing was tried
        for line in raw.decode(errors="replace").splitlines():
            event = _decoded(line[5:].encode()) if line.startswith("data:") else None
            if isinstance(event, dict) and event.get("failed"):
                return _message(event)
        return None


def _decoded(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None
