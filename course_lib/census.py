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

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .annotations import declared
from .clients import CodexPolicy
from .permissions import Outcome

__all__ = ["CENSUS", "ClientModel", "Rule", "census_model"]

Rule = Callable[[str, Any], Outcome]
"""What happens to a call of a tool of `server` (the first argument) with these annotations."""


def _always(outcome: Outcome) -> Rule:
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

    @property
    def modes(self) -> list[str]:
        return list(dict.fromkeys(mode for mode, _ in self.rules))

    def outcome(
        self, annotations: Any, *, mode: str, setting: str = "none", server: str = "profiles"
    ) -> Outcome:
        """What this client does with a call of such a tool in `mode` under `setting`.

        Raises:
            ValueError: a mode or setting that was not measured, or malformed annotations.
        """
        rule = self.rules.get((mode, setting))
        if rule is None:
            known = ", ".join(f"{m} / {s}" for m, s in self.rules)
            raise ValueError(
                f"{self.title} {self.version} was not measured in mode {mode!r} with setting "
                f"{setting!r}; measured: {known}"
            )
        return rule(server, annotations)


R, A, H, D, X = Outcome.RAN, Outcome.ASK, Outcome.ASK_HEADLESS, Outcome.DENY, Outcome.HIDDEN

CENSUS: dict[str, ClientModel] = {}
"""Every census client's model, by ``CLIENT-VERSION``."""


def _add(model: ClientModel) -> None:
    CENSUS[f"{model.client}-{model.version}"] = model


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
