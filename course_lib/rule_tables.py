"""Tables of what Claude Code's permission rules make each tool do, per mode or per declaration.

Built on the measured model in `course_lib.permissions`; a ``*`` marks a call the auto-mode
safety classifier decided (and approved, as measured).

Introduced in: notebooks/03_combinations.ipynb (section "Rules over hints").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .clients import CLAUDE_CODE_VERSION
from .permissions import ClaudeCodeSetup, Permissions

__all__ = ["hints_by_rules", "rules_matrix"]


def _shown(setup: ClaudeCodeSetup, server: str, tool: str, annotations: Any) -> str:
    """An outcome as a table shows it: its value, with ``*`` when the safety classifier decided
    (the classifier approving, as measured)."""
    outcome = setup.outcome(server, tool, annotations)
    judged = setup.classifier_judges(server, tool, annotations)
    return f"{outcome.value}*" if judged else outcome.value


def rules_matrix(
    permissions: Permissions,
    server: str,
    tools: Mapping[str, Any] | Sequence[Any],
    modes: Sequence[str] = ("manual", "plan", "bypassPermissions", "dontAsk"),
    *,
    version: str = CLAUDE_CODE_VERSION,
) -> Any:
    """A table: one row per tool of `server`, one column per mode, each cell an `Outcome` value
    (``*``: the auto-mode safety classifier decided, and approved).

    `tools` is a dict of name -> annotations, or a list of `Tool` objects.
    """
    import pandas as pd

    if isinstance(tools, Mapping):
        pairs = list(tools.items())
    else:
        pairs = [(t.name, t.annotations) for t in tools]
    setups = [ClaudeCodeSetup(permissions, mode, version) for mode in modes]
    rows = {name: [_shown(s, server, name, ann) for s in setups] for name, ann in pairs}
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=list(modes))
    frame.index.name = "tool"
    return frame


def hints_by_rules(
    server: str,
    tool: str,
    claims: Mapping[str, Any],
    rule_sets: Mapping[str, Permissions],
    *,
    mode: str,
    version: str = CLAUDE_CODE_VERSION,
) -> Any:
    """A table of what Claude Code does with one tool: one row per declaration the server might
    make (`claims`: label -> annotations), one column per rule set (label -> `Permissions`);
    ``*`` marks a call the safety classifier decided (approving)."""
    import pandas as pd

    setups = {label: ClaudeCodeSetup(rules, mode, version) for label, rules in rule_sets.items()}
    rows = {
        claim: {label: _shown(s, server, tool, hints) for label, s in setups.items()}
        for claim, hints in claims.items()
    }
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = f"{tool}, {mode} mode"
    return frame
