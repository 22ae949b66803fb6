"""One vocabulary each: plain Enums (never a str in disguise), text read once where it comes in,
a string given where a value is expected refused with the value to write, every class named once."""

from __future__ import annotations

import ast
import collections
from enum import Enum
from pathlib import Path

import pytest

from course_lib.annotations import RiskProfile
from course_lib.checks import Status
from course_lib.decisions import Outcome, PostCall, PreCall, Trust
from course_lib.legs import Basis, Leg
from course_lib.vocabulary import member, parse

ROOT = Path(__file__).resolve().parents[1]
VOCABULARIES = (PreCall, PostCall, Trust, Outcome, Leg, Basis, RiskProfile, Status)


@pytest.mark.parametrize("kind", VOCABULARIES, ids=lambda k: k.__name__)
def test_each_vocabulary_is_a_plain_enum_whose_text_is_not_its_value(kind):
    assert issubclass(kind, Enum) and not issubclass(kind, str)
    for value in kind:
        assert value != value.value and str(value) == value.value  # shown as text, not text


def test_text_is_read_by_value_or_name_in_any_case_and_spacing():
    assert parse(PreCall, "  Confirm   WITH warning ", "before") is PreCall.WARN
    assert parse(PreCall, "warn", "before") is PreCall.WARN
    assert parse(Trust, Trust.TRUSTED, "trust") is Trust.TRUSTED
    with pytest.raises(ValueError, match=r"before must be PreCall.ALLOW, PreCall.CONFIRM, PreCall.WARN or PreCall.DENY, not 'maybe'"):
        parse(PreCall, "maybe", "before")
    with pytest.raises(ValueError, match=r"on_taint must be PreCall.CONFIRM, PreCall.DENY or None, not 'allow'"):
        parse(PreCall, "allow", "on_taint", choices=(PreCall.CONFIRM, PreCall.DENY), also="None")


def test_a_string_where_a_value_is_expected_is_refused_with_the_value_to_write():
    assert member(Leg, Leg.PRIVATE_DATA, "leg") is Leg.PRIVATE_DATA
    with pytest.raises(ValueError, match=r"not the string 'private data': write Leg.PRIVATE_DATA \(from course_lib import Leg\)"):
        member(Leg, "private data", "leg")
    with pytest.raises(ValueError, match=r"trust must be Trust.TRUSTED or Trust.UNTRUSTED, not True$"):
        member(Trust, True, "trust")


def test_no_class_is_defined_twice_in_the_course_or_its_tools():
    where = collections.defaultdict(list)
    for package in ("course_lib", "course_tools"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                    where[node.name].append(str(path.relative_to(ROOT)))
                if isinstance(node, ast.FunctionDef) and node.name == "name_set":
                    where["name_set()"].append(str(path.relative_to(ROOT)))
    twice = {name: paths for name, paths in where.items() if len(paths) > 1}
    assert not twice, twice
