"""Execute notebooks top to bottom in a fresh kernel and store their outputs.

The stored outputs are what strict nbval compares.

Usage: python tools/execute_notebooks.py notebooks/01_fields.ipynb [more.ipynb ...]

Each notebook runs in its own folder with the environment the test suite uses
(PYTHONHASHSEED=0, TZ=UTC), execution counts become 1..N, and volatile metadata
(timings, widget state) is dropped so diffs show only what a learner sees.
A cell that raises stops the run unless it is tagged `raises-exception`.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # course_lib, from this checkout

KEEP_CELL_METADATA = {"tags"}
NO_CJK_FONT = (
    "{path} is a Chinese notebook, and matplotlib finds no CJK font here: its stored figures would "
    "show empty boxes for every Chinese character. Install one (Debian/Ubuntu: apt-get install "
    "fonts-noto-cjk), then run this again."
)


class Refused(Exception):
    """A notebook this machine cannot execute faithfully; the message says what to install."""


def _refuse_without_cjk_font(path: Path, nb: nbformat.NotebookNode) -> None:
    if not str(nb.metadata.get("language", "")).startswith("zh"):
        return
    from course_lib.plots.fonts import cjk_family

    if cjk_family() is None:
        raise Refused(NO_CJK_FONT.format(path=path))


def execute(path: Path, timeout: int = 120) -> None:
    nb = nbformat.read(path, as_version=4)
    _refuse_without_cjk_font(path, nb)
    nb.metadata["kernelspec"] = {
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
        "name": "python3",
    }
    os.environ.setdefault("PYTHONHASHSEED", "0")
    os.environ.setdefault("TZ", "UTC")
    os.environ.pop("COURSE_LANG", None)  # English unless the notebook sets it (zh-CN/ does)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        record_timing=False,
    )
    client.execute()
    for cell in nb.cells:
        cell.metadata = {k: v for k, v in cell.metadata.items() if k in KEEP_CELL_METADATA}
    nb.metadata.pop("widgets", None)
    nb.metadata.pop("papermill", None)
    nbformat.validate(nb)
    nbformat.write(nb, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--timeout", type=int, default=120, help="seconds per cell (default 120)")
    args = parser.parse_args(argv)
    for path in args.notebooks:
        print(f"executing {path} ...", file=sys.stderr)
        try:
            execute(path, args.timeout)
        except Refused as exc:
            print(f"execute_notebooks: {exc}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
