"""The lessons as learners see them: JupyterLab on a loopback port, read by headless Chromium.

JupyterLab starts the way the README's first command starts it (the repository as its root,
lesson 00 opened), on a copy of the learner-facing folders, so running a lesson or opening an
exercise never changes the repository. The tests check that:
- the launch opens lesson 00 and the file browser reaches the lessons and the exercises;
- every `notebooks/*.ipynb` renders (every heading, every table, every Mermaid diagram drawn as
  SVG, no diagram error);
- every notebook link in every lesson opens its notebook when followed as a click does (a
  missing target, a 404, fails);
- running lesson 00 in the page produces its tools table.
Screenshots go to `artifacts/jupyterlab/`.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from cdp import BrowserError, Chromium
from peerlib import ARTIFACTS, ROOT, need_program

pytestmark = pytest.mark.peers

LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
LAUNCH_FILE = "notebooks/00_start_here.ipynb"  # what the README's first command opens
COPIED = ("notebooks", "exercises", "solutions", "docs")  # the learner-facing folders
NOTEBOOK_LINK = re.compile(r"\]\(([^)#:\s]+\.ipynb)\)")
LAB_SETTINGS = {
    # render every cell, not only those near the viewport, so the whole lesson can be checked
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    # no "get Jupyter news?" toast over the screenshots, and no network request for it
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false", "checkForUpdates": False},
}


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Lab:
    def __init__(self, url: str, token: str, work: Path, launch_url: str) -> None:
        self.url, self.token, self.work, self.launch_url = url, token, work, launch_url


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    base = tmp_path_factory.mktemp("jupyterlab")
    work = base / "work"
    for name in COPIED:
        shutil.copytree(ROOT / name, work / name, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    shutil.copy(ROOT / "README.md", work / "README.md")
    (work / "course_lib").symlink_to(ROOT / "course_lib", target_is_directory=True)
    settings = base / "settings"
    for relative, values in LAB_SETTINGS.items():
        (settings / relative).parent.mkdir(parents=True, exist_ok=True)
        (settings / relative).write_text(json.dumps(values), encoding="utf-8")
    port, token = _free_port(), secrets.token_hex(16)
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(base / "config"),  # no user configuration leaks in
        "JUPYTER_RUNTIME_DIR": str(base / "runtime"),
        "PYTHONHASHSEED": "0",
        "TZ": "UTC",
    }
    log = (base / "lab.log").open("w")
    process = subprocess.Popen(
        [
            sys.executable, "-m", "jupyter", "lab", "--no-browser",
            "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}",
            "--LabApp.expose_app_in_browser=True",
            f"--LabApp.user_settings_dir={settings}", f"--LabApp.workspaces_dir={base / 'workspaces'}",
            *(["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []),  # CI runs as root
            "--ServerApp.root_dir=.", LAUNCH_FILE,  # the README's first command, from the repository root
        ],
        cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    try:
        while True:
            if process.poll() is not None:
                pytest.fail(f"JupyterLab exited with status {process.returncode}:\n{(base / 'lab.log').read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=5) as answer:
                    if answer.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"JupyterLab did not answer on {url} within 90 s:\n{(base / 'lab.log').read_text()[-3000:]}")
            time.sleep(0.5)
        yield Lab(url, token, work, _launch_url(base / "runtime", url))
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        log.close()


def _launch_url(runtime: Path, url: str) -> str:
    """The page JupyterLab asks the browser to open for the file given on its command line."""
    pages = sorted(runtime.glob("jpserver-file-to-run-*-open.html"))
    if not pages:
        pytest.fail(f"JupyterLab wrote no page to open {LAUNCH_FILE}: was the file given on its command line?")
    found = re.search(r'href="([^"]+)"', pages[-1].read_text(encoding="utf-8"))
    if not found or not found.group(1).startswith(url):
        pytest.fail(f"JupyterLab's page to open {LAUNCH_FILE} holds no link to {url}")
    return found.group(1).replace("&amp;", "&")


@pytest.fixture(scope="module")
def browser(lab: Lab, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chromium]:
    """One headless Chromium with JupyterLab loaded once; each test opens its lesson in it."""
    executable = need_program("chromium", "Debian's chromium package (apt-get install chromium)")
    driver = Chromium(executable, tmp_path_factory.mktemp("chromium") / "profile")
    try:
        separator = "&" if "?" in lab.launch_url else "?"
        driver.navigate(f"{lab.launch_url}{separator}reset")  # as the README's launch opens it
        driver.wait_for("!!window.jupyterapp && !!document.querySelector('.jp-DirListing')", timeout=90, what="JupyterLab to load")
        yield driver
    finally:
        driver.close()


def _markdown_expectations(lesson: Path) -> dict[str, object]:
    """What the lesson's markdown should render to: headings, tables and Mermaid diagrams."""
    cells = json.loads(lesson.read_text(encoding="utf-8"))["cells"]
    headings, tables, diagrams, markdown_cells, labels = [], 0, 0, 0, []
    for cell in cells:
        if cell["cell_type"] != "markdown":
            continue
        source = "".join(cell["source"])
        if source.strip():
            markdown_cells += 1
        for block in re.findall(r"^```mermaid\s*$(.*?)^```", source, flags=re.MULTILINE | re.DOTALL):
            diagrams += 1
            # quoted plain-text node labels, which the drawn SVG must contain
            quoted = re.findall(r'"([^"<>&]+)"', block)
            labels.append([q.strip() for q in quoted if q.strip()])
        outside_code = re.sub(r"^```.*?^```", "", source, flags=re.MULTILINE | re.DOTALL)
        headings += [m.group(2) for m in re.finditer(r"^(#{1,6})\s+(.+?)\s*#*\s*$", outside_code, flags=re.MULTILINE)]
        tables += len(re.findall(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)+\|?\s*$", outside_code, flags=re.MULTILINE))
    return {"headings": headings, "tables": tables, "diagrams": diagrams, "labels": labels, "markdown_cells": markdown_cells}


RENDERED = """(() => {
  const md = [...document.querySelectorAll('.jp-Notebook .jp-MarkdownCell .jp-RenderedMarkdown')];
  const text = el => el.textContent.replace(/\\u00b6/g, '').trim();
  return {
    markdown_cells: md.length,
    headings: md.flatMap(m => [...m.querySelectorAll('h1,h2,h3,h4,h5,h6')].map(text)),
    tables: md.reduce((n, m) => n + m.querySelectorAll('table').length, 0),
    diagrams: md.flatMap(m => [...m.querySelectorAll('.jp-RenderedMermaid')]).map(d => {
      // JupyterLab 4 draws a Mermaid block to SVG and shows it as an <img> of that SVG (or inline)
      const inline = d.querySelector('svg');
      const img = d.querySelector('img[src^="data:image/svg+xml"]');
      const svg = inline ? inline.outerHTML : img ? decodeURIComponent(img.src.split(',').slice(1).join(',')) : '';
      const parsed = svg ? new DOMParser().parseFromString(svg, 'image/svg+xml') : null;
      return {
        svg: !!parsed && parsed.documentElement.nodeName === 'svg',
        shown: !!inline || (!!img && img.complete && img.naturalWidth > 0),
        text: parsed ? parsed.documentElement.textContent.replace(/\\s+/g, ' ') : '',
      };
    }),
    diagram_errors: md.reduce((n, m) => n + m.querySelectorAll('.jp-RenderedMermaid.jp-mod-warning, .jp-RenderedMermaid details').length, 0),
    raw_mermaid: md.reduce((n, m) => n + m.querySelectorAll('code.language-mermaid').length, 0),
    raw_headings: md.flatMap(m => [...m.querySelectorAll('p')].map(text).filter(t => /^#{1,6} /.test(t))),
  };
})()"""


def _plain(heading: str) -> str:
    """A markdown heading as the browser shows it: without backticks, emphasis or link syntax."""
    heading = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # [text](link) -> text
    heading = heading.replace("`", "")
    heading = re.sub(r"(?<!\w)(\*\*|__|\*|_)(\S(?:.*?\S)?)\1(?!\w)", r"\2", heading)  # emphasis, not snake_case
    return heading.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">").strip()


