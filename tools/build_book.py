"""Build the course book, in English and Simplified Chinese, as one static site.

Usage:
    python tools/build_book.py                     # both languages -> build/book/site/
    python tools/build_book.py --update-catalogs   # first refresh locales/zh_CN/ from the English

Needs the book extra (``pip install -e ".[book]"``) and Mermaid from npm (``npm ci --prefix book``);
says which is missing. Nothing is executed: lessons are read with their stored outputs.

The site: ``build/book/site/index.html`` (language choice), ``en/`` and ``zh-CN/``. Open it from
disk or serve it with ``python -m http.server -d build/book/site``. Every Sphinx warning fails
the build, except those allowed in ``book/conf.py`` (``suppress_warnings``).

``--update-catalogs`` extracts the English messages (``sphinx-build -b gettext``) and merges them
into ``locales/zh_CN/LC_MESSAGES/**.po`` with sphinx-intl: a changed paragraph becomes a fuzzy
entry that keeps the old translation for review, a new one an empty entry. Then translate those
entries, and run ``python tools/translate_notebooks.py`` to regenerate the Chinese notebooks.
"""

from __future__ import annotations

import argparse
import html
import importlib.util
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
OUT = ROOT / "build" / "book"
WORK = OUT / "_work"
SITE = OUT / "site"
LANGUAGES = {"en": "en", "zh_CN": "zh-CN"}  # Sphinx language -> site folder
NEEDED = {
    "sphinx": "Sphinx",
    "myst_nb": "myst-nb",
    "sphinx_book_theme": "sphinx-book-theme",
    "sphinxcontrib.mermaid": "sphinxcontrib-mermaid",
    "sphinx_intl": "sphinx-intl",
}

sys.path.insert(0, str(ROOT / "tools"))
import translate_notebooks  # noqa: E402

INDEX = """<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>MCP tool annotations · MCP 工具注解</title>
<style>body{{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;
padding:0 1rem;line-height:1.6}}
a{{display:block;font-size:1.3rem;margin:.6rem 0}}</style></head>
<body><h1>MCP tool annotations · MCP 工具注解</h1>
<p>{blurb}</p>
<a href="en/book/index.html" hreflang="en">English</a>
<a href="zh-CN/book/index.html" hreflang="zh-CN" lang="zh-CN">简体中文</a>
</body></html>
"""


class BookError(RuntimeError):
    """The book cannot be built; the message says what to do."""


def preflight() -> None:
    missing = [package for module, package in NEEDED.items() if _missing(module)]
    if missing:
        raise BookError(
            f"the book needs {', '.join(missing)}: install the book extra with\n\n"
            f'    {Path(sys.executable).name} -m pip install -e ".[book]"\n\n'
            "(from the repository root, in the course's venv)"
        )
    sys.path.insert(0, str(BOOK))
    from book_extras import MERMAID_DIST, MERMAID_FILES, MERMAID_MISSING

    if not (MERMAID_DIST / MERMAID_FILES[0]).exists():
        raise BookError(
            MERMAID_MISSING.format(path=(MERMAID_DIST / MERMAID_FILES[0]).relative_to(ROOT))
        )


def _missing(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is None
    except ModuleNotFoundError:
        return True


def _sphinx(builder: str, outdir: Path, language: str | None = None) -> subprocess.Popen[str]:
    command = [
        sys.executable,
        "-m",
        "sphinx",
        "-b",
        builder,
        "-E",
        "-q",
        "-W",
        "--keep-going",
        "-c",
        str(BOOK),
        "-d",
        str(outdir.parent / "doctrees"),
    ]
    if language:
        command += ["-D", f"language={language}"]  # book/conf.py: language_settings
    command += [str(ROOT), str(outdir)]
    shutil.rmtree(outdir.parent, ignore_errors=True)
    outdir.parent.mkdir(parents=True)
    return subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def _wait(jobs: dict[str, subprocess.Popen[str]]) -> None:
    failed = []
    for name, job in jobs.items():
        output, _ = job.communicate()
        if job.returncode != 0:
            failed.append(f"--- {name} (exit {job.returncode}) ---\n{output.strip()}")
        elif output.strip():
            print(output.strip(), file=sys.stderr)
    if failed:
        raise BookError(
            "Sphinx failed (every warning fails the book; "
            "the allow-list is suppress_warnings in book/conf.py):\n" + "\n".join(failed)
        )


def check_extraction(gettext: Path) -> None:
    """The Chinese notebooks must be made from the same messages Sphinx extracts for the book."""
    from babel.messages.pofile import read_po

    disagree = []
    for page in translate_notebooks.translated_pages():
        with (gettext / Path(page).with_suffix(".pot")).open("rb") as handle:
            sphinx = {m.id for m in read_po(handle) if m.id}
        ours = set(translate_notebooks.messages(translate_notebooks._markdown_of(page)))
        for message in sorted(sphinx ^ ours):
            side = "only Sphinx" if message in sphinx else "only tools/translate_notebooks.py"
            disagree.append(f"{page}: {side} extracts {message[:100]!r}")
    if disagree:
        raise BookError(
            "Sphinx and tools/translate_notebooks.py split a page into different messages:\n"
            + "\n".join(disagree)
        )


def update_catalogs(gettext: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx_intl",
            "update",
            "-p",
            str(gettext),
            "-l",
            "zh_CN",
            "-d",
            str(ROOT / "locales"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise BookError(f"sphinx-intl update failed:\n{done.stdout}\n{done.stderr}")


def build(update: bool) -> float:
    started = time.monotonic()
    gettext = WORK / "gettext" / "pot"
    if update:
        _wait({"gettext": _sphinx("gettext", gettext)})
        update_catalogs(gettext)
        jobs = {}
    else:
        jobs = {"gettext": _sphinx("gettext", gettext)}
    for language, folder in LANGUAGES.items():
        jobs[folder] = _sphinx("html", WORK / folder / "html", language)
    _wait(jobs)
    check_extraction(gettext)
    shutil.rmtree(SITE, ignore_errors=True)
    SITE.mkdir(parents=True)
    for folder in LANGUAGES.values():
        (WORK / folder / "html").rename(SITE / folder)
    blurb = "Choose a language. 选择语言。"
    (SITE / "index.html").write_text(INDEX.format(blurb=html.escape(blurb)), encoding="utf-8")
    return time.monotonic() - started


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--update-catalogs",
        action="store_true",
        help="refresh locales/zh_CN/ from the English text first",
    )
    args = parser.parse_args(argv)
    try:
        preflight()
        seconds = build(args.update_catalogs)
    except BookError as exc:
        print(f"build_book: {exc}", file=sys.stderr)
        return 1
    pages = sum(1 for _ in SITE.rglob("*.html"))
    print(
        f"built {SITE.relative_to(ROOT)}/ in {seconds:.1f} s: {pages} HTML files, "
        f"{_size(SITE) / 1e6:.1f} MB "
        f"(en {_size(SITE / 'en') / 1e6:.1f} MB, zh-CN {_size(SITE / 'zh-CN') / 1e6:.1f} MB)"
    )
    print(
        f"open {(SITE / 'index.html').relative_to(ROOT)} or serve it: "
        f"python -m http.server -d {SITE.relative_to(ROOT)}"
    )
    problems = translate_notebooks.stale()
    if problems:
        print(
            f"{len(problems)} message(s) have no current Chinese translation and show in English "
            "(list them: python tools/translate_notebooks.py --stale)",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
