"""CPU and memory of a hub's process tree, split by what each process is (Linux /proc).

`TreeSampler` polls every process under the hub (the hub, its proxy, the learners' servers,
their kernels and the stdio MCP servers lesson 00 starts) and keeps, per process, the last CPU
time it saw; `usage()` adds them up by `Kind`. A process that ends between two samples loses
at most one interval of CPU from its kind; the tree's own total (which counts the CPU of every
child already waited for) does not, and the difference is reported as `Kind.UNSEEN`.

Used by benchmarks/bench_hub.py.

Introduced in: docs/hub.md
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from .process import descendants

__all__ = ["Kind", "TreeSampler", "TreeUsage", "cpu_seconds", "kind_of", "pss_mb"]

TICKS = os.sysconf("SC_CLK_TCK")


class Kind(Enum):
    """What a process under the hub is, from its command line."""

    HUB = "hub"
    PROXY = "proxy"
    SERVER = "learners' servers"  # jupyterhub-singleuser or course_tools.hub.singleuser
    KERNEL = "kernels"  # ipykernel
    MCP_SERVER = "stdio MCP servers"  # python -m course_lib serve ...
    OTHER = "other"
    UNSEEN = "ended between samples"


def kind_of(cmdline: list[str]) -> Kind:
    """The kind of a process with this command line (its arguments, as /proc gives them)."""
    words = " ".join(cmdline)
    if "ipykernel" in words:
        return Kind.KERNEL
    if "jupyterhub-singleuser" in words or "course_tools.hub.singleuser" in words:
        return Kind.SERVER
    if "configurable-http-proxy" in words:
        return Kind.PROXY
    if "course_lib" in words and "serve" in cmdline:
        return Kind.MCP_SERVER
    if "jupyterhub" in words:
        return Kind.HUB
    return Kind.OTHER


def _stat_fields(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def cpu_seconds(pids: list[int], *, children: bool = True) -> float:
    """User + system CPU of `pids` (and, with `children`, of their children already waited for)."""
    total = 0
    last = 15 if children else 13  # utime stime [cutime cstime]
    for pid in pids:
        fields = _stat_fields(pid)
        if fields is not None:
            total += sum(int(value) for value in fields[11:last])
    return total / TICKS


def pss_mb(pids: list[int]) -> float:
    """Proportional set size of `pids`, in MB (shared pages split between their users)."""
    total_kb = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total_kb += int(line.split()[1])
                    break
        except OSError:
            continue
    return total_kb / 1024


def _cmdline(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


@dataclass
class TreeUsage:
    """CPU-seconds by kind of process, the tree's total, and the peak memory (PSS)."""

    cpu: dict[Kind, float] = field(default_factory=dict)
    total_cpu: float = 0.0
    peak_mb: float = 0.0
    processes: dict[Kind, int] = field(default_factory=dict)  # how many of each were seen
    others: set[str] = field(default_factory=set)  # the programs counted as Kind.OTHER


class TreeSampler(threading.Thread):
    """Samples the process tree under `root` every `interval` seconds until `stop()`.

    CPU at every sample; memory every `memory_every` samples, since reading the PSS of 60
    learners' processes costs the kernel a walk of every page table (about 0.1 CPU-s per
    3 GB mapped), CPU the class would otherwise have.
    """

    def __init__(self, root: int, interval: float = 0.5, memory_every: int = 10) -> None:
        super().__init__(daemon=True, name="tree-sampler")
        self.root, self.interval, self.memory_every = root, interval, memory_every
        self._samples = 0
        self.peak_mb = 0.0
        self._seen: dict[int, tuple[Kind, float]] = {}  # pid -> (kind, own CPU last seen)
        self._others: set[str] = set()
        self._stopped = threading.Event()
        self._lock = threading.Lock()

    def sample(self) -> None:
        pids = [self.root, *descendants(self.root)]
        with self._lock:
            for pid in pids:
                fields = _stat_fields(pid)
                if fields is None:
                    continue
                own = sum(int(value) for value in fields[11:13]) / TICKS
                kind = self._seen[pid][0] if pid in self._seen else self._kind(pid)
                self._seen[pid] = (kind, own)
        if self._samples % self.memory_every == 0:
            self.peak_mb = max(self.peak_mb, pss_mb(pids))
        self._samples += 1

    def _kind(self, pid: int) -> Kind:
        cmdline = _cmdline(pid)
        kind = kind_of(cmdline)
        if kind is Kind.OTHER:
            self._others.add(" ".join(Path(word).name for word in cmdline[:3]))
        return kind

    def run(self) -> None:
        while not self._stopped.wait(self.interval):
            self.sample()

    def stop(self) -> None:
        self._stopped.set()
        if self.is_alive():
            self.join()

    def usage(self, baseline: dict[int, float] | None = None) -> TreeUsage:
        """CPU by kind since `baseline` (`snapshot()`'s pid -> own CPU; later processes from 0)."""
        start = baseline or {}
        report = TreeUsage(peak_mb=self.peak_mb, others=set(self._others))
        with self._lock:
            for pid, (kind, own) in self._seen.items():
                report.cpu[kind] = report.cpu.get(kind, 0.0) + own - start.get(pid, 0.0)
                report.processes[kind] = report.processes.get(kind, 0) + 1
        return report

    def snapshot(self) -> dict[int, float]:
        """Own CPU of every process seen so far: a baseline for `usage`."""
        self.sample()
        with self._lock:
            return {pid: own for pid, (_, own) in self._seen.items()}
