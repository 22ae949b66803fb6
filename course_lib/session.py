"""Session-level risk: the lethal trifecta across all the tools of one session, and taint tracking.

Risk is a property of the whole session, not of one tool (the 2026-03-16 blog post, after
Simon Willison): **private data**, **untrusted content** and **external communication**
together let one piece of injected content steal data. This module:

* `analyse_session(tools, labels=..., meta_key=...)` -> `SessionReport`: which legs are present,
  which tools supply them, and how sure each claim is (`Basis`): the host's own label, a hint the
  server declared, a leg the server claims in its `_meta`, a spec default for an absent hint, or a
  guess where hints cannot say;
* `SessionGuard`: a host-side defence. It takes each call's decision from a
  `course_lib.policy` policy, marks the session tainted once untrusted content arrives, and
  from then on makes tools that can send data out need confirmation (or blocks them);
* `plot_session(report)`: the session's tools as nodes coloured by the legs they supply, the
  triangle of the three legs drawn thick and black when complete.

What the four hints can and cannot tell (the basis of every inference here)::

    openWorldHint true (or absent)  -> may bring untrusted content in AND may send data out;
                                       the hint does not say which, so both legs are assumed
    openWorldHint false + read-only -> reads the host's own closed domain: private data is a GUESS
    nothing                         -> whether the data is private or sensitive; only the host knows

A server's own `_meta` claims (`meta_key=`) are self-declared like hints: they can add legs to
what the hints imply, never remove one, so a lying server cannot talk its way past the taint gate.
Only the host's labels (`labels=`) may override the hints, and only where the host says so.

Introduced in: notebooks/04_lethal_trifecta.ipynb
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

from mcp.types import ListToolsResult, Tool

from .annotations import declared, effective

if TYPE_CHECKING:  # pandas and the policies load on first use: `inspect` starts faster without them
    import pandas as pd

    from .policy import Decision, Policy, Trust

__all__ = [
    "LEG_COLORS",
    "Basis",
    "Leg",
    "SessionGuard",
    "SessionReport",
    "SessionTool",
    "Supply",
    "Verdict",
    "analyse_session",
    "plot_session",
    "session_tools",
]


class Leg(str, Enum):
    """One leg of the lethal trifecta."""

    PRIVATE_DATA = "private data"
    UNTRUSTED_CONTENT = "untrusted content"
    EXTERNAL_COMMUNICATION = "external communication"

    def __str__(self) -> str:
        return self.value


class Basis(str, Enum):
    """How sure a claim about a leg is, from most to least sure."""

    HOST = "host label"  # the host said so: the only source that knows what is private or external
    DECLARED = "declared hint"  # follows from a hint the server set (still only a hint)
    META = "server _meta"  # the server claims it in the tool's _meta (self-declared, and no standard)
    DEFAULT = "spec default"  # follows from the spec's default for an absent hint
    GUESS = "guess"  # hints cannot say; inferred from the combination

    def __str__(self) -> str:
        return self.value


LEG_COLORS: dict[Leg, str] = {
    Leg.PRIVATE_DATA: "#0072B2",  # Okabe-Ito blue
    Leg.UNTRUSTED_CONTENT: "#E69F00",  # Okabe-Ito orange
    Leg.EXTERNAL_COMMUNICATION: "#CC79A7",  # Okabe-Ito reddish purple
}
"""The colour of each leg in `plot_session` (Okabe-Ito, like `course_lib.plots`); letters back the colours."""

LEG_LETTERS: dict[Leg, str] = {Leg.PRIVATE_DATA: "P", Leg.UNTRUSTED_CONTENT: "U", Leg.EXTERNAL_COMMUNICATION: "E"}
TRIFECTA_COLOR = "#000000"  # black: unlike red or vermillion, never confused with the orange of U

CAVEATS: tuple[str, ...] = (
    "openWorldHint does not separate reading untrusted content from sending data out: "
    "an open-world tool is assumed to do both.",
    "No hint says whether data is private: closed-world tools that read are only guessed to reach private data.",
    "Hints are self-declared by each server; a lying or careless server changes every inference here.",
)
"""What the four hints cannot tell; every report carries these."""


def _leg(value: Any) -> Leg:
    if isinstance(value, Leg):
        return value
    if isinstance(value, str):
        for leg in Leg:
            if value.strip().lower() in {leg.value, leg.name.lower()}:
                return leg
    choices = ", ".join(repr(leg.value) for leg in Leg)
    raise ValueError(f"unknown trifecta leg {value!r}: use one of {choices}")


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


def _as_tool_list(value: Any) -> list[Tool]:
    from .connection import list_tools_sync
    from .tables import as_tools

    if isinstance(value, ListToolsResult):
        return list(value.tools)
    if isinstance(value, str):  # a shell-style stdio command
        return list_tools_sync(value)
    return as_tools(value)


def session_tools(tools: Any) -> list[SessionTool]:
    """Return the tools of a session, each with its server's name.

    `tools` is a list of `Tool` (or wire dicts), a `ListToolsResult`, or a mapping from a
    server name to any of those or to a server object or stdio command (listed now).

    Raises:
        ValueError: nothing usable was given, or a server name is not a non-empty string.
    """
    if tools is None or isinstance(tools, (str, bytes, int, float, bool)):
        raise ValueError(
            "analyse_session needs the session's tools: a list of Tool objects, a ListToolsResult, "
            f"or {{server name: server object, stdio command or tools}}; got {tools!r}"
        )
    if isinstance(tools, Mapping) and not ("name" in tools and "inputSchema" in tools):
        if not tools:
            raise ValueError("no servers given: pass {server name: tools or server} with at least one entry")
        result = []
        for server, value in tools.items():
            if not isinstance(server, str) or not server.strip():
                raise ValueError(f"server names must be non-empty strings, not {server!r}")
            result += [SessionTool(server, t) for t in _as_tool_list(value)]
        return result
    return [SessionTool(None, t) for t in _as_tool_list(tools)]


def _infer(item: SessionTool) -> list[Supply]:
    """Infer the legs one tool supplies from its hints alone."""
    raw = declared(item.tool.annotations)
    eff = effective(item.tool.annotations)
    supplies: list[Supply] = []

    def add(leg: Leg, basis: Basis, reason: str) -> None:
        supplies.append(Supply(item.server, item.name, leg, basis, reason))

    if eff.open_world:
        basis = Basis.DECLARED if raw["openWorldHint"] is True else Basis.DEFAULT
        said = "openWorldHint is true" if basis is Basis.DECLARED else "openWorldHint is absent (default: open world)"
        add(Leg.UNTRUSTED_CONTENT, basis, f"{said}: its output may carry content from outside")
        if eff.read_only:
            add(Leg.EXTERNAL_COMMUNICATION, basis, f"{said}: even a read sends its arguments out (a query can carry data)")
        else:
            add(Leg.EXTERNAL_COMMUNICATION, basis, f"{said} and it is not read-only: it may send data out")
    elif eff.read_only:
        add(
            Leg.PRIVATE_DATA,
            Basis.GUESS,
            "read-only in a closed domain (openWorldHint false): it reads the host's own data; "
            "whether that data is private, no hint says",
        )
    return supplies


def _legs_of(value: Any) -> list[Leg]:
    if isinstance(value, (str, Leg)):
        value = [value]
    if not isinstance(value, Iterable):
        raise ValueError(f"legs must be a leg name or a list of leg names, not {value!r}")
    return sorted({_leg(v) for v in value}, key=list(Leg).index)


def _labelled(item: SessionTool, legs: Any) -> list[Supply]:
    return [Supply(item.server, item.name, leg, Basis.HOST, "the host labelled this tool") for leg in _legs_of(legs)]


def _meta_claims(item: SessionTool, meta_key: str) -> list[Supply]:
    meta = item.tool.meta or {}
    if meta_key not in meta:
        return []
    try:
        legs = _legs_of(meta[meta_key])
    except ValueError as exc:
        raise ValueError(f"tool {item.name!r}: its _meta key {meta_key!r} holds {meta[meta_key]!r}: {exc}") from None
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
        leg = _leg(leg)
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
        leg = _leg(leg)
        bases = [s.basis for s in self.supplies if s.leg is leg]
        return min(bases, key=list(Basis).index) if bases else None

    @property
    def status(self) -> str:
        """One sentence: is the trifecta complete, and how sure is that."""
        if self.complete:
            tail = ""
            for basis, words in (
                (Basis.GUESS, "guessed, not known"),
                (Basis.DEFAULT, "only from spec defaults of absent hints"),
                (Basis.META, "only claimed in a server's _meta"),
            ):
                legs = [str(leg) for leg in Leg if self.certainty(leg) is basis]
                tail += f"; {words}: {', '.join(legs)}" if legs else ""
            return f"lethal trifecta COMPLETE: all three legs are present in this session{tail}"
        present = ", ".join(str(leg) for leg in self.legs) or "none"
        return f"no lethal trifecta: missing {', '.join(str(leg) for leg in self.missing)} (present: {present})"

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
        """Return one row per tool: its server and, per leg, the basis of the claim ("" when none)."""
        import pandas as pd

        rows, index = [], []
        for item in self.tools:
            row: dict[str, Any] = {"server": item.server or ""}
            for leg in Leg:
                basis = [s.basis for s in self.supplies if s.tool == item.name and s.server == item.server and s.leg is leg]
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
                        {"server": s.server, "tool": s.tool, "basis": str(s.basis), "reason": s.reason}
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
    tools: Any,
    *,
    labels: Mapping[str, Any] | None = None,
    label_mode: str = "replace",
    meta_key: str | None = None,
) -> SessionReport:
    """Find the lethal trifecta's legs among the tools of one session.

    `tools` is what `session_tools` accepts: a list of `Tool`, a `ListToolsResult`, or
    ``{server name: tools, server object or stdio command}``. Legs are inferred from the
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
        raise ValueError(f"label_mode must be 'replace' (labels override the hints) or 'add', not {label_mode!r}")
    if meta_key is not None and (not isinstance(meta_key, str) or not meta_key.strip()):
        raise ValueError(f"meta_key must be a non-empty _meta key such as 'com.example.ops/legs', not {meta_key!r}")
    items = session_tools(tools)
    labels = dict(labels or {})
    known = {i.name for i in items} | {f"{i.server}/{i.name}" for i in items if i.server}
    unknown = sorted(str(k) for k in labels if k not in known)
    if unknown:
        raise ValueError(f"labels name tools this session does not have: {unknown}; its tools are {sorted(i.name for i in items)}")
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


