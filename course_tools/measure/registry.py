"""Every client `measure-client` can measure, by the name on its command line.

Introduced in: docs/measure.md.
"""

from __future__ import annotations

from .adapter import ClientAdapter
from .claude_code import ClaudeCode
from .cline import Cline
from .codex import Codex
from .continue_cli import Continue
from .copilot import Copilot
from .gemini import Gemini
from .kilo import Kilo
from .opencode import Opencode
from .qwen_code import QwenCode

__all__ = ["ADAPTERS", "NOT_DRIVABLE"]

ADAPTERS: dict[str, ClientAdapter] = {
    adapter.pin.client: adapter
    for adapter in (
        ClaudeCode(),
        Codex(),
        Gemini(),
        QwenCode(),
        Opencode(),
        Kilo(),
        Copilot(),
        Cline(),
        Continue(),
    )
}
"""The adapters, by client name (``claude-code``, ``codex``, ...)."""

NOT_DRIVABLE: dict[str, str] = {
    "crush": (
        "@charmland/crush's npm install downloads its binary from outside the npm registry, "
        "which this course's machines cannot reach; nothing installs or runs offline"
    ),
    "pi-coding-agent": (
        "@mariozechner/pi-coding-agent has no MCP client, so it never sees a tool's annotations"
    ),
}
"""Clients looked at and not measured, with the reason."""
