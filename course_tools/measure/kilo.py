"""Measure Kilo CLI, a fork of opencode, with opencode's adapter under Kilo's names.

Kilo reads ``kilo.json`` and ``KILO_DISABLE_*`` where opencode reads ``opencode.json`` and
``OPENCODE_DISABLE_*``; everything else (agents, permissions, tool names) is opencode's. Its
``permission: ask`` setting is not measured (see `Kilo.settings`).

Introduced in: docs/measure.md; results in docs/clients.md.
"""

from __future__ import annotations

from .adapter import Pin
from .opencode import SETTINGS, Opencode

__all__ = ["Kilo"]


class Kilo(Opencode):
    """Kilo CLI (``kilo run``), with its ``build`` and ``plan`` agents."""

    pin = Pin("kilo", "Kilo CLI", "@kilocode/cli", "7.7.7", "kilo", "kilo")
    config_name = "kilo.json"
    variable_prefix = "KILO"

    # opencode's settings but its `ask`: Kilo ends the run at each refusal, so an `ask` cell
    # costs one run per tool (13 x about 100 s here); opencode's is measured.
    setting_table = {k: v for k, v in SETTINGS.items() if "ask" not in k}
