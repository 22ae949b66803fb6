"""The static book, as a reader sees it: built, opened by headless Chromium over HTTP and from disk.

Builds both languages with the README's book command (`python tools/build_book.py`; `.ci/peers`
installs the book extra and Mermaid first), serves build/book/site/ under a sub-path of a loopback
port (as a project site is hosted) and opens every page of both languages. Asserts: no page error,
no request leaves 127.0.0.1, every Mermaid block drawn as SVG with labels of 12 px or more, every
image loaded, Chinese pages in Chinese (their page chrome too), prev/next walking the whole book,
language links to the same page in the other language, wide outputs that scroll instead of being
cut (at a laptop's width and a phone's), glossary terms that never break inside a word, and
Chinese search finding the course's core terms. The same book opened as files (file://, the
README's first suggestion) switches language, draws its diagrams and searches.
Screenshots go to `artifacts/book/`.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from cdp import BrowserError, Chromium
from peerlib import ROOT, need_program

sys.path.insert(0, str(ROOT / "tools"))
import glossary  # noqa: E402
import translate_notebooks  # noqa: E402

pytestmark = pytest.mark.peers

SITE = ROOT / "build" / "book" / "site"
LANGUAGES = ("en", "zh-CN")
# The reading order: the book's index, then its toctree (book/index.md), depth first.
ORDER = [
    "book/index",
    "book/agenda",
    "notebooks/00_start_here",
    "notebooks/01_fields",
    "notebooks/02_defaults",
    "notebooks/03_combinations",
    "exercises/01_annotate_tools",
    "exercises/02_predict_the_client",
    "exercises/05_your_own_server",
    "notebooks/04_lethal_trifecta",
    "exercises/03_break_the_trifecta",
    "notebooks/05_lying_server",
    "exercises/04_catch_the_liar",
    "notebooks/06_beyond_hints",
    "book/cheatsheet",
    "book/glossary",
    "book/census",
    "docs/clients",
    "docs/instructor",
    "docs/grading",
    "docs/hub",
    "docs/connect",
    "docs/inspect",
    "docs/inspect-real-servers",
    "docs/measure",
    "docs/book",
    "docs/benchmarks",
    "docs/contributing",
    "docs/conventions",
]
EXTRA_PAGES = ["genindex", "search"]
LAPTOP, PHONE = (1280, 900), (390, 844)
PREFIX = "course/"  # the HTTP server serves the site below a sub-path, as a project site is
# Prose is headings, paragraphs and list items; table cells are left out (many hold identifiers,
# and the glossary's first column is the English term on purpose).
# Pages that may be partly translated (for instructors; the Chinese edition is for learners): while
# they are, the Chinese page says so under its title (book_extras' NOT_YET_TRANSLATED_NOTE).
MAY_BE_PARTLY_TRANSLATED = {page for page in ORDER if page.startswith("docs/")}
# English pages about the Chinese edition itself (its search terms, its class set-up) quote Chinese.
ABOUT_CHINESE = {"docs/book"}
PARTLY_TRANSLATED_NOTE = "尚未全部译为中文"
HAN = re.compile(r"[\u4e00-\u9fff]")
# Chinese search: each core term finds its lesson and the glossary.
SEARCHES = {
    "幂等": "notebooks/03_combinations",
    "致命三件套": "notebooks/04_lethal_trifecta",
    "只读": "notebooks/01_fields",
}
# A query typed as a phrase, without spaces, searches each word the index knows.
PHRASE = ("幂等的工具", "notebooks/03_combinations")
MIN_LABEL_PX = 12
# Latin words the Chinese book's page chrome may show: the language switch, the book's name, the
# licence's name, and the products that page titles name (Claude Code, JupyterHub).
CHROME_LATIN = {"English", "MCP", "MIT", "Claude", "Code", "JupyterHub"}  # and product names in titles

STATE = """(() => {
  const article = document.querySelector('.bd-article') || document.body;
  const prose = [...article.querySelectorAll('h1, h2, h3, p, li')]
    .filter(e => !e.closest('pre, code, table, .cell_output, .output, .highlight, .mermaid, .admonition'))
    .map(e => e.textContent.replace(/\\s+/g, ' ').trim())
    .filter(t => /[A-Za-z\\u4e00-\\u9fff]{3}/.test(t));
  return {
    ready: document.readyState,
    lang: document.documentElement.lang,
    title: document.title,
    h1: (document.querySelector('.bd-article h1') || {textContent: ''}).textContent.replace(/\\u00b6|#/g, '').trim(),
    prose: prose,
    mermaid: [...document.querySelectorAll('.mermaid')].map(m => ({
      svg: !!m.querySelector('svg'), error: /Syntax error|Parse error/i.test(m.textContent || ''),
      text: m.querySelector('svg') ? m.querySelector('svg').textContent.replace(/\\s+/g, ' ') : '',
      // each label's rendered size: its font size times the scale the SVG is drawn at
      labels: [...m.querySelectorAll('svg text')].filter(t => t.textContent.trim()).map(t => ({
        text: t.textContent.trim(),
        px: parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a,
      })),
    })),
    switch: [...document.querySelectorAll('.book-language-switch a')].map(a => a.href),
    note: [...document.querySelectorAll('.bd-article .admonition')].map(a => a.textContent).join(' '),
    images: [...document.images].map(i => ({src: i.currentSrc || i.src, ok: i.complete && i.naturalWidth > 0})),
    next: (document.querySelector('a.right-next') || {}).href || null,
    prev: (document.querySelector('a.left-prev') || {}).href || null,
  };
})()"""


class RecordingChromium(Chromium):
    """Chromium that keeps the DevTools events (requests, exceptions, console errors) it receives."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.events: list[dict[str, Any]] = []
        super().__init__(*args, **kwargs)
        self.send("Network.enable")
        self.send("Log.enable")

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        message_id = next(self._ids)
        self.socket.send(json.dumps({"id": message_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == message_id:
                if "error" in message:
                    raise BrowserError(f"{method} failed: {message['error']}")
                return message.get("result", {})
            if "method" in message and hasattr(self, "events"):
                self.events.append(message)


def _problems(events: list[dict[str, Any]], origin: str) -> list[str]:
    """Page errors, console errors, requests off the loopback host and failed loads in `events`."""
    found = []
    for event in events:
        method, params = event["method"], event.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            found.append(
                f"page error: {details.get('exception', {}).get('description') or details.get('text')}"
            )
        elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
            found.append(
                "console error: "
                + " ".join(
                    str(a.get("value", a.get("description", ""))) for a in params.get("args", [])
                )
            )
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            if not entry.get("url", "").endswith("/favicon.ico"):
                found.append(f"browser error: {entry.get('text')} {entry.get('url', '')}")
        elif method == "Network.requestWillBeSent":
            url = params["request"]["url"]
            scheme = urllib.parse.urlsplit(url).scheme
            if scheme in ("http", "https", "ws", "wss") and not url.startswith(origin):
                found.append(f"request leaves 127.0.0.1: {url}")
        elif method == "Network.responseReceived":
            response = params["response"]
            if response.get("status", 200) >= 400 and not response["url"].endswith("/favicon.ico"):
                found.append(f"HTTP {response['status']}: {response['url']}")
        elif method == "Network.loadingFailed" and not params.get("canceled"):
            found.append(f"load failed: {params.get('errorText')}")
    return found


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def shared_temp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The temporary folder the book is built with: shared with every local user on a real machine."""
    return tmp_path_factory.mktemp("shared-tmp")


@pytest.fixture(scope="module")
def site(shared_temp: Path) -> Path:
    """Build the book with the README's command (both languages), as a reader would."""
    done = subprocess.run(
        [sys.executable, "tools/build_book.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={**os.environ, "TMPDIR": str(shared_temp)},
    )
    if done.returncode != 0:
        pytest.fail(
            f"python tools/build_book.py failed:\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}",
            pytrace=False,
        )
    return SITE


@pytest.fixture(scope="module")
def origin(site: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The site served at http://127.0.0.1:PORT/course/: a link that climbs one folder too many
    leaves the site here, as it does from a project site or from disk."""
    root = tmp_path_factory.mktemp("http")
    (root / PREFIX.rstrip("/")).symlink_to(site, target_is_directory=True)
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/{PREFIX}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser(origin: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RecordingChromium]:
    executable = need_program("chromium", "Debian's chromium package (apt-get install chromium)")
    driver = RecordingChromium(
        executable, tmp_path_factory.mktemp("chromium") / "profile", width=1280, height=900
    )
    try:
        yield driver
    finally:
        driver.close()


def _open(browser: RecordingChromium, url: str) -> dict[str, Any]:
    """Open `url`, wait until it has loaded and every Mermaid block has been drawn; return its state."""
    browser.events.clear()
    browser.navigate(url)
    browser.wait_for(
        f"document.readyState === 'complete' && location.href === {json.dumps(url)}",
        timeout=30,
        what=f"{url} to load",
    )
    try:
        browser.wait_for(
            "[...document.querySelectorAll('.mermaid')].every(m => m.querySelector('svg') || /error/i.test(m.textContent))",
            timeout=30,
            what=f"the Mermaid diagrams of {url} to be drawn",
        )
    except BrowserError:
        pass  # asserted below with the page's state
    time.sleep(0.2)  # late console errors and requests
    state = browser.evaluate(STATE)
    state["problems"] = _problems(browser.events, browser_origin(url))
    return state


def browser_origin(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/"


def _url(origin: str, language: str, page: str) -> str:
    return f"{origin}{language}/{page}.html"


@pytest.fixture(scope="module")
def pages(browser: RecordingChromium, origin: str) -> dict[tuple[str, str], dict[str, Any]]:
    """Every page of both languages, opened once (states shared by the tests below)."""
    opened = {}
    for language in LANGUAGES:
        for page in ORDER + EXTRA_PAGES:
            opened[language, page] = _open(browser, _url(origin, language, page))
    return opened


def test_the_language_choice_page_links_both_books(browser, origin):
    state = _open(browser, origin)
    assert state["problems"] == []
    links = browser.evaluate("[...document.querySelectorAll('a')].map(a => a.href)")
    assert links == [_url(origin, "en", "book/index"), _url(origin, "zh-CN", "book/index")]


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_page_loads_without_errors_or_outside_requests(pages, language):
    failures = {
        page: state["problems"]
        for (lang, page), state in pages.items()
        if lang == language and state["problems"]
    }
    assert not failures, f"{language}: {json.dumps(failures, indent=1, ensure_ascii=False)}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_mermaid_block_is_drawn_as_svg(pages, language):
    diagrams = {
        page: state["mermaid"]
        for (lang, page), state in pages.items()
        if lang == language and state["mermaid"]
    }
    assert len(diagrams) >= 5, (
        f"{language}: expected the lessons' Mermaid diagrams, found them on {sorted(diagrams)}"
    )
    for page, blocks in diagrams.items():
        for number, block in enumerate(blocks, start=1):
            assert block["svg"] and not block["error"], (
                f"{language}/{page}: Mermaid diagram {number} was not drawn"
            )
            if language == "zh-CN" and PARTLY_TRANSLATED_NOTE not in pages[language, page]["note"]:
                assert HAN.search(block["text"]), (
                    f"zh-CN/{page}: Mermaid diagram {number} has no Chinese label"
                )
            small = [label for label in block["labels"] if label["px"] < MIN_LABEL_PX]
            assert block["labels"] and not small, (
                f"{language}/{page}: Mermaid diagram {number} draws labels below {MIN_LABEL_PX} px: "
                + ", ".join(f"{label['text']!r} at {label['px']:.1f} px" for label in small[:5])
            )


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_image_loads(pages, language):
    images = [
        (page, image)
        for (lang, page), state in pages.items()
        if lang == language
        for image in state["images"]
    ]
    assert images, f"{language}: the lessons' figures are missing"
    broken = [f"{page}: {image['src']}" for page, image in images if not image["ok"]]
    assert not broken, f"{language}: images that did not load: {broken}"


def test_chinese_pages_are_in_chinese(pages):
    for page in ORDER:
        en, zh = pages["en", page], pages["zh-CN", page]
        assert zh["lang"] == "zh-CN" and en["lang"] == "en"
        if PARTLY_TRANSLATED_NOTE in zh["note"]:
            assert page in MAY_BE_PARTLY_TRANSLATED, f"zh-CN/{page} says it is partly translated"
            continue
        assert HAN.search(zh["title"]) and HAN.search(zh["h1"]), (
            f"zh-CN/{page}: title {zh['title']!r} is not Chinese"
        )
        chinese = [text for text in zh["prose"] if HAN.search(text)]
        assert len(chinese) >= 0.8 * len(zh["prose"]), (
            f"zh-CN/{page}: only {len(chinese)} of {len(zh['prose'])} prose blocks are Chinese; English ones: "
            f"{[t[:60] for t in zh['prose'] if not HAN.search(t)][:8]}"
        )
        english_with_han = [text for text in en["prose"] if HAN.search(text)]
        quoting = page in ABOUT_CHINESE  # a page about the Chinese edition quotes Chinese
        assert not HAN.search(en["h1"]) and (quoting or len(english_with_han) <= 0.1 * len(en["prose"])), (
            f"en/{page}: the English page has Chinese prose: {[t[:60] for t in english_with_han][:5]}"
        )


@pytest.mark.parametrize("language", LANGUAGES)
def test_next_and_previous_links_walk_the_whole_book(browser, origin, language):
    forward = [_url(origin, language, ORDER[0])]
    while len(forward) <= len(ORDER):
        state = _open(browser, forward[-1])
        if not state["next"]:
            break
        forward.append(state["next"])
    assert forward == [_url(origin, language, page) for page in ORDER], (
        f"{language}: Next walks {forward}"
    )
    backward = [forward[-1]]
    while len(backward) <= len(ORDER):
        state = _open(browser, backward[-1])
        if not state["prev"]:
            break
        backward.append(state["prev"])
    assert backward == forward[::-1], f"{language}: Previous walks {backward}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_screenshot_of_lesson_00(browser, origin, artifacts, language):
    state = _open(browser, _url(origin, language, "notebooks/00_start_here"))
    assert state["problems"] == []
    browser.screenshot(artifacts / "book" / f"00_start_here-{language}.png")
    browser.evaluate("document.querySelector('.mermaid').scrollIntoView({block: 'center'})")
    time.sleep(0.3)
    browser.screenshot(artifacts / "book" / f"00_start_here-{language}-diagram.png")
    # the wide tools table scrolls inside the page instead of being cut off
    wide = browser.evaluate(
        "[...document.querySelectorAll('.bd-article .cell_output table, .bd-article table')]"
        ".filter(t => t.scrollWidth > t.parentElement.clientWidth + 2)"
        ".map(t => { let e = t.parentElement; while (e && e !== document.body && getComputedStyle(e).overflowX === 'visible') e = e.parentElement;"
        " return e && e !== document.body; })"
    )
    assert all(wide), f"{language}: a table wider than the page has no scrolling container"


def _viewport(browser: RecordingChromium, size: tuple[int, int]) -> None:
    width, height = size
    browser.send(
        "Emulation.setDeviceMetricsOverride",
        width=width,
        height=height,
        deviceScaleFactor=1,
        mobile=False,
    )


@pytest.fixture(scope="module")
def files(site: Path) -> str:
    """The site's address on disk: file:///.../build/book/site/."""
    return site.as_uri() + "/"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_language_links_open_the_same_page_in_the_other_language(pages, origin, language):
    other = {"en": "zh-CN", "zh-CN": "en"}[language]
    wrong = {
        page: state["switch"]
        for (lang, page), state in pages.items()
        if lang == language and state["switch"] != [_url(origin, other, page)]
    }
    assert not wrong, f"{language}: language links that miss the page: {wrong}"


def _wait_for_page(browser: RecordingChromium, url: str) -> None:
    browser.wait_for(
        f"location.href === {json.dumps(url)} && document.readyState === 'complete'"
        " && !!document.querySelector('.bd-article h1')",
        timeout=30,
        what=f"{url} to open",
    )


def test_the_book_opened_from_disk_switches_language_and_draws_its_diagrams(browser, files):
    state = _open(browser, files + "index.html")
    assert state["problems"] == []
    links = browser.evaluate("[...document.querySelectorAll('a')].map(a => a.href)")
    assert links == [_url(files, "en", "book/index"), _url(files, "zh-CN", "book/index")]
    for language, other in (("en", "zh-CN"), ("zh-CN", "en")):
        page = "notebooks/03_combinations"
        state = _open(browser, _url(files, language, page))
        assert state["problems"] == [], f"{language}/{page} from disk: {state['problems']}"
        assert state["mermaid"] and all(block["svg"] for block in state["mermaid"]), (
            f"{language}/{page} from disk: its diagram stays source text"
        )
        assert state["switch"] == [_url(files, other, page)]
        browser.evaluate("document.querySelector('.book-language-switch a').click()")
        _wait_for_page(browser, _url(files, other, page))
        assert browser.evaluate("document.documentElement.lang") == other


def _search_index(site: Path) -> dict[str, Any]:
    text = (site / "zh-CN" / "searchindex.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("(") + 1 : text.rindex(")")])


def test_the_chinese_search_index_holds_the_core_terms_of_the_lessons_and_the_glossary(site):
    index = _search_index(site)
    chinese = [term for term in index["terms"] if HAN.search(term)]
    assert chinese, "the zh-CN search index has no Chinese term (is jieba installed?)"
    for term, lesson in SEARCHES.items():
        pages = set()
        for kind in ("terms", "titleterms"):
            found = index[kind].get(term, [])
            pages |= {index["docnames"][i] for i in ([found] if isinstance(found, int) else found)}
        assert {lesson, "book/glossary"} <= pages, f"{term} is indexed only for {sorted(pages)}"


def _search(browser: RecordingChromium, base: str, term: str) -> list[str]:
    """Search the Chinese book for `term` from its search page; return the result pages' URLs."""
    url = f"{base}zh-CN/search.html?q={urllib.parse.quote(term)}"
    browser.navigate(url)
    browser.wait_for(
        "document.readyState === 'complete'"
        " && !!(document.querySelector('#search-results .search-summary') || {}).textContent",
        timeout=30,
        what=f"the results of searching {term}",
    )
    links = browser.evaluate(
        "[...document.querySelectorAll('#search-results ul li > a')].map(a => a.href)"
    )
    return [link.split("#")[0].split("?")[0] for link in links]


@pytest.mark.parametrize("over", ["http", "file"])
def test_chinese_search_finds_the_lesson_and_the_glossary(browser, origin, files, over):
    base = origin if over == "http" else files
    for term, lesson in SEARCHES.items():
        found = _search(browser, base, term)
        expected = {_url(base, "zh-CN", lesson), _url(base, "zh-CN", "book/glossary")}
        assert expected <= set(found), f"searching {term} over {over} finds {found}"
    phrase, lesson = PHRASE
    found = _search(browser, base, phrase)
    assert _url(base, "zh-CN", lesson) in found, f"searching {phrase} over {over} finds {found}"


GLOSSARY_ROWS = """[...document.querySelectorAll('table.book-glossary tbody tr')]
  .map(row => [...row.cells].map(cell => cell.textContent.trim()))"""

# Words of the glossary's first three columns (term, 中文, avoid) drawn on more than one line.
BROKEN_WORDS = r"""(() => {
  const broken = [];
  for (const row of document.querySelectorAll('table.book-glossary tr')) {
    [...row.cells].slice(0, 3).forEach((cell, column) => {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      while (walker.nextNode()) {
        const node = walker.currentNode;
        for (const match of node.textContent.matchAll(/[^\s、,()（）]+/g)) {
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
          if (lines.size > 1) broken.push(`${match[0]} (column ${column + 1}, ${lines.size} lines)`);
        }
      }
    });
  }
  return broken;
})()"""


@pytest.mark.parametrize("size", [LAPTOP, PHONE], ids=["laptop", "phone"])
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_glossary_shows_every_term_and_breaks_none_inside_a_word(
    browser, origin, artifacts, language, size
):
    _viewport(browser, size)
    try:
        state = _open(browser, _url(origin, language, "book/glossary"))
        assert state["problems"] == []
        rows = browser.evaluate(GLOSSARY_ROWS)
        assert [row[:3] for row in rows] == [
            [term.term, "、".join(term.zh), "、".join(term.avoid)] for term in glossary.read_terms()
        ]
        broken = browser.evaluate(BROKEN_WORDS)
        assert not broken, (
            f"{language} at {size[0]} px: glossary words broken across lines: {broken}"
        )
        browser.evaluate(
            "document.querySelector('table.book-glossary').scrollIntoView({block: 'start'})"
        )
        time.sleep(0.3)
        browser.screenshot(artifacts / "book" / f"glossary-{language}-{size[0]}px.png")
    finally:
        _viewport(browser, LAPTOP)


# Outputs, tables, figures and diagrams wider than their box, and whether they scroll or are cut.
OVERFLOW = r"""(() => {
  const problems = [];
  const name = e => `${e.tagName.toLowerCase()} "${(e.textContent || e.currentSrc || '').trim().slice(0, 40)}"`;
  const page = document.documentElement.scrollWidth;
  if (page > innerWidth + 1) problems.push(`the page is ${page} px wide in a ${innerWidth} px window`);
  let scrolls = 0;
  const boxes = document.querySelectorAll(
    '.bd-article .cell_output pre, .bd-article .cell_output .output, .bd-article table, ' +
    '.bd-article div.highlight pre, ' +
    '.bd-article pre.mermaid, .bd-article img');
  for (const e of boxes) {
    const r = e.getBoundingClientRect();
    if (!r.width) continue;
    if (e.scrollWidth > e.clientWidth + 1) {
      if (!['auto', 'scroll'].includes(getComputedStyle(e).overflowX)) {
        problems.push(`${name(e)} is cut: ${e.scrollWidth} px of content in ${e.clientWidth} px`);
        continue;
      }
      e.scrollLeft = 40;
      if (e.scrollLeft === 0) problems.push(`${name(e)} does not scroll`);
      e.scrollLeft = 0;
      scrolls += 1;
    }
    for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
      const box = a.getBoundingClientRect(), overflow = getComputedStyle(a).overflowX;
      if (r.right <= box.right + 1 && r.left >= box.left - 1) continue;
      if (overflow === 'auto' || overflow === 'scroll') break;
      if (overflow === 'hidden' || overflow === 'clip') {
        problems.push(`${name(e)} is cut by ${a.tagName.toLowerCase()}.${[...a.classList].join('.')}`);
        break;
      }
    }
  }
  return {problems, scrolls};
})()"""


@pytest.mark.parametrize("size", [LAPTOP, PHONE], ids=["laptop", "phone"])
@pytest.mark.parametrize("language", LANGUAGES)
def test_wide_outputs_scroll_sideways_instead_of_being_cut(
    browser, origin, artifacts, language, size
):
    _viewport(browser, size)
    problems, scrolls = {}, 0
    try:
        for page in ORDER:
            _open(browser, _url(origin, language, page))
            found = browser.evaluate(OVERFLOW)
            scrolls += found["scrolls"]
            if found["problems"]:
                problems[page] = found["problems"]
        _open(browser, _url(origin, language, "notebooks/03_combinations"))
        browser.evaluate("document.querySelector('.mermaid').scrollIntoView({block: 'start'})")
        time.sleep(0.3)
        browser.screenshot(
            artifacts / "book" / f"03_combinations-{language}-{size[0]}px-diagram.png"
        )
    finally:
        _viewport(browser, LAPTOP)
    assert not problems, (
        f"{language} at {size[0]} px: {json.dumps(problems, indent=1, ensure_ascii=False)}"
    )
    assert scrolls, (
        f"{language} at {size[0]} px: no output is wider than the page (the check checked nothing)"
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_diagram_labels_stay_readable_on_a_phone(browser, origin, language):
    _viewport(browser, PHONE)
    try:
        small = {}
        for page in ORDER:
            state = _open(browser, _url(origin, language, page))
            labels = [label for block in state["mermaid"] for label in block["labels"]]
            tiny = [
                f"{label['text']!r} {label['px']:.1f} px"
                for label in labels
                if label["px"] < MIN_LABEL_PX
            ]
            if tiny:
                small[page] = tiny[:5]
    finally:
        _viewport(browser, LAPTOP)
    assert not small, f"{language} at {PHONE[0]} px: labels below {MIN_LABEL_PX} px: {small}"


# Visible text and tooltips of a page outside its article: sidebars, header, footer.
CHROME = r"""(() => {
  const texts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode, e = node.parentElement, text = node.textContent.trim();
    if (!text || !e || e.closest('script, style, kbd, code, .bd-article, .bd-sidebar-secondary, .mermaid, .book-language-switch')) continue;
    if (!e.getClientRects().length || getComputedStyle(e).visibility === 'hidden') continue;
    texts.push(text);
  }
  for (const e of document.querySelectorAll('[placeholder], [title]')) {
    if (e.closest('.bd-article')) continue;
    for (const name of ['placeholder', 'title']) if (e.getAttribute(name)) texts.push(e.getAttribute(name));
  }
  return texts;
})()"""


def test_the_chinese_book_s_page_chrome_is_chinese(browser, origin, pages):
    # page titles whose translation is still to come show in English in the navigation
    untranslated = " ".join(
        pages["en", page]["h1"]
        for page in ORDER
        if pages["zh-CN", page]["h1"] == pages["en", page]["h1"]
    )
    allowed = CHROME_LATIN | set(re.findall(r"[A-Za-z]{3,}", untranslated))
    english = {}
    for page in ORDER + EXTRA_PAGES:
        _open(browser, _url(origin, "zh-CN", page))
        words = {
            word
            for text in browser.evaluate(CHROME)
            for word in re.findall(r"[A-Za-z]{3,}", text)
            if word not in allowed
        }
        if words:
            english[page] = sorted(words)
    assert not english, f"English in the Chinese book's sidebar, header or footer: {english}"


SEARCH_FIELD_FITS = r"""(() => {
  const input = document.querySelector('.bd-sidebar-primary .bd-search input');
  const style = getComputedStyle(input);
  const context = document.createElement('canvas').getContext('2d');
  context.font = `${style.fontSize} ${style.fontFamily}`;
  const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return {placeholder: input.placeholder, text: context.measureText(input.placeholder).width, room};
})()"""


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_sidebar_search_field_shows_its_whole_placeholder(browser, origin, language):
    _open(browser, _url(origin, language, "book/index"))
    field = browser.evaluate(SEARCH_FIELD_FITS)
    assert field["text"] <= field["room"], f"{language}: {field}"
    if language == "zh-CN":
        assert HAN.search(field["placeholder"]), field


def test_a_translated_page_title_shows_in_the_chinese_book(pages):
    """Every page's catalog is wired: where it translates the title, the Chinese page shows it."""
    for page in ORDER:
        source = f"{page}.ipynb" if (ROOT / f"{page}.ipynb").exists() else f"{page}.md"
        translations, _ = translate_notebooks.read_catalog(translate_notebooks.catalog_path(source))
        english = pages["en", page]["h1"]
        if english in translations:
            assert pages["zh-CN", page]["h1"] == translations[english].replace("\\", ""), page


def test_the_build_keeps_jiebas_dictionary_cache_out_of_the_shared_temporary_folder(
    site, shared_temp
):
    # jieba loads its cache (marshal data) from the temporary folder when it finds one there:
    # another local user could plant one for the build to load
    assert not list(shared_temp.glob("jieba*.cache")), sorted(p.name for p in shared_temp.iterdir())


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_cheat_sheet_prints_on_one_a4_side(browser, origin, artifacts, language):
    import base64

    state = _open(browser, _url(origin, language, "book/cheatsheet"))
    assert state["problems"] == []
    pdf = browser.send(
        "Page.printToPDF", paperWidth=8.27, paperHeight=11.69, preferCSSPageSize=True
    )["data"]
    data = base64.b64decode(pdf)
    (artifacts / "book").mkdir(parents=True, exist_ok=True)
    (artifacts / "book" / f"cheatsheet-{language}.pdf").write_bytes(data)
    pages = len(re.findall(rb"/Type\s*/Page[^s]", data))
    assert pages == 1, f"{language}: the cheat sheet prints on {pages} A4 pages, not one"
