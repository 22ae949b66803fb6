"""The book's census page (book/census.md), written from the committed data.

`python -m course_tools census page` rewrites the page; tests/test_census.py fails when the page
and the data disagree, so no figure on it is ever typed by hand.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from course_lib.annotations import HINTS
from course_lib.census import Census, load_census

__all__ = ["PAGE", "render"]

PAGE = Path(__file__).resolve().parents[2] / "book" / "census.md"
READ_NAMES = (  # a read verb first (after an OpenAPI-style prefix), and no write verb after it
    r"^(?:api-(?:post-|get-)?)?(?:search|get|list|find|query|fetch|read|retrieve|describe)"
    r"(?:[_-]|$)(?!.*(?:replace|update|write|delete|create|set))"
)

INTRO = """\
# Annotations in the wild: a census of {servers} real servers

What do real MCP servers declare on their tools? On {date} the course's census installed
{servers} third-party servers ({npm} from npm, {pypi} from PyPI), each from a lock file, and
started each one alone with no network and placeholder credentials. {listed} of them listed
their tools: {tools} tools in all. Lesson 02 ([Pessimistic
defaults](../notebooks/02_defaults.ipynb)) shows the headline; this page has the whole census,
its method and its date.
"""

METHOD = """\
## Method

- **Which servers.** The reference servers of the MCP project, the older
  `@modelcontextprotocol/server-*` packages, and widely used vendor and community servers: the
  list is `course_tools/census/servers.py`.
- **Pinned installs.** Each server has its own lock file in `course_tools/census/locks/`: npm's
  `package-lock.json` (installed with `npm ci --ignore-scripts`, so no install script downloads
  a browser or a binary) or pip requirements with a sha256 hash for every distribution
  (installed by uv with `--require-hashes`). Each is installed in its own folder or virtual
  environment. Servers whose own pins allow `mcp` 2.x but that crash on it (they use 1.x names)
  are installed with `mcp<2`.
- **Offline.** Isolation: {isolation}; so
  any request to the outside failed at once; every credential was a placeholder such as
  `ghp_fake`. A server that needs its real backend to start (a live database, a login, a model
  download) is listed below with the reason.
- **Read as `inspect` reads.** Each server was inspected by the engine of `python -m course_lib
  inspect` ({timeout:g} s each, {concurrent} at a time): its protocol, each tool's title, the
  four hints as declared, other annotation keys, the risk profile and `inspect`'s findings.
- **Checked against the wire.** The raw `tools/list` JSON of every server was kept and compared,
  tool by tool, with what `inspect` reported (name, titles, four hints): **{mismatches}
  mismatches**.
- **Re-run in CI.** The peers tier runs `python -m course_tools census run --check` and fails,
  naming each change (a version, a hint, a server that no longer starts), when the result
  differs from the committed data (`course_lib/data/census/`: `servers.csv`, `tools.csv`,
  `about.json`).
"""

NOT_STARTED = """\
Servers that did not list tools, and why ({failed} failed when started; {skipped} are listed
without being started, as an earlier run showed they cannot start offline):
"""

HONEST = """\
## Why an honest server can look riskier than a silent one

A view that counts only what servers declare rewards silence. A server that honestly says
`readOnlyHint: true, openWorldHint: false` is guessed to reach private data, a server that
declares `openWorldHint: true` visibly reaches the open world, and a screen that draws a badge
per hint set to `true` (the MCP Inspector 2.x) shows an annotated tool's risks and nothing for a
silent one. The annotated
server then looks riskier, because its risks are written down.

The spec intends the opposite, and its defaults are how: an absent hint means the worst case
(not read-only, destructive, open world), so saying nothing is never cheaper than telling the
truth. Annotations exist to **narrow** the worst case, and only as far as the client trusts the
server. The course's session view follows the defaults: a tool that is not read-only, declared
or by default, may reach private data *at worst*, so a silent server completes the lethal
trifecta on its own. Here, {silent_trifecta} of {silent} servers that declare nothing do,
against {annotated_trifecta} of {annotated} servers that annotate every tool. An honest server's
legs are marked *declared hint*; a silent server's are *spec default* and *worst case*, the
least sure bases, and the ones a host can do nothing with.
"""

REPRODUCE = """\
## Reproduce it

```bash
python -m course_tools census install          # every server, from its lock, into .peers/census
python -m course_tools census run --check      # offline; exit 1 naming each change against the data
python -m course_tools census run --write      # replace the committed data with a new run
python -m course_tools census page             # rewrite this page from the data
python -m course_tools census lock --only git  # re-resolve one server's pins (needs the registries)
```

