"""The census of real servers (course_tools/census), re-run: it must reproduce the committed data.

`.ci/peers` installs the servers from their lock files into COURSE_CENSUS_DIR (default .peers/census;
CI keeps it in the machine's cache, and a server whose lock is unchanged is not installed again):
a fixed sample of eight by default, every server with COURSE_CENSUS_ONLY=all. This test starts
them offline, as `census run --check` does, and fails naming each change against course_lib/data/census: a new version, a server that
no longer starts, a hint a tool declares differently, a tool that appeared or went away.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from peerlib import PEERS, ROOT

pytestmark = pytest.mark.peers
CENSUS = os.environ.get("COURSE_CENSUS_DIR", str(PEERS / "census"))
# The servers .ci/peers installed: a fixed sample by default, every one with COURSE_CENSUS_ONLY=all.
ONLY = os.environ.get("COURSE_CENSUS_ONLY", "all").split()


def test_the_census_reproduces_the_committed_data():
    done = subprocess.run(
        [sys.executable, "-m", "course_tools", "census", "run", "--check", "--root", CENSUS]
        + ([] if ONLY == ["all"] else ["--only", *ONLY]),
        cwd=ROOT, capture_output=True, text=True, timeout=3000, check=False,
    )
    report = done.stdout + done.stderr
    assert "the run matches the committed data" in done.stdout, report[-6000:]
    assert done.returncode == 0, report[-6000:]
    assert "mismatches between inspect and the raw JSON: 0" in done.stdout, report[-3000:]
