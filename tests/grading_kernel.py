"""Run cells in one grading kernel and report what they printed: as this user, or (when the tests
run as root) as a normal user, uid 65534, so each sandbox attack is tried both ways.

`python tests/grading_kernel.py` reads a JSON request on stdin and prints the JSON report: that is
how `run_cells_as_normal_user` runs it under `setpriv`.
"""

from __future__ import annotations

import asyncio
import atexit
import dataclasses
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import nbformat

ROOT = Path(__file__).resolve().parents[1]
NORMAL_UID = 65534  # nobody
USERS = ["the grader's own user", "a normal user"]


def _isolation(request: dict[str, Any]):
    from course_tools.grading.sandbox import ResourceLimits, choose_isolation

    isolation = choose_isolation(request.get("mode", "bwrap"))
    known = {f.name for f in dataclasses.fields(ResourceLimits)}
    given = {k: v for k, v in request.get("limits", {}).items() if k in known}
    limits = dataclasses.replace(ResourceLimits(), **given)
    isolation = dataclasses.replace(isolation, limits=limits)
    if not request.get("cgroup", True) and hasattr(isolation, "group"):
        isolation = dataclasses.replace(isolation, group=None)
    return isolation


def _host_view(folder: str) -> tuple[list[str], int]:
    """Every name under `folder` on the host and their bytes, no link followed."""
    names, size = [], 0
    for where, folders, files in os.walk(folder):
        for name in folders + files:
            path = os.path.join(where, name)
            names.append(path)
            size += os.lstat(path).st_size
    return sorted(names), size


def _pid_namespace(pid: int) -> str:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid") if pid else ""
    except OSError:
        return ""


def _processes_in(namespace: str) -> int:
    """How many processes of this machine are in pid namespace `namespace` (the sandbox's)."""
    if not namespace:
        return 0
    return sum(_pid_namespace(int(p)) == namespace for p in os.listdir("/proc") if p.isdigit())


def run_cells(request: dict[str, Any]) -> dict[str, Any]:
    """Run `request["cells"]` in one kernel; return outcomes, each cell's stdout and the host's view."""
    from course_tools.grading.kernel import Kernel, run_cell
    from course_tools.grading.results import Limits

    sources = request["cells"]
    timeout = request.get("timeout", 20)

    async def go() -> dict[str, Any]:
        isolation = _isolation(request)
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
        kernel = Kernel(isolation)
        try:
            client = await kernel.start(nb, set(range(len(sources))), Limits())
            outcomes = [await run_cell(client, nb, i, timeout) for i in range(len(sources))]
            texts = [
                "".join(o.get("text", "") for o in c.get("outputs", [])) for c in nb.cells
            ]
            on_host, host_bytes = _host_view(kernel.private)
            namespace = _pid_namespace(kernel.sandbox_pid)
            in_sandbox = _processes_in(namespace)
            return {
                "outcomes": outcomes,
                "texts": texts,
                "stderr": kernel.stderr_tail(),
                "private": kernel.private,
                "on_host": on_host[:50],
                "host_files": len(on_host),
                "host_bytes": host_bytes,
                "namespace": namespace,
                "processes": in_sandbox,
                "uid": os.getuid(),
                "group": str(getattr(getattr(isolation, "group", None), "kind", "")),
            }
        finally:
            await kernel.close()

    report = asyncio.run(asyncio.wait_for(go(), request.get("overall", 240)))
    namespace = report.pop("namespace")
    for _ in range(100):  # the namespace's processes are being ended: give them a moment
        report["left_after_close"] = _processes_in(namespace)
        if not report["left_after_close"]:
            break
        time.sleep(0.1)
    return report


# Run as root in a mount namespace of its own: cover the folder other users cannot enter with
# an empty tmpfs they can, and put the checkout back at its own path inside it, so that the
# normal user sees this checkout (and only it) where it is, with every path in it unchanged.
_REVEAL_CHECKOUT = """set -e
above=$1 checkout=$2; shift 2
stage=/mnt; [ -d "$stage" ] || stage=$(mktemp -d)
mount --bind "$checkout" "$stage"
mount -t tmpfs -o mode=0755,size=1m course-test-view "$above"
mkdir -p "$checkout"
mount --bind "$stage" "$checkout"
exec "$@"
"""


