"""Helpers for judges: a probe's canonical JSON back into plain values (grading process only)."""

from __future__ import annotations

from typing import Any

from course_lib.annotations import FIELDS
from course_lib.feedback import Prediction, read_prediction

_ATTR_TO_WIRE = {f.attribute: f.wire_name for f in FIELDS}
_WIRE = {f.wire_name for f in FIELDS}


def annotations_value(value: Any) -> dict[str, Any] | None:
    """Return a wire-name dict (or None) from a canonical ToolAnnotations, dict or null.

    Raises:
        ValueError: the value is not annotations.
    """
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError(f"expected ToolAnnotations, got {type(value).__name__}")
    model = value.get("__model__")
    if model is not None and model != "ToolAnnotations":
        raise ValueError(f"expected ToolAnnotations, got a {model}")
    if "__untrusted_type__" in value or "__dataclass__" in value or "__enum__" in value:
        raise ValueError("expected ToolAnnotations, got another kind of object")
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key == "__model__":
            continue
        wire = _ATTR_TO_WIRE.get(key, key)
        if wire not in _WIRE:
            raise ValueError(f"unknown annotation field {key!r}")
        out[wire] = item
    return out


def canonical_names(value: Any) -> set[str]:
    """Return a set of names from a canonical set, list or tuple of strings.

    Raises:
        ValueError: anything else.
    """
    if isinstance(value, dict) and set(value) == {"__set__"}:
        value = value["__set__"]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return set(value)
    raise ValueError("expected a set of tool names")


def plain_string(value: Any) -> str | None:
    """Return a lower-case string from a canonical string or str-valued enum, else None."""
    if isinstance(value, dict) and "__enum__" in value:
        value = value.get("value")
    if isinstance(value, str):
        return " ".join(value.lower().split())
    return None


def decision_pair(value: Any) -> Prediction | None:
    """Return (before, after) from a canonical pair or a `Decision` dataclass, else None."""
    if isinstance(value, dict) and value.get("__dataclass__") == "Decision":
        value = [value.get("pre_call"), value.get("post_call")]
    if not isinstance(value, list) or len(value) != 2:
        return None
    return read_prediction([plain_string(value[0]), plain_string(value[1])])


def wire_call(hints: dict[str, Any] | None) -> str:
    """Return Python source that builds these annotations in the learner's kernel (or None)."""
    if hints is None:
        return "None"
    return f"ToolAnnotations(**{hints!r})"