OPEN = """(async () => {
  const app = window.jupyterapp;
  for (const w of Array.from(app.shell.widgets('main'))) {  // one lesson at a time, its kernel shut down
    if (w.sessionContext) { await w.sessionContext.shutdown().catch(() => {}); }
    w.dispose();
  }
  const panel = await app.commands.execute('docmanager:open', {path: 'notebooks/NAME'});
  app.shell.activateById(panel.id);
  return panel.id;
})()"""


def _open(browser: Chromium, lesson: Path, expected_cells: int) -> None:
    browser.evaluate(OPEN.replace("NAME", lesson.name))
    try:
        browser.wait_for(
            f"document.querySelectorAll('.jp-Notebook .jp-MarkdownCell .jp-RenderedMarkdown').length >= {expected_cells}",
            timeout=60,
            what=f"{lesson.name} to open with its {expected_cells} markdown cells rendered",
        )
    except BrowserError:
        browser.screenshot(ARTIFACTS / "jupyterlab" / f"{lesson.stem}-open-timeout.png")
        raise


LAUNCH_STATE = """(() => {
  const app = window.jupyterapp;
  const current = app.shell.currentWidget;
  return {
    current: current && current.context ? current.context.path : null,
    listed: [...document.querySelectorAll('.jp-FileBrowser .jp-DirListing-item .jp-DirListing-itemText')]
      .map(e => e.textContent.trim()),
  };
})()"""