def _closed_folder_above(path: Path) -> Path | None:
    """The highest folder above `path` that other users may not enter (no x bit for others)."""
    for folder in reversed(path.parents):  # "/" first
        if not folder.stat().st_mode & 0o001:
            return folder
    return None


def as_normal_user(argv: list[str]) -> list[str]:
    """The command that runs `argv` as uid 65534 (the caller must be root).

    A checkout in a folder only root may enter (`mktemp -d`, /root) is shown to that user
    through a mount namespace (`_REVEAL_CHECKOUT`) rather than skipped or made readable.
    """
    drop = ["setpriv", f"--reuid={NORMAL_UID}", f"--regid={NORMAL_UID}", "--clear-groups", *argv]
    closed = _closed_folder_above(ROOT)
    if closed is None:
        return drop
    reveal = ["sh", "-c", _REVEAL_CHECKOUT, "sh", str(closed), str(ROOT)]
    return ["unshare", "--mount", "--propagation", "private", *reveal, *drop]


@functools.cache
def normal_users_python() -> tuple[str, tuple[tuple[str, str], ...]]:
    """A Python the normal user can run with this environment's packages: (interpreter, env).

    Where the normal user can read this interpreter's installation, it is this one. Where they
    cannot (a Python installed under root's 0700 home, as on CI), it is a virtual environment of
    the system's Python of the same version, made readable, that adds this environment's
    site-packages (named in PYTHONPATH too, so the sandbox binds them, as it binds any folder
    PYTHONPATH names).
    """
    probe = as_normal_user([sys.executable, "-c", "import sys; print(sys.base_prefix)"])
    seen = subprocess.run(probe, capture_output=True, text=True, timeout=60, cwd="/")
    if seen.returncode == 0 and seen.stdout.strip() == sys.base_prefix:
        return sys.executable, ()
    system = shutil.which(f"python{sys.version_info.major}.{sys.version_info.minor}", path="/usr/bin")
    if system is None:
        import pytest

        pytest.skip("the normal user cannot run this Python, and there is no system Python like it")
    venv = Path(tempfile.mkdtemp(prefix="course-test-user-venv-"))
    atexit.register(shutil.rmtree, venv, True)
    os.chmod(venv, 0o755)
    subprocess.run([system, "-m", "venv", "--without-pip", str(venv / "env")], check=True, timeout=120)
    site_packages = next(p for p in sys.path if p.endswith("site-packages") and p.startswith(sys.prefix))
    lib = next((venv / "env" / "lib").glob("python3*")) / "site-packages"
    (lib / "course_env.pth").write_text(f"import site; site.addsitedir({site_packages!r})\n")
    return str(venv / "env" / "bin" / "python"), (("PYTHONPATH", site_packages),)


def run_cells_as_normal_user(request: dict[str, Any]) -> dict[str, Any]:
    """`run_cells` in a process of uid 65534 (the caller must be root), with its own TMPDIR."""
    python, extra_env = normal_users_python()
    with tempfile.TemporaryDirectory(prefix="course-test-user-") as folder:
        os.chown(folder, NORMAL_UID, NORMAL_UID)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": folder,
            "TMPDIR": folder,
            "LANG": "C.UTF-8",
            **dict(extra_env),
        }
        done = subprocess.run(
            as_normal_user([python, str(Path(__file__).resolve())]),
            input=json.dumps(request),
            capture_output=True,
            text=True,
            env=env,
            cwd=folder,
            timeout=request.get("overall", 240) + 30,
        )
        if done.returncode != 0:
            raise AssertionError(f"the normal user's kernel failed: {done.stderr[-3000:]}")
        return json.loads(done.stdout.strip().splitlines()[-1])


def run_as(user: str, request: dict[str, Any]) -> dict[str, Any]:
    """Run the request as `user` (one of USERS); skips the test where that user is not available."""
    import pytest

    try:
        _isolation(request)
    except ValueError as exc:
        pytest.skip(f"bubblewrap cannot run here, and isolation is what this tests: {exc}")
    if user == USERS[0]:
        return run_cells(request)
    if os.geteuid() != 0:
        return run_cells(request)  # already a normal user: the first case covered it
    return run_cells_as_normal_user(request)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    print(json.dumps(run_cells(json.loads(sys.stdin.read()))))
