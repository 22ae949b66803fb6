"""SDK drift: fail, with a message saying what to update, when the installed `mcp` stops matching the lessons.

Every lesson states facts about the pinned SDK (`mcp` 2.x): the five annotation fields and the
spec's defaults, snake_case attributes with camelCase wire names, extra fields dropped, absent
hints left as `None`, the import paths cells use, and the protocol version an in-process
`Client(server)` negotiates. When a new `mcp` release changes one of these, this file fails
first and names the lessons' claim that is no longer true.
"""

from __future__ import annotations

import ast
import importlib
import importlib.metadata
import json
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.server import MCPServer
from mcp.types import Tool, ToolAnnotations

from course_lib import FIELDS
from course_lib.annotations import HINTS
from course_lib.connection import run_sync

ROOT = Path(__file__).resolve().parents[1]
MCP_VERSION = importlib.metadata.version("mcp")
UPDATE = (
    "The lessons (and this test) state the behaviour of the SDK they were written against; "
    f"the installed mcp is {MCP_VERSION}. Check the release notes, update the lessons that teach it, then this test."
)

# What the spec (2025-03-26 .. 2026-07-28) and the lessons say about ToolAnnotations.
SPEC_FIELDS = {
    # wire name: (SDK 2 attribute, default a client applies when absent; None = no default)
    "title": ("title", None),
    "readOnlyHint": ("read_only_hint", False),
    "destructiveHint": ("destructive_hint", True),
    "idempotentHint": ("idempotent_hint", False),
    "openWorldHint": ("open_world_hint", True),
}

# Import lines the lessons and course_lib use; each must keep working.
TAUGHT_IMPORTS = [
    ("mcp.server", "MCPServer"),
    ("mcp.server.mcpserver", "MCPServer"),
    ("mcp.server.mcpserver.exceptions", "ToolError"),
    ("mcp", "Client"),
    ("mcp.client", "Client"),
    ("mcp", "ClientSession"),
    ("mcp", "StdioServerParameters"),
    ("mcp.client.stdio", "stdio_client"),
    ("mcp.types", "ToolAnnotations"),
    ("mcp.types", "Tool"),
    ("mcp.types", "CallToolResult"),
    ("mcp.types", "ListToolsResult"),
]


def _run(coroutine_function):
    async def bounded():
        with anyio.fail_after(60):
            return await coroutine_function()

    return run_sync(bounded)


def _demo_server() -> MCPServer:
    server = MCPServer("drift-check", log_level="WARNING")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
    def lookup(key: str) -> str:
        """Return a value."""
        return key

    @server.tool()
    def unannotated() -> str:
        """Declares no annotations at all."""
        return "ok"

    return server


def test_tool_annotations_has_exactly_the_five_fields_lessons_teach():
    wire_names = {info.alias or name: name for name, info in ToolAnnotations.model_fields.items()}
    expected = {wire: attribute for wire, (attribute, _) in SPEC_FIELDS.items()}
    assert wire_names == expected, (
        f"ToolAnnotations fields changed: lessons teach {expected} (wire name: attribute), "
        f"the installed SDK has {wire_names}. {UPDATE}"
    )


def test_course_lib_reads_the_spec_defaults_from_the_installed_sdk():
    read = {f.wire_name: f.default for f in FIELDS}
    expected = {wire: default for wire, (_, default) in SPEC_FIELDS.items()}
    assert read == expected, (
        f"the defaults documented in mcp.types.ToolAnnotations changed (or their 'Default:' lines moved): "
        f"lessons teach {expected}, course_lib.FIELDS parsed {read}. {UPDATE}"
    )
    assert HINTS == ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"), (
        f"the order or names of the four hints changed: {HINTS}. {UPDATE}"
    )


def test_destructive_and_idempotent_are_documented_as_meaningful_only_when_not_read_only():
    only_when = {f.wire_name for f in FIELDS if f.only_when_not_read_only}
    assert only_when == {"destructiveHint", "idempotentHint"}, (
        "lessons say destructiveHint and idempotentHint are meaningful only when readOnlyHint is false; "
        f"the SDK's doc comments now say so of {sorted(only_when) or 'no field'}. {UPDATE}"
    )


@pytest.mark.parametrize(("module", "name"), TAUGHT_IMPORTS, ids=[f"{m}.{n}" for m, n in TAUGHT_IMPORTS])
def test_import_path_taught_by_the_lessons_still_works(module, name):
    try:
        imported = importlib.import_module(module)
    except ImportError as exc:
        pytest.fail(f"`from {module} import {name}` no longer works ({exc}). {UPDATE}")
    assert hasattr(imported, name), f"`from {module} import {name}` no longer works: {module} has no {name}. {UPDATE}"


def test_the_v1_fastmcp_import_path_is_still_gone():
    with pytest.raises(ModuleNotFoundError, match=r"mcp\.server\.fastmcp"):
        importlib.import_module("mcp.server.fastmcp")


def _guarded(node: ast.Try) -> bool:
    """True for `try: import ... except ImportError/ModuleNotFoundError:`, how a lesson shows an import failing."""
    names = set()
    for handler in node.handlers:
        kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        names |= {k.id for k in kinds if isinstance(k, ast.Name)}
    return bool(names & {"ImportError", "ModuleNotFoundError"})