def test_the_launch_opens_lesson_00_and_the_file_browser_reaches_lessons_and_exercises(lab, browser, artifacts):
    """The README's first command: lesson 00 open, the lessons listed, the exercises one click away."""
    state = browser.wait_for(
        f"(() => {{ const s = {LAUNCH_STATE}; return s.current === '{LAUNCH_FILE}' && s.listed.length > 0 && s; }})()",
        timeout=60,
        what=f"{LAUNCH_FILE} to be open, with the file browser listing files",
    )
    browser.screenshot(artifacts / "jupyterlab" / "launch.png")
    assert {p.name for p in LESSONS} <= set(state["listed"]), f"the file browser at launch lists {state['listed']}"
    browser.evaluate("document.querySelector('.jp-FileBrowser .jp-BreadCrumbs-home').click()")  # the learner's one click
    root = browser.wait_for(
        f"(() => {{ const s = {LAUNCH_STATE}; return s.listed.includes('exercises') && s; }})()",
        timeout=30,
        what="the file browser's root (the repository) to list the exercises folder",
    )
    browser.screenshot(artifacts / "jupyterlab" / "launch-root.png")
    assert {"notebooks", "exercises"} <= set(root["listed"]), f"the repository root lists {root['listed']}"


LINKS = """(() => [...document.querySelectorAll('.jp-Notebook .jp-MarkdownCell .jp-RenderedMarkdown a')]
  .map((a, index) => ({index, href: a.href, text: a.textContent.trim()}))
  .filter(link => link.href.startsWith(location.origin + '/files/')))()"""

# Fetch the link's own URL (the file JupyterLab resolved it to), then click it as a learner does.
FOLLOW = """(async () => {
  const a = document.querySelectorAll('.jp-Notebook .jp-MarkdownCell .jp-RenderedMarkdown a')[INDEX];
  const response = await fetch(a.href, {credentials: 'same-origin'});
  a.scrollIntoView({block: 'center'});
  a.click();
  return response.status;
})()"""

OPENED = """(() => {
  const w = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.context && w.context.path === PATH);
  return !!w && w.context.isReady && !!w.content && (w.content.widgets || []).length > 0;
})()"""


