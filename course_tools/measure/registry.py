"""Every client `measure-client` can measure, by the name on its command line.

Introduced in: docs/measure.md.
"""

from __future__ import annotations

from .adapter import ClientAdapter
from .claude_code import ClaudeCode
from .codex import Codex
from .copilot import Copilot
from .gemini import Gemini
from .kilo import Kilo
from .opencode import Opencode
from .qwen_code import QwenCode

__all__ = ["ADAPTERS", "NOT_DRIVABLE"]

ADAPTERS: dict[str, ClientAdapter] = {
    adapter.pin.client: adapter
    for adapter in (ClaudeCode(), Codex(), Gemini(), QwenCode(), Opencode(), Kilo(), Copilot())
}
"""The adapters, by client name (``claude-code``, ``codex``, ...)."""

NOT_DRIVABLE: dict[str, str] = {}
"""Clients looked at and not measured, with the reason."""
