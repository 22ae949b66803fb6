"""The glossary (book/glossary.csv) is one source: its terms, and the renderings it forbids.

The book's glossary page shows the file (book_extras' ``glossary-table``); these tests read the
same file through tools/glossary.py, and check the course's Chinese text against it. To list every
forbidden rendering: ``python tools/glossary.py``.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
_spec = importlib.util.spec_from_file_location("glossary", ROOT / "tools" / "glossary.py")
glossary = importlib.util.module_from_spec(_spec)
sys.modules["glossary"] = glossary  # its dataclasses look their module up while being defined
_spec.loader.exec_module(glossary)
import translate_notebooks  # noqa: E402  (tools/, after glossary: it imports it)

TERMS = glossary.read_terms()
BY_TERM = {term.term: term for term in TERMS}


def _text(english: str, chinese: str) -> object:
    return glossary.Text("locales/zh_CN/LC_MESSAGES/x.po", "msgid 'x'", english, chinese)


def _found(english: str, chinese: str) -> list[str]:
    return [m.rendering for m in glossary.misrenderings(_text(english, chinese), TERMS)]


@pytest.mark.parametrize(
    ("term", "chinese", "avoid"),
    [
        ("absent (hint)", "未声明", "缺省"),
        ("wire format, wire name", "传输格式", "线上"),
        ("leg (of the trifecta)", "要素", "腿"),
        ("prompt (to a model)", "提示词", "提示"),
        ("hint", "提示", None),
        ("agent", "智能体", "代理"),
        ("session", "会话", None),
        ("prompt injection", "提示词注入", None),
        ("confirm / ask", "确认", None),
        ("approve", "批准", None),
        ("lethal trifecta", "致命三件套", None),
    ],
)
def test_the_glossary_binds_the_chinese_term_and_forbids_the_misleading_one(term, chinese, avoid):
    assert term in BY_TERM, f"book/glossary.csv has no row for {term!r}"
    assert chinese in BY_TERM[term].zh
    if avoid:
        assert avoid in BY_TERM[term].avoid


def test_the_glossary_names_the_four_risk_profiles():
    assert {"read-only", "additive", "idempotent write", "destructive"} <= set(BY_TERM)


def test_every_meaning_is_one_message_of_the_glossary_page():
    # the page's catalog is matched message by message: a meaning that Markdown would read as a
    # list item or as two paragraphs would never find its translation
    for term in TERMS:
        assert translate_notebooks.messages(term.meaning) == [term.meaning], term.term
    page = translate_notebooks.messages(translate_notebooks._markdown_of("book/glossary.md"))
    assert set(glossary.page_messages(TERMS)) <= set(page)


def test_a_malformed_row_is_reported_with_its_line_and_what_to_fix(tmp_path):
    path = tmp_path / "glossary.csv"
    path.write_text(
        "term,zh,avoid,matches,meaning\nabsent,,缺省,absent,the hint is not there\n",
        encoding="utf-8",
    )
    with pytest.raises(glossary.GlossaryError, match="line 2: zh is empty"):
        glossary.read_terms(path)
    path.write_text(
        "term,zh,avoid,matches,meaning\nabsent,未声明,未声明,absent,not there\n", encoding="utf-8"
    )
    with pytest.raises(glossary.GlossaryError, match="both used and avoided"):
        glossary.read_terms(path)
    path.write_text("term,中文,meaning\nhint,提示,a boolean\n", encoding="utf-8")
    with pytest.raises(glossary.GlossaryError, match="columns must be term, zh, avoid"):
        glossary.read_terms(path)


def test_a_forbidden_rendering_is_flagged_where_the_english_says_the_term():
    assert _found("An absent hint takes the default.", "缺省的提示取默认值。") == ["缺省"]
    assert _found("On the wire the field is `readOnlyHint`.", "在线上，字段是 `readOnlyHint`。") == [
        "线上"
    ]
    assert _found("The agent calls tools.", "代理调用工具。") == ["代理"]


def test_the_same_characters_in_another_word_are_not_flagged():
    # 时间线上 is "on the timeline", 总线上 "on the bus"; the English says no "wire"
    assert _found("Adds a note to an incident's timeline.", "在事故时间线上添加一条备注。") == []
    assert _found("It publishes on the server's bus.", "它在服务器的总线上发布。") == []
    # the proxy is a proxy: 代理 is wrong only for "agent"
    assert _found("The hub starts its proxy.", "hub 启动它的代理。") == []


def test_a_rendering_forbidden_everywhere_is_flagged_even_where_the_english_does_not_say_it():
    # 腿 has no right use in this course, so it needs no English "leg"
    assert _found("`read_ticket` gains untrusted content.", "`read_ticket` 增加了不可信内容这条腿。") == [
        "腿"
    ]


def test_a_hint_is_not_a_prompt_but_a_prompt_is_not_a_hint():
    assert _found("The model reads the prompt.", "模型读取提示词。") == []
    assert _found("The model reads the prompt.", "模型读取提示。") == ["提示"]
    assert _found("Prompt injection hides instructions.", "提示词注入把指令藏起来。") == []
    # where the English says both, 提示 may be the hint: left to the reviewer
    assert _found("A hint is not a prompt.", "提示不是提示词。") == []


def test_english_words_count_in_camel_case_and_plural_but_not_inside_other_words():
    hint = BY_TERM["hint"]
    assert hint.mentions("Hints: `readOnlyHint` and `destructiveHint`, one hint") == 4
    assert hint.mentions("hinted at nothing; a chintz") == 0


def test_the_report_names_the_file_the_message_and_the_term_to_use():
    (found,) = glossary.misrenderings(_text("An absent hint.", "缺省的提示。"), TERMS)
    assert str(found).startswith("locales/zh_CN/LC_MESSAGES/x.po: msgid 'x': 缺省 (")
    assert "for 'absent (hint)' use 未声明" in str(found) and "缺省的提示" in str(found)


def _course(tmp_path: Path) -> Path:
    """A course folder holding one catalog, one pair of notebooks and a README pair."""
    catalogs = tmp_path / "locales" / "zh_CN" / "LC_MESSAGES" / "notebooks"
    catalogs.mkdir(parents=True)
    (catalogs / "01_x.po").write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        'msgid "Absent hints take the defaults."\nmsgstr "缺省的提示取默认值。"\n\n'
        '#, fuzzy\nmsgid "The legs of the trifecta."\nmsgstr "三件套的三条腿。"\n\n'
        '#~ msgid "An old absent hint."\n#~ msgstr "旧的缺省提示。"\n',
        encoding="utf-8",
    )
    for folder, comment in (("notebooks", "# on the wire"), ("zh-CN/notebooks", "# 线上")):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(f"x = 1  {comment}", id="c1")]
        nbformat.write(nb, tmp_path / folder / "01_x.ipynb")
    (tmp_path / "README.md").write_text("The three legs.\n", encoding="utf-8")
    (tmp_path / "README.zh-CN.md").write_text("# 课程\n\n三条腿。\n", encoding="utf-8")
    return tmp_path


def test_the_check_reads_catalogs_chinese_notebooks_and_chinese_pages(tmp_path):
    found = sorted(
        (m.text.where, m.text.label, m.rendering) for m in glossary.check(_course(tmp_path), TERMS)
    )
    assert found == [
        ("README.zh-CN.md", "line 3", "腿"),
        (
            "locales/zh_CN/LC_MESSAGES/notebooks/01_x.po",
            "msgid 'Absent hints take the defaults.'",
            "缺省",
        ),
        ("locales/zh_CN/LC_MESSAGES/notebooks/01_x.po", "msgid 'The legs of the trifecta.'", "腿"),
        ("zh-CN/notebooks/01_x.ipynb", "cell 0", "线上"),
    ]


def test_the_command_lists_what_to_fix_and_fails(tmp_path):
    done = subprocess.run(
        [sys.executable, "tools/glossary.py"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode in (0, 1), done.stderr
    assert done.stderr.strip().endswith("forbidden rendering(s) in the Chinese text")
    assert (done.returncode == 1) == bool(done.stdout.strip())


def test_the_chinese_text_uses_no_rendering_the_glossary_forbids():
    found = glossary.check()
    assert not found, (
        f"{len(found)} forbidden rendering(s) (book/glossary.csv, column avoid); "
        "fix the msgstr in the catalog, then run python tools/translate_notebooks.py:\n"
        + "\n".join(str(m) for m in found)
    )


def test_a_rendering_quoted_as_the_one_to_avoid_is_a_mention_not_a_use():
    english = 'The renderings to avoid: 缺省 for "absent", 腿 for "leg".'
    assert _found(english, "应避免的译法：“absent”不译作“缺省”，“leg”不译作“腿”。") == []
    assert sorted(_found(english, "缺省的提示算作一条腿。")) == ["缺省", "腿"]  # used, not quoted
