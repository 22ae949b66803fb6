"""course_lib: the helper library of the MCP tool-annotations course.

It hides plumbing only (starting servers, turning tool lists into tables, grading);
the line a lesson teaches stays in the notebook. Public names are listed in `__all__`
and imported on first use, so `python -m course_lib serve ...` starts fast and
`import course_lib` does not load pandas or matplotlib until a lesson needs them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> the module (inside course_lib) that defines it. To make a name public, add it here
# (and to the TYPE_CHECKING imports at the end); `__all__` follows.
_EXPORTS: dict[str, str] = {
    "EffectiveHints": "annotations",
    "FIELDS": "annotations",
    "Finding": "annotations",
    "HINTS": "annotations",
    "NOT_MEANINGFUL": "annotations",
    "Profile": "annotations",
    "SPEC_DEFAULTS": "annotations",
    "as_tool": "annotations",
    "check_annotations": "annotations",
    "classify": "annotations",
    "declared": "annotations",
    "display_title": "annotations",
    "effective": "annotations",
    "fields_table": "annotations",
    "ConnectError": "connection",
    "call_tool_sync": "connection",
    "connect": "connection",
    "list_tools_sync": "connection",
    "python_command": "connection",
    "run_sync": "connection",
    "NotAttempted": "checks",
    "TODO": "checks",
    "check": "checks",
    "environment_report": "environment",
    "CLAUDE_CODE_DEFAULT": "policy",
    "CLAUDE_CODE_PLAN": "policy",
    "CURSOR_ASK": "policy",
    "Decision": "policy",
    "IgnoreHintsPolicy": "policy",
    "POLICIES": "policy",
    "Policy": "policy",
    "PostCall": "policy",
    "PreCall": "policy",
    "ReadOnlyModePolicy": "policy",
    "SPEC": "policy",
    "SpecPolicy": "policy",
    "TRUST_EVERYTHING": "policy",
    "Trust": "policy",
    "TrustEverythingPolicy": "policy",
    "VSCODE": "policy",
    "VSCodePolicy": "policy",
    "all_combinations": "policy",
    "combinations_table": "policy",
    "decide": "policy",
    "decision_matrix": "policy",
    "decisions_table": "policy",
    "Basis": "session",
    "Leg": "session",
    "SessionGuard": "session",
    "SessionReport": "session",
    "analyse_session": "session",
    "plot_session": "session",
    "ScriptedAgent": "agent",
    "open_session": "agent",
    "AuditEvent": "audit",
    "AuditLog": "audit",
    "ConfirmationRequest": "audit",
    "Host": "audit",
    "SideEffect": "audit",
    "State": "audit",
    "TrustBook": "audit",
    "TrustChange": "audit",
    "approve_all": "audit",
    "check_behaviour": "audit",
    "decline_all": "audit",
    "side_effects": "audit",
    "server_identity": "audit",
    "snapshot": "audit",
    "comparison_table": "defences",
    "defence_matrix": "defences",
    "run_case": "defences",
    "SIGNALS": "monitoring",
    "five_signals": "monitoring",
    "hourly_signals": "monitoring",
    "plot_dashboard": "monitoring",
    "simulate_day": "monitoring",
    "PinCheck": "pinning",
    "PinStore": "pinning",
    "changed_fields": "pinning",
    "fingerprint": "pinning",
    "as_tools": "tables",
    "tools_table": "tables",
}

__all__ = ["__version__", *sorted(_EXPORTS)]

# `connect` is both a submodule and a function. Importing the submodule (which other modules do)
# would set `course_lib.connect` to the module, so the function is bound eagerly, after it.
try:
    from .connection import ConnectError, call_tool_sync, connect, list_tools_sync, python_command, run_sync  # noqa: E402
except ImportError:  # pragma: no cover - a broken install; `course_lib.environment` still reports what is missing
    pass



def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'course_lib' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module_name}", __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


if TYPE_CHECKING:  # static checkers and IDEs see ordinary imports
    from .annotations import EffectiveHints, FIELDS, Finding, HINTS, NOT_MEANINGFUL, Profile, SPEC_DEFAULTS, as_tool, check_annotations, classify, declared, display_title, effective, fields_table
    from .connection import ConnectError, call_tool_sync, connect, list_tools_sync, python_command, run_sync
    from .checks import NotAttempted, TODO, check
    from .environment import environment_report
    from .policy import CLAUDE_CODE_DEFAULT, CLAUDE_CODE_PLAN, CURSOR_ASK, Decision, IgnoreHintsPolicy, POLICIES, Policy, PostCall, PreCall, ReadOnlyModePolicy, SPEC, SpecPolicy, TRUST_EVERYTHING, Trust, TrustEverythingPolicy, VSCODE, VSCodePolicy, all_combinations, combinations_table, decide, decision_matrix, decisions_table
    from .session import Basis, Leg, SessionGuard, SessionReport, analyse_session, plot_session
    from .agent import ScriptedAgent, open_session
    from .audit import AuditEvent, AuditLog, ConfirmationRequest, Host, SideEffect, State, TrustBook, TrustChange, approve_all, check_behaviour, decline_all, server_identity, side_effects, snapshot
    from .defences import comparison_table, defence_matrix, run_case
    from .monitoring import SIGNALS, five_signals, hourly_signals, plot_dashboard, simulate_day
    from .pinning import PinCheck, PinStore, changed_fields, fingerprint
    from .tables import as_tools, tools_table
