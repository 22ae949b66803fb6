"""course_lib.annotations: fields from the SDK, defaults, profiles, checks and clear errors."""

from __future__ import annotations

import itertools

import pytest
from mcp.types import Tool, ToolAnnotations

from course_lib import (
    FIELDS,
    check_annotations,
    classify,
    declared,
    display_title,
    effective,
    fields_table,
)
from course_lib.annotations import HINTS, NOT_MEANINGFUL, RiskProfile


def tool(name: str = "t", annotations: dict | None = None, title: str | None = None) -> Tool:
    return Tool(name=name, title=title, input_schema={"type": "object"}, annotations=annotations)


def test_fields_and_defaults_come_from_the_installed_sdk():
    assert [(f.wire_name, f.attribute, f.default) for f in FIELDS] == [
        ("title", "title", None),
        ("readOnlyHint", "read_only_hint", False),
        ("destructiveHint", "destructive_hint", True),
        ("idempotentHint", "idempotent_hint", False),
        ("openWorldHint", "open_world_hint", True),
    ]
    assert HINTS == ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
    meaningful_only = {f.wire_name for f in FIELDS if f.only_when_not_read_only}
    assert meaningful_only == {"destructiveHint", "idempotentHint"}
    assert "does not modify its environment" in fields_table().loc["readOnlyHint", "meaning"]


def test_absent_hint_stays_none_not_false():
    values = declared(ToolAnnotations(read_only_hint=False))
    assert values["readOnlyHint"] is False
    assert values["destructiveHint"] is None
    assert declared(None) == dict.fromkeys(["title", *HINTS])


def test_declared_accepts_wire_and_attribute_names_and_tools():
    assert declared({"readOnlyHint": True}) == declared({"read_only_hint": True})
    assert declared(tool(annotations={"readOnlyHint": True}))["readOnlyHint"] is True


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"egressHint": True}, "unknown annotation field 'egressHint'"),
        ({"readOnlyHint": "yes"}, "readOnlyHint must be true, false or absent"),
        ({"destructiveHint": 1}, "destructiveHint must be true, false or absent"),
        ({"title": 3}, "title must be a string"),
        ("readOnly", "must be a ToolAnnotations, a Tool, a dict or None"),
    ],
)
def test_wrong_input_raises_value_error_naming_the_field(bad, message):
    with pytest.raises(ValueError, match=message):
        effective(bad)


def test_unannotated_tool_gets_the_pessimistic_defaults():
    eff = effective(None)
    assert (eff.read_only, eff.destructive, eff.idempotent, eff.open_world) == (False, True, False, True)
    assert classify(None) is RiskProfile.DESTRUCTIVE


def test_read_only_makes_destructive_and_idempotent_not_meaningful():
    eff = effective({"readOnlyHint": True, "destructiveHint": True, "idempotentHint": False})
    assert eff.destructive == NOT_MEANINGFUL and eff.idempotent == NOT_MEANINGFUL
    assert classify({"readOnlyHint": True, "destructiveHint": True}) is RiskProfile.READ_ONLY


def test_every_one_of_the_81_combinations_has_exactly_one_profile():
    seen = {}
    for combo in itertools.product([True, False, None], repeat=4):
        hints = dict(zip(HINTS, combo))
        eff = effective(hints)
        profile = classify(hints)
        seen[combo] = profile
        if eff.read_only:
            assert profile is RiskProfile.READ_ONLY
        elif eff.destructive:
            assert profile is RiskProfile.DESTRUCTIVE
        elif eff.idempotent:
            assert profile is RiskProfile.IDEMPOTENT_WRITE
        else:
            assert profile is RiskProfile.ADDITIVE
    assert len(seen) == 81
    assert {str(p) for p in seen.values()} == {"read-only", "additive", "idempotent write", "destructive"}


def test_display_title_follows_the_spec_precedence():
    assert display_title(tool("n", {"title": "Annotation"}, title="Tool title")) == "Tool title"
    assert display_title(tool("n", {"title": "Annotation"})) == "Annotation"
    assert display_title(tool("n")) == "n"
    assert display_title({"name": "n", "annotations": {"title": "A"}}) == "A"


def test_check_reports_contradiction_ignored_hints_and_missing_read_only():
    findings = check_annotations(tool("delete_logs", {"readOnlyHint": True, "destructiveHint": True}))
    kinds = {(f.severity, f.field) for f in findings}
    assert ("contradiction", "destructiveHint") in kinds
    assert ("ignored", "destructiveHint") in kinds
    assert ("suspicious", "readOnlyHint") in kinds
    missing = check_annotations(tool("get_weather", {"openWorldHint": True}))
    assert [(f.severity, f.field) for f in missing] == [("missing", "readOnlyHint")]


def test_check_finds_nothing_on_an_honest_read_only_tool():
    assert check_annotations(tool("read_file", {"readOnlyHint": True, "openWorldHint": False})) == []


def test_sdk_documents_the_same_defaults_as_the_spec():
    from course_lib.annotations import SPEC_DEFAULTS, _sdk_doc_comments

    docs = _sdk_doc_comments()
    for field in FIELDS:
        if field.wire_name in SPEC_DEFAULTS:
            expected = "true" if SPEC_DEFAULTS[field.wire_name] else "false"
            assert f"Default: {expected}" in docs[field.attribute], f"the SDK changed the default of {field.wire_name}"


@pytest.mark.parametrize(
    ("definition", "message"),
    [
        ({"name": "x", "annotations": {"read_only": True}}, "unknown annotation field 'read_only'"),
        ({"name": "x", "annotations": {"readOnlyHint": "yes"}}, "readOnlyHint must be true, false or absent"),
        ({"annotations": {}}, "needs a non-empty 'name'"),
    ],
)
def test_tool_dicts_are_checked_before_the_sdk_can_silently_fix_them(definition, message):
    with pytest.raises(ValueError, match=message):
        check_annotations(definition)