def _notebook_links(lesson: Path) -> list[str]:
    """Every relative notebook link in a lesson's markdown, resolved against the repository root."""
    cells = json.loads(lesson.read_text(encoding="utf-8"))["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return sorted({posixpath.normpath(posixpath.join("notebooks", target)) for target in NOTEBOOK_LINK.findall(text)})


def _target(href: str) -> str:
    """The repository path a rendered link points to (JupyterLab resolves it to /files/PATH)."""
    path = urllib.parse.urlsplit(href).path
    return urllib.parse.unquote(path.split("/files/", 1)[1])


@pytest.mark.parametrize("lesson", LESSONS, ids=[p.stem for p in LESSONS])
def test_every_notebook_link_in_a_lesson_opens_its_notebook(lab, browser, artifacts, lesson):
    lesson = lab.work / "notebooks" / lesson.name
    expected = _notebook_links(lesson)
    _open(browser, lesson, _markdown_expectations(lesson)["markdown_cells"])
    try:  # JupyterLab resolves relative links to /files/PATH after rendering, asynchronously
        browser.wait_for(f"{LINKS}.length >= {len(expected)}", timeout=30, what=f"the links of {lesson.name} to resolve")
    except BrowserError:
        pass  # the comparison below says which links are missing
    links = [link for link in browser.evaluate(LINKS) if _target(link["href"]).endswith(".ipynb")]
    rendered = sorted({_target(link["href"]) for link in links})
    assert rendered == expected, f"{lesson.name}: notebook links in the source {expected}, rendered as links {rendered}"
    for link in {_target(link["href"]): link for link in links}.values():
        path = _target(link["href"])
        status = browser.evaluate(FOLLOW.replace("INDEX", str(link["index"])))
        assert status == 200, f"{lesson.name}: the link [{link['text']}] to {path} answers {status}"
        try:
            browser.wait_for(OPENED.replace("PATH", json.dumps(path)), timeout=60, what=f"{path} to open from {lesson.name}")
        except BrowserError:
            browser.screenshot(artifacts / "jupyterlab" / f"{lesson.stem}-link-{Path(path).stem}.png")
            raise
        browser.evaluate(
            "(async () => { const app = window.jupyterapp;"
            " for (const w of Array.from(app.shell.widgets('main'))) {"
            " if (w.context && w.context.path === " + json.dumps(path) + ") {"
            " if (w.sessionContext) { await w.sessionContext.shutdown().catch(() => {}); } w.dispose(); } }"
            " const lesson = Array.from(app.shell.widgets('main')).find(w => w.context && w.context.path === "
            + json.dumps(f"notebooks/{lesson.name}") + ");"
            " if (lesson) { app.shell.activateById(lesson.id); } return true; })()"
        )


@pytest.mark.parametrize("lesson", LESSONS, ids=[p.stem for p in LESSONS])
def test_lesson_markdown_renders_in_jupyterlab(lab, browser, artifacts, lesson):
    lesson = lab.work / "notebooks" / lesson.name  # the copy JupyterLab serves
    expected = _markdown_expectations(lesson)
    _open(browser, lesson, expected["markdown_cells"])
    if expected["diagrams"]:
        browser.wait_for(
            "[...document.querySelectorAll('.jp-RenderedMermaid')].filter(d => d.querySelector("
            "'svg, img[src^=\"data:image/svg+xml\"]')).length >= " + str(expected["diagrams"]),
            timeout=60,
            what=f"{expected['diagrams']} Mermaid diagram(s) in {lesson.name} to be drawn as SVG",
        )
    shot_dir = artifacts / "jupyterlab"
    browser.screenshot(shot_dir / f"{lesson.stem}.png")
    rendered = browser.evaluate(RENDERED)
    if expected["diagrams"]:
        browser.evaluate("document.querySelector('.jp-RenderedMermaid').scrollIntoView({block: 'center'})")
        time.sleep(0.3)
        browser.screenshot(shot_dir / f"{lesson.stem}-mermaid.png")

    assert rendered["headings"] == [_plain(h) for h in expected["headings"]], f"{lesson.name}: headings rendered differently"
    assert re.fullmatch(r"\d\d · .+", rendered["headings"][0]), f"{lesson.name}: the first heading should be 'NN · Title'"
    assert rendered["raw_headings"] == [], f"{lesson.name}: markdown shown as text: {rendered['raw_headings']}"
    assert rendered["tables"] == expected["tables"], f"{lesson.name}: {expected['tables']} tables in the source, {rendered['tables']} rendered"
    diagrams = rendered["diagrams"]
    assert len(diagrams) == expected["diagrams"], f"{lesson.name}: {expected['diagrams']} Mermaid blocks, {len(diagrams)} drawn"
    assert rendered["diagram_errors"] == 0 and rendered["raw_mermaid"] == 0, f"{lesson.name}: a Mermaid diagram failed to render"
    for number, (diagram, labels) in enumerate(zip(diagrams, expected["labels"]), start=1):
        assert diagram["svg"] and diagram["shown"], f"{lesson.name}: Mermaid diagram {number} is not shown as an SVG"
        missing = [label for label in labels if label not in diagram["text"]]
        assert not missing, f"{lesson.name}: Mermaid diagram {number} lacks the labels {missing}"


RUN_STATE = """(() => {
  const panel = Array.from(window.jupyterapp.shell.widgets('main')).find(w => w.sessionContext && w.title.label === '00_start_here.ipynb');
  const kernel = panel && panel.sessionContext.session && panel.sessionContext.session.kernel;
  const cells = panel ? panel.content.widgets.filter(c => c.model.type === 'code') : [];
  return {
    kernel: kernel ? kernel.status : null,
    run: cells.filter(c => c.model.executionCount !== null).length,
    code_cells: cells.length,
    errors: cells.flatMap(c => c.model.outputs.toJSON().filter(o => o.output_type === 'error').map(o => o.ename + ': ' + o.evalue)),
  };
})()"""


def test_running_lesson_00_in_the_browser_produces_its_tools_table(lab, browser, artifacts):
    lesson = lab.work / "notebooks" / "00_start_here.ipynb"
    if not lesson.exists():
        pytest.fail("notebooks/00_start_here.ipynb is missing: lesson 00 is the one a learner runs first")
    _open(browser, lesson, _markdown_expectations(lesson)["markdown_cells"])
    browser.wait_for(f"({RUN_STATE}).kernel === 'idle'", timeout=90, what="the lesson's kernel to start")
    browser.evaluate(
        "(async () => { const app = window.jupyterapp;"
        " const panel = Array.from(app.shell.widgets('main')).find(w => w.title.label === '00_start_here.ipynb');"
        " app.shell.activateById(panel.id); panel.content.activate();"
        " await app.commands.execute('notebook:clear-all-cell-outputs');"
        " await app.commands.execute('notebook:run-all-cells'); return true; })()"
    )
    try:
        state = browser.wait_for(
            f"(() => {{ const s = {RUN_STATE}; return s.kernel === 'idle' && s.run === s.code_cells && s; }})()",
            timeout=120,
            what="every code cell of lesson 00 to run",
        )
    except BrowserError:
        browser.screenshot(artifacts / "jupyterlab" / "00_start_here-run-timeout.png")
        raise
    assert state["errors"] == [], f"lesson 00 raised in the browser: {state['errors']}"
    table = browser.evaluate(
        """(() => {
          const t = [...document.querySelectorAll('.jp-OutputArea-output table')]
            .find(t => /read_file/.test(t.textContent) && /delete_file/.test(t.textContent) && /profile/.test(t.textContent));
          if (!t) return null;
          t.scrollIntoView({block: 'center'});
          return [...t.querySelectorAll('tbody tr')].map(r => [...r.children].map(c => c.textContent.trim()));
        })()"""
    )
    time.sleep(0.3)
    browser.screenshot(artifacts / "jupyterlab" / "00_start_here-tools-table.png")
    assert table, "running lesson 00 in the browser showed no tools table (a table with read_file, delete_file and profile)"
    by_tool = {row[0]: row for row in table}
    assert set(by_tool) >= {"read_file", "append_text", "set_value", "delete_file"}, f"tools table rows: {sorted(by_tool)}"
    assert by_tool["read_file"][-1] == "read-only" and by_tool["delete_file"][-1] == "destructive", (
        f"profiles shown: { {name: row[-1] for name, row in by_tool.items()} }"
    )
