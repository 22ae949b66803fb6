"""Session-level risk: the lethal trifecta across all the tools of one session.

Risk is a property of the whole session, not of one tool (the 2026-03-16 blog post, after
Simon Willison): **private data**, **untrusted content** and **external communication**
together let one piece of injected content steal data. This module:

* `analyse_session(tools, labels=..., meta_key=...)` -> `SessionReport`: which legs are present,
  which tools supply them, and how sure each claim is (`Basis`): the host's own label, a hint the
  server declared, a leg the server claims in its `_meta`, a spec default for an absent hint, or a
  guess where hints cannot say;
* the host-side defence built on a report is `course_lib.guard.SessionGuard`; the figure is
  `course_lib.plots.plot_session`.

What the four hints can and cannot tell (the basis of every inference here)::

    openWorldHint true (or absent)  -> may bring untrusted content in AND may send data out;
                                       the hint does not say which, so both legs are assumed
    openWorldHint false + read-only -> reads the host's own closed domain: private data is a GUESS
    not read-only (or absent)       -> nothing confines it: it may reach private data at WORST
                                       CASE, by the spec's defaults (an unannotated tool gets
                                       every leg, so silence never passes)
    nothing                         -> whether the data is private or sensitive; only the host knows

Only a read-only tool in the open world (a web search) is not assumed to reach private data.

A server's own `_meta` claims (`meta_key=`) are self-declared like hints: they can add legs to
what the hints imply, never remove one, so a lying server cannot talk its way past the taint gate.
Only the host's labels (`labels=`) may override the hints, and only where the host says so.

Introduced in: notebooks/04_lethal_trifecta.ipynb
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcp.types import Tool, ToolAnnotations

from .annotations import Tools, as_tools, declared, effective
from .legs import CAVEATS, Basis, Leg, as_leg

if TYPE_CHECKING:  # pandas loads on first use: `inspect` starts faster without it
    import pandas as pd

__all__ = [
    "SessionReport",
    "SessionTool",
    "Supply",
    "analyse_session",
    "session_tools",
]


@dataclass(frozen=True)
class SessionTool:
    """One tool of a session, with the name of the server that offers it (None if unknown)."""

    server: str | None
    tool: Tool

    @property
    def name(self) -> str:
        return self.tool.name


@dataclass(frozen=True)
class Supply:
    """One claim: `tool` (on `server`) supplies `leg`, this sure (`basis`), for this `reason`."""

    server: str | None
    tool: str
    leg: Leg
    basis: Basis
    reason: str


def _grouped(tools: Mapping[Any, Any]) -> bool:
    """True for {server name: tools}; False for one tool dict or {tool name: annotations}."""
    if isinstance(tools.get("name"), str):
        return False
    return not all(
        value is None
        or isinstance(value, (Tool, ToolAnnotations))
        or (isinstance(value, Mapping) and _is_hints(value))
        for value in tools.values()
    )


def _is_hints(value: Mapping[Any, Any]) -> bool:
    try:
        declared(value)
    except ValueError:
        return False
    return True


def session_tools(tools: Tools | Mapping[str, Tools]) -> list[SessionTool]:
    """Return the tools of a session, each with its server's name.

    `tools` is anything `as_tools` accepts (one server's tools, server unknown), or a mapping
    from a server name to such tools. Pure: list each server's tools first (`open_session`
    does it for several servers at once).

    Raises:
        ValueError: nothing usable was given, or a server name is not a non-empty string.
    """
    if tools is None or isinstance(tools, (str, bytes, int, float, bool)):
        raise ValueError(
            "analyse_session needs the session's tools: a list of Tool objects, a ListToolsResult, "
            f"or {{server name: tools}}; got {tools!r}"
        )
    if isinstance(tools, Mapping) and _grouped(tools):
        if not tools:
            raise ValueError(
                "no servers given: pass {server name: tools or server} with at least one entry"
            )
        result = []
        for server, value in tools.items():
            if not isinstance(server, str) or not server.strip():
                raise ValueError(f"server names must be non-empty strings, not {server!r}")
            result += [SessionTool(server, t) for t in as_tools(value)]
        return result
    return [SessionTool(None, t) for t in as_tools(tools)]


def _infer(item: SessionTool) -> list[Supply]:
    """Infer the legs one tool supplies from its hints alone."""
    raw = declared(item.tool.annotations)
    eff = effective(item.tool.annotations)
    supplies: list[Supply] = []

    def add(leg: Leg, basis: Basis, reason: str) -> None:
        supplies.append(Supply(item.server, item.name, leg, basis, reason))

    if eff.open_world:
        basis = Basis.DECLARED if raw["openWorldHint"] is True else Basis.DEFAULT
        said = (
            "openWorldHint is true"
            if basis is Basis.DECLARED
            else "openWorldHint is absent (default: open world)"
        )
        add(Leg.UNTRUSTED_CONTENT, basis, f"{said}: its output may carry content from outside")
        if eff.read_only:
            add(
                Leg.EXTERNAL_COMMUNICATION,
                basis,
                f"{said}: even a read sends its arguments out (a query can carry data)",
            )
        else:
            add(
                Leg.EXTERNAL_COMMUNICATION,
                basis,
                f"{said} and it is not read-only: it may send data out",
            )
    elif eff.read_only:
        add(
            Leg.PRIVATE_DATA,
            Basis.GUESS,
            "read-only in a closed domain (openWorldHint false): it reads the host's own data; "
            "whether that data is private, no hint says",
        )
    if not eff.read_only:
        said = (
            "readOnlyHint is false"
            if raw["readOnlyHint"] is False
            else "readOnlyHint is absent (default: not read-only)"
        )
        add(
            Leg.PRIVATE_DATA,
            Basis.WORST_CASE,
            f"{said}: by the spec's defaults nothing confines it, so at worst it reads private "
            "data too",
        )
    return supplies


def _legs_of(value: Any) -> list[Leg]:
    if isinstance(value, (str, Leg)):
        value = [value]
    if not isinstance(value, Iterable):
        raise ValueError(f"legs must be a leg name or a list of leg names, not {value!r}")
    return sorted({as_leg(v) for v in value}, key=list(Leg).index)


def _labelled(item: SessionTool, legs: Any) -> list[Supply]:
    return [
        Supply(item.server, item.name, leg, Basis.HOST, "the host labelled this tool")
        for leg in _legs_of(legs)
    ]


def _meta_claims(item: SessionTool, meta_key: str) -> list[Supply]:
    meta = item.tool.meta or {}
    if meta_key not in meta:
        return []
    try:
        legs = _legs_of(meta[meta_key])
    except ValueError as exc:
        raise ValueError(
            f"tool {item.name!r}: its _meta key {meta_key!r} holds {meta[meta_key]!r}: {exc}"
        ) from None
    reason = f"the server claims it in _meta[{meta_key!r}] (self-declared, like a hint)"
    return [Supply(item.server, item.name, leg, Basis.META, reason) for leg in legs]


def _surest(supplies: list[Supply]) -> list[Supply]:
    """Keep, per leg, the surest claim (the first one on a tie), in trifecta order."""
    best: dict[Leg, Supply] = {}
    for supply in supplies:
        held = best.get(supply.leg)
        if held is None or list(Basis).index(supply.basis) < list(Basis).index(held.basis):
            best[supply.leg] = supply
    return [best[leg] for leg in Leg if leg in best]


def _label_for(item: SessionTool, labels: Mapping[str, Any]) -> Any:
    if item.server is not None and f"{item.server}/{item.name}" in labels:
        return labels[f"{item.server}/{item.name}"]
    return labels.get(item.name)


@dataclass(frozen=True)
class SessionReport:
    """Which trifecta legs a session's tools supply, by which tools, and how sure each claim is."""

    tools: tuple[SessionTool, ...]
    supplies: tuple[Supply, ...]
    caveats: tuple[str, ...] = CAVEATS

    def suppliers(self, leg: Leg | str) -> list[str]:
        """Return the names of the tools that supply `leg`, in session order."""
        leg = as_leg(leg)
        return [s.tool for s in self.supplies if s.leg is leg]

    @property
    def legs(self) -> list[Leg]:
        """The legs present in the session, in trifecta order."""
        return [leg for leg in Leg if self.suppliers(leg)]

    @property
    def missing(self) -> list[Leg]:
        """The legs no tool supplies."""
        return [leg for leg in Leg if not self.suppliers(leg)]

    @property
    def complete(self) -> bool:
        """True when all three legs are present: the lethal trifecta."""
        return not self.missing

    def certainty(self, leg: Leg | str) -> Basis | None:
        """Return the surest basis any supplier of `leg` has (None if the leg is absent)."""
        leg = as_leg(leg)
        bases = [s.basis for s in self.supplies if s.leg is leg]
        return min(bases, key=list(Basis).index) if bases else None

    @property
    def status(self) -> str:
        """One sentence: is the trifecta complete, and how sure is that."""
        if self.complete:
            tail = ""
            for basis, words in (
                (Basis.WORST_CASE, "worst case, by the spec's defaults"),
                (Basis.GUESS, "guessed, not known"),
                (Basis.DEFAULT, "only from spec defaults of absent hints"),
                (Basis.META, "only claimed in a server's _meta"),
            ):
                legs = [str(leg) for leg in Leg if self.certainty(leg) is basis]
                tail += f"; {words}: {', '.join(legs)}" if legs else ""
            return f"lethal trifecta COMPLETE: all three legs are present in this session{tail}"
        present = ", ".join(str(leg) for leg in self.legs) or "none"
        return (
            f"no lethal trifecta: missing {', '.join(str(leg) for leg in self.missing)} "
            f"(present: {present})"
        )

    def legs_table(self) -> pd.DataFrame:
        """Return one row per leg: present?, the tools supplying it, and the surest basis."""
        import pandas as pd

        rows = []
        for leg in Leg:
            certainty = self.certainty(leg)
            rows.append(
                {
                    "present": bool(self.suppliers(leg)),
                    "supplied by": ", ".join(self.suppliers(leg)) or "-",
                    "how sure": str(certainty) if certainty else "-",
                }
            )
        return pd.DataFrame(rows, index=pd.Index([str(leg) for leg in Leg], name="leg"))

    def table(self) -> pd.DataFrame:
        """Return one row per tool: its server and, per leg, the basis of its claim ("" if none)."""
        import pandas as pd

        rows, index = [], []
        for item in self.tools:
            row: dict[str, Any] = {"server": item.server or ""}
            for leg in Leg:
                basis = [
                    s.basis
                    for s in self.supplies
                    if s.tool == item.name and s.server == item.server and s.leg is leg
                ]
                row[str(leg)] = str(min(basis, key=list(Basis).index)) if basis else ""
            rows.append(row)
            index.append(item.name)
        return pd.DataFrame(rows, index=pd.Index(index, name="tool"))

    def as_dict(self) -> dict[str, Any]:
        """Return the report as JSON-ready data (the `inspect --json` "session" object)."""
        return {
            "trifecta": self.complete,
            "status": self.status,
            "legs": {
                str(leg): {
                    "present": bool(self.suppliers(leg)),
                    "certainty": str(self.certainty(leg)) if self.certainty(leg) else None,
                    "supplied_by": [
                        {
                            "server": s.server,
                            "tool": s.tool,
                            "basis": str(s.basis),
                            "reason": s.reason,
                        }
                        for s in self.supplies
                        if s.leg is leg
                    ],
                }
                for leg in Leg
            },
            "caveats": list(self.caveats),
        }

    def __str__(self) -> str:
        lines = [self.status]
        for leg in Leg:
            suppliers = [f"{s.tool} ({s.basis})" for s in self.supplies if s.leg is leg]
            lines.append(f"  {str(leg) + ':':24} {', '.join(suppliers) if suppliers else '-'}")
        lines += ["What the hints cannot tell:", *(f"  - {c}" for c in self.caveats)]
        return "\n".join(lines)