Installing takes minutes per server on a cold machine (npm's and pip's download caches make a
second install much faster, and an unchanged lock is never installed twice); a run takes a few
minutes. Where user namespaces are not allowed, `run` says so and stops; `--no-isolation` runs
the servers with the network instead, and the data is then marked so.
"""


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def _table(rows: list[list[Any]], header: list[str]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        cells = [str(c).replace("|", "\\|").replace("\n", " ") for c in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _coverage(census: Census) -> tuple[dict[str, int], str]:
    tools, listed = census.tools, census.listed()
    per = tools.groupby("server")["has_annotations"].agg(["sum", "count"])
    kinds = {
        "all": int((per["sum"] == per["count"]).sum()),
        "none": int((per["sum"] == 0).sum()),
        "some": int(((per["sum"] > 0) & (per["sum"] < per["count"])).sum()),
    }
    n = len(tools)
    any_hint = tools[list(HINTS)].notna().any(axis=1).sum()
    all_hints = tools[list(HINTS)].notna().all(axis=1).sum()
    titled = ((tools["title"] != "") | (tools["annotations_title"] != "")).sum()
    rows = [
        [
            hint,
            _pct(tools[hint].notna().sum(), n),
            _pct(tools[hint].map(lambda v: v is True).sum(), n),
            _pct(tools[hint].map(lambda v: v is False).sum(), n),
        ]
        for hint in HINTS
    ]  # noqa: E712
    text = (
        "## What the tools declare\n\n"
        f"- {_pct(tools['has_annotations'].sum(), n)} of the {n} tools have an `annotations` "
        f"object; {_pct(any_hint, n)} declare at least one hint and {_pct(all_hints, n)} all "
        "four.\n"
        f"- {kinds['all']} of the {len(listed)} servers annotate every tool, {kinds['none']} "
        f"annotate none, {kinds['some']} some.\n"
        f"- {_pct(titled, n)} of the tools carry a title (top-level `title`, `annotations.title` "
        "or both).\n\n" + _table(rows, ["hint", "declared", "true", "false"])
    )
    return kinds, text


def _findings(census: Census) -> str:
    tools = census.tools
    flagged = tools[
        tools["findings"].str.contains("contradiction|suspicious|malformed", regex=True)
    ]
    other = tools[tools["other_keys"] != ""]
    rows = [
        [
            r["server"],
            f"`{r['tool']}`",
            *("-" if r[h] is None else str(r[h]).lower() for h in HINTS),
            r["findings"].replace(";", ", "),
        ]
        for _, r in flagged.iterrows()
    ]
    reads = tools[
        tools["tool"].str.contains(READ_NAMES, case=False, regex=True)
        & tools["destructiveHint"].map(lambda v: v is True)
        & tools["readOnlyHint"].map(lambda v: v is not True)
    ]
    read_rows = [
        [r["server"], f"`{r['tool']}`", r["annotations_title"] or r["title"] or "-"]
        for _, r in reads.iterrows()
    ]
    keys = sorted({k for value in other["other_keys"] for k in value.split(";")})
    return (
        "## Contradictions and oddities\n\n"
        "`inspect`'s findings that question a declaration (a read-only tool whose name sounds "
        "like a change, a tool declared additive whose name sounds destructive, read-only and "
        f"destructive at once, or a malformed entry), {len(flagged)} tools in all:\n\n"
        + _table(rows, ["server", "tool", *HINTS, "findings"])
        + f"\nTools whose name reads like a read but that declare `destructiveHint: true` "
        f"({len(reads)}; no finding flags these, as a cautious slip is not a risk):\n\n"
        + _table(read_rows, ["server", "tool", "title"])
        + f"\nAnnotation keys outside the spec's five ({len(other)} tools): "
        + (", ".join(f"`{k}`" for k in keys) or "none")
        + ". The SDK drops them silently.\n"
    )


def _servers(census: Census) -> str:
    listed = census.listed()
    rows = [
        [
            r.label,
            r.registry,
            f"`{r.package}`",
            r.version,
            r.protocol,
            r.handshake,
            r.tools,
            r.annotated,
            r.trifecta_alone,
        ]
        for r in listed.itertuples()
    ]
    others = census.servers[census.servers["status"] != "listed"]
    failed = [
        [r.label, r.registry, f"`{r.package}`", r.version, r.status, r.reason]
        for r in others.itertuples()
    ]
    protocols = listed.groupby("protocol").size().to_dict()
    return (
        "## Every server\n\n"
        + "Protocols negotiated: "
        + ", ".join(f"{v} on {k}" for k, v in sorted(protocols.items()))
        + ".\n\n"
        + _table(
            rows,
            [
                "server",
                "registry",
                "package",
                "version",
                "protocol",
                "handshake",
                "tools",
                "annotated",
                "trifecta alone",
            ],
        )
        + "\n"
        + NOT_STARTED.format(
            failed=int((others["status"] == "failed").sum()),
            skipped=int((others["status"] == "not started").sum()),
        )
        + "\n"
        + _table(failed, ["server", "registry", "package", "version", "status", "why"])
    )


def render(census: Census | None = None) -> str:
    """The page's markdown for `census` (default: the committed data)."""
    census = census or load_census()
    about, listed = census.about, census.listed()
    kinds, coverage = _coverage(census)
    per = census.tools.groupby("server")["has_annotations"].agg(["sum", "count"])
    silent = set(per.index[per["sum"] == 0])
    annotated = set(per.index[per["sum"] == per["count"]])
    alone = dict(zip(listed["label"], listed["trifecta_alone"]))
    return "\n".join(
        [
            INTRO.format(
                date=census.date,
                servers=len(census.servers),
                npm=int((census.servers["registry"] == "npm").sum()),
                pypi=int((census.servers["registry"] == "pypi").sum()),
                listed=len(listed),
                tools=len(census.tools),
            ),
            METHOD.format(
                isolation=about["isolation"],
                timeout=about["timeout_seconds"],
                concurrent=about["concurrent"],
                mismatches=int(listed["mismatches"].sum()),
            ),
            coverage,
            _findings(census),
            HONEST.format(
                silent=len(silent),
                annotated=len(annotated),
                silent_trifecta=sum(alone.get(s) == "yes" for s in silent),
                annotated_trifecta=sum(alone.get(s) == "yes" for s in annotated),
            ),
            _servers(census),
            REPRODUCE,
        ]
    )
