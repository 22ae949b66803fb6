"""Measure Kilo CLI, a fork of opencode, with opencode's adapter under Kilo's names.

Kilo reads ``kilo.json`` and ``KILO_DISABLE_*`` where opencode reads ``opencode.json`` and
``OPENCODE_DISABLE_*``; everything else (agents, permissions, tool names) is opencode's.

Introduced in: docs/measure.md; results in docs/clients.md.
"""

from __future__ import annotations

from .adapter import Pin
from .opencode import Opencode

__all__ = ["Kilo"]


class Kilo(Opencode):
    """Kilo CLI (``kilo run``), with its ``build`` and ``plan`` agents."""

    pin = Pin("kilo", "Kilo CLI", "@kilocode/cli", "7.7.7", "kilo", "kilo")
    config_name = "kilo.json"
    variable_prefix = "KILO"