def analyse_session(
    tools: Tools | Mapping[str, Tools],
    *,
    labels: Mapping[str, Any] | None = None,
    label_mode: str = "replace",
    meta_key: str | None = None,
) -> SessionReport:
    """Find the lethal trifecta's legs among the tools of one session.

    `tools` is what `session_tools` accepts: a list of `Tool`, a `ListToolsResult`, or
    ``{server name: tools}``. Legs are inferred from the
    hints (see the module docstring).

    `meta_key` names a `_meta` key in which servers claim legs (e.g. ``"com.example.ops/legs"``
    holding ``["untrusted content"]``). Such claims are **added** to the legs the hints imply,
    with basis "server _meta"; they never remove one, since `_meta` is as self-declared as a hint.

    `labels` maps a tool name (or ``"server/tool"``) to the legs the host *knows* it supplies,
    e.g. ``{"send_email": ["external communication"]}``. With ``label_mode="replace"`` (the
    default) a label overrides everything else for that tool (an empty list: no leg); with
    ``"add"`` it only adds legs to the inferred ones.

    Raises:
        ValueError: malformed tools, an unknown leg, a label naming no tool of the session,
            an unknown `label_mode`, or a `meta_key` value that is not a list of leg names.
    """
    if label_mode not in ("replace", "add"):
        raise ValueError(
            f"label_mode must be 'replace' (labels override the hints) or 'add', not {label_mode!r}"
        )
    if meta_key is not None and (not isinstance(meta_key, str) or not meta_key.strip()):
        raise ValueError(
            "meta_key must be a non-empty _meta key such as 'com.example.ops/legs', not "
            f"{meta_key!r}"
        )
    items = session_tools(tools)
    labels = dict(labels or {})
    known = {i.name for i in items} | {f"{i.server}/{i.name}" for i in items if i.server}
    unknown = sorted(str(k) for k in labels if k not in known)
    if unknown:
        raise ValueError(
            f"labels name tools this session does not have: {unknown}; its tools are "
            f"{sorted(i.name for i in items)}"
        )
    supplies: list[Supply] = []
    for item in items:
        label = _label_for(item, labels)
        if label is not None and label_mode == "replace":
            supplies += _labelled(item, label)
            continue
        claims = _infer(item) + (_meta_claims(item, meta_key) if meta_key else [])
        if label is not None:
            claims += _labelled(item, label)
        supplies += _surest(claims)
    return SessionReport(tuple(items), tuple(supplies))
