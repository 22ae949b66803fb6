"""When each notebook was handed in: the record `hub collect` keeps next to what it copies.

``python -m course_tools hub collect HOMES --out OUT`` writes ``OUT/collection.json``: for each
``<learner>/<exercise>.ipynb`` it copied, the SHA-256 of the copy and the time it was first
collected with that content (the end of that collect run, in UTC). Collecting again keeps the
time of a notebook that did not change, and records a new time for one that did, so running
``hub collect`` at the deadline and again later tells on-time work from late work. The grader
(``grade --deadline``) reads the record; a notebook it does not cover, or one that changed
since it was collected, is timed by its file's modification time instead, and says so.

This module is the record's format only: the hub writes it, the grader reads it.

Introduced in: docs/hub.md (collect) and docs/instructor.md (section 8, after grading)
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

__all__ = ["MANIFEST", "Collection", "read_collection", "record_collection"]

MANIFEST = "collection.json"
FORMAT = "course-tools collection 1"
MAX_MANIFEST_BYTES = 5_000_000


@dataclass(frozen=True)
class Collection:
    """One collected notebook: what was copied and when it was first collected as such."""

    sha256: str
    collected_at: datetime  # timezone-aware


def _parse(entries: object) -> dict[str, Collection]:
    if not isinstance(entries, dict):
        raise ValueError("its 'notebooks' is not an object")
    parsed = {}
    for where, entry in entries.items():
        if not (isinstance(entry, dict) and isinstance(entry.get("sha256"), str)):
            raise ValueError(f"its entry for {where!r} has no sha256")
        when = datetime.fromisoformat(str(entry.get("collected_at")))
        if when.tzinfo is None:
            raise ValueError(f"its time for {where!r} has no time zone")
        parsed[str(where)] = Collection(entry["sha256"], when)
    return parsed


def read_collection(folder: Path) -> dict[str, Collection]:
    """The record in `folder` by ``learner/notebook.ipynb`` ({} when there is none).

    Raises:
        ValueError: the record exists but cannot be read (the message says why).
    """
    path = Path(folder) / MANIFEST
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_MANIFEST_BYTES + 1)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ValueError(f"{MANIFEST} cannot be read ({exc.strerror})") from None
    if len(data) > MAX_MANIFEST_BYTES:
        raise ValueError(f"{MANIFEST} is larger than {MAX_MANIFEST_BYTES} bytes")
    try:
        document = json.loads(data.decode("utf-8"))
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            raise ValueError(f"it is not a {FORMAT!r} record")
        return _parse(document.get("notebooks"))
    except (UnicodeDecodeError, json.JSONDecodeError, ValueError, TypeError) as exc:
        raise ValueError(f"{MANIFEST} is not a hand-in record: {exc}") from None


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def record_collection(
    out: Path, notebooks: Mapping[str, Iterable[str]], when: datetime | None = None
) -> dict[str, Collection]:
    """Add the notebooks just copied into `out` ({learner: [names]}) to its record; return it.

    A notebook whose copy is unchanged since it was last recorded keeps its first time.
    An unreadable earlier record is replaced (its times are lost, and the new record says so
    by starting afresh).
    """
    when = (when or datetime.now(timezone.utc)).astimezone(timezone.utc).replace(microsecond=0)
    try:
        record = read_collection(out)
    except ValueError:
        record = {}
    for learner, names in notebooks.items():
        for name in names:
            where = f"{learner}/{name}"
            sha = _sha256(Path(out) / learner / name)
            earlier = record.get(where)
            if earlier is None or earlier.sha256 != sha:
                record[where] = Collection(sha, when)
    document = {
        "format": FORMAT,
        "notebooks": {
            where: {"sha256": c.sha256, "collected_at": c.collected_at.isoformat()}
            for where, c in sorted(record.items())
        },
    }
    fd, tmp = tempfile.mkstemp(prefix=".collection-", dir=out)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=1)
        handle.write("\n")
    os.replace(tmp, Path(out) / MANIFEST)
    return record
