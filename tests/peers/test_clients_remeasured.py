"""Re-measure every pinned client CLI and compare with the committed measurements.

`python -m course_tools measure-client CLIENT --compare` runs each pinned CLI (installed by
.ci/peers from the lock files in tests/peers/npm-*) offline against the stand-in model and
fails, naming every changed result (cells, concurrency, folder trust, any other note), when the
live result differs from course_lib/data/clients/<client>-<version>.json. One run per cell: the
committed files were measured with two runs per cell and the comparison itself is the repeat.
The interactive dialogs (`--tui`) are not re-measured here: they are slow and compared by hand.
CI re-measures Claude Code and Codex; COURSE_REMEASURE=all (or client names) chooses others.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from peerlib import PEERS, ROOT, need

from course_tools.measure.registry import ADAPTERS

pytestmark = pytest.mark.peers

PINNED = [(name, adapter.pin.version, adapter.pin.installed) for name, adapter in ADAPTERS.items()]
PINNED.append(("claude-code", "2.1.197", PEERS / "claude-2.1.197" / "node_modules" / ".bin" / "claude"))
# Re-measuring every client takes about an hour, more than CI's budget beside everything else:
# CI re-measures Claude Code and Codex (as it did before the census); COURSE_REMEASURE=all
# re-measures every pinned client, or name them, e.g. COURSE_REMEASURE="gemini cline".
CHOSEN = os.environ.get("COURSE_REMEASURE", "claude-code codex").split()
DATA = ROOT / "course_lib" / "data" / "clients"


@pytest.mark.parametrize(("client", "version", "cli"), PINNED, ids=[f"{c}-{v}" for c, v, _ in PINNED])
def test_live_measurement_matches_the_committed_one(client, version, cli, tmp_path):
    if CHOSEN != ["all"] and client not in CHOSEN:
        pytest.skip(f"{client} is re-measured with COURSE_REMEASURE=all or COURSE_REMEASURE={client}")
    if not (DATA / f"{client}-{version}.json").exists():
        pytest.skip(f"{client} {version} has no committed measurement to compare with yet")
    need(cli, f"{client} {version} (npm, tests/peers/)")
    out = tmp_path / "live.json"
    done = subprocess.run(
        [sys.executable, "-m", "course_tools", "measure-client", client, "--cli", str(cli), "--compare",
         "--repeat", "1", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=1800, stdin=subprocess.DEVNULL, check=False,
    )
    changed = [line for line in done.stderr.splitlines() if "committed" in line]
    assert done.returncode == 0, (
        f"{client} {version} no longer behaves as committed (exit {done.returncode}):\n"
        + "\n".join(changed or done.stderr.splitlines()[-20:])
    )
    assert json.loads(out.read_text(encoding="utf-8"))["version"] == version