# --- the host-side defence ---------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """The host's answer before one call: "allow", "confirm" or "deny", and why."""

    action: str
    reason: str
    decision: Decision | None = None  # the per-call policy's decision it started from


_TAINT_ACTIONS = {None, "confirm", "deny"}


@dataclass
class SessionGuard:
    """A host's per-session gatekeeper: a per-call policy plus taint tracking.

    Before each call it asks `policy` (default: the spec-following `SPEC`) for a decision
    at the server's `trust` level; tools in `auto_approve` skip a confirmation (the user
    chose "always allow"). After a call to a tool that supplies untrusted content (see
    `report`), the session is **tainted**; from then on, if `on_taint` is "confirm" or
    "deny", every tool that can send data out needs confirmation or is blocked, even if
    auto-approved. `on_taint=None` tracks taint but changes nothing (no defence).

    Raises:
        ValueError: an unknown `on_taint`, a non-`Policy`, or names in `auto_approve` or `trust`
            that the session does not have.
    """

    report: SessionReport
    policy: Policy | None = None  # None: SPEC
    trust: Trust | str | Mapping[str, Trust | str] = "untrusted"
    auto_approve: frozenset[str] | set[str] | tuple[str, ...] = frozenset()
    on_taint: str | None = "confirm"
    tainted_by: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not isinstance(self.report, SessionReport):
            raise ValueError("SessionGuard needs a SessionReport: use analyse_session(tools) first")
        from .policy import SPEC, Policy

        if self.policy is None:
            self.policy = SPEC
        if not isinstance(self.policy, Policy):
            raise ValueError(f"policy must be a course_lib.policy Policy such as SPEC, not {type(self.policy).__name__}")
        if self.on_taint not in _TAINT_ACTIONS:
            raise ValueError(f"on_taint must be 'confirm', 'deny' or None (no defence), not {self.on_taint!r}")
        self._tools = {t.name: t for t in self.report.tools}
        if len(self._tools) != len(self.report.tools):
            raise ValueError("two servers offer tools with the same name; a guard needs unique tool names")
        self.auto_approve = frozenset(self.auto_approve)
        unknown = sorted(self.auto_approve - set(self._tools))
        if unknown:
            raise ValueError(f"auto_approve names tools this session does not have: {unknown}")
        if isinstance(self.trust, Mapping):
            servers = {t.server for t in self.report.tools}
            unknown = sorted(str(s) for s in self.trust if s not in servers)
            if unknown:
                raise ValueError(f"trust names servers this session does not have: {unknown}")

    @property
    def tainted(self) -> bool:
        """True once untrusted content has entered the session."""
        return bool(self.tainted_by)

    def _tool(self, name: str) -> SessionTool:
        try:
            return self._tools[name]
        except KeyError:
            raise ValueError(f"no tool {name!r} in this session; its tools are {sorted(self._tools)}") from None

    def _trust_of(self, item: SessionTool) -> Trust | str:
        if isinstance(self.trust, Mapping):
            return self.trust.get(item.server or "", "untrusted")
        return self.trust

    def supplies(self, name: str, leg: Leg | str) -> bool:
        """True if tool `name` supplies `leg` in this session's report."""
        return name in self.report.suppliers(leg) and name in self._tools

    def check(self, name: str) -> Verdict:
        """Return the verdict before calling tool `name` (pure: does not change the guard).

        Raises:
            ValueError: the session has no such tool.
        """
        from .policy import PreCall, decide

        item = self._tool(name)
        decision = decide(self.policy, item.tool, trust=self._trust_of(item))
        if decision.pre_call is PreCall.DENY:
            return Verdict("deny", decision.reason, decision)
        action = "allow" if decision.pre_call is PreCall.ALLOW else "confirm"
        reason = decision.reason
        if action == "confirm" and name in self.auto_approve:
            action, reason = "allow", f"the user chose 'always allow' for {name} ({decision.pre_call} by the policy)"
        if self.tainted and self.on_taint and self.supplies(name, Leg.EXTERNAL_COMMUNICATION):
            sources = ", ".join(dict.fromkeys(self.tainted_by))
            action = self.on_taint
            reason = f"session tainted by {sources} output, and {name} can send data out"
        return Verdict(action, reason, decision)

    def record(self, name: str) -> bool:
        """Note that tool `name` ran; taint the session if its output is untrusted content. Return `tainted`.

        Raises:
            ValueError: the session has no such tool.
        """
        self._tool(name)
        if self.supplies(name, Leg.UNTRUSTED_CONTENT):  # an error message from outside is untrusted too
            self.tainted_by.append(name)
        return self.tainted