def _imports_in(source: str) -> list[tuple[str, str | None]]:
    found: list[tuple[str, str | None]] = []
    try:
        tree = ast.parse(source)
    except SyntaxError:  # cells with IPython magics or exercise stubs
        return found
    guarded = {id(n) for t in ast.walk(tree) if isinstance(t, ast.Try) and _guarded(t) for b in t.body for n in ast.walk(b)}
    for node in ast.walk(tree):
        if id(node) in guarded:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module.split(".")[0] == "mcp":
            found.extend((node.module, alias.name) for alias in node.names)
        elif isinstance(node, ast.Import):
            found.extend((alias.name, None) for alias in node.names if alias.name.split(".")[0] == "mcp")
    return found


def _sources_using_mcp() -> list[tuple[str, str]]:
    sources = [(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8")) for p in sorted((ROOT / "course_lib").rglob("*.py"))]
    for folder in ("notebooks", "solutions", "exercises"):
        for path in sorted((ROOT / folder).glob("*.ipynb")):
            cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
            code = "\n".join(
                "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                for c in cells
                if c.get("cell_type") == "code"
            )
            sources.append((str(path.relative_to(ROOT)), "\n".join(line for line in code.splitlines() if not line.lstrip().startswith(("%", "!")))))
    return sources


def test_every_mcp_import_in_lessons_and_course_lib_resolves():
    broken = []
    for where, source in _sources_using_mcp():
        for module, name in _imports_in(source):
            try:
                imported = importlib.import_module(module)
            except ImportError as exc:
                broken.append(f"{where}: `import {module}` fails ({exc})")
                continue
            if name is not None and name != "*" and not hasattr(imported, name):
                try:
                    importlib.import_module(f"{module}.{name}")
                except ImportError:
                    broken.append(f"{where}: `from {module} import {name}` fails")
    assert not broken, "imports that no longer work with the installed mcp:\n" + "\n".join(broken) + f"\n{UPDATE}"


def test_attributes_are_snake_case_and_the_wire_stays_camel_case():
    annotations = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    wire = annotations.model_dump(by_alias=True, mode="json", exclude_none=True)
    assert wire == {"readOnlyHint": True, "openWorldHint": False}, (
        f"model_dump(by_alias=True) no longer gives camelCase wire names: {wire}. {UPDATE}"
    )
    python_side = annotations.model_dump(exclude_none=True)
    assert python_side == {"read_only_hint": True, "open_world_hint": False}, (
        f"lessons warn that plain model_dump() gives snake_case; it now gives {python_side}. {UPDATE}"
    )


def test_camel_case_keyword_arguments_are_still_accepted():
    assert ToolAnnotations(readOnlyHint=True, openWorldHint=False).read_only_hint is True, (
        f"ToolAnnotations(readOnlyHint=True) no longer sets read_only_hint. {UPDATE}"
    )


def test_unknown_annotation_fields_are_silently_dropped():
    dumped = ToolAnnotations(egressHint=True).model_dump(by_alias=True, exclude_none=True)
    assert dumped == {}, (
        "lessons say SDK 2 drops unknown annotation fields (put experiments in _meta instead); "
        f"ToolAnnotations(egressHint=True) now keeps {dumped}. {UPDATE}"
    )


def test_absent_hints_stay_none_and_are_not_filled_with_defaults():
    annotations = ToolAnnotations(read_only_hint=False)
    absent = {h: getattr(annotations, h) for h in ("destructive_hint", "idempotent_hint", "open_world_hint", "title")}
    assert absent == dict.fromkeys(absent), (
        "lessons say an unset hint stays None (absent is not False; clients apply the spec's defaults): "
        f"the SDK now fills {absent}. {UPDATE}"
    )


def test_a_tool_declared_without_annotations_is_listed_with_annotations_none():
    async def listed() -> list[Tool]:
        async with Client(_demo_server()) as client:
            return list((await client.list_tools()).tools)

    tools = {t.name: t for t in _run(listed)}
    assert tools["unannotated"].annotations is None, (
        f"an unannotated tool now arrives with annotations={tools['unannotated'].annotations!r}, not None. {UPDATE}"
    )
    wire = tools["lookup"].model_dump(by_alias=True, mode="json", exclude_none=True)["annotations"]
    assert wire == {"readOnlyHint": True, "openWorldHint": False}, f"declared annotations arrive as {wire}. {UPDATE}"


def test_in_process_client_negotiates_the_2026_protocol_and_legacy_mode_the_2025_one():
    async def versions() -> tuple[str | None, str | None]:
        server = _demo_server()
        async with Client(server) as client:
            auto = client.protocol_version
        async with Client(server, mode="legacy") as client:
            legacy = client.protocol_version
        return auto, legacy

    auto, legacy = _run(versions)
    assert auto == "2026-07-28", (
        f"Client(server) in-process now negotiates protocol {auto!r}; lessons say 2026-07-28. {UPDATE}"
    )
    assert legacy == "2025-11-25", (
        f"Client(server, mode='legacy') now negotiates {legacy!r}; lessons say 2025-11-25 (the initialize handshake). {UPDATE}"
    )


def test_tools_list_from_mcpserver_is_not_cacheable_by_default():
    async def listed():
        async with Client(_demo_server()) as client:
            return await client.list_tools()

    result = _run(listed)
    wire = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    assert (wire.get("ttlMs"), wire.get("cacheScope")) == (0, "private"), (
        f"MCPServer's tools/list now carries ttlMs={wire.get('ttlMs')!r}, cacheScope={wire.get('cacheScope')!r}; "
        f"lessons say 0 and 'private' (so a re-list always sees a changed definition). {UPDATE}"
    )
