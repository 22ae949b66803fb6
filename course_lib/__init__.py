"""course_lib: the helper library of the MCP tool-annotations course.

It hides plumbing only (starting servers, turning tool lists into tables, grading);
the line a lesson teaches stays in the notebook. Public names are listed in `__all__`
and imported on first use, so `python -m course_lib serve ...` starts fast and
`import course_lib` does not load pandas or matplotlib until a lesson needs them.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> the module (inside course_lib) that defines it: the one list of the public API.
# To make a name public, add it here; `__all__` follows, and tests/test_public_api.py checks it.
_EXPORTS: dict[str, str] = {
    "EffectiveHints": "annotations",
    "FIELDS": "annotations",
    "Finding": "lint",
    "HINTS": "annotations",
    "NOT_MEANINGFUL": "annotations",
    "Profile": "annotations",
    "SPEC_DEFAULTS": "annotations",
    "as_tool": "annotations",
    "as_tools": "annotations",
    "check_annotations": "lint",
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
    "check": "exercises",
    "environment_report": "environment",
    "CLAUDE_CODE_DEFAULT": "clients",
    "CLAUDE_CODE_PLAN": "clients",
    "CODEX_EXEC": "clients",
    "CURSOR_ASK": "policy",
    "Decision": "decisions",
    "measured_table": "measured",
    "census_table": "census_tables",
    "side_by_side": "census_tables",
    "plot_census": "plots",
    "IgnoreHintsPolicy": "policy",
    "POLICIES": "clients",
    "Policy": "policy",
    "PostCall": "decisions",
    "PreCall": "decisions",
    "ReadOnlyModePolicy": "policy",
    "SPEC": "policy",
    "SpecPolicy": "policy",
    "TRUST_EVERYTHING": "policy",
    "Trust": "decisions",
    "TrustEverythingPolicy": "policy",
    "VSCODE": "policy",
    "VSCodePolicy": "policy",
    "all_combinations": "combinations",
    "combinations_table": "combinations",
    "decide": "policy",
    "decision_matrix": "combinations",
    "decisions_table": "combinations",
    "Basis": "legs",
    "Leg": "legs",
    "SessionGuard": "guard",
    "SessionReport": "trifecta",
    "analyse_session": "trifecta",
    "plot_session": "plots",
    "plot_dashboard": "plots",
    "ScriptedAgent": "agent",
    "open_session": "agent",
    "AuditEvent": "host",
    "AuditLog": "host",
    "ConfirmationRequest": "approval",
    "Host": "host",
    "SideEffect": "audit",
    "State": "audit",
    "TrustBook": "trustbook",
    "TrustChange": "trustbook",
    "approve_all": "approval",
    "check_behaviour": "audit",
    "decline_all": "approval",
    "side_effects": "audit",
    "server_identity": "host",
    "snapshot": "audit",
    "comparison_table": "defences",
    "defence_matrix": "defences",
    "run_case": "defences",
    "SIGNALS": "monitoring",
    "five_signals": "monitoring",
    "hourly_signals": "monitoring",
    "simulate_day": "monitoring",
    "PinCheck": "pinning",
    "PinStore": "pinning",
    "changed_fields": "pinning",
    "fingerprint": "pinning",
    "tools_table": "tables",
}

__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'course_lib' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module_name}", __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
