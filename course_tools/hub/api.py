"""The hub's REST API, as the instructor's service (its token is in the hub folder) uses it.

Introduced in: docs/hub.md
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from course_lib.safe_text import printable

__all__ = ["HubAPI", "HubError", "ServerState"]


class HubError(RuntimeError):
    """The hub did not answer, or answered with an error; the message says which and what to do."""


@dataclass(frozen=True)
class ServerState:
    """A learner's default server as the hub reports it."""

    exists: bool  # the hub knows the user
    ready: bool
    pending: str | None  # "spawn", "stop" or None


class HubAPI:
    """Calls ``{url}/hub/api/...`` with ``Authorization: token ...``."""

    def __init__(self, url: str, token: str, timeout: float = 30) -> None:
        self.url, self.token, self.timeout = url.rstrip("/"), token, timeout

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """One request; return (status, decoded JSON or None). 4xx answers are returned."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"{self.url}/hub/api{path}",
            data=data,
            method=method,
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                raw = answer.read(1_000_000)
                return answer.status, json.loads(raw) if raw else None
        except urllib.error.HTTPError as error:
            if error.code in (401, 403):
                raise HubError(
                    f"the hub refused the API token ({error.code}): use the api_token file from "
                    "the hub folder "
                    "that `hub config` wrote, with the hub started from that folder's "
                    "jupyterhub_config.py"
                ) from None
            if 400 <= error.code < 500:
                raw = error.read(100_000)
                try:
                    return error.code, json.loads(raw)
                except ValueError:
                    return error.code, None
            raise HubError(
                f"the hub answered {error.code} to {method} {path}: "
                f"{printable(str(error.reason), limit=200)}"
            ) from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise HubError(
                f"no hub answers at {self.url} ({printable(str(reason), limit=200)}): start it "
                "with "
                "jupyterhub -f HUB_DIR/jupyterhub_config.py, or give its address with --hub-url"
            ) from None

    def ensure_user(self, name: str) -> None:
        status, _ = self.call("GET", f"/users/{quote(name)}")
        if status == 404:
            status, answer = self.call("POST", f"/users/{quote(name)}")
            if status not in (200, 201, 409):
                raise HubError(
                    f"the hub would not create user {name} ({status}): "
                    f"{printable(str(answer), limit=300)}"
                )

    def start(self, name: str) -> int:
        """Ask for `name`'s server; return the status (201 up, 202 starting, 400 running)."""
        status, answer = self.call("POST", f"/users/{quote(name)}/server")
        if status not in (201, 202, 400):
            raise HubError(
                f"the hub would not start {name}'s server ({status}): "
                f"{printable(str(answer), limit=300)}"
            )
        return status

    def stop(self, name: str) -> None:
        self.call("DELETE", f"/users/{quote(name)}/server")

    def state(self, name: str) -> ServerState:
        status, user = self.call("GET", f"/users/{quote(name)}")
        if status == 404 or not isinstance(user, dict):
            return ServerState(False, False, None)
        server = (user.get("servers") or {}).get("", {})
        return ServerState(
            True, bool(server.get("ready")), server.get("pending") or user.get("pending")
        )
