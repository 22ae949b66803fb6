"""Models of the census clients: what each measured CLI does with a call, by mode and setting.

Each client version measured with ``python -m course_tools measure-client`` gets a
`ClientModel`: for every (mode, trust or rule setting) it measured, a `Rule` saying what
happens to a call of a tool with given annotations on a given server. The rules are written
from the committed cells (`course_lib/data/clients/`) and from the client's source where
named, and `tests/test_measured_clients.py` checks every committed cell against them, naming
each cell where a model and a measurement disagree. Claude Code, with its permission rules,
has its own model (`course_lib.permissions`); Codex's rule is `CodexPolicy.needs_approval`.

Outcomes are the measurement's: `RAN`, `ASK`, `ASK_HEADLESS` (it would have asked, but a
headless run cannot), `DENY`, `HIDDEN`. All measured headless, on 2026-12-01 unless the
measurement says otherwise.

Introduced in: docs/clients.md; lesson 03 shows the table (`census_table`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .annotations import declared
from .clients import CodexPolicy
from .decisions import PreCall, Trust
from .measured import SHORT_LABELS, Measurement, committed_files
from .permissions import Outcome
from .policy import CURSOR_ASK, VSCODE, Policy

__all__ = [
    "CENSUS",
    "CENSUS_COLUMNS",
    "CLASSIFIER",
    "DOCUMENTED",
    "HEADLINE",
    "ClientModel",
    "Rule",
    "census_measurements",
    "census_model",
    "census_table",
    "side_by_side",
]

Rule = Callable[[str, Any], "Outcome | None"]
"""What happens to a call of a tool of `server` (the first argument) with these annotations;
None: a safety classifier decides (see `ClientModel.session`)."""

CLASSIFIER: None = None
"""A rule's answer when the client hands the call to its safety classifier."""


def _always(outcome: Outcome | None) -> Rule:
    return lambda _server, _annotations: outcome


def _if_read_only(then: Outcome, otherwise: Outcome) -> Rule:
    """`then` when ``readOnlyHint`` is declared true, whatever else is declared."""

    def rule(_server: str, annotations: Any) -> Outcome:
        return then if declared(annotations)["readOnlyHint"] is True else otherwise

    return rule


def _if_declared(hint: str, value: bool, then: Outcome, otherwise: Outcome) -> Rule:
    """`then` when `hint` is declared exactly `value` (a policy matching annotations)."""

    def rule(_server: str, annotations: Any) -> Outcome:
        return then if declared(annotations)[hint] is value else otherwise

    return rule


def _on_server(server: str, then: Outcome, otherwise: Rule) -> Rule:
    """`then` for every tool of `server` (a rule naming the server), `otherwise` elsewhere."""
    return lambda s, annotations: then if s == server else otherwise(s, annotations)


def _codex(otherwise: Outcome) -> Rule:
    policy = CodexPolicy("exec")
    return lambda _s, annotations: otherwise if policy.needs_approval(annotations) else Outcome.RAN


