"""Profile where one learner's CPU goes in lesson 00: server start, kernel start, each cell.

Usage: python benchmarks/profile_learner.py [--runs 3]

No hub needed. CPU-seconds (user + system, from /proc and getrusage) depend far less on other
load than wall time, so this runs on a busy machine; each figure is printed as it is measured,
then min and median over the runs:

* a learner's server, Jupyter Server with JupyterLab started until it answers, as
  ``jupyterhub-singleuser`` does, with and without `course_tools.hub.singleuser`'s skipped
  import;
* the Node.js programs JupyterLab runs on a learner's server: ``yarn config`` when it is
  imported (at every server start), ``npm prefix -g`` for jupyter_lsp's language-server search
  (off in the hub config), and the build check at every page load (``node`` twice, off too);
* lesson 00 in a kernel (nbclient): the kernel's start (to its first cell), then cell by
  cell the kernel's own CPU and that of its children (the stdio MCP server lesson 00 starts).

The sum is what lesson 00 costs per learner, less the hub's and proxy's share (about 0.3 CPU-s
per learner in benchmarks/bench_hub.py) and the messages the server relays.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
LESSON = ROOT / "notebooks" / "00_start_here.ipynb"
TICKS = os.sysconf("SC_CLK_TCK")
PROBE = (
    "import resource as _r\n"
    "_s, _c = _r.getrusage(_r.RUSAGE_SELF), _r.getrusage(_r.RUSAGE_CHILDREN)\n"
    "print(_s.ru_utime + _s.ru_stime, _c.ru_utime + _c.ru_stime)"
)
SERVER = "import sys\n{skip}from jupyter_server.serverapp import main\nsys.exit(main())"
SKIP = "from course_tools.hub.singleuser import skip_unused_imports; skip_unused_imports()\n"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(value) for value in fields[11:15]) / TICKS


def server_start(skip: bool) -> float:
    """CPU-s of a Jupyter Server with JupyterLab, from start until it answers."""
    port, home = _free_port(), tempfile.mkdtemp(prefix="profile-server-")
    command = [
        sys.executable,
        "-c",
        SERVER.format(skip=SKIP if skip else ""),
        "--no-browser",
        f"--port={port}",
        "--ServerApp.token=",
        "--KernelManager.transport=ipc",
        *(["--allow-root"] if os.geteuid() == 0 else []),
    ]
    env = {**os.environ, "HOME": home, "JUPYTER_RUNTIME_DIR": f"{home}/runtime"}
    process = subprocess.Popen(
        command, env=env, cwd=home, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status", timeout=5):
                    return _cpu(process.pid)
            except OSError:
                time.sleep(0.05)
        raise SystemExit("the server did not answer within 300 s")
    finally:
        process.kill()
        process.wait()
        subprocess.run(["rm", "-rf", home], check=False)


def node_programs() -> dict[str, list[str]]:
    """The Node.js programs a learner's server runs (empty when Node.js is not installed)."""
    import jupyterlab
    from jupyter_builder.jlpm import YARN_PATH

    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        return {}
    check = str(Path(jupyterlab.__file__).parent / "node-version-check.js")
    yarn = [node, YARN_PATH, "config", "--json"]
    return {
        "yarn config (JupyterLab, at every server start)": yarn,
        "npm prefix -g (language-server search; off)": [npm, "prefix", "-g"],
        "build check (node twice, at every page load; off)": [node, check, "&&", *yarn],
    }


def program_cpu(command: list[str]) -> float:
    """CPU-s of `command` (two commands joined by "&&" are run one after the other)."""
    before = os.times()
    while command:
        first = command[: command.index("&&")] if "&&" in command else command
        subprocess.run(first, cwd=tempfile.gettempdir(), capture_output=True, check=False)
        command = command[len(first) + 1 :]
    after = os.times()
    return (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )


def kernel_run(cells: list[str]) -> list[tuple[float, float]]:
    """Run `cells` in a new kernel in notebooks/; (own, children) CPU-s before the first cell
    and after each."""
    notebook = nbformat.v4.new_notebook()
    notebook.cells.append(nbformat.v4.new_code_cell(PROBE))
    for source in cells:
        notebook.cells += [nbformat.v4.new_code_cell(source), nbformat.v4.new_code_cell(PROBE)]
    client = NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": "notebooks"}}
    )
    client.execute(cwd=str(ROOT / "notebooks"))
    probes = [cell for cell in notebook.cells if cell.source == PROBE]
    return [tuple(float(x) for x in p.outputs[0]["text"].split()) for p in probes]  # type: ignore[misc]


def lesson_cells() -> list[str]:
    notebook = nbformat.read(LESSON, as_version=4)
    return [cell.source for cell in notebook.cells if cell.cell_type == "code"]


def measure(runs: int, name: str, once: Callable[[], float]) -> list[float]:
    values = []
    for number in range(1, runs + 1):
        values.append(once())
        print(f"  {name}, run {number}: {values[-1]:.2f} CPU-s", flush=True)
    return values


def spread(values: list[float]) -> str:
    return f"min {min(values):.2f}, median {statistics.median(values):.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(
        f"{datetime.now(timezone.utc).isoformat(timespec='seconds')}: {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    results: dict[str, list[float]] = {}
    results["server, jupyterhub-singleuser as is"] = measure(
        args.runs, "server as is", lambda: server_start(skip=False)
    )
    results["server, course_tools.hub.singleuser"] = measure(
        args.runs, "server, skipped import", lambda: server_start(skip=True)
    )
    for name, command in node_programs().items():
        results[name] = measure(args.runs, name, lambda command=command: program_cpu(command))
    cells = lesson_cells()
    per_cell: list[list[tuple[float, float]]] = []
    for number in range(1, args.runs + 1):
        per_cell.append(kernel_run(cells))
        print(f"  lesson 00, run {number}: {sum(per_cell[-1][-1]):.2f} CPU-s", flush=True)
    results["kernel start (to its first cell)"] = [sum(r[0]) for r in per_cell]
    results["lesson 00 in a kernel (with its stdio server)"] = [sum(r[-1]) for r in per_cell]
    print(f"\nload average at the end: {os.getloadavg()[0]:.2f}; CPU-s over {args.runs} runs:")
    for name, values in results.items():
        print(f"  {name:52} {spread(values)}")
    print("lesson 00, cell by cell (median CPU-s: kernel's own + its children's):")
    previous = (0.0, 0.0)
    for index, source in enumerate(["(kernel start)", *cells]):
        own = statistics.median(r[index][0] for r in per_cell)
        children = statistics.median(r[index][1] for r in per_cell)
        first = source.strip().splitlines()[0][:60] if source.strip() else ""
        print(f"  {own - previous[0]:5.2f} + {children - previous[1]:4.2f}  {first}")
        previous = (own, children)
    return 0


if __name__ == "__main__":
    sys.exit(main())
