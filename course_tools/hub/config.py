"""The ``jupyterhub_config.py`` for a class on one machine, and the secrets beside it.

Settings that a 30-learner class on 2 cores needs (measured, issue 15):

* ``http_timeout`` (`HubSettings.spawn_timeout`, 300 s): with JupyterHub's default 30 s, 30
  simultaneous spawns all failed;
* learners' servers start through `course_tools.hub.singleuser`, which skips a 2 CPU-s import
  nothing uses; JupyterLab makes no call to the internet (news, update check, PyPI) and runs
  no Node.js program a learner does not need (language-server discovery, the build check at
  every page load: `LAB_PAGE_CONFIG`, in the hub folder's ``jupyter/labconfig``);
* matplotlib's font cache is built once for every learner (`runtime.matplotlib_dir`), and the
  hub's open-file limit raised for the proxy's connections (`runtime.raise_open_files_limit`);
* ``--KernelManager.transport=ipc``: with TCP ports one kernel in 150 died of
  ``Address already in use``; with IPC sockets none did.

Every learner's server runs as the user who starts the hub (``SimpleLocalProcessSpawner``), in a
bubblewrap sandbox of its own (`confinement`), never with the ``--allow-root`` it needed when
the hub runs as root: see docs/hub.md for what that does not isolate.

Introduced in: docs/hub.md
"""

from __future__ import annotations

import json
import os
import re
import secrets
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from .content import FIRST_LESSON

__all__ = ["HubSettings", "learner_names", "render", "write"]

CONFIG_NAME = "jupyterhub_config.py"
PASSWORD_NAME = "shared_password"
TOKEN_NAME = "api_token"
SERVICE_NAME = "course-instructor"
LAB_CONFIG_DIR = "jupyter"  # in the hub folder: Jupyter config for learners' servers only
# JupyterLab's "Disabling Rebuild Checks": learners cannot rebuild JupyterLab, and each check
# runs Node.js twice (about 0.5 CPU-s) at every page load.
LAB_PAGE_CONFIG = {"buildAvailable": False, "buildCheck": False}
SPAWN_TIMEOUT = 300  # seconds for one server to answer (JupyterHub default: 30)
_PREFIX = re.compile(r"[a-z][a-z0-9_-]{0,30}")


def learner_names(prefix: str, count: int) -> list[str]:
    """The learners' user names: ``learner-01`` ... (two digits at least, so they sort)."""
    if not _PREFIX.fullmatch(prefix):
        raise ValueError(
            f"user name prefix {prefix!r}: use a lower-case letter, then lower-case letters, "
            "digits, '-' or '_'"
        )
    if not 1 <= count <= 999:
        raise ValueError(f"number of learners must be between 1 and 999, not {count}")
    width = max(2, len(str(count)))
    return [f"{prefix}{i:0{width}d}" for i in range(1, count + 1)]


@dataclass(frozen=True)
class HubSettings:
    """Where everything is, for one hub on one machine (all paths absolute once `resolved`)."""

    hub_dir: Path  # jupyterhub_config.py, secrets, database, cookie secret
    course: Path  # the checkout learners' homes are seeded from
    homes: Path  # one folder per learner: HOMES/learner-01 ...
    proxy: str  # the configurable-http-proxy program
    venv_bin: Path = field(default_factory=lambda: Path(sys.executable).parent)
    ip: str = "127.0.0.1"
    port: int = 8000
    users: int = 30
    prefix: str = "learner-"
    hub_port: int = 8081  # the hub's own port, on 127.0.0.1 (JupyterHub's default)
    proxy_api_port: int = 8001  # the proxy's control port, on 127.0.0.1 (JupyterHub's default)
    spawn_timeout: int = SPAWN_TIMEOUT  # seconds a learner's server may take to start
    # More folders learners' servers may read, beyond the course and its environment (an
    # nbgitpuller export kept under /tmp, which their sandbox's private /tmp would hide).
    readable: tuple[Path, ...] = ()

    def resolved(self) -> HubSettings:
        return HubSettings(
            hub_dir=self.hub_dir.resolve(),
            course=self.course.resolve(),
            homes=self.homes.resolve(),
            proxy=self.proxy,
            venv_bin=self.venv_bin.absolute(),  # not resolved: a venv's python is a symlink
            ip=self.ip,
            port=self.port,
            users=self.users,
            prefix=self.prefix,
            hub_port=self.hub_port,
            proxy_api_port=self.proxy_api_port,
            spawn_timeout=self.spawn_timeout,
            readable=tuple(p.resolve() for p in self.readable),
        )

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.ip in ("", "0.0.0.0") else self.ip
        return f"http://{host}:{self.port}"


