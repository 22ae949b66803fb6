"""The public API is exactly the documented one: each name listed once, each from the module that defines it."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import course_lib

ROOT = Path(__file__).resolve().parents[1]

# The contract. Changing the public API means changing this list on purpose.
DOCUMENTED = {
    "annotations": "EffectiveHints FIELDS HINTS NOT_MEANINGFUL Profile SPEC_DEFAULTS as_tool as_tools "
    "classify declared display_title effective fields_table",
    "lint": "Finding check_annotations",
    "connection": "ConnectError call_tool_sync connect list_tools_sync python_command run_sync",
    "checks": "NotAttempted TODO",
    "exercises": "check",
    "environment": "environment_report",
    "decisions": "Decision PostCall PreCall Trust",
    "policy": "CURSOR_ASK IgnoreHintsPolicy Policy ReadOnlyModePolicy SPEC SpecPolicy "
    "TRUST_EVERYTHING TrustEverythingPolicy VSCODE VSCodePolicy decide",
    "clients": "CLAUDE_CODE_DEFAULT CLAUDE_CODE_PLAN CODEX_EXEC POLICIES",
    "combinations": "all_combinations combinations_table decision_matrix decisions_table",
    "legs": "Basis Leg",
    "trifecta": "SessionReport analyse_session",
    "guard": "SessionGuard",
    "plots": "plot_census plot_dashboard plot_session",
    "agent": "ScriptedAgent open_session",
    "approval": "ConfirmationRequest approve_all decline_all",
    "audit": "SideEffect State check_behaviour side_effects snapshot",
    "host": "AuditEvent AuditLog Host server_identity",
    "trustbook": "TrustBook TrustChange",
    "defences": "comparison_table defence_matrix run_case",
    "monitoring": "SIGNALS five_signals hourly_signals simulate_day",
    "pinning": "PinCheck PinStore changed_fields fingerprint",
    "tables": "tools_table",
    "measured": "measured_table",
    "census_tables": "census_table side_by_side",
}


def test_the_exported_names_are_exactly_the_documented_ones():
    documented = {name: module for module, names in DOCUMENTED.items() for name in names.split()}
    assert course_lib._EXPORTS == documented
    assert set(course_lib.__all__) == {"__version__", *documented}


def test_each_public_name_is_defined_in_the_module_it_is_listed_under_and_listed_once():
    source = (ROOT / "course_lib" / "__init__.py").read_text()
    for name, module in course_lib._EXPORTS.items():
        assert len(re.findall(rf'"{name}":', source)) == 1, name
        value = getattr(importlib.import_module(f"course_lib.{module}"), name)
        assert getattr(course_lib, name) is value
        assert name in importlib.import_module(f"course_lib.{module}").__all__, (module, name)


def test_every_library_module_says_which_lesson_introduces_it():
    missing = []
    for path in sorted((ROOT / "course_lib").rglob("*.py")):
        if "grading" in path.parts or "servers" in path.parts or path.name in {"__main__.py", "_sandbox.py"}:
            continue
        if path.parent.name == "course_lib" and path.name == "__init__.py":
            continue
        doc = path.read_text().split('"""')[1] if '"""' in path.read_text() else ""
        if "Introduced in:" not in doc:
            missing.append(str(path.relative_to(ROOT)))
    assert not missing, f"modules without an 'Introduced in:' line: {missing}"
