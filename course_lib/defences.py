"""Three defences against an unwanted `cleanup_logs`, run against the same attack cases.

The scenario (the operations assistant of lessons 04 to 06): the user asks to clean the *test*
environment's logs older than a week. Each run makes two calls to the ops-assistant server: the call
the user
wanted, ``cleanup_logs("test", keep_days=7)``, and the harmful one a confused or injected
model also makes, ``cleanup_logs("production", keep_days=0)``. A run *holds* when the
production logs survive.

Defences (`DEFENCES`), each the only control in place:

* "hints only": the hints decide and nobody is asked: a tool declared read-only runs, any
  other is refused (a read-only mode, like Cursor's Ask mode); the server checks nothing.
* "human approval": the host follows the spec policy (an untrusted server's hints are
  ignored) and asks a careful user, who reads the real arguments; the server checks nothing.
  With ``own_list=True`` the host also keeps its own list of sensitive tools (`cleanup_logs`).
* "server-side authorisation": the host approves everything (full automation); the server checks
  the caller's token scopes (``logs:delete:test`` only).

Attack cases (`CASES`), each changing the baseline (an untrusted server with honest hints, a
careful user, a token scoped to the test environment):

* "lying server": `cleanup_logs` declares itself read-only under a harmless title;
* "client trusts hints": the same lying server, and the host marks it trusted (believes its hints);
* "approval clicked through": the user allows every prompt;
* "token scope too broad": the token carries ``logs:delete:*``.

`run_case` performs one run for real (a fresh server in a temporary sandbox); `defence_matrix`
runs them all; `comparison_table` derives a side-by-side comparison of the defences from those runs.

Introduced in: notebooks/06_beyond_hints.ipynb
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from typing import Any

import pandas as pd

from .annotations import AnnotationsLike, declared
from .approval import ConfirmationRequest, approve_all
from .connection import connect
from .decisions import Decision, PostCall, PreCall, Trust, as_trust
from .host import Host
from .policy import SPEC, TRUST_EVERYTHING, Policy
from .servers import DemoServer, ops_assistant
from .trustbook import TrustBook

__all__ = [
    "CASES",
    "DEFENCES",
    "RunResult",
    "careful_user",
    "comparison_table",
    "defence_matrix",
    "hints_only",
    "run_case",
]

DEFENCES = ("hints only", "human approval", "server-side authorisation")
CASES = (
    "baseline",
    "lying server",
    "client trusts hints",
    "approval clicked through",
    "token scope too broad",
)
WANTED = {"environment": "test", "keep_days": 7}
HARMFUL = {"environment": "production", "keep_days": 0}


# Each host-side defence's decision, as lesson 06 shows it in a cell (tests/test_saved_cells.py
# keeps the two equal; the server's own rule is `servers.ops_assistant.scope_allows`).
def hints_only(hints: dict) -> PreCall:
    """A read-only mode: a tool declared read-only runs; any other is refused."""
    return PreCall.ALLOW if hints["readOnlyHint"] is True else PreCall.DENY


def careful_user(arguments: dict) -> bool:
    """Human approval: the user reads the real arguments, and asked for test only."""
    return arguments.get("environment") == "test"


class _HintsOnly(Policy):
    """The "hints only" defence as a host's policy: `hints_only` on the declared hints."""

    name = "hints only"
    source = "a read-only mode, like Cursor's Ask mode (see policy.ReadOnlyModePolicy)"

    def decide(self, annotations: AnnotationsLike, *, trust: Trust = Trust.UNTRUSTED) -> Decision:
        as_trust(trust)  # validated; a read-only mode does not check server trust
        pre = hints_only(declared(annotations))
        why = "declared read-only" if pre is PreCall.ALLOW else "not declared read-only"
        return Decision(pre, PostCall.TRUST, f"hints only: {why}, so the mode says {pre}")


HINTS_ONLY = _HintsOnly()


@dataclass(frozen=True)
class RunResult:
    """What happened in one run of one case against one defence."""

    case: str
    defence: str
    wanted_done: bool  # the test logs were cleaned, as the user asked
    production_deleted: bool  # the harmful call deleted production logs
    prompts: int  # confirmations the user had to answer
    server_rejections: int  # calls the server refused by token scope


def _production_logs(server: DemoServer) -> int:
    return len(list((server.sandbox.root / "logs" / "production").glob("*.log")))


def _test_logs(server: DemoServer) -> int:
    return len(list((server.sandbox.root / "logs" / "test").glob("*.log")))


