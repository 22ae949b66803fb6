"""The static book, as a reader sees it: built, served on 127.0.0.1, read by headless Chromium.

Builds both languages with the README's book command (`python tools/build_book.py`; `.ci/peers`
installs the book extra and Mermaid first), serves build/book/site/ on a loopback port and opens
every page of both languages. Asserts: no page error, no request leaves 127.0.0.1, every Mermaid
block drawn as SVG, every image loaded, Chinese pages in Chinese, prev/next walking the whole book.
Screenshots of lesson 00 in both languages go to `artifacts/book/`.
"""

from __future__ import annotations

import functools
import json
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
    "notebooks/04_lethal_trifecta",
    "exercises/03_break_the_trifecta",
    "notebooks/05_lying_server",
    "exercises/04_catch_the_liar",
    "notebooks/06_beyond_hints",
    "book/glossary",
    "docs/instructor",
    "docs/grading",
    "docs/hub",
    "docs/connect",
    "docs/inspect",
    "docs/measure",
    "docs/book",
    "docs/benchmarks",
    "docs/contributing",
    "docs/conventions",
]
EXTRA_PAGES = ["genindex", "search"]
# Prose is headings, paragraphs and list items; table cells are left out (many hold identifiers,
# and the glossary's first column is the English term on purpose).
# Left in English in the Chinese book for now: the guides in docs/ (for instructors, operators and
# contributors; the Chinese edition is for learners). Their pages still have to load cleanly.
ENGLISH_ONLY = {page for page in ORDER if page.startswith("docs/")}
HAN = re.compile(r"[\u4e00-\u9fff]")

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
    })),
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
def site() -> Path:
    """Build the book with the README's command (both languages), as a reader would."""
    done = subprocess.run(
        [sys.executable, "tools/build_book.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        pytest.fail(
            f"python tools/build_book.py failed:\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}",
            pytrace=False,
        )
    return SITE


@pytest.fixture(scope="module")
def origin(site: Path) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
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
            if language == "zh-CN" and page not in ENGLISH_ONLY:
                assert HAN.search(block["text"]), (
                    f"zh-CN/{page}: Mermaid diagram {number} has no Chinese label"
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
        if page in ENGLISH_ONLY:
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
        assert not HAN.search(en["h1"]) and len(english_with_han) <= 0.1 * len(en["prose"]), (
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
