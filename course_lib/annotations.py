"""Tool annotations: the five fields, the spec's defaults, risk profiles and tool lists.

Everything here is read from, or checked against, the installed `mcp` SDK:
`FIELDS` is parsed from the source of `mcp.types.ToolAnnotations`, so when the
SDK changes a field or a default, this module (and the lessons) see it.

Introduced in: notebooks/00_start_here.ipynb; taught in 01_fields to 03_combinations.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from mcp.types import ListToolsResult, Tool, ToolAnnotations

__all__ = [
    "FIELDS",
    "HINTS",
    "NOT_MEANINGFUL",
    "EffectiveHints",
    "Field",
    "RiskProfile",
    "SPEC_DEFAULTS",
    "AnnotationsLike",
    "Tools",
    "as_tool",
    "as_tools",
    "classify",
    "declared",
    "display_title",
    "effective",
    "fields_table",
]

NOT_MEANINGFUL = "n/a"
"""Effective value of `destructiveHint` / `idempotentHint` when `readOnlyHint` is true."""


@dataclass(frozen=True)
class Field:
    """One field of `ToolAnnotations`, as the installed SDK defines it."""

    wire_name: str  # camelCase, as sent in JSON
    attribute: str  # snake_case, as used in Python (SDK 2)
    type: str  # "str" or "bool"
    default: bool | None  # the spec default a client applies when the field is absent
    meaning: str  # the SDK's own doc comment, defaults line removed
    only_when_not_read_only: bool  # "meaningful only when readOnlyHint == false"


SPEC_DEFAULTS: dict[str, bool] = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}
"""The defaults the spec gives for absent hints (schema.ts, every version since 2025-03-26).

