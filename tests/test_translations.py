"""The Chinese edition: current translations, and zh-CN/ notebooks generated from one source.

zh-CN/notebooks/ and zh-CN/exercises/ are made by tools/translate_notebooks.py from the English
notebooks and locales/zh_CN/; the committed copies must match its output (the lessons' outputs
are those of one run of the Chinese code, which nbval checks), and every message of every
translated page, and every code comment, must have a current (not fuzzy, not missing) Chinese
entry.
"""

from __future__ import annotations

import copy
import csv
import importlib.util
import re
import sys
from pathlib import Path

import nbformat
import pytest

from course_tools.__main__ import main as course_main

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location(
    "translate_notebooks", ROOT / "tools" / "translate_notebooks.py"
)
translate = importlib.util.module_from_spec(_spec)
sys.modules["translate_notebooks"] = (
    translate  # its dataclasses look their module up while being defined
)
_spec.loader.exec_module(translate)

ENGLISH = translate.english_notebooks()
PAGES = translate.translated_pages()


@pytest.mark.parametrize("page", PAGES)
def test_every_message_of_the_page_has_a_current_chinese_translation(page):
    problems = translate.stale([page])
    assert not problems, (
        f"{len(problems)} stale Chinese message(s) for {page} (update with python tools/build_book.py --update-catalogs, "
        "translate, then python tools/translate_notebooks.py):\n"
        + "\n".join(str(p) for p in problems)
    )


def test_there_is_a_chinese_notebook_for_every_english_one_and_no_orphan():
    english = {f"{p.parent.name}/{p.name}" for p in ENGLISH}
    chinese = {
        f"{p.parent.name}/{p.name}"
        for f in translate.FOLDERS
        for p in (ROOT / "zh-CN" / f).glob("*.ipynb")
    }
    assert english and english == chinese


