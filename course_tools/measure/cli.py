"""``python -m course_tools measure-client CLIENT``: measure what a real client does with hints.

Runs the real CLI offline against a stand-in model on 127.0.0.1 and the measurement MCP
servers, and prints the matrix of annotation profile x mode x trust or rule setting with the
client's version and the date. The clients are the adapters in `registry.ADAPTERS`. Needs
Node.js's npm to install the CLI (not to run this course).

Introduced in: docs/measure.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from course_lib.measured import Measurement, committed, differences
from course_lib.safe_text import printable

from .errors import MeasureError
from .profiles import PROFILES
from .registry import ADAPTERS, NOT_DRIVABLE

HELP = (
    "measure what a real client CLI (Claude Code, Codex, Gemini, ...) does with each annotation "
    "profile (offline, no key)"
)

LEGEND = (
    "RAN ran without asking · ASK the user was asked · ASK-H would have asked, but a headless run "
    "cannot ask · DENY refused without asking · HIDDEN not offered to the model · * a safety "
    "classifier judged the call"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "client", choices=sorted([*ADAPTERS, *NOT_DRIVABLE]), help="which CLI to measure"
    )
    parser.add_argument(
        "--cli",
        metavar="PATH",
        help="the CLI's executable (default: on PATH, else .peers/ from .ci/peers)",
    )
    parser.add_argument("--json", action="store_true", help="print the measurement as JSON")
    parser.add_argument(
        "--out", metavar="FILE", type=Path, help="also write the measurement's JSON to FILE"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=2,
        metavar="N",
        help="runs per cell, to check determinism (default 2)",
    )
    parser.add_argument(
        "--modes",
        nargs="+",
        metavar="MODE",
        help="measure only these modes (the CLI's own names)",
    )
    parser.add_argument(
        "--settings",
        metavar="FILE",
        type=Path,
        help=(
            "Claude Code: measure the file-ops tools under this settings file's MCP rules (its "
            "other rules are set aside), next to the model's prediction"
        ),
    )
    parser.add_argument(
        "--tui",
        action="store_true",
        help=(
            "drive the interactive TUI in a tmux pseudo-terminal, one profile at a time, and "
            "record whether an approval dialog appeared and its text (claude-code, copilot, "
            "gemini); with --out, written into the committed measurement's copy"
        ),
    )
    parser.add_argument(
        "--connections",
        action="store_true",
        help=(
            "run one cell under strace and list every address outside 127.0.0.1 the CLI tried "
            "to reach (needs strace)"
        ),
    )
    parser.add_argument(
        "--compare",
        action="store_true",
        help=(
            "compare with the committed measurement of the same version; exit 1 naming every "
            "changed result (cells, concurrency, project settings...)"
        ),
    )


def _missing(client: str) -> str:
    pin = ADAPTERS[client].pin
    return (
        f"measure-client: {pin.title} ({pin.program}) was not found in .peers/, on PATH or at "
        "--cli.\n"
        + "\n".join(f"  - {s}" for s in pin.install_steps())
        + f"\nThen run: python -m course_tools measure-client {client} --cli PATH/TO/{pin.program}"
    )


def render(m: Measurement) -> str:
    """The matrix as text: one table per rule set, profiles down, modes across."""
    name = ADAPTERS[m.client].pin.title if m.client in ADAPTERS else m.client
    lines = [
        f"{name} {m.version}, measured {m.date} (python -m course_tools measure-client {m.client}; "
        f"{m.timing.get('runs', '?')} runs, {m.timing.get('seconds_per_run', '?')} s per run, "
        f"{m.timing.get('seconds_per_cell', '?')} s per profile cell)",
        LEGEND,
    ]
    labels = {p["tool"]: p["label"] for p in m.profiles}
    for rules in m.rule_sets:
        cells = [c for c in m.cells if c.rules == rules]
        if not cells:
            continue
        columns = [
            (
                c.mode
                if c.classifier == "approve" or not any(r.classifier for r in c.results.values())
                else f"{c.mode} (classifier refuses)",
                c,
            )
            for c in cells
        ]
        columns = [
            (title if c.classifier == "approve" else f"{c.mode} (classifier refuses)", c)
            for title, c in columns
        ]
        lines.append("")
        lines.append(
            f"rules: {rules}"
            + ("" if not m.rule_sets[rules] else f"  {json.dumps(m.rule_sets[rules])[:100]}")
        )
        width = max(len(labels.get(t, t)) for t in cells[0].results) + 2
        header = "tool".ljust(width) + "".join(
            title.ljust(max(len(title), 7) + 2) for title, _ in columns
        )
        lines.append(header.rstrip())
        for tool in cells[0].results:
            row = labels.get(tool, tool).ljust(width)
            for title, cell in columns:
                row += cell.results[tool].short().ljust(max(len(title), 7) + 2)
            lines.append(row.rstrip())
        unstable = [c.key for c in cells if not c.repeats_agree]
        if unstable:
            lines.append("  REPEATS DIFFER in: " + "; ".join(unstable))
    for section, values in m.notes.items():
        lines.append("")
        lines.append(f"{section}: {json.dumps(values)}")
    return "\n".join(printable(line) for line in lines)


def run(args: argparse.Namespace) -> int:
    from .harness import measure

    if args.client in NOT_DRIVABLE:
        print(
            f"measure-client: {args.client} cannot be measured here: {NOT_DRIVABLE[args.client]}",
            file=sys.stderr,
        )
        return 2
    if args.repeat < 1 or args.repeat > 10:
        print("measure-client: --repeat must be between 1 and 10", file=sys.stderr)
        return 2
    if args.settings is not None and args.client != "claude-code":
        print(
            "measure-client: --settings is for claude-code (its allow/ask/deny rules)",
            file=sys.stderr,
        )
        return 2
    adapter = ADAPTERS[args.client]
    cli = adapter.find(args.cli)
    if cli is None:
        print(_missing(args.client), file=sys.stderr)
        return 3

    def progress(line: str) -> None:
        print(printable(line), file=sys.stderr, flush=True)

    if args.settings is not None:
        return _run_settings(cli, args, progress)
    if args.connections:
        return _run_connections(adapter, cli, args)
    if args.tui:
        return _run_tui(adapter, cli, args)
    try:
        m = measure(adapter, cli, repeats=args.repeat, modes=args.modes, progress=progress)
    except (MeasureError, OSError) as exc:
        print(f"measure-client: {printable(str(exc), newlines=True)}", file=sys.stderr)
        return 4
    if args.out:
        m.save(args.out)
    print(json.dumps(m.to_json(), indent=1) if args.json else render(m))
    status = 0 if all(c.repeats_agree for c in m.cells) else 5
    return _compare(m) if args.compare else status


def _run_connections(adapter: Any, cli: str, args: argparse.Namespace) -> int:
    """Print, as JSON, the outside addresses the CLI tried in one run of its first mode."""
    from .connections import outside_connections

    mode = (args.modes or adapter.modes(cli))[0]
    try:
        version = adapter.version(cli)
        tried = outside_connections(adapter, cli, mode)
    except (MeasureError, OSError) as exc:
        print(f"measure-client: {printable(str(exc), newlines=True)}", file=sys.stderr)
        return 4
    print(
        json.dumps(
            {
                "client": adapter.pin.client,
                "version": version,
                "mode": mode,
                "outside 127.0.0.1": tried,
            }
        )
    )
    return 0


def _run_tui(adapter: Any, cli: str, args: argparse.Namespace) -> int:
    """Measure the interactive dialogs; print them, or add them to a copy of the committed file."""
    from .harness import PLAN
    from .tui import dialogs

    try:
        version = adapter.version(cli)
        found = dialogs(adapter, cli, PLAN)
    except (MeasureError, OSError) as exc:
        print(f"measure-client: {printable(str(exc), newlines=True)}", file=sys.stderr)
        return 4
    record = {"version": version, "date": _today(), "dialogs": found}
    if args.out:
        try:
            m = committed(adapter.pin.client, version)
        except ValueError as exc:
            print(f"measure-client: {exc}", file=sys.stderr)
            return 6
        m.interactive = record
        m.save(args.out)
    print(json.dumps(record, indent=1))
    return 0


def _today() -> str:
    import datetime

    return datetime.date.today().isoformat()


def _compare(m: Measurement) -> int:
    """Exit 0 when `m` equals the committed measurement of its version, else 1 naming each cell."""
    try:
        before = committed(m.client, m.version)
    except ValueError as exc:
        print(f"measure-client: {exc}", file=sys.stderr)
        return 6
    changed = differences(before, m)
    if changed:
        print(
            f"measure-client: {len(changed)} result(s) differ from the committed "
            f"{m.client}-{m.version}.json:",
            file=sys.stderr,
        )
        for line in changed:
            print(f"  {printable(line)}", file=sys.stderr)
        return 1
    print(
        f"measure-client: identical to the committed {m.client}-{m.version}.json "
        f"({len(m.cells)} cells)",
        file=sys.stderr,
    )
    return 0


def _run_settings(cli: str, args: argparse.Namespace, progress: Any) -> int:
    """Measure the file-ops tools under the learner's rules and print them beside the prediction."""
    from course_lib.clients import CLAUDE_CODE_MODES
    from course_lib.permissions import Permissions, claude_code_outcome

    from .claude_code import measure_settings
    from .profiles import file_ops_tools
    from .settings_file import read_settings

    try:
        rules = Permissions.from_settings(read_settings(args.settings))
    except ValueError as exc:
        print(f"measure-client: {printable(str(exc))}", file=sys.stderr)
        return 2
    if rules.ignored:
        print(
            f"measure-client: ignored {len(rules.ignored)} non-MCP rule"
            f"{'' if len(rules.ignored) == 1 else 's'} (such as Bash or Read rules) in "
            f"{printable(str(args.settings))}: they do not decide MCP tool calls",
            file=sys.stderr,
        )
    try:
        version, results = measure_settings(
            cli, rules.as_settings()["permissions"], modes=args.modes, progress=progress
        )
    except (MeasureError, OSError) as exc:
        print(f"measure-client: {printable(str(exc), newlines=True)}", file=sys.stderr)
        return 4
    hints = {tool.name: tool.annotations for tool in file_ops_tools()}
    lines = [
        f"Claude Code {version}, file-ops tools under {printable(str(args.settings))}: measured "
        "(model's prediction)",
        LEGEND,
        "",
    ]
    modes = list(results)
    lines.append("tool".ljust(14) + "".join(m.ljust(22) for m in modes).rstrip())
    disagree = 0
    for tool in hints:
        row = tool.ljust(14)
        for mode in modes:
            measured = results[mode][tool].short()
            if version in CLAUDE_CODE_MODES and mode in CLAUDE_CODE_MODES[version]:
                predicted = claude_code_outcome(
                    rules, "file-ops", tool, hints[tool], mode=mode, version=version
                ).name
            else:
                predicted = "no model"
            disagree += predicted not in {measured, measured.rstrip("*"), "no model"}
            row += f"{measured} ({predicted})".ljust(22)
        lines.append(row.rstrip())
    if disagree:
        lines.append(
            f"\n{disagree} cell(s) differ from the course's model of Claude Code {version}."
        )
    print("\n".join(lines))
    return 0


__all__ = ["HELP", "PROFILES", "add_arguments", "render", "run"]
