"""``python -m course_tools hub config|prestart|collect|export``: a class on one JupyterHub.

Exit status: 0 done; 1 some servers did not start (prestart); 2 usage error (bad folder or
flag); 3 something the hub needs is missing or the hub cannot be reached.

Introduced in: docs/hub.md
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from course_lib.safe_text import printable

from ..handin import MANIFEST, record_collection
from .api import HubAPI, HubError
from .collect import Limits, collect
from .config import PASSWORD_NAME, TOKEN_NAME, HubSettings, learner_names, write
from .content import CourseNotFound, course_root, exercise_ids
from .export import BRANCH, ExportError, export, nbgitpuller_link
from .prestart import prestart
from .requirements import find_proxy, missing

HELP = (
    "run the course for a class on one JupyterHub: config, prestart, collect, export (docs/hub.md)"
)

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_MISSING = 0, 1, 2, 3


def _env_path(name: str, default: str) -> Path:
    return Path(os.environ.get(name) or default)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="hub_command", metavar="STEP", required=True)
    hub_dir = _env_path("COURSE_HUB_DIR", "hub-class")

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
        "--proxy",
        default=None,
        help="configurable-http-proxy program (default: $COURSE_HUB_PROXY, hub/proxy, PATH)",
    )

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
    start.add_argument(
        "--timeout", type=float, default=300, help="seconds to wait for every server (default 300)"
    )

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
        default=Limits().max_bytes,
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
    )
    learner_names(args.prefix, args.users)  # validates before anything is written
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
    problems = missing(course, s.venv_bin, find_proxy(course, args.proxy))
    for problem in problems:
        print(f"  {problem}", file=sys.stderr)
    if problems:
        print(
            "  the config is written, but the hub cannot start until the above is installed",
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
    report = prestart(
        HubAPI(args.hub_url, token), learner_names(args.prefix, args.users), timeout=args.timeout
    )
    print(f"{len(report.ready)} of {args.users} servers ready in {report.seconds:.0f} s")
    if report.failed:
        print(f"failed to start (see the hub's log): {', '.join(report.failed)}", file=sys.stderr)
    if report.waiting:
        print(
            f"still starting after {args.timeout:.0f} s: {', '.join(report.waiting)}",
            file=sys.stderr,
        )
    return EXIT_OK if len(report.ready) == args.users else EXIT_FAILED


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _collect(args: argparse.Namespace) -> int:
    exercises = exercise_ids(course_root(args.course))
    report = collect(
        args.homes,
        args.out,
        exercises,
        folder=args.exercises_dir,
        limits=Limits(max_bytes=args.max_bytes),
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