Used when the installed SDK's doc comments do not state a default, so a format change in
the SDK can never make an absent hint look safe; tests check that the SDK agrees.
"""


def _sdk_doc_comments() -> dict[str, str]:
    """Return the doc comment under each attribute of the installed SDK's `ToolAnnotations`."""
    try:
        source = textwrap.dedent(inspect.getsource(ToolAnnotations))
    except (OSError, TypeError):  # an SDK installed without .py sources
        return {}
    tree = ast.parse(source).body[0]
    if not isinstance(tree, ast.ClassDef):
        return {}
    body = tree.body
    docs: dict[str, str] = {}
    for stmt, following in zip(body, body[1:]):
        if (
            isinstance(stmt, ast.AnnAssign)
            and isinstance(stmt.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            docs[stmt.target.id] = inspect.cleandoc(following.value.value)
    return docs


def _read_fields() -> tuple[Field, ...]:
    """Build the field list from the installed SDK.

    Names, aliases and types come from the model; meaning and defaults from its doc comments.
    """
    docs = _sdk_doc_comments()
    fields = []
    for attribute, info in ToolAnnotations.model_fields.items():
        doc = docs.get(attribute, "")
        match = re.search(r"^Default:\s*(true|false)\s*$", doc, flags=re.MULTILINE | re.IGNORECASE)
        wire = info.alias or attribute
        default = SPEC_DEFAULTS.get(wire) if match is None else match.group(1).lower() == "true"
        meaning = re.sub(r"\s*^Default:.*$", "", doc, flags=re.MULTILINE).strip()
        meaning = " ".join(meaning.split())
        is_bool = info.annotation is not None and bool in getattr(info.annotation, "__args__", ())
        fields.append(
            Field(
                wire_name=wire,
                attribute=attribute,
                type="bool" if is_bool else "str",
                default=default,
                meaning=meaning,
                only_when_not_read_only="meaningful only when" in meaning,
            )
        )
    return tuple(fields)


FIELDS: tuple[Field, ...] = _read_fields()
"""The fields of `ToolAnnotations` in the installed SDK, in declaration order."""

HINTS: tuple[str, ...] = tuple(f.wire_name for f in FIELDS if f.type == "bool")
"""Wire names of the boolean hints, e.g. ``("readOnlyHint", "destructiveHint", ...)``."""

_BY_WIRE = {f.wire_name: f for f in FIELDS}
_BY_ATTR = {f.attribute: f for f in FIELDS}


def fields_table() -> Any:
    """Return the fields as a DataFrame: wire name, attribute, type, default, meaning."""
    import pandas as pd

    rows = [
        {
            "field (wire)": f.wire_name,
            "SDK attribute": f.attribute,
            "type": f.type,
            "default when absent": "none" if f.default is None else f.default,
            "meaning": f.meaning,
        }
        for f in FIELDS
    ]
    return pd.DataFrame(rows).set_index("field (wire)")


AnnotationsLike = ToolAnnotations | Tool | Mapping[str, Any] | None
"""A tool's annotations as the course accepts them: `ToolAnnotations`, a `Tool` (its annotations
are used), a dict with wire or attribute keys, or None (no annotations)."""


def declared(annotations: AnnotationsLike) -> dict[str, Any]:
    """Return the annotation values exactly as declared, keyed by wire name.

    Accepts a `ToolAnnotations`, a `Tool` (its `.annotations` are used), a mapping
    with wire (camelCase) or attribute (snake_case) keys, or `None` (no annotations).
    An absent field maps to `None`: absent is not the same as `False`.

    Raises:
        ValueError: an unknown field, a non-boolean hint or a non-string title.
    """
    if annotations is None:
        return {f.wire_name: None for f in FIELDS}
    if isinstance(annotations, Tool):
        return declared(annotations.annotations)
    if isinstance(annotations, ToolAnnotations):
        return {f.wire_name: getattr(annotations, f.attribute) for f in FIELDS}
    if not isinstance(annotations, Mapping):
        raise ValueError(
            "annotations must be a ToolAnnotations, a Tool, a dict or None, not "
            f"{type(annotations).__name__}"
        )
    values: dict[str, Any] = {f.wire_name: None for f in FIELDS}
    for key, value in annotations.items():
        field = _BY_WIRE.get(key) or _BY_ATTR.get(key)
        if field is None:
            known = ", ".join(f.wire_name for f in FIELDS)
            raise ValueError(f"unknown annotation field {key!r}: the spec defines only {known}")
        if value is not None:
            if field.type == "bool" and not isinstance(value, bool):
                raise ValueError(
                    f"{field.wire_name} must be true, false or absent (None), not {value!r} "
                    f"({type(value).__name__}); hints are booleans, strings like 'yes' are not "
                    "accepted"
                )
            if field.type == "str" and not isinstance(value, str):
                raise ValueError(
                    f"{field.wire_name} must be a string, not {value!r} ({type(value).__name__})"
                )
        values[field.wire_name] = value
    return values


@dataclass(frozen=True)
class EffectiveHints:
    """The four hints after the spec's defaults are applied.

    `destructive` and `idempotent` are `NOT_MEANINGFUL` ("n/a") when `read_only` is true,
    as the spec says they are meaningful only when `readOnlyHint` is false.
    """

    read_only: bool
    destructive: bool | str
    idempotent: bool | str
    open_world: bool

    def as_wire(self) -> dict[str, bool | str]:
        """Return the values keyed by wire name."""
        return {
            "readOnlyHint": self.read_only,
            "destructiveHint": self.destructive,
            "idempotentHint": self.idempotent,
            "openWorldHint": self.open_world,
        }


def effective(annotations: AnnotationsLike) -> EffectiveHints:
    """Apply the spec's defaults to absent hints.

    An unannotated tool is not read-only, possibly destructive, not idempotent and
    open-world: the most dangerous reading, on purpose.
    """
    values = declared(annotations)

    def value(wire: str) -> bool:
        v = values[wire]
        return _BY_WIRE[wire].default if v is None else v  # type: ignore[return-value]

    read_only = value("readOnlyHint")
    return EffectiveHints(
        read_only=read_only,
        destructive=NOT_MEANINGFUL if read_only else value("destructiveHint"),
        idempotent=NOT_MEANINGFUL if read_only else value("idempotentHint"),
        open_world=value("openWorldHint"),
    )


class RiskProfile(Enum):
    """The four risk profiles the course sorts every tool into (by its effective hints)."""

    READ_ONLY = "read-only"
    ADDITIVE = "additive"
    IDEMPOTENT_WRITE = "idempotent write"
    DESTRUCTIVE = "destructive"

    def __str__(self) -> str:
        return self.value


def classify(annotations: AnnotationsLike) -> RiskProfile:
    """Return the risk profile of a tool from its effective hints.

    read-only: `readOnlyHint` true. destructive: may delete or overwrite (retry-safe
    or not). additive: only adds, not idempotent. idempotent write: only adds or
    sets, repeating changes nothing more. `openWorldHint` is a separate axis.
    """
    eff = effective(annotations)
    if eff.read_only:
        return RiskProfile.READ_ONLY
    if eff.destructive:
        return RiskProfile.DESTRUCTIVE
    return RiskProfile.IDEMPOTENT_WRITE if eff.idempotent else RiskProfile.ADDITIVE


def as_tool(tool: Tool | Mapping[str, Any]) -> Tool:
    """Return `tool` as an SDK `Tool`, checking a mapping's annotations strictly first.

    A mapping is a tool definition as JSON (``{"name": ..., "annotations": {...}}``); its
    `inputSchema` may be left out. Its annotations go through `declared` before the SDK
    model is built, because the SDK silently drops unknown keys and turns ``"yes"`` into True.

    Raises:
        ValueError: not a tool, no name, or annotations `declared` rejects.
    """
    if isinstance(tool, Tool):
        return tool
    if not isinstance(tool, Mapping):
        raise ValueError(f"expected a Tool or a tool definition dict, not {type(tool).__name__}")
    if not isinstance(tool.get("name"), str) or not tool.get("name"):
        raise ValueError(f"a tool definition needs a non-empty 'name', got {tool.get('name')!r}")
    declared(tool.get("annotations"))
    return Tool.model_validate({"inputSchema": {"type": "object"}, **tool})


Tools = ListToolsResult | Tool | Mapping[str, Any] | Iterable[Tool | Mapping[str, Any]]
"""What `as_tools` accepts: a `ListToolsResult`, a `Tool`, a list of `Tool` or tool dicts, or a
``{name: annotations}`` dict (each value a `ToolAnnotations`, a dict, a `Tool` or None)."""


def as_tools(tools: Tools) -> list[Tool]:
    """Return "some tools" as a list of SDK `Tool`: the one place the course reads a tool list.

    Accepts a `ListToolsResult`, one `Tool` or tool dict, an iterable of `Tool` or tool dicts
    (``{"name": ..., "annotations": {...}}``), or a dict mapping a tool name to its annotations.
    Pure: it never connects to a server (list the tools first, e.g. with `client.list_tools()`).

    Raises:
        ValueError: anything else (a server object, a command, a string), or malformed annotations.
    """
    if isinstance(tools, ListToolsResult):
        return list(tools.tools)
    if isinstance(tools, Tool):
        return [tools]
    if isinstance(tools, Mapping):
        if isinstance(tools.get("name"), str):  # one tool definition as JSON
            return [as_tool(tools)]
        result = []
        for name, value in tools.items():
            if not isinstance(name, str) or not name:
                raise ValueError(f"tool names must be non-empty strings, not {name!r}")
            if isinstance(value, Tool):
                result.append(value)
            else:
                result.append(as_tool({"name": name, "annotations": _annotations_dict(value)}))
        return result
    if isinstance(tools, Iterable) and not isinstance(tools, (str, bytes)):
        items = list(tools)
        if all(isinstance(t, (Tool, Mapping)) for t in items):
            return [as_tool(t) for t in items]
    raise ValueError(
        "expected tools: a ListToolsResult, a list of Tool objects (e.g. `(await "
        "client.list_tools()).tools`) or a dict of name -> annotations; "
        f"got {type(tools).__name__} (connect to a server and list its tools first)"
    )


def _annotations_dict(value: Any) -> dict[str, Any] | None:
    values = declared(value)
    return {k: v for k, v in values.items() if v is not None} if value is not None else None


def display_title(tool: Tool | Mapping[str, Any]) -> str:
    """Return the name a UI shows: `title`, then `annotations.title`, then `name` (spec order)."""
    tool = as_tool(tool)
    annotation_title = tool.annotations.title if tool.annotations else None
    return tool.title or annotation_title or tool.name
