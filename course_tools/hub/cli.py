"""``python -m course_tools hub config|prestart|collect|export``: a class on one JupyterHub.

Exit status: 0 done; 1 some servers did not start (prestart: each is named); 2 usage error
(bad folder or flag); 3 something the hub needs is missing or the hub cannot be reached;
130 interrupted (Ctrl-C).

Introduced in: docs/hub.md
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from course_lib.safe_text import printable

from ..handin import MANIFEST, record_collection
from .api import HubAPI, HubError
from .collect import CollectLimits, collect
from .config import PASSWORD_NAME, SPAWN_TIMEOUT, TOKEN_NAME, HubSettings, learner_names, write
from .confinement import hub_problem
from .content import CourseNotFound, course_root, exercise_ids
from .export import BRANCH, ExportError, export, nbgitpuller_link
from .prestart import Pace, prestart
from .requirements import find_proxy, missing
from .runtime import build_font_cache, matplotlib_dir

HELP = (
    "run the course for a class on one JupyterHub: config, prestart, collect, export (docs/hub.md)"
)

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_MISSING = 0, 1, 2, 3
EXIT_INTERRUPTED = 130  # Ctrl-C, as a shell reports it


def _env_path(name: str, default: str) -> Path:
    return Path(os.environ.get(name) or default)


def _config_arguments(sub: Any, hub_dir: Path) -> None:
    config = sub.add_parser(
        "config", help="write jupyterhub_config.py (and its password and API token) into --dir"
    )
    config.add_argument(
        "--dir",
        type=Path,
        default=hub_dir,
        help="hub folder: config, secrets, database (default: $COURSE_HUB_DIR or ./hub-class)",
    )
    config.add_argument(
        "--homes",
        type=Path,
        default=_env_path("COURSE_HUB_HOMES", "hub-class/homes"),
        help="learners' homes, one folder each (default: $COURSE_HUB_HOMES or ./hub-class/homes)",
    )
    config.add_argument(
        "--course",
        type=Path,
        default=None,
        help="course checkout homes are seeded from (default: $COURSE_ROOT or this checkout)",
    )
    config.add_argument("--users", type=int, default=30, help="number of learners (default 30)")
    config.add_argument(
        "--prefix",
        default="learner-",
        help="learners' user names: PREFIX01, PREFIX02... (default learner-)",
    )
    config.add_argument(
        "--ip",
        default="127.0.0.1",
        help="address the hub listens on (default 127.0.0.1; 0.0.0.0 lets the room in)",
    )
    config.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    config.add_argument(
        "--hub-port",
        type=int,
        default=8081,
        help="the hub's internal port on 127.0.0.1 (default 8081)",
    )
    config.add_argument(
        "--proxy-api-port",
        type=int,
        default=8001,
        help="the proxy's control port on 127.0.0.1 (default 8001)",
    )
    config.add_argument(
        "--readable",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="another folder learners' servers may read (repeatable; e.g. an nbgitpuller export "
        "under /tmp, which their private /tmp hides)",
    )
    config.add_argument(
        "--proxy",
        default=None,
        help="configurable-http-proxy program (default: $COURSE_HUB_PROXY, hub/proxy, PATH)",
    )
    config.add_argument(
        "--spawn-timeout",
        type=int,
        default=SPAWN_TIMEOUT,
        help=f"seconds one learner's server may take to start (default {SPAWN_TIMEOUT})",
    )


def _prestart_arguments(sub: Any, hub_dir: Path) -> None:
    start = sub.add_parser(
        "prestart", help="start every learner's server through the hub's REST API, before class"
    )
    start.add_argument("--users", type=int, default=30, help="how many learners (default 30)")
    start.add_argument("--prefix", default="learner-", help="user name prefix (default learner-)")
    start.add_argument(
        "--dir",
        type=Path,
        default=hub_dir,
        help="hub folder holding api_token (default: $COURSE_HUB_DIR or ./hub-class)",
    )
    start.add_argument(
        "--hub-url",
        default=os.environ.get("COURSE_HUB_URL", "http://127.0.0.1:8000"),
        help="the hub's address (default: $COURSE_HUB_URL or http://127.0.0.1:8000)",
    )
    pace = Pace()
    start.add_argument(
        "--timeout",
        type=float,
        default=pace.deadline,
        help=f"seconds for the whole class to start (default {pace.deadline:g}); whoever is "
        "not ready by then is named",
    )
    start.add_argument(
        "--parallel",
        type=int,
        default=pace.parallel,
        help=f"servers starting at the same time (default {pace.parallel})",
    )
    start.add_argument(
        "--retries",
        type=int,
        default=pace.retries,
        help=f"times a server whose spawn failed is asked for again (default {pace.retries})",
    )
    start.add_argument(
        "--request-timeout",
        type=float,
        default=30,
        help="seconds to wait for the hub to answer one request (default 30); a request it "
        "answers later counts as a server still starting",
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="hub_command", metavar="STEP", required=True)
    hub_dir = _env_path("COURSE_HUB_DIR", "hub-class")

    _config_arguments(sub, hub_dir)
    _prestart_arguments(sub, hub_dir)

    take = sub.add_parser(
        "collect",
        help="copy the exercise notebooks from the homes into OUT/<learner>/NN_name.ipynb",
    )
    take.add_argument("homes", type=Path, help="folder holding the learners' homes")
    take.add_argument(
        "--out",
        type=Path,
        default=Path("submissions"),
        help="grader's folder (default: submissions)",
    )
    take.add_argument(
        "--course",
        type=Path,
        default=None,
        help="course checkout whose exercises/ names what to collect",
    )
    take.add_argument(
        "--exercises-dir",
        default="exercises",
        help="exercises' folder in a home (default exercises; after nbgitpuller, REPO/exercises)",
    )
    take.add_argument(
        "--max-bytes",
        type=int,
        default=CollectLimits().max_bytes,
        help="largest notebook copied (default 5 MB)",
    )

    out = sub.add_parser(
        "export",
        help="write the learner distribution (no solutions) as a git repository, for nbgitpuller",
    )
    out.add_argument(
        "dest", type=Path, help="folder for the export (new, empty, or an earlier export)"
    )
    out.add_argument(
        "--course",
        type=Path,
        default=None,
        help="course checkout to export (default: this checkout)",
    )
    out.add_argument("--no-git", action="store_true", help="only copy the files; do not commit")
    out.add_argument("--hub-url", help="with --repo-url: print the nbgitpuller link learners click")
    out.add_argument(
        "--repo-url",
        help="where learners' servers can clone the export from (https://... or file://...)",
    )


def _config(args: argparse.Namespace) -> int:
    course = course_root(args.course)
    settings = HubSettings(
        hub_dir=args.dir,
        course=course,
        homes=args.homes,
        proxy=find_proxy(course, args.proxy) or "configurable-http-proxy",
        ip=args.ip,
        port=args.port,
        users=args.users,
        prefix=args.prefix,
        hub_port=args.hub_port,
        proxy_api_port=args.proxy_api_port,
        spawn_timeout=args.spawn_timeout,
        readable=tuple(args.readable),
    )
    learner_names(args.prefix, args.users)  # validates before anything is written
    if args.spawn_timeout < 1:
        raise ValueError(f"--spawn-timeout must be 1 s or more, not {args.spawn_timeout}")
    path = write(settings)
    s = settings.resolved()
    print(f"wrote {path}")
    print(
        f"  learners: {', '.join(learner_names(s.prefix, min(s.users, 3)))}"
        f"{'...' if s.users > 3 else ''} ({s.users}); homes in {s.homes}"
    )
    print(
        f"  shared password: in {s.hub_dir / PASSWORD_NAME}; instructor API token: in "
        f"{s.hub_dir / TOKEN_NAME}"
    )
    fonts = build_font_cache(s.hub_dir, s.venv_bin / "python")
    if fonts:
        print(
            f"  matplotlib's font cache not built ({printable(fonts, limit=200)}): each "
            "learner builds their own at their first plot",
            file=sys.stderr,
        )
    else:
        print(
            f"  matplotlib's font cache: built once for every learner, in "
            f"{matplotlib_dir(s.hub_dir)}"
        )
    problems = [str(m) for m in missing(course, s.venv_bin, find_proxy(course, args.proxy))]
    problems += [p for p in [hub_problem(course, s.venv_bin, s.homes, s.hub_dir)] if p]
    for problem in problems:
        print(f"  {problem}", file=sys.stderr)
    if problems:
        print(
            "  the config is written, but the hub cannot start until the above is fixed",
            file=sys.stderr,
        )
        return EXIT_MISSING
    print(f"start the hub:  {s.venv_bin / 'jupyterhub'} -f {path}")
    print(
        f"then:           python -m course_tools hub prestart --users {s.users} --dir {s.hub_dir} "
        f"--hub-url {s.url}"
    )
    return EXIT_OK


def _prestart(args: argparse.Namespace) -> int:
    token = os.environ.get("COURSE_HUB_API_TOKEN")
    if not token:
        try:
            token = (args.dir / TOKEN_NAME).read_text().strip()
        except OSError:
            print(
                f"no API token: {args.dir / TOKEN_NAME} is missing (run `hub config` first, or "
                "give --dir)",
                file=sys.stderr,
            )
            return EXIT_USAGE
    names = learner_names(args.prefix, args.users)
    pace = Pace(deadline=args.timeout, parallel=args.parallel, retries=args.retries)
    if args.request_timeout <= 0:
        raise ValueError(f"--request-timeout must be more than 0, not {args.request_timeout:g}")
    api = HubAPI(args.hub_url, token, timeout=args.request_timeout)
    try:
        report = prestart(api, names, pace, progress=lambda line: print(line, flush=True))
    except KeyboardInterrupt:
        print(
            "hub prestart: interrupted; the servers the hub was starting go on starting. "
            "Run the same command again to wait for them.",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    print(f"{len(report.ready)} of {report.total} servers ready in {report.seconds:.0f} s")
    for name, reason in report.failed.items():
        print(f"failed: {name}: {reason}", file=sys.stderr)
    if report.failed:
        print(
            "  the hub's log (the terminal running jupyterhub) says more; run the same command "
            "again to retry them",
            file=sys.stderr,
        )
    if report.waiting:
        print(
            f"still starting after {pace.deadline:g} s: {', '.join(report.waiting)}\n"
            "  the hub goes on starting them: run the same command again to wait for them, "
            "or give --timeout more seconds",
            file=sys.stderr,
        )
    return EXIT_OK if report.ok else EXIT_FAILED


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _collect(args: argparse.Namespace) -> int:
    exercises = exercise_ids(course_root(args.course))
    report = collect(
        args.homes,
        args.out,
        exercises,
        folder=args.exercises_dir,
        limits=CollectLimits(max_bytes=args.max_bytes),
    )
    record_collection(args.out, report.notebooks)  # when each was collected, for --deadline
    for skipped in report.skipped:
        print(skipped, file=sys.stderr)
    print(
        f"collected {_count(report.count, 'notebook')}"
        f" from {_count(len(report.notebooks), 'learner')}"
        f" into {printable(str(args.out))}; skipped {len(report.skipped)}"
        + (" (listed above)" if report.skipped else "")
    )
    out = printable(str(args.out))
    print(f"collection times: {out}/{MANIFEST} (an unchanged notebook keeps its first time)")
    print(f"grade them:  python -m course_tools grade {out} --out gradebook.csv")
    return EXIT_OK


def _export(args: argparse.Namespace) -> int:
    course = course_root(args.course)
    commit = export(course, args.dest, git=not args.no_git)
    print(
        f"exported lessons and exercises (no solutions) to {args.dest}"
        + (f" at commit {commit[:12]}" if commit else "")
    )
    if args.hub_url and args.repo_url:
        print("nbgitpuller link for learners:")
        print(nbgitpuller_link(args.hub_url, args.repo_url, BRANCH))
    elif commit:
        print(
            f"learners' link: python -m course_tools hub export {args.dest} --hub-url HUB "
            "--repo-url URL prints it (docs/hub.md)"
        )
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    step = {"config": _config, "prestart": _prestart, "collect": _collect, "export": _export}[
        args.hub_command
    ]
    try:
        return step(args)
    except (CourseNotFound, ExportError, ValueError) as error:
        print(f"hub {args.hub_command}: {error}", file=sys.stderr)
        return EXIT_USAGE
    except HubError as error:
        print(f"hub {args.hub_command}: {error}", file=sys.stderr)
        return EXIT_MISSING
    except OSError as error:  # a folder that cannot be written, a full disk...
        where = f" ({printable(str(error.filename))})" if error.filename else ""
        print(
            f"hub {args.hub_command}: {printable(error.strerror or str(error))}{where}: check "
            "the folder's permissions and free space",
            file=sys.stderr,
        )
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"hub {args.hub_command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