@dataclass(frozen=True)
class ClientModel:
    """One measured client version: a `Rule` per (mode, setting) it was measured in."""

    client: str
    title: str
    version: str
    measured: str
    rules: Mapping[tuple[str, str], Rule] = field(repr=False)
    reads: str = ""  # what it does with hints, in one sentence
    denials: int = 0  # refusals by the classifier in a session that deny the call
    judged: int = 0  # refusals after which the classifier is no longer asked (0: never stops)

    @property
    def modes(self) -> list[str]:
        return list(dict.fromkeys(mode for mode, _ in self.rules))

    def _rule(self, mode: str, setting: str) -> Rule:
        rule = self.rules.get((mode, setting))
        if rule is None:
            known = ", ".join(f"{m} / {s}" for m, s in self.rules)
            raise ValueError(
                f"{self.title} {self.version} was not measured in mode {mode!r} with setting "
                f"{setting!r}; measured: {known}"
            )
        return rule

    def outcome(
        self, annotations: Any, *, mode: str, setting: str = "none", server: str = "profiles"
    ) -> Outcome:
        """What this client does with the first call of such a tool in `mode` under `setting`
        (a classifier, where the mode has one, approving).

        Raises:
            ValueError: a mode or setting that was not measured, or malformed annotations.
        """
        return self.session([(server, annotations)], mode=mode, setting=setting)[0][0]

    def session(
        self,
        calls: Sequence[tuple[str, Any]],
        *,
        mode: str,
        setting: str = "none",
        classifier: str = "approve",
    ) -> list[tuple[Outcome, bool]]:
        """Each call's outcome in one session, and whether the safety classifier judged it.

        A call the rule hands to the classifier runs when it approves. When it refuses, the
        first `denials` refusals deny the call; later ones fall back to asking, which a
        headless run cannot (`ASK_HEADLESS`); after `judged` refusals the classifier is not
        asked again.

        Raises:
            ValueError: a mode or setting that was not measured, or malformed annotations.
        """
        rule = self._rule(mode, setting)
        refusals = 0
        outcomes: list[tuple[Outcome, bool]] = []
        for server, hints in calls:
            decided = rule(server, hints)
            if decided is not None:
                outcomes.append((decided, False))
            elif classifier == "approve":
                outcomes.append((Outcome.RAN, True))
            elif self.judged and refusals >= self.judged:
                outcomes.append((Outcome.ASK_HEADLESS, False))
            else:
                refusals += 1
                denied = refusals <= self.denials
                outcomes.append((Outcome.DENY if denied else Outcome.ASK_HEADLESS, True))
        return outcomes


R, A, H, D, X = Outcome.RAN, Outcome.ASK, Outcome.ASK_HEADLESS, Outcome.DENY, Outcome.HIDDEN

CENSUS: dict[str, ClientModel] = {}
"""Every census client's model, by ``CLIENT-VERSION``."""


def _add(model: ClientModel) -> None:
    CENSUS[f"{model.client}-{model.version}"] = model


def _each(modes: Sequence[str], setting: str, rule: Rule) -> dict[tuple[str, str], Rule]:
    return {(mode, setting): rule for mode in modes}


_GEMINI_ASKS = ("default", "auto_edit")
_add(
    ClientModel(
        "gemini",
        "Gemini CLI",
        "0.61.0",
        "2026-12-01",
        {
            **_each(_GEMINI_ASKS, "none", _always(X)),
            **_each(_GEMINI_ASKS, "trust", _always(R)),
            **_each([*_GEMINI_ASKS, "plan"], "policy: allow readOnlyHint", _if_read_only(R, X)),
            **_each([*_GEMINI_ASKS, "plan"], "policy: deny destructiveHint", _always(X)),
            ("plan", "none"): _always(X),
            ("plan", "trust"): _always(X),
            ("yolo", "none"): _always(R),
            ("yolo", "trust"): _always(R),
            ("yolo", "policy: allow readOnlyHint"): _always(R),
            ("yolo", "policy: deny destructiveHint"): _if_declared("destructiveHint", True, X, R),
        },
        reads=(
            "headless, it hides every MCP tool it would ask about; a trusted server runs "
            "everything (not in plan mode); a user policy can match readOnlyHint or "
            "destructiveHint"
        ),
    )
)

_QWEN_MODES = ("default", "auto-edit", "plan", "yolo", "auto")
_add(
    ClientModel(
        "qwen-code",
        "Qwen Code",
        "0.24.4",
        "2026-12-01",
        {
            **_each(_QWEN_MODES, "trust", _always(R)),
            ("default", "none"): _always(H),
            ("auto-edit", "none"): _always(H),
            ("plan", "none"): _always(D),
            ("yolo", "none"): _always(R),
            ("auto", "none"): _always(CLASSIFIER),
        },
        reads=(
            "no hint decides approval; a trusted server bypasses every mode, plan included; "
            "auto mode's classifier judges every call; readOnlyHint only schedules calls in "
            "parallel"
        ),
        denials=2,
        judged=3,
    )
)


