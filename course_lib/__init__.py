"""course_lib: the helper library of the MCP tool-annotations course.

It hides plumbing only (starting servers, turning tool lists into tables, grading);
the line a lesson teaches stays in the notebook. Public names are listed in `__all__`.
"""

from __future__ import annotations

from .annotations import (
    FIELDS,
    HINTS,
    NOT_MEANINGFUL,
    EffectiveHints,
    Finding,
    Profile,
    check_annotations,
    classify,
    declared,
    display_title,
    effective,
    fields_table,
)
from .connect import ConnectError, call_tool_sync, connect, list_tools_sync, python_command, run_sync
from .environment import environment_report
from .policy import (
    CLAUDE_CODE_DEFAULT,
    CLAUDE_CODE_PLAN,
    CURSOR_ASK,
    POLICIES,
    SPEC,
    TRUST_EVERYTHING,
    VSCODE,
    Decision,
    IgnoreHintsPolicy,
    Policy,
    PostCall,
    PreCall,
    ReadOnlyModePolicy,
    SpecPolicy,
    Trust,
    TrustEverythingPolicy,
    VSCodePolicy,
    all_combinations,
    combinations_table,
    decide,
    decision_matrix,
    decisions_table,
)
from .tables import as_tools, tools_table

__version__ = "0.1.0"

__all__ = [
    "CLAUDE_CODE_DEFAULT",
    "CLAUDE_CODE_PLAN",
    "CURSOR_ASK",
    "FIELDS",
    "HINTS",
    "NOT_MEANINGFUL",
    "POLICIES",
    "SPEC",
    "TRUST_EVERYTHING",
    "VSCODE",
    "ConnectError",
    "Decision",
    "EffectiveHints",
    "Finding",
    "IgnoreHintsPolicy",
    "Policy",
    "PostCall",
    "PreCall",
    "Profile",
    "ReadOnlyModePolicy",
    "SpecPolicy",
    "Trust",
    "TrustEverythingPolicy",
    "VSCodePolicy",
    "__version__",
    "all_combinations",
    "as_tools",
    "call_tool_sync",
    "check_annotations",
    "classify",
    "combinations_table",
    "connect",
    "decide",
    "decision_matrix",
    "decisions_table",
    "declared",
    "display_title",
    "effective",
    "environment_report",
    "fields_table",
    "list_tools_sync",
    "python_command",
    "run_sync",
    "tools_table",
]