# --- the figure ------------------------------------------------------------------------------


def plot_session(report: SessionReport, ax: Any = None, *, title: str | None = None) -> Any:
    """Draw the session: one node per leg (a triangle), each tool linked to the legs it supplies.

    Tools are coloured by their legs (blue P private data, orange U untrusted content, purple
    E external communication; split when a tool supplies several, grey when none) and linked
    to the three big lettered leg nodes (P, U, E; hollow when absent); dashed links are guesses.
    When all three legs are present the triangle joining P, U and E is drawn thick and black.
    Returns the matplotlib `Axes`.

    Raises:
        ValueError: `report` is not a `SessionReport`.
    """
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Wedge

    if not isinstance(report, SessionReport):
        raise ValueError("plot_session needs a SessionReport: use analyse_session(tools) first")
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 4.8))
    hubs = {Leg.PRIVATE_DATA: (0.0, 0.0), Leg.UNTRUSTED_CONTENT: (1.0, 1.6), Leg.EXTERNAL_COMMUNICATION: (2.0, 0.0)}
    centre = (1.0, 0.55)
    color = TRIFECTA_COLOR if report.complete else "#bbbbbb"
    corners = [hubs[leg] for leg in Leg] + [hubs[Leg.PRIVATE_DATA]]
    ax.plot(*zip(*corners), color=color, lw=5 if report.complete else 1.5, zorder=1, solid_capstyle="round")

    xs, ys = [x for x, _ in hubs.values()], [y for _, y in hubs.values()]
    groups: dict[tuple[Leg, ...], list[SessionTool]] = {}
    for item in report.tools:
        legs = tuple(leg for leg in Leg if any(s.tool == item.name and s.server == item.server and s.leg is leg for s in report.supplies))
        groups.setdefault(legs, []).append(item)
    for legs, items in groups.items():
        if legs:
            ax_x = sum(hubs[leg][0] for leg in legs) / len(legs)
            ax_y = sum(hubs[leg][1] for leg in legs) / len(legs)
            # push tools outward from the centre so links do not cross the triangle
            push = 0.6 if len(legs) == 1 else 0.9
            dx, dy = ax_x - centre[0], ax_y - centre[1]
            norm = max((dx * dx + dy * dy) ** 0.5, 1e-9)
            base = (ax_x + push * dx / norm, ax_y + push * dy / norm)
            along = (-dy / norm, dx / norm)
        else:
            base, along = (1.0, -0.75), (1.0, 0.0)
        for k, item in enumerate(items):
            offset = (k - (len(items) - 1) / 2) * 0.7
            x, y = base[0] + along[0] * offset, base[1] + along[1] * offset
            xs.append(x)
            ys.append(y)
            for leg in legs:
                guessed = all(
                    s.basis is Basis.GUESS for s in report.supplies if s.tool == item.name and s.server == item.server and s.leg is leg
                )
                ax.plot([x, hubs[leg][0]], [y, hubs[leg][1]], color=LEG_COLORS[leg], lw=1.2, ls="--" if guessed else "-", zorder=2)
            if legs:
                share = 360 / len(legs)
                for n, leg in enumerate(legs):
                    ax.add_patch(Wedge((x, y), 0.13, 90 + n * share, 90 + (n + 1) * share, color=LEG_COLORS[leg], zorder=3))
            else:
                ax.add_patch(Wedge((x, y), 0.13, 0, 360, color="#999999", zorder=3))
            ax.annotate(item.name, (x, y), xytext=(0, -16), textcoords="offset points", ha="center", va="top", fontsize=9, zorder=4)
    for leg, (x, y) in hubs.items():
        present = bool(report.suppliers(leg))
        ax.scatter([x], [y], s=700, color=LEG_COLORS[leg] if present else "white", edgecolors=LEG_COLORS[leg], linewidths=2, zorder=5)
        ax.text(x, y, LEG_LETTERS[leg], ha="center", va="center", fontsize=11, fontweight="bold", color="white" if present else LEG_COLORS[leg], zorder=6)
    handles = [
        Line2D([], [], marker="o", ls="", ms=11, color=LEG_COLORS[leg], label=f"{LEG_LETTERS[leg]}  {leg}" + ("" if report.suppliers(leg) else " (absent)"))
        for leg in Leg
    ]
    handles.append(Line2D([], [], color="#555555", ls="--", label="guess: hints cannot say"))
    handles.append(Line2D([], [], color=color, lw=4, label="all three legs: trifecta" if report.complete else "trifecta incomplete"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False, fontsize=9)
    ax.set_xlim(min(xs) - 0.45, max(xs) + 0.45)
    ax.set_ylim(min(ys) - 0.45, max(ys) + 0.5)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title or ("Lethal trifecta: complete" if report.complete else "Lethal trifecta: incomplete"))
    return ax