def render(settings: HubSettings) -> str:
    """The text of ``jupyterhub_config.py`` for `settings` (secrets are read from files)."""
    s = settings.resolved()
    return _head(s) + _learners(s) + _instructor()


def _head(s: HubSettings) -> str:
    """Where everything is, and where learners connect."""
    written = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return f'''\
# JupyterHub for the MCP tool-annotations course: one machine, {s.users} learners.
# Written by `python -m course_tools hub config` on {written}. Start the hub with
#     {s.venv_bin / "jupyterhub"} -f {s.hub_dir / CONFIG_NAME}
# then start every learner's server with `python -m course_tools hub prestart` (docs/hub.md).
#
# Every learner's server runs as the user who starts the hub, in a bubblewrap sandbox where the
# machine is read-only and only their own home is writable; learners still share one Unix user.
# See docs/hub.md for what that does not isolate, and when to use a real spawner instead.
import os
from pathlib import Path

from course_tools.hub.confinement import Unconfined, find_bwrap, hidden_paths, refuse_unconfined
from course_tools.hub.confinement import shown_trees
from course_tools.hub.content import seed_home as copy_learner_files
from course_tools.hub.runtime import kernel_runtime_dir, matplotlib_dir, raise_open_files_limit

HERE = Path(__file__).resolve().parent
COURSE = Path({str(s.course)!r})  # homes are seeded with its notebooks/ and exercises/
HOMES = {str(s.homes)!r}  # one folder per learner
VENV_BIN = {str(s.venv_bin)!r}  # the course's environment: jupyterhub-singleuser, kernels
LEARNERS = {learner_names(s.prefix, s.users)!r}

c = get_config()  # noqa: F821 (JupyterHub provides get_config)

# 60 learners' browsers hold hundreds of connections through the proxy, a child of this
# process: raise the open-file limit (often 1024) to the hard limit, at most 65536.
raise_open_files_limit()

# Where learners connect; the hub's own state stays beside this file.
c.JupyterHub.ip = {s.ip!r}
c.JupyterHub.port = {s.port!r}
# Internal ports on 127.0.0.1: change them to run a second hub on this machine.
c.JupyterHub.hub_port = {s.hub_port!r}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{s.proxy_api_port}"
c.JupyterHub.db_url = "sqlite:///" + str(HERE / "jupyterhub.sqlite")
c.JupyterHub.cookie_secret_file = str(HERE / "jupyterhub_cookie_secret")
c.ConfigurableHTTPProxy.command = [{s.proxy!r}]
c.ConfigurableHTTPProxy.pid_file = str(HERE / "jupyterhub-proxy.pid")

# One shared password (in the file {PASSWORD_NAME}); each learner logs in with their own name.
c.JupyterHub.authenticator_class = "shared-password"
c.SharedPasswordAuthenticator.user_password = (HERE / {PASSWORD_NAME!r}).read_text().strip()
c.Authenticator.allowed_users = set(LEARNERS)
'''


