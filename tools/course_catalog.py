"""Keep the catalog of course_lib's learner-facing text in step with the code, and compile it.

Usage:
    python tools/course_catalog.py            # extract, merge into the .po, compile the .mo
    python tools/course_catalog.py --check    # exit 1 if the .po or the shipped .mo is not current

The messages are the strings marked ``_("...")``, ``N_("...")``, ``ngettext(...)`` or
``Phrase.counted(singular, plural, n)`` in ``course_lib/`` and ``course_tools/grading/`` (Babel's
Python extractor). Their translations
live in ``locales/zh_CN/LC_MESSAGES/course_lib.po``: a changed English string becomes fuzzy
there until a translator reviews it. The compiled ``course_lib/locale/zh_CN/LC_MESSAGES/
course_lib.mo`` is package data, so the runtime reads it with the standard library's gettext.
Needs Babel (the ``[book]`` extra; JupyterLab brings it too).
"""

from __future__ import annotations

import argparse
import datetime
import io
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
LANGUAGE = "zh_CN"
DOMAIN = "course_lib"
SOURCES = ("course_lib", "course_tools/grading")
PO = ROOT / "locales" / LANGUAGE / "LC_MESSAGES" / f"{DOMAIN}.po"
MO = ROOT / "course_lib" / "locale" / LANGUAGE / "LC_MESSAGES" / f"{DOMAIN}.mo"
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2), "counted": (1, 2)}
# A fixed date in the header: regenerating an unchanged catalog changes no byte.
_FIXED_DATE = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)


def extracted() -> Catalog:
    """Every marked message of the sources, with the places it comes from."""
    template = Catalog(project="course", domain=DOMAIN, fuzzy=False)
    for source in SOURCES:
        found = extract_from_dir(
            ROOT / source,
            method_map=[("**.py", "python")],
            keywords=KEYWORDS,
            comment_tags=("TRANSLATORS:",),
        )
        for filename, lineno, message, comments, context in found:
            where = (f"{source}/{filename}", lineno)
            template.add(message, None, [where], auto_comments=comments, context=context)
    return template


def read_catalog(path: Path = PO) -> Catalog:
    """The catalog as committed (an empty Chinese one if there is none yet)."""
    if not path.exists():
        return Catalog(locale=LANGUAGE, domain=DOMAIN)
    with path.open("rb") as handle:
        return read_po(handle, locale=LANGUAGE, domain=DOMAIN)


def po_text(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_po(
        out,
        catalog,
        width=100,
        omit_header=False,
        sort_output=False,
        ignore_obsolete=True,
        include_lineno=False,  # a line moved in the code is not a change of the catalog
    )
    return out.getvalue()


def mo_bytes(catalog: Catalog) -> bytes:
    """The compiled catalog: translated, reviewed messages only (a fuzzy one stays English)."""
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def merged() -> Catalog:
    """The committed translations merged with what the code marks now."""
    catalog = read_catalog()
    catalog.update(extracted(), no_fuzzy_matching=False)
    catalog.obsolete.clear()
    catalog.revision_date = catalog.creation_date = _FIXED_DATE
    catalog.project, catalog.version, catalog.fuzzy = "course_lib", "", False
    catalog.header_comment = (
        "# Chinese (zh_CN) text of course_lib and the grader: what a learner reads.\n"
        "# Made by python tools/course_catalog.py; translate the msgstr lines only.\n"
        "# Glossary: book/glossary.md (未声明 absent, 要素 leg, 提示 hint, 确认 confirm)."
    )
    return catalog


def problems() -> list[str]:
    """What is not current: the .po against the code, the .mo against the .po, translations."""
    found = []
    catalog = merged()
    if not PO.exists() or po_text(catalog) != PO.read_bytes():
        found.append(f"{PO.relative_to(ROOT)} is not current with the code")
    if not MO.exists() or MO.read_bytes() != mo_bytes(read_catalog()):
        found.append(f"{MO.relative_to(ROOT)} is not compiled from the .po")
    for message in catalog:
        if not message.id:
            continue
        if message.fuzzy:
            found.append(f"fuzzy (review it, then drop the flag): {message.id!r}")
        elif not message.string or (isinstance(message.string, tuple) and not all(message.string)):
            found.append(f"untranslated: {message.id!r}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="do not write; exit 1 if anything is not current"
    )
    args = parser.parse_args(argv)
    if args.check:
        found = problems()
        for problem in found:
            print(problem, file=sys.stderr)
        return 1 if found else 0
    catalog = merged()
    PO.parent.mkdir(parents=True, exist_ok=True)
    PO.write_bytes(po_text(catalog))
    MO.parent.mkdir(parents=True, exist_ok=True)
    MO.write_bytes(mo_bytes(read_catalog()))
    left = [m.id for m in catalog if m.id and (m.fuzzy or not m.string)]
    print(
        f"wrote {PO.relative_to(ROOT)} and {MO.relative_to(ROOT)}: "
        f"{len(left)} message(s) to translate or review",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
