"""Write the measured tables of docs/clients.md from the committed measurements.

Usage: python tools/census_page.py [--check]

The page's prose is written by hand; everything between the markers
``<!-- census:begin -->`` and ``<!-- census:end -->`` is generated here from
course_lib/data/clients/*.json (the newest version of each census client, plus every Claude
Code version): per client, one table per trust or rule setting (profiles down, modes across),
then its notes (concurrency, folder trust, the 81 combinations) and, where measured, the
interactive dialogs word for word. With ``--check`` nothing is written and the exit status is 1
when the page is out of date (tests/test_census_page.py runs that).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from course_lib.census_tables import HEADLINE  # noqa: E402
from course_lib.client_census import census_model  # noqa: E402
from course_lib.measured import SHORT_LABELS, Measurement, committed_files  # noqa: E402

PAGE = ROOT / "docs" / "clients.md"
BEGIN, END = "<!-- census:begin -->", "<!-- census:end -->"


def _table(m: Measurement, rules: str) -> list[str]:
    cells = [c for c in m.cells if c.rules == rules]
    heads = [
        c.mode if c.classifier == "approve" else f"{c.mode} (classifier refuses)" for c in cells
    ]
    lines = ["| profile | " + " | ".join(heads) + " |", "|---" * (len(cells) + 1) + "|"]
    for tool in cells[0].results:
        row = [c.results[tool].short().replace("*", "\\*") for c in cells]
        lines.append(f"| {SHORT_LABELS.get(tool, tool)} | " + " | ".join(row) + " |")
    return lines


def _notes(m: Measurement) -> list[str]:
    lines = []
    for key, value in m.notes.items():
        if key == "modes":
            shown = "; ".join(f"`{mode}`: `{command}`" for mode, command in value.items())
            lines.append(f"- How each mode was chosen: {shown}.")
        elif key.startswith("combinations"):
            counts: dict[str, int] = {}
            for outcome in value.values():
                counts[outcome] = counts.get(outcome, 0) + 1
            shown = ", ".join(f"{n} {o}" for o, n in sorted(counts.items()))
            lines.append(f"- All 81 hint combinations, {key.split('(')[-1].rstrip(')')}: {shown}.")
        else:
            lines.append(f"- {key}: `{json.dumps(value)}`")
    return lines


def _dialogs(m: Measurement) -> list[str]:
    dialogs = m.interactive.get("dialogs") if m.interactive else None
    if not dialogs:
        return []
    lines = [
        "",
        f"Interactive TUI ({m.interactive.get('date')}, `measure-client {m.client} --tui`), "
        "per profile: whether a dialog appeared; the first dialog word for word.",
        "",
    ]
    words = {True: "dialog", False: "none", None: "unclear"}
    shown = "; ".join(
        f"{SHORT_LABELS.get(t, t)}: {words[d.get('dialog')]}" for t, d in dialogs.items()
    )
    lines.append(shown + ".")
    first = next((d for d in dialogs.values() if d.get("dialog")), None)
    if first:
        lines += ["", "```text", *first["text"], "```"]
    return lines


def _section(m: Measurement, title: str) -> list[str]:
    lines = [f"### {title} {m.version} (measured {m.date})", ""]
    try:
        reads = census_model(m.client, m.version).reads
    except ValueError:
        reads = ""
    if reads:
        lines += [f"What it does with hints: {reads}.", ""]
    for rules in m.rule_sets:
        if not any(c.rules == rules for c in m.cells):
            continue
        lines += [f"Setting: **{rules}**", "", *_table(m, rules), ""]
    lines += _notes(m)
    lines += _dialogs(m)
    return [*lines, ""]


def _headline() -> list[str]:
    from course_lib.census_tables import census_table

    frame = census_table()
    lines = [f"| {frame.index.name} | " + " | ".join(frame.columns) + " |"]
    lines.append("|---" * (len(frame.columns) + 1) + "|")
    for label, row in frame.iterrows():
        lines.append(f"| {label} | " + " | ".join(str(v).replace("*", "\\*") for v in row) + " |")
    return ["## Every client, side by side", "", *lines, ""]


def generated() -> str:
    """The page's generated part, from the committed measurements."""
    by_client: dict[str, list[Measurement]] = {}
    for path in committed_files():
        m = Measurement.load(path)
        by_client.setdefault(m.client, []).append(m)
    lines: list[str] = [*_headline(), "## Every mode and setting, per client", ""]
    for client, title, _ in HEADLINE:
        versions = sorted(
            by_client.get(client, []), key=lambda m: tuple(int(x) for x in m.version.split("."))
        )
        chosen = versions if client == "claude-code" else versions[-1:]
        for m in reversed(chosen):
            lines += _section(m, title)
    return "\n".join(lines).rstrip() + "\n"


def render(page: str) -> str:
    """The page with its generated part replaced."""
    head, _, rest = page.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return f"{head}{BEGIN}\n\n{generated()}\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check the page is up to date")
    args = parser.parse_args(argv)
    page = PAGE.read_text(encoding="utf-8")
    if BEGIN not in page or END not in page:
        print(f"{PAGE} has no {BEGIN} ... {END} markers", file=sys.stderr)
        return 2
    fresh = render(page)
    if args.check:
        if fresh != page:
            print(f"{PAGE.relative_to(ROOT)} is out of date: run python tools/census_page.py")
            return 1
        return 0
    PAGE.write_text(fresh, encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
