"""The one error of the measurement: it could not be made.

Introduced in: docs/measure.md.
"""

from __future__ import annotations

__all__ = ["MeasureError"]


class MeasureError(RuntimeError):
    """The measurement could not be made (the CLI is missing, failed or misbehaved)."""