@pytest.mark.parametrize("source", ENGLISH, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_committed_chinese_notebook_matches_what_the_generator_produces(source):
    # everything but the outputs, which nbval checks (zh-CN/ is in the test paths)
    assert translate.is_current(source, translate.target_of(source)), (
        "run: python tools/translate_notebooks.py"
    )


def _without_comments(source: str) -> str:
    lines = source.split("\n")
    for row, column, _text in reversed(translate.code_comments(source)):
        lines[row] = lines[row][:column].rstrip()
    return "\n".join(lines)


@pytest.mark.parametrize("source", ENGLISH, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_code_is_the_english_code_with_translated_comments_and_one_language_cell(source):
    english = nbformat.read(source, as_version=4)
    chinese = nbformat.read(translate.target_of(source), as_version=4)
    assert chinese.metadata["language"] == "zh_CN"  # what the grader writes feedback in
    setup = [c for c in chinese.cells if c.get("id") == translate.SETUP_ID]
    assert len(setup) == 1 and 'os.environ["COURSE_LANG"] = "zh_CN"' in setup[0].source
    first_code = next(c for c in chinese.cells if c.cell_type == "code")
    assert first_code is setup[0], "the language is set before any course_lib code runs"
    cells = [c for c in chinese.cells if c.get("id") != translate.SETUP_ID]
    assert [c.get("id") for c in cells] == [c.get("id") for c in english.cells]
    for en, zh in zip(english.cells, cells):
        assert zh.cell_type == en.cell_type and zh.metadata == en.metadata
        if en.cell_type != "code":
            continue
        assert _without_comments(zh.source) == _without_comments(en.source)
        for (_row, _col, english_comment), (_r, _c, chinese_comment) in zip(
            translate.code_comments(en.source), translate.code_comments(zh.source)
        ):
            assert re.search(r"[\u4e00-\u9fff]", chinese_comment), english_comment
    han = sum(
        len(re.findall(r"[\u4e00-\u9fff]", c.source))
        for c in chinese.cells
        if c.cell_type == "markdown"
    )
    assert han > 0, f"{translate.target_of(source).relative_to(ROOT)} has no Chinese text"


def _outputs_text(nb) -> str:
    return "\n".join(
        str(output.get("text", "")) + str(output.get("data", {}).get("text/plain", ""))
        for cell in nb.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
    )


@pytest.mark.parametrize("source", ENGLISH, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_lesson_stores_one_run_of_its_chinese_code_and_an_exercise_no_outputs(source):
    chinese = nbformat.read(translate.target_of(source), as_version=4)
    code = [c for c in chinese.cells if c.cell_type == "code"]
    if translate.executed(source):
        assert [c.execution_count for c in code] == list(range(1, len(code) + 1))
    else:
        assert not any(c.outputs for c in code) and not _outputs_text(chinese)


def test_the_chinese_lessons_outputs_speak_chinese_where_course_lib_speaks():
    # lesson 03's tables and reasons, lesson 05's confirmation prompt: the text course_lib makes
    lessons = {p.stem: p for p in ENGLISH if translate.executed(p)}
    three = _outputs_text(nbformat.read(translate.target_of(lessons["03_combinations"]), 4))
    assert "调用前" in three and "before call" not in three
    five = _outputs_text(nbformat.read(translate.target_of(lessons["05_lying_server"]), 4))
    assert "允许运行服务器" in five and "Allow 'Preview log tidy-up'" not in five


def test_a_comment_is_translated_and_a_hash_inside_a_string_is_not_a_comment():
    unreadable = 'x = """never closed  # not a comment either'
    assert translate.code_comments(unreadable) == []
    source = 'x = "# not a comment"  # the comment\nprint(x)  # noqa: T201'
    assert [text for _, _, text in translate.code_comments(source)] == ["the comment"]
    text, left = translate.translate_code(source, {"the comment": "注释"})
    assert text == 'x = "# not a comment"  # 注释\nprint(x)  # noqa: T201' and left == []


def test_every_code_comment_has_a_current_chinese_translation():
    problems = translate.stale_comments()
    assert not problems, (
        "run python tools/translate_notebooks.py --update-comments, translate, regenerate:\n"
        + "\n".join(str(p) for p in problems)
    )


def _po(tmp_path: Path, entries: str) -> Path:
    path = tmp_path / "page.po"
    path.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n' + entries,
        encoding="utf-8",
    )
    return path


def test_a_changed_english_paragraph_is_reported_with_its_file_and_message(tmp_path):
    catalog = _po(
        tmp_path,
        'msgid "Hints are not security."\nmsgstr "提示不是安全机制。"\n\n'
        '#, fuzzy\nmsgid "Pinning remembers a definition."\nmsgstr "定义固定记住一个定义。"\n',
    )
    markdown = "# Title\n\nHints are not security.\n\nPinning remembers an approved definition.\n\nPinning remembers a definition.\n"
    problems = translate.stale_messages(markdown, catalog, "locales/x.po")
    assert [(p.catalog, p.message, p.reason.split(" ")[0]) for p in problems] == [
        ("locales/x.po", "Title", "missing"),
        ("locales/x.po", "Pinning remembers an approved definition.", "missing"),
        ("locales/x.po", "Pinning remembers a definition.", "fuzzy"),
    ]
    assert "locales/x.po" in str(problems[0]) and "Title" in str(problems[0])


def test_translation_keeps_list_markers_quotes_tables_and_leaves_code_alone():
    markdown = (
        "## 1. Check\n\n> A promise\n> on two lines.\n\n- first item\n  continued\n- `code` item\n\n"
        "| a | b |\n|---|---|\n| one | two |\n\n```python\nprint('hello')\n```\n"
    )
    translations = {
        "1. Check": "1\\. 检查",
        "A promise on two lines.": "一个承诺。",
        "first item continued": "第一项",
        "a": "甲",
        "b": "乙",
        "one": "一",
    }
    text, untranslated = translate.translate_markdown(markdown, translations)
    assert text == (
        "## 1\\. 检查\n\n> 一个承诺。\n\n- 第一项\n- `code` item\n\n| 甲 | 乙 |\n|---|---|\n| 一 | two |\n\n"
        "```python\nprint('hello')\n```\n"
    )
    assert untranslated == ["`code` item", "two"]
    assert translate.messages(text) == [
        "1\\. 检查",
        "一个承诺。",
        "第一项",
        "`code` item",
        "甲",
        "乙",
        "一",
        "two",
    ]


def test_a_mermaid_diagram_is_one_message_and_is_replaced_whole():
    markdown = '```mermaid\nflowchart LR\n    A["ask"] --> B["allow"]\n```\n'
    source = 'flowchart LR\n    A["ask"] --> B["allow"]'
    assert translate.messages(markdown) == [source]
    text, _ = translate.translate_markdown(
        markdown, {source: 'flowchart LR\n    A["询问"] --> B["允许"]'}
    )
    assert text == '```mermaid\nflowchart LR\n    A["询问"] --> B["允许"]\n```\n'


def _entries(page: str) -> list[tuple[str, str]]:
    translations, _ = translate.read_catalog(translate.catalog_path(page))
    return list(translations.items())


@pytest.mark.parametrize("page", PAGES)
def test_numbered_headings_keep_their_number_escaped_so_they_stay_headings(page):
    # "1. Title" in a msgstr is re-read by Sphinx as a numbered list, and the heading disappears
    bad = [
        (en, zh) for en, zh in _entries(page) if re.match(r"\d+\. ", en) and re.match(r"\d+\. ", zh)
    ]
    assert not bad, (
        f"{translate.catalog_path(page).relative_to(ROOT)}: write the number as '1\\.': {bad}"
    )


def _diagram_shape(source: str) -> list[str]:
    """A Mermaid diagram without its labels: node ids, arrows and keywords only."""
    unlabelled = re.sub(r'"[^"]*"|\[[^\]]*\]|\{[^}]*\}|\|[^|]*\|', "", source)
    return [line.strip() for line in unlabelled.splitlines() if line.strip()]


@pytest.mark.parametrize("page", PAGES)
def test_a_translated_diagram_keeps_its_nodes_and_arrows(page):
    for english, chinese in _entries(page):
        if english.startswith(("flowchart", "graph", "sequenceDiagram")):
            assert _diagram_shape(chinese) == _diagram_shape(english), (
                f"{page}: translate only the labels of {english!r}"
            )


def _chinese_submission(name: str, wrong: tuple[str, str] | None = None) -> nbformat.NotebookNode:
    """The Chinese exercise with the answers of the English solution filled in, cell by cell id
    (with `wrong`, one answer made wrong by replacing its text)."""
    solution = {
        c.get("id"): c
        for c in nbformat.read(ROOT / "solutions" / f"{name}.ipynb", as_version=4).cells
    }
    nb = copy.deepcopy(nbformat.read(ROOT / "zh-CN" / "exercises" / f"{name}.ipynb", as_version=4))
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.get("id") in solution:
            cell.source = solution[cell.get("id")].source
            if wrong:
                cell.source = cell.source.replace(*wrong)
    return nb


# the same wrong answer in both languages: read_runbook left open world (sample.py's first)
WRONG = (
    '"read_runbook": ToolAnnotations(read_only_hint=True, open_world_hint=False),',
    '"read_runbook": ToolAnnotations(read_only_hint=True),',
)


def _english_wrong(name: str) -> nbformat.NotebookNode:
    nb = nbformat.read(ROOT / "solutions" / f"{name}.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.source = cell.source.replace(*WRONG)
    return nb


def test_the_grader_grades_a_chinese_exercise_exactly_like_the_english_one(tmp_path):
    name = "01_annotate_tools"
    submissions = tmp_path / "submissions"
    work = {
        "en-solved": nbformat.read(ROOT / "solutions" / f"{name}.ipynb", as_version=4),
        "zh-solved": _chinese_submission(name),
        "en-wrong": _english_wrong(name),
        "zh-wrong": _chinese_submission(name, WRONG),
        "en-blank": nbformat.read(ROOT / "exercises" / f"{name}.ipynb", as_version=4),
        "zh-blank": nbformat.read(ROOT / "zh-CN" / "exercises" / f"{name}.ipynb", as_version=4),
    }
    assert WRONG[0] in "".join(c.source for c in work["en-solved"].cells)
    for student, nb in work.items():
        (submissions / student).mkdir(parents=True)
        nbformat.write(nb, submissions / student / f"{name}.ipynb")
    gradebook = tmp_path / "gradebook.csv"
    status = course_main(
        ["grade", str(submissions), "--out", str(gradebook), "--exercise", "01", "--quiet"]
    )
    assert status == 0
    with gradebook.open(encoding="utf-8") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    scores = {
        student: {k: v for k, v in row.items() if k not in ("student", "seconds")}
        for student, row in rows.items()
    }
    for kind in ("solved", "wrong", "blank"):
        assert scores[f"zh-{kind}"] == scores[f"en-{kind}"], kind
    assert scores["en-solved"] != scores["en-wrong"] != scores["en-blank"]
    # the feedback file is in the student's language (the notebook's metadata "language")
    english = (tmp_path / "feedback" / "en-wrong.md").read_text(encoding="utf-8")
    chinese = (tmp_path / "feedback" / "zh-wrong.md").read_text(encoding="utf-8")
    assert "# Feedback for en-wrong" in english and "Hint:" in english
    assert not re.search(r"[\u4e00-\u9fff]", english)
    assert "# zh-wrong 的反馈" in chinese and "小贴士" in chinese and "Hint:" not in chinese
