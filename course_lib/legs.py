"""The vocabulary of the lethal trifecta: its three legs, and how sure a claim about one is.

Introduced in: notebooks/04_lethal_trifecta.ipynb
"""

from __future__ import annotations

from enum import Enum

__all__ = ["CAVEATS", "Basis", "Leg", "as_leg"]


class Leg(Enum):
    """One leg of the lethal trifecta."""

    PRIVATE_DATA = "private data"
    UNTRUSTED_CONTENT = "untrusted content"
    EXTERNAL_COMMUNICATION = "external communication"

    def __str__(self) -> str:
        return self.value


class Basis(Enum):
    """How sure a claim about a leg is, from most to least sure."""

    HOST = "host label"  # the host said so: the only source that knows what is private or external
    DECLARED = "declared hint"  # follows from a hint the server set (still only a hint)
    META = (
        "server _meta"  # the server claims it in the tool's _meta (self-declared, and no standard)
    )
    DEFAULT = "spec default"  # follows from the spec's default for an absent hint
    GUESS = "guess"  # hints cannot say; inferred from the combination
    # nothing confines the tool: not read-only (declared, or by the spec's default), so it may
    # do anything, reading private data included
    WORST_CASE = "worst case"

    def __str__(self) -> str:
        return self.value


CAVEATS: tuple[str, ...] = (
    "openWorldHint does not separate reading untrusted content from sending data out: "
    "an open-world tool is assumed to do both.",
    "No hint says whether data is private: closed-world reads are guessed to reach it, and a "
    "tool that is not read-only (by the spec's defaults, every unannotated tool) may reach it "
    "at worst.",
    "Hints are self-declared by each server; a lying or careless server changes every "
    "inference here.",
)
"""What the four hints cannot tell; every report carries these."""


def as_leg(value: Leg | str) -> Leg:
    """Return `value` as a `Leg` (the enum, its value or its name).

    Raises:
        ValueError: an unknown leg.
    """
    if isinstance(value, Leg):
        return value
    if isinstance(value, str):
        for leg in Leg:
            if value.strip().lower() in {leg.value, leg.name.lower()}:
                return leg
    choices = ", ".join(repr(leg.value) for leg in Leg)
    raise ValueError(f"unknown trifecta leg {value!r}: use one of {choices}")