_COPILOT_ASKS = ("prompt", "plan", "autopilot")
_COPILOT_READ = _if_read_only(R, H)
_add(
    ClientModel(
        "copilot",
        "GitHub Copilot CLI",
        "1.0.102",
        "2026-12-01",
        {
            **_each(_COPILOT_ASKS, "none", _COPILOT_READ),
            **_each([*_COPILOT_ASKS, "allow-all-tools"], "--allow-tool profiles", _always(R)),
            **_each(
                _COPILOT_ASKS, "--deny-tool profiles", _on_server("profiles", D, _COPILOT_READ)
            ),
            ("allow-all-tools", "none"): _always(R),
            ("allow-all-tools", "--deny-tool profiles"): _on_server("profiles", D, _always(R)),
        },
        reads=(
            "readOnlyHint: true runs unasked in every mode, whatever destructiveHint says; any "
            "other call needs approval (plan and autopilot alike)"
        ),
    )
)


_add(
    ClientModel(
        "continue",
        "Continue CLI",
        "1.5.47",
        "2026-12-01",
        {
            **_each(("normal", "readonly", "auto"), "none", _always(R)),
            **_each(("normal", "readonly", "auto"), "--allow every MCP tool", _always(R)),
            ("normal", "--ask every MCP tool"): _always(X),
            ("readonly", "--ask every MCP tool"): _always(R),
            ("auto", "--ask every MCP tool"): _always(R),
        },
        reads=(
            "no hint: MCP tools run in every mode, --readonly (plan) included; headless, --ask "
            "hides the tool in normal mode and changes nothing in --readonly or --auto"
        ),
    )
)


def census_model(client: str, version: str) -> ClientModel:
    """The model of `client` at `version`.

    Raises:
        ValueError: that version was not measured.
    """
    try:
        return CENSUS[f"{client}-{version}"]
    except KeyError:
        known = ", ".join(CENSUS)
        raise ValueError(f"no model of {client} {version}; measured: {known}") from None


HEADLINE: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("claude-code", "Claude Code", ("manual", "plan")),
    ("codex", "Codex CLI", ("exec",)),
    ("gemini", "Gemini CLI", ("default", "plan")),
    ("qwen-code", "Qwen Code", ("default", "plan")),
    ("copilot", "Copilot CLI", ("prompt", "plan")),
    ("opencode", "opencode", ("build", "plan")),
    ("kilo", "Kilo CLI", ("build", "plan")),
    ("cline", "Cline CLI", ("act, auto-approve false", "plan, auto-approve false")),
    ("continue", "Continue CLI", ("normal", "readonly")),
)
"""The census table's rows: each client's everyday mode and its plan (read-only) mode."""

CENSUS_COLUMNS = {
    "read_closed": "read-only",
    "append": "additive",
    "set_value": "idem.",
    "delete": "destr.",
    "unannotated": "no hints",
    "read_destructive": "ro+destr",
}
"""The census table's columns: one tool per profile, with a label short enough for a projector."""

_WORDS = {
    PreCall.ALLOW: "runs",
    PreCall.CONFIRM: "asks",
    PreCall.WARN: "warns",
    PreCall.DENY: "refuses",
}
_CHATGPT = {"read_closed": "may run", "read_destructive": "may run"}

DOCUMENTED: tuple[tuple[str, str, Policy | None], ...] = (
    ("VS Code", "its source", VSCODE),
    ("Cursor Ask mode", "issue threads", CURSOR_ASK),
    ("ChatGPT", "OpenAI docs", None),
)
"""Clients known from documents only: (name, source, its model), shown in lower case so a reader
never takes them for measurements. VS Code: microsoft/vscode
`mcpLanguageModelToolContribution.ts` at 027907c (`course_lib.policy.VSCodePolicy`); Cursor's
Ask mode: colbymchenry/codegraph#1018 and sourcebot-dev/sourcebot PR #1013 (secondary); ChatGPT:
OpenAI's Apps SDK reference (developers.openai.com/apps-sdk/reference), where `readOnlyHint`
lets ChatGPT skip the "Are you sure?" prompt ("can", so "may run"; any other tool "may ask")."""


