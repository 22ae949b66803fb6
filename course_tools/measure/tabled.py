"""A client adapter described by tables: its modes' arguments, its settings, and the mode in
which the harness measures whether it runs two calls at once.

Gemini CLI, Qwen Code, opencode, Kilo, Copilot, Cline and Continue are such adapters: each
states its tables and how to run one turn (`ClientAdapter.run_turn`); the modes, settings,
the commands recorded and the concurrency note come from here. Claude Code (its modes are read
from the CLI) and Codex (its note is the 81 combinations) implement the protocol themselves.

Introduced in: docs/measure.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from .adapter import ClientAdapter
from .findings import concurrency
from .servers import MeasurementServers

__all__ = ["TabledAdapter"]


class TabledAdapter(ClientAdapter):
    """`mode_args`: each mode's command-line arguments, in the order measured.
    `command_shown`: the command as the measurement records it, ``{args}`` where a mode's
    arguments go and ``{program}`` for the CLI. `setting_table`: the trust or rule settings.
    `concurrency_mode`: the mode in which two calls in one turn are tried (`findings.concurrency`).
    """

    mode_args: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    command_shown: ClassVar[str] = "{program} {args}"
    setting_table: ClassVar[Mapping[str, dict[str, Any]]] = {"none": {}}
    concurrency_mode: ClassVar[str] = ""

    def modes(self, cli: str) -> list[str]:
        return list(self.mode_args)

    def settings(self) -> dict[str, dict[str, Any]]:
        return dict(self.setting_table)

    def mode_commands(self) -> dict[str, str]:
        shown = {
            mode: self.command_shown.format(program=self.pin.program, args=" ".join(args))
            for mode, args in self.mode_args.items()
        }
        return {mode: " ".join(command.split()) for mode, command in shown.items()}

    def notes(self, cli: str, servers: MeasurementServers) -> dict[str, Any]:
        found = concurrency(self, cli, servers, self.concurrency_mode or self.modes(cli)[0])
        return {"concurrency": found, **self.more_notes(cli, servers)}

    def more_notes(self, cli: str, servers: MeasurementServers) -> dict[str, Any]:
        """Findings of this client besides concurrency; none by default."""
        return {}
