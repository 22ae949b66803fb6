"""The 81 combinations of the four hints, and tables of client decisions.

`all_combinations()` yields the 81 ways to set the four hints to true, false or absent;
`combinations_table()` shows their effective values and risk profile; `decision_matrix()` one
policy's decision for each combination; `decisions_table()` several policies side by side for
a list of tools. The rules themselves are in `course_lib.policy`.

Introduced in: notebooks/03_combinations.ipynb (`decisions_table` in 02_defaults).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pandas as pd

from .annotations import HINTS, Tools, as_tools, classify, declared, effective
from .clients import POLICIES
from .decisions import Trust, as_trust
from .policy import Policy, as_policies, as_policy

__all__ = [
    "HINT_VALUES",
    "all_combinations",
    "combination_label",
    "combinations_table",
    "decision_matrix",
    "decisions_table",
]

HINT_VALUES: tuple[bool | None, ...] = (True, False, None)
"""The three states of a hint: true, false, absent (`None`)."""


def all_combinations() -> Iterator[dict[str, bool | None]]:
    """Yield the 81 ways to set the four hints to true, false or absent, as wire-name dicts.

    Order is stable: `readOnlyHint` varies slowest, `openWorldHint` fastest, each through
    true, false, absent. Absent hints are present in the dict as `None`.
    """
    for values in itertools.product(HINT_VALUES, repeat=len(HINTS)):
        yield dict(zip(HINTS, values))


def _show(value: Any) -> str:
    return "absent" if value is None else str(value).lower()


_SHORT = {
    "readOnlyHint": "readOnly",
    "destructiveHint": "destructive",
    "idempotentHint": "idempotent",
    "openWorldHint": "openWorld",
}


def combination_label(hints: Mapping[str, Any], only: Sequence[str] | None = None) -> str:
    """Return a short readable label for a combination, e.g. ``"readOnly true · openWorld absent"``.

    `only` restricts the label to some hints (wire names).

    Raises:
        ValueError: `only` names something that is not a hint.
    """
    names = HINTS if only is None else tuple(only)
    unknown = [n for n in names if n not in HINTS]
    if unknown:
        raise ValueError(f"not hints: {unknown}; choose from {', '.join(HINTS)}")
    values = declared(dict(hints))
    return " · ".join(f"{_SHORT[n]} {_show(values[n])}" for n in names)


def combinations_table() -> pd.DataFrame:
    """Return the 81 combinations with their effective values and risk profile.

    Columns are two-level like `tools_table`: ``("declared", hint)`` (None where absent),
    ``("effective", hint)`` (after the spec's defaults; "n/a" where `readOnlyHint` makes a hint
    meaningless) and ``("", "profile")``. Rows are numbered 1 to 81 in `all_combinations` order.
    """
    rows = []
    for combo in all_combinations():
        row: dict[tuple[str, str], Any] = {("declared", h): combo[h] for h in HINTS}
        row.update({("effective", h): v for h, v in effective(combo).as_wire().items()})
        row[("", "profile")] = str(classify(combo))
        rows.append(row)
    columns = pd.MultiIndex.from_tuples(
        [*[("declared", h) for h in HINTS], *[("effective", h) for h in HINTS], ("", "profile")]
    )
    frame = pd.DataFrame(
        rows, columns=columns, index=pd.RangeIndex(1, len(rows) + 1, name="combination")
    )
    return frame.astype(object)


def decision_matrix(policy: Policy, *, trust: Trust = Trust.UNTRUSTED) -> pd.DataFrame:
    """Return `policy`'s decision for each of the 81 combinations, in `all_combinations` order.

    Columns: the four declared hints (None where absent), "before call" (`PreCall` value),
    "after call" (`PostCall` value), "retry safe" and "reason".

    Raises:
        ValueError: `policy` is not a `Policy` or the trust level is unknown.
    """
    policy = as_policy(policy)
    trust = as_trust(trust)
    rows = []
    for combo in all_combinations():
        decision = policy.decide(combo, trust=trust)
        rows.append(
            {
                **combo,
                "before call": decision.pre_call.value,
                "after call": decision.post_call.value,
                "retry safe": decision.retry_safe,
                "reason": decision.reason,
            }
        )
    frame = pd.DataFrame(rows, index=pd.RangeIndex(1, len(rows) + 1, name="combination"))
    return frame.astype({h: object for h in HINTS})


def decisions_table(
    tools: Tools,
    policies: Sequence[Policy] = POLICIES,
    *,
    trust: Trust = Trust.UNTRUSTED,
) -> pd.DataFrame:
    """Return each policy's decision for each tool: one row per tool, two columns per policy.

    `tools` is a list of `Tool` (or wire dicts), a `ListToolsResult`, or a dict mapping a
    name to annotations (`ToolAnnotations`, dict or `None`). Columns are two-level:
    ``(policy name, "before call")`` and ``(policy name, "after call")``. Every policy sees
    the server at the same `trust` level.

    Raises:
        ValueError: no tools or policies, a non-`Policy` in `policies`, malformed annotations,
            or an unknown trust level.
    """
    listed = as_tools(tools)
    if not listed:
        raise ValueError("no tools given: pass at least one tool")
    policies = as_policies(policies)
    trust = as_trust(trust)
    columns = pd.MultiIndex.from_tuples(
        [(p.name, q) for p in policies for q in ("before call", "after call")]
    )
    rows = []
    for tool in listed:
        row = []
        for policy in policies:
            decision = policy.decide(tool, trust=trust)
            row += [decision.pre_call.value, decision.post_call.value]
        rows.append(row)
    return pd.DataFrame(
        rows, columns=columns, index=pd.Index([t.name for t in listed], name="tool")
    )