def _learners(s: HubSettings) -> str:
    """Learners' servers: confined, one home each, and checked before the hub starts."""
    return f'''
# Learners' servers: processes of this user, one home folder each, each in its own sandbox.
c.JupyterHub.spawner_class = "course_tools.hub.spawner.CourseSpawner"
c.SimpleLocalProcessSpawner.home_dir_template = HOMES + "/{{username}}"
c.CourseSpawner.bwrap = find_bwrap()
c.CourseSpawner.homes = HOMES
c.CourseSpawner.hidden = hidden_paths(COURSE, HERE)
# Shown again inside the hidden hub folder, writes kept private: the shared font cache and
# the learners' Jupyter config (below).
c.CourseSpawner.overlaid = [str(matplotlib_dir(HERE)), str(HERE / {LAB_CONFIG_DIR!r})]
c.CourseSpawner.shown = shown_trees(COURSE, Path(VENV_BIN)) + {[str(p) for p in s.readable]!r}
# jupyterhub-singleuser, minus an import of 2 CPU-s per server that nothing uses.
c.CourseSpawner.server_cmd = [VENV_BIN + "/python", "-m", "course_tools.hub.singleuser"]
c.Spawner.args = [
    # IPC sockets: TCP kernel ports collide when 30 kernels start at once.
    "--KernelManager.transport=ipc",
    # No call to the internet from 30 servers: no news, no update check, no PyPI listing.
    "--LabApp.news_url=None",
    "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    "--LabApp.extension_manager=readonly",
    # No search for language servers (none is installed): it runs `npm prefix -g` each start.
    "--LanguageServerManager.autodetect=False",
]
c.Spawner.environment = {{
    # Kernel socket paths must stay under 107 bytes: not in the homes, in a short private folder.
    "JUPYTER_RUNTIME_DIR": lambda spawner: kernel_runtime_dir(spawner.user.name, HERE),
    # matplotlib's font cache, built once for everyone (`hub config`), not once per home.
    "MPLCONFIGDIR": str(matplotlib_dir(HERE)),
    # JupyterLab's page config for learners: no build check (labconfig/page_config.json).
    "JUPYTER_CONFIG_PATH": str(HERE / {LAB_CONFIG_DIR!r}),
}}
# Servers starting at once share the cores; JupyterHub's default 30 s failed 30 of them.
c.Spawner.http_timeout = {s.spawn_timeout}
c.Spawner.start_timeout = {s.spawn_timeout}
c.Spawner.default_url = "/lab/tree/{FIRST_LESSON}"


def seed_home(spawner):
    """Copy lessons and exercises (never solutions) into the learner's home; keep their work."""
    copy_learner_files(COURSE, Path(spawner.home_dir))


c.Spawner.pre_spawn_hook = seed_home

# The hub does not start unless, in a learner's sandbox, nothing of the course, its environment
# or its Python can be written: what you grade with stays yours.
try:
    refuse_unconfined(
        c.CourseSpawner.bwrap, c.CourseSpawner.shown, homes=HOMES, hidden=c.CourseSpawner.hidden
    )
except Unconfined as problem:
    raise SystemExit(f"{{__file__}}: the hub does not start: {{problem}}") from None
'''


def _instructor() -> str:
    return f'''
# The instructor's API token (in the file {TOKEN_NAME}): prestart, and the benchmark's learners.
c.JupyterHub.services = [
    {{"name": {SERVICE_NAME!r}, "api_token": (HERE / {TOKEN_NAME!r}).read_text().strip()}},
]
c.JupyterHub.load_roles = [
    {{
        "name": {SERVICE_NAME!r},
        "scopes": ["list:users", "admin:users", "admin:servers", "access:servers"],
        "services": [{SERVICE_NAME!r}],
    }},
]
'''


def _secret_file(path: Path, value: str) -> bool:
    """Write `value` to `path`, readable by its owner only, unless it exists; True if written."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w") as handle:
        handle.write(value + "\n")
    return True


def write(settings: HubSettings) -> Path:
    """Write the config and its secrets (kept if present) into ``settings.hub_dir``; its path."""
    s = settings.resolved()
    s.hub_dir.mkdir(parents=True, exist_ok=True)
    _secret_file(s.hub_dir / PASSWORD_NAME, secrets.token_urlsafe(9))
    _secret_file(s.hub_dir / TOKEN_NAME, secrets.token_hex(32))
    labconfig = s.hub_dir / LAB_CONFIG_DIR / "labconfig"
    labconfig.mkdir(parents=True, exist_ok=True)
    (labconfig / "page_config.json").write_text(json.dumps(LAB_PAGE_CONFIG, indent=2) + "\n")
    path = s.hub_dir / CONFIG_NAME
    path.write_text(render(s))
    return path