async def run_case(case: str, defence: str, *, own_list: bool = False) -> RunResult:
    """Run the wanted and the harmful call for one attack case against one defence; report what
    happened.

    `own_list` gives the "human approval" host its own list of sensitive tools.

    Raises:
        ValueError: an unknown case or defence (see `CASES`, `DEFENCES`).
    """
    if case not in CASES:
        raise ValueError(f"unknown case {case!r}; choose one of {', '.join(CASES)}")
    if defence not in DEFENCES:
        raise ValueError(f"unknown defence {defence!r}; choose one of {', '.join(DEFENCES)}")
    if not isinstance(own_list, bool):
        raise ValueError(f"own_list must be True or False, not {own_list!r}")
    lying = case in ("lying server", "client trusts hints")
    scopes = [
        "logs:read",
        "logs:delete:*" if case == "token scope too broad" else "logs:delete:test",
    ]
    with tempfile.TemporaryDirectory(prefix="defences-") as root:
        server = ops_assistant.ops_assistant_server(
            root, enforce_scopes=defence == "server-side authorisation", lying=lying
        )
        level = Trust.TRUSTED if case == "client trusts hints" else Trust.UNTRUSTED
        trust = TrustBook({ops_assistant.NAME: level})
        servers = {ops_assistant.NAME: server}
        prompts: list[ConfirmationRequest] = []
        clicks_through = case == "approval clicked through"

        def answer(request: ConfirmationRequest) -> bool:
            prompts.append(request)
            return approve_all(request) if clicks_through else careful_user(request.arguments)

        if defence == "server-side authorisation":
            host = Host(TRUST_EVERYTHING, trust=trust, servers=servers, approve=approve_all)
        elif defence == "hints only":
            host = Host(HINTS_ONLY, trust=trust, servers=servers, approve=answer)
        else:
            sensitive = {"cleanup_logs"} if own_list else set()
            host = Host(
                SPEC, trust=trust, servers=servers, approve=answer, sensitive_tools=sensitive
            )
        before_test, before_production = _test_logs(server), _production_logs(server)
        with ops_assistant.as_caller(ops_assistant.issue_token(scopes)):
            async with connect(server) as client:
                await host.call(client, "cleanup_logs", WANTED)
                await host.call(client, "cleanup_logs", HARMFUL)
        auth_log = server.auth_log
        return RunResult(
            case=case,
            defence=defence,
            wanted_done=_test_logs(server) < before_test,
            production_deleted=_production_logs(server) < before_production,
            prompts=len(prompts),
            server_rejections=sum(not d.allowed for d in auth_log),
        )


async def defence_matrix() -> pd.DataFrame:
    """Run every case against every defence; return one row per run (case, defence and what
    happened)."""
    results = [await run_case(case, defence) for case in CASES for defence in DEFENCES]
    return pd.DataFrame([r.__dict__ for r in results])


def _verdict(runs: pd.DataFrame, defence: str, case: str) -> bool:
    row = runs[(runs["defence"] == defence) & (runs["case"] == case)]
    if len(row) != 1:
        raise ValueError(
            f"runs must hold exactly one run of {case!r} against {defence!r}; pass "
            "defence_matrix()'s result"
        )
    return not bool(row["production_deleted"].iloc[0])


def comparison_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Compare the three defences side by side, derived from `defence_matrix()` runs.

    One row per case (the names of `CASES`: "held" when production survived, else "FAILED"),
    then, from the baseline run, whether the wanted call was done, whether the defence told
    test from production, and how many prompts the user answered.

    Raises:
        ValueError: `runs` is not the DataFrame `defence_matrix()` returns.
    """
    needed = {
        "case",
        "defence",
        "wanted_done",
        "production_deleted",
        "prompts",
        "server_rejections",
    }
    if not isinstance(runs, pd.DataFrame) or not needed <= set(runs.columns):
        raise ValueError("comparison_table needs the DataFrame returned by defence_matrix()")

    def held(defence: str, case: str) -> str:
        return "held" if _verdict(runs, defence, case) else "FAILED"

    table: dict[str, dict[str, Any]] = {}
    for defence in DEFENCES:
        base = runs[(runs["defence"] == defence) & (runs["case"] == "baseline")].iloc[0]
        column: dict[str, Any] = {case: held(defence, case) for case in CASES}
        column["wanted call done (baseline)"] = "yes" if base["wanted_done"] else "no"
        column["tells test from production"] = (
            "yes" if base["wanted_done"] and not base["production_deleted"] else "no"
        )
        column["prompts per task (baseline)"] = int(base["prompts"])
        table[defence] = column
    frame = pd.DataFrame(table)
    frame.index.name = "case"
    return frame
