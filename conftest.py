"""Test set-up shared by unit tests and nbval: a deterministic environment for every kernel.

nbval starts each notebook's kernel with this process's environment (`--nbval-current-env`).
"""

from __future__ import annotations

import os

os.environ.setdefault("PYTHONHASHSEED", "0")
os.environ.setdefault("TZ", "UTC")
# English unless a notebook sets its language itself (the zh-CN/ notebooks' first code cell)
os.environ.pop("COURSE_LANG", None)


def pytest_collectstart(collector):
    # Server logs and library warnings go to stderr;
    # what a lesson teaches is on stdout and in results.
    if getattr(collector, "path", None) is not None and collector.path.suffix == ".ipynb":
        collector.skip_compare += ("stderr",)
