"""Trust that follows behaviour: a trust level per server, lowered when a server is caught.

The names are the host's own (the keys of `Host(servers=...)`), never the name a server
declares about itself.

Introduced in: notebooks/05_lying_server.ipynb
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from .decisions import Trust, as_trust

__all__ = ["TrustBook", "TrustChange"]


@dataclass(frozen=True)
class TrustChange:
    """One change of a server's trust level, and why."""

    server: str
    old: Trust
    new: Trust
    reason: str


class TrustBook:
    """The trust level of each server, by the host's name for it, with the history of changes.

    A server nobody configured is untrusted, as the spec requires. The names are the host's
    own (the keys of `Host(servers=...)`, like the keys of a client's server configuration),
    never the name a server declares about itself: `Host` maps each connection to the
    configured name of what it connected to, so a second server cannot borrow a trusted name.
    """

    def __init__(
        self,
        levels: Mapping[str, Trust] | None = None,
        *,
        default: Trust = Trust.UNTRUSTED,
    ) -> None:
        if levels is not None and not isinstance(levels, Mapping):
            raise ValueError(
                "levels must be a dict of server name -> trust level, e.g. "
                "{'file-ops': Trust.TRUSTED}"
            )
        self.default = as_trust(default)
        self._levels: dict[str, Trust] = {
            self._name(s): as_trust(t) for s, t in (levels or {}).items()
        }
        self.history: list[TrustChange] = []

    @staticmethod
    def _name(server: Any) -> str:
        if not isinstance(server, str) or not server:
            raise ValueError(f"a server is named by a non-empty string, not {server!r}")
        return server

    def level(self, server: str) -> Trust:
        """Return the server's current trust level."""
        return self._levels.get(self._name(server), self.default)

    def set(self, server: str, level: Trust, reason: str) -> Trust:
        """Set a server's trust level, recording why; return the new level."""
        server, new = self._name(server), as_trust(level)
        old = self.level(server)
        self._levels[server] = new
        if new != old:
            self.history.append(TrustChange(server, old, new, reason))
        return new

    def downgrade(self, server: str, reason: str) -> Trust:
        """Lower a server's trust to untrusted because of what it did; return the new level."""
        return self.set(server, Trust.UNTRUSTED, reason)

    def to_frame(self) -> pd.DataFrame:
        """Return the history of trust changes, one row per change."""
        rows = [
            {"server": c.server, "from": str(c.old), "to": str(c.new), "reason": c.reason}
            for c in self.history
        ]
        return pd.DataFrame(rows, columns=["server", "from", "to", "reason"])
