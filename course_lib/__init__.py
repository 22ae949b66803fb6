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

# public name -> the module (inside course_lib) that defines it: the one list of the public API,
# which is exactly what the lessons, exercises and solutions import (tests/test_public_api.py
# reads every notebook). To make a name public, use it in a lesson and add it here.
_EXPORTS: dict[str, str] = {
    "FIELDS": "annotations",
    "HINTS": "annotations",
    "classify": "annotations",
    "declared": "annotations",
    "display_title": "annotations",
    "effective": "annotations",
    "fields_table": "annotations",
    "check_annotations": "lint",
    "connect": "connection",
    "python_command": "connection",
    "tools_table": "tables",
    "environment_report": "environment",
    "NotAttempted": "checks",
    "TODO": "checks",
    "check": "exercises",
    "PREDICT_SCENARIOS": "exercises.content",
    "TRIFECTA_SCENARIOS": "exercises.content",
    "PostCall": "decisions",
    "PreCall": "decisions",
    "Trust": "decisions",
    "Leg": "legs",
    "CURSOR_ASK": "policy",
    "SPEC": "policy",
    "TRUST_EVERYTHING": "policy",
    "VSCODE": "policy",
    "decide": "policy",
    "CLAUDE_CODE_DEFAULT": "clients",
    "combinations_table": "combinations",
    "decision_matrix": "combinations",
    "decisions_table": "combinations",
    "measured_table": "measured",
    "census_table": "census_tables",
    "side_by_side": "census_tables",
    "plot_census": "plots",
    "load_census": "census",
    "Permissions": "permissions",
    "hints_by_rules": "rule_tables",
    "rules_matrix": "rule_tables",
    "plot_dashboard": "plots",
    "plot_decision_matrices": "plots",
    "plot_declared_shares": "plots",
    "plot_session": "plots",
    "analyse_session": "trifecta",
    "SessionGuard": "guard",
    "SessionReport": "trifecta",
    "ScriptedAgent": "agent",
    "open_session": "agent",
    "run_defence": "replay",
    "approve_all": "approval",
    "decline_all": "approval",
    "side_effects": "audit",
    "snapshot": "audit",
    "Host": "host",
    "TrustBook": "trustbook",
    "comparison_table": "defences",
    "defence_matrix": "defences",
    "run_case": "defences",
    "five_signals": "monitoring",
    "simulate_day": "monitoring",
    "PinStore": "pinning",
    "file_ops_server": "servers.file_ops",
    "SECRET": "servers.private_notes",
    "private_notes_server": "servers.private_notes",
    "Page": "servers.web_search",
    "web_search_server": "servers.web_search",
    "mailer_server": "servers.mailer",
    "log_tidy_server": "servers.log_tidy",
    "rug_pull": "servers.log_tidy",
    "ops_db_server": "servers.ops_db",
    "as_caller": "servers.ops_assistant",
    "issue_token": "servers.ops_assistant",
    "ops_assistant_server": "servers.ops_assistant",
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
