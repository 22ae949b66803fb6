"""A learner's server: ``jupyterhub-singleuser``, minus one import that costs 2 CPU-seconds.

Jupyter Server imports ``jupyter_events``, which imports ``jsonschema``, whose format checkers
import ``rfc3987_syntax`` when it is installed (it comes with ``jsonschema[format-nongpl]``).
That module compiles its Earley parsers at import: about 2 CPU-s, paid by every learner's
server at every start, for the ``iri`` and ``iri-reference`` formats that no schema of Jupyter
uses. Marking it absent (``sys.modules[name] = None`` makes ``import name`` raise ImportError,
which jsonschema expects when the package is not installed) leaves those two formats
unchecked and changes nothing else (upstream: python-jsonschema/jsonschema#1428).

``python -m course_tools.hub.singleuser ARGS`` takes the same arguments as
``jupyterhub-singleuser``; the hub config (`config`) and Zero to JupyterHub's values
(``hub/z2jh/config.yaml``) start learners' servers with it.

Introduced in: docs/hub.md
"""

from __future__ import annotations

import sys

__all__ = ["SKIPPED", "main", "skip_unused_imports"]

SKIPPED = ("rfc3987_syntax",)


def skip_unused_imports() -> None:
    """Make the modules in `SKIPPED` look absent to whatever imports them later."""
    for name in SKIPPED:
        sys.modules.setdefault(name, None)  # type: ignore[arg-type]


def main() -> int:
    skip_unused_imports()
    from jupyterhub.singleuser import main as singleuser

    return int(singleuser() or 0)


if __name__ == "__main__":
    sys.exit(main())
