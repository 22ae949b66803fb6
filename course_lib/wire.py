"""The raw JSON-RPC of a stdio session: what a server's `tools/list` said before any validation.

The SDK validates a whole `tools/list` page at once, so one malformed tool (an `inputSchema`
without "type") would hide every tool of the server. `WireLog` keeps the raw result of each
`tools/list` request as the server sent it, so `inspect` can read the page tool by tool, and the
census can check what `inspect` reports against the wire.

Introduced in: docs/inspect-real-servers.md ("A malformed tool")
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

from mcp.shared.message import SessionMessage
from mcp.types import JSONRPCRequest, JSONRPCResponse
from typing_extensions import Self

__all__ = ["WireLog", "recorded"]

MAX_PAGES_KEPT = 100  # raw tools/list results kept per session; older ones are dropped


@dataclass
class WireLog:
    """The raw `result` of each `tools/list` request of one session, in the order they came."""

    tool_pages: list[dict[str, Any]] = field(default_factory=list)
    _pending: set[str | int] = field(default_factory=set)

    def sent(self, message: SessionMessage) -> None:
        request = message.message
        if isinstance(request, JSONRPCRequest) and request.method == "tools/list":
            self._pending.add(request.id)

    def received(self, item: SessionMessage | Exception) -> None:
        if not isinstance(item, SessionMessage):
            return
        response = item.message
        if isinstance(response, JSONRPCResponse) and response.id in self._pending:
            self._pending.discard(response.id)
            if isinstance(response.result, dict):
                self.tool_pages.append(response.result)
                del self.tool_pages[:-MAX_PAGES_KEPT]

    @property
    def last_tools_page(self) -> dict[str, Any] | None:
        """The raw result of the latest `tools/list`, or None if none has arrived."""
        return self.tool_pages[-1] if self.tool_pages else None


class _Tap:
    """A stream that shows every message to a `WireLog` on its way; otherwise the stream itself."""

    def __init__(self, stream: Any, log: WireLog) -> None:
        self._stream, self._log = stream, log

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __getattr__(self, name: str) -> Any:  # e.g. `last_context`
        return getattr(self._stream, name)


class _ReadTap(_Tap):
    """The session's read stream: each message is logged as it arrives."""

    async def receive(self) -> SessionMessage | Exception:
        item = await self._stream.receive()
        self._log.received(item)
        return item

    def __aiter__(self) -> _ReadTap:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        item = await self._stream.__anext__()
        self._log.received(item)
        return item


class _WriteTap(_Tap):
    """The session's write stream: each message is logged as it leaves."""

    async def send(self, item: SessionMessage, /) -> None:
        self._log.sent(item)
        await self._stream.send(item)


@asynccontextmanager
async def recorded(
    transport: AbstractAsyncContextManager[Any], log: WireLog
) -> AsyncIterator[tuple[Any, Any]]:
    """`transport`, with its `tools/list` results kept in `log`."""
    async with transport as (read, write):
        yield _ReadTap(read, log), _WriteTap(write, log)
