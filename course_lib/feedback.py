"""The rule behind a wrong answer: feedback shared by the self-checks and the grader.

Given the inputs of a case and the learner's answer, these say which rule the answer broke,
not just that it is wrong: "idempotent -> allow" is told that only a read-only tool runs
without asking, not to apply the defaults.

Introduced in: exercises/02_predict_the_client.ipynb and 04_catch_the_liar.ipynb (feedback only).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .annotations import AnnotationsLike, declared, effective
from .decisions import PostCall, PreCall, Trust
from .i18n import N_
from .phrase import Phrase
from .policy import SPEC
from .vocabulary import parse

__all__ = ["Prediction", "contradiction_hint", "decision_hint", "read_prediction", "reference_pair"]

Prediction = tuple[PreCall, PostCall]


def read_prediction(value: Any) -> Prediction | None:
    """Read a learner's (before, after) prediction: a `PreCall` and a `PostCall`, or their text
    (``("confirm", "trust output")``, as older copies of exercise 2 asked); None if it is not
    such a pair."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != 2:
        return None
    try:
        return parse(PreCall, value[0], "before"), parse(PostCall, value[1], "after")
    except ValueError:
        return None


def reference_pair(hints: AnnotationsLike, trusted: bool) -> Prediction:
    """Return the reference client's (before, after) decision for these hints and server trust."""
    trust = Trust.TRUSTED if trusted else Trust.UNTRUSTED
    decision = SPEC.decide(hints, trust=trust)
    return decision.pre_call, decision.post_call


def decision_hint(hints: Mapping[str, Any] | None, trusted: bool, got: Prediction) -> Phrase:
    """Return the rule a wrong (before, after) prediction broke, from what it got wrong (said
    when shown: ``.text()``)."""
    before, after = reference_pair(hints, trusted)
    got_before, _got_after = got
    if not trusted and got != (before, after):
        return Phrase(N_(
            "the server is untrusted, so a spec-following client ignores its hints and judges the "
            "tool as if it had no annotations: the worst case"
        ))
    values = declared(hints)
    eff = effective(hints)
    if got_before is not before:
        if before is PreCall.ALLOW:
            return Phrase(N_(
                "readOnlyHint true decides before the call: allow; destructiveHint and "
                "idempotentHint mean nothing on a read-only tool"
            ))
        if got_before is PreCall.ALLOW:
            if values["readOnlyHint"] is None:
                return Phrase(N_(
                    "an absent readOnlyHint means false: the tool may write, so it is not allowed "
                    "freely"
                ))
            if eff.idempotent is True:
                return Phrase(N_(
                    "idempotent is not read-only: repeating the call changes nothing more, but the "
                    "first call still writes, so the user confirms"
                ))
            return Phrase(N_(
                "only a read-only tool runs without asking; a tool that writes needs confirmation"
            ))
        if before is PreCall.WARN:
            if values["destructiveHint"] is None:
                return Phrase(N_(
                    "an absent destructiveHint means true: possibly destructive, so confirm with "
                    "warning"
                ))
            return Phrase(N_(
                "destructiveHint true: the call may delete or overwrite, so confirm with warning"
            ))
        return Phrase(N_(
            "destructiveHint false: the tool only adds or sets, so the user confirms without the "
            "destructive warning"
        ))
    if values["openWorldHint"] is None and after is PostCall.UNTRUSTED:
        return Phrase(N_(
            "an absent openWorldHint means true: open world, so the output is treated as untrusted"
        ))
    return Phrase(N_(
        "openWorldHint decides after the call: open world -> treat as untrusted, closed -> trust "
        "output"
    ))


def contradiction_hint(hints: Mapping[str, Any] | None, expected: bool) -> Phrase:
    """Return the rule behind a missed lie (`expected` True) or a false alarm (`expected` False),
    said when shown (``.text()``)."""
    values = declared(hints)
    if expected:
        if values["readOnlyHint"] is True:
            return Phrase(N_(
                "a tool that declares readOnlyHint: true may change nothing at all; any side "
                "effect breaks it"
            ))
        return Phrase(N_(
            "a tool that declares destructiveHint: false (and is not read-only) promises never to "
            "remove or overwrite data; any side effect with destructive=True breaks that promise, "
            "whatever its kind (a file deleted or overwritten, table rows removed)"
        ))
    if values["readOnlyHint"] is not True and values["destructiveHint"] is not False:
        return Phrase(N_(
            "only a declared promise can be broken: absent hints and destructiveHint: true promise "
            "nothing about deleting"
        ))
    return Phrase(N_(
        "an additive tool may create and grow things: only removing or overwriting breaks its "
        "promise"
    ))
