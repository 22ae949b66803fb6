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

Introduced in: docs/clients.md; lesson 03 shows the table (`course_lib.census_tables`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .annotations import declared
from .clients import CodexPolicy
from .decisions import Outcome

__all__ = ["CENSUS", "CLASSIFIER", "ClientModel", "Rule", "census_model"]

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


_OPENCODE_AGENTS = ("build", "plan")
_add(
    ClientModel(
        "opencode",
        "opencode",
        "1.18.33",
        "2026-12-02",
        {
            **_each(_OPENCODE_AGENTS, "none", _always(R)),
            **_each(_OPENCODE_AGENTS, "permission: ask every MCP tool", _always(H)),
            **_each(_OPENCODE_AGENTS, "permission: deny every MCP tool", _always(X)),
        },
        reads=(
            "no hint: both agents, build and plan, run every MCP tool unasked; a permission set "
            "to ask is auto-rejected headless and ends the run; deny hides the tool"
        ),
    )
)

# Kilo is a fork of opencode; its plan agent differs (measured 2026-12-02).
_add(
    ClientModel(
        "kilo",
        "Kilo CLI",
        "7.7.7",
        "2026-12-02",
        {
            ("build", "none"): _always(R),
            ("plan", "none"): _always(H),
            **_each(_OPENCODE_AGENTS, "permission: deny every MCP tool", _always(X)),
        },
        reads=(
            "no hint: the build agent runs every MCP tool unasked; the plan agent asks about "
            "every one, read-only ones included (headless, it cannot ask); deny hides the tool"
        ),
    )
)

_add(
    ClientModel(
        "cline",
        "Cline CLI",
        "3.0.65",
        "2026-12-01",
        {
            ("act", "none"): _always(R),
            ("plan", "none"): _always(R),
            ("act, auto-approve false", "none"): _always(H),
            ("plan, auto-approve false", "none"): _always(H),
        },
        reads=(
            "no hint: with auto-approval (its default) every call runs, plan mode included; "
            "without it every call would ask, which a headless run cannot"
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
