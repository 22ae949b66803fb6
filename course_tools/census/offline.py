"""Run the census's servers with no network but loopback: a Linux network namespace.

`run_offline` starts this module again under ``unshare -rn`` (a new user and network namespace:
no interface but `lo`, which it brings up), in the sandbox folder; there `survey` runs and its
result comes back as JSON. Where namespaces are not allowed (not Linux, or unprivileged user
namespaces switched off) it says so, and `--no-isolation` runs the servers in the open instead,
marked so in the data.

Usage (internal): python -m course_tools.census.offline ROOT SANDBOX OUT [LABEL ...]
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from dataclasses import asdict
from pathlib import Path

from .survey import CensusRun, ServerRow, ToolRow, survey

__all__ = ["NamespaceError", "make_sandbox", "run_offline"]

KUBECONFIG = textwrap.dedent(
    """\
    apiVersion: v1
    kind: Config
    clusters:
    - name: census
      cluster: {server: "https://127.0.0.1:9"}
    users:
    - name: census
      user: {token: fake}
    contexts:
    - name: census
      context: {cluster: census, user: census}
    current-context: census
    """
)


class NamespaceError(RuntimeError):
    """No network namespace can be made here."""


def make_sandbox(root: Path) -> Path:
    """A fresh sandbox (and HOME) under `root`: a one-commit git repository, a fake kubeconfig
    and the empty folders some servers want. Every run starts from the same files."""
    sandbox, home = root / "sandbox", root / "home"
    for folder in (sandbox, home):
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
    for name in ("excel", "arxiv", "serena-proj", "qdrant"):
        (sandbox / name).mkdir()
    (sandbox / "serena-proj" / "main.py").write_text("print('census')\n", encoding="utf-8")
    (sandbox / "kubeconfig").write_text(KUBECONFIG, encoding="utf-8")
    repo = sandbox / "gitrepo"
    repo.mkdir()
    (repo / "README.md").write_text("census\n", encoding="utf-8")
    git = [
        "git",
        "-C",
        str(repo),
        "-c",
        "user.name=census",
        "-c",
        "user.email=census@example.invalid",
    ]
    env = {
        "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
    }
    for args in (
        ["init", "-q", "-b", "main"],
        ["add", "README.md"],
        ["commit", "-q", "-m", "census"],
    ):
        subprocess.run([*git, *args], check=True, env=env, capture_output=True)
    return sandbox


def namespace_problem() -> str:
    """ "" when ``unshare -rn`` works here, else why not."""
    if shutil.which("unshare") is None or not sys.platform.startswith("linux"):
        return "unshare (util-linux) is not available: network namespaces need Linux"
    done = subprocess.run(["unshare", "-rn", "true"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return (
            f"unshare -rn failed ({done.stderr.strip()[:200]}): unprivileged user namespaces are "
            "off here (sysctl kernel.unprivileged_userns_clone or user.max_user_namespaces)"
        )
    return ""


def run_offline(root: Path, sandbox: Path, labels: list[str] | None, *, isolate: bool) -> CensusRun:
    """Run `survey` in a network namespace (or, with `isolate=False`, in the open).

    Raises:
        NamespaceError: `isolate` and no namespace can be made here.
        RuntimeError: the survey process failed.
    """
    out = root / "survey.json"
    out.unlink(missing_ok=True)
    argv = [
        sys.executable,
        "-m",
        "course_tools.census.offline",
        str(root),
        str(sandbox),
        str(out),
        *(labels or []),
    ]
    if isolate:
        problem = namespace_problem()
        if problem:
            raise NamespaceError(problem)
        argv = ["unshare", "-rn", "--", *argv]
    done = subprocess.run(argv, cwd=sandbox, capture_output=True, text=True, check=False)
    if done.returncode != 0 or not out.exists():
        raise RuntimeError("the census run failed: " + done.stderr.strip()[-2000:])
    data = json.loads(out.read_text(encoding="utf-8"))
    servers = [ServerRow(**r) for r in data["servers"]]
    return CensusRun(servers, [ToolRow(**r) for r in data["tools"]])


def _bring_up_loopback() -> None:
    if shutil.which("ip"):
        subprocess.run(["ip", "link", "set", "lo", "up"], check=False, capture_output=True)


def main(argv: list[str]) -> int:
    root, sandbox, out = (Path(a) for a in argv[:3])
    _bring_up_loopback()
    census = survey(root, sandbox, argv[3:] or None)
    text = json.dumps(
        {"servers": [asdict(r) for r in census.servers], "tools": [asdict(t) for t in census.tools]}
    )
    out.write_text(text.replace(str(root), "<census>"), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