def _documented_row(policy: Policy | None, hints: dict[str, Any]) -> dict[str, str]:
    row = {}
    for tool, label in CENSUS_COLUMNS.items():
        if policy is None:
            row[label] = _CHATGPT.get(tool, "may ask")
        else:
            row[label] = _WORDS[policy.decide(hints[tool], trust=Trust.TRUSTED).pre_call]
    return row


def _latest(client: str) -> Measurement | None:
    found = [Measurement.load(p) for p in committed_files() if p.stem.startswith(f"{client}-")]
    found = [m for m in found if m.client == client]
    if not found:
        return None
    return max(found, key=lambda m: tuple(int(x) for x in m.version.split(".")))


def census_measurements() -> list[Measurement]:
    """The newest committed measurement of each census client, in the table's order."""
    found = [_latest(client) for client, _, _ in HEADLINE]
    return [m for m in found if m is not None]


def census_table(*, documented: bool = True) -> Any:
    """Every measured client side by side: one row per client and mode, one column per profile.

    Measured cells are ``RAN``, ``ASK``, ``ASK-H`` (it would have asked; a headless run cannot),
    ``DENY`` or ``HIDDEN``, ``*`` where a safety classifier judged the call (approving). With
    `documented`, VS Code, Cursor's Ask mode and ChatGPT follow in lower case, each with its
    source: documented, not measured. The index's name says the measurement dates; each row
    its client's version.
    """
    import pandas as pd

    titles = {client: title for client, title, _ in HEADLINE}
    rows: dict[str, dict[str, str]] = {}
    dates = set()
    for m in census_measurements():
        dates.add(m.date)
        modes = dict((c, ms) for c, _, ms in HEADLINE)[m.client]
        for mode in modes:
            cell = m.cell(mode)
            label = f"{titles[m.client]} {m.version} {mode.split(',')[0]}"
            rows[label] = {
                CENSUS_COLUMNS[t]: cell.results[t].short() if t in cell.results else "-"
                for t in CENSUS_COLUMNS
            }
    if documented:
        profiles = [p for m in census_measurements() for p in m.profiles]
        hints = {str(p["tool"]): p["hints"] for p in reversed(profiles)}
        for name, source, policy in DOCUMENTED:
            rows[f"{name} ({source})"] = _documented_row(policy, hints)
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = f"measured {', '.join(sorted(dates))}"
    return frame


def side_by_side(*picks: tuple[str, str]) -> Any:
    """A few measured client modes side by side: one row per profile, one column per pick.

    Each pick is ``(client, mode)``, e.g. ``("codex", "exec")``; the newest committed version of
    each is used, and the index's name gives the versions and dates.

    Raises:
        ValueError: a client with no committed measurement, or a mode it was not measured in.
    """
    import pandas as pd

    titles = {client: title for client, title, _ in HEADLINE}
    columns: dict[str, dict[str, str]] = {}
    dates: set[str] = set()
    for client, mode in picks:
        m = _latest(client)
        if m is None:
            raise ValueError(f"no committed measurement of {client!r}")
        if mode not in m.modes:
            raise ValueError(f"{client} {m.version} was not measured in mode {mode!r}: {m.modes}")
        dates.add(m.date)
        title = f"{titles.get(client, client).removesuffix(' CLI')} {mode}"
        columns[title] = {
            SHORT_LABELS.get(t, t): r.short() for t, r in m.cell(mode).results.items()
        }
    frame = pd.DataFrame(columns)
    frame.index.name = f"measured {', '.join(sorted(dates))}"
    return frame
