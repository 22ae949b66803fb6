"""Which extra each tool needs, and the one line that installs it when it is missing."""

from __future__ import annotations

import importlib.util

# extra name: the importable modules it brings (the pyproject's [project.optional-dependencies])
EXTRAS: dict[str, tuple[str, ...]] = {
    "grade": ("nbclient", "nbformat"),
    "hub": (),  # JupyterHub itself is checked by `hub` when a command needs it (hub/requirements)
    "measure": (),  # the client CLIs come from npm; measure-client names them when missing
    "census": ("uv",),  # uv installs the PyPI servers; npm, the npm ones (census install)
}


def missing_extra(extra: str) -> str:
    """"" when the extra's modules import, else what is missing and the pip line to run."""
    missing = [m for m in EXTRAS[extra] if importlib.util.find_spec(m) is None]
    if not missing:
        return ""
    return (
        f"{', '.join(missing)} not installed (the [{extra}] extra). "
        f'Install it with: pip install -e ".[{extra}]"  (from the course folder)'
    )
