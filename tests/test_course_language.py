"""One setting, COURSE_LANG, makes what a learner reads Chinese; values and scores never change.

course_lib's learner-facing text goes through gettext: the catalog is
locales/zh_CN/LC_MESSAGES/course_lib.po, compiled into course_lib/locale/ (package data) by
tools/course_catalog.py.
"""

from __future__ import annotations

import importlib.util
import re
import string
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from course_lib import TODO, PreCall, tools_table
from course_lib.combinations import decision_matrix
from course_lib.exercises import check
from course_lib.i18n import language, set_language, using
from course_lib.policy import SPEC
from course_lib.table_labels import localised
from course_tools.grading.submission import notebook_language

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("course_catalog", ROOT / "tools" / "course_catalog.py")
catalog_tool = importlib.util.module_from_spec(_spec)
sys.modules["course_catalog"] = catalog_tool
_spec.loader.exec_module(catalog_tool)

HAN = re.compile(r"[\u4e00-\u9fff]")
# The glossary's forbidden renderings (book/glossary.md): 缺省 reads as "default", 线上 as
# "production", 腿 is a calque.
FORBIDDEN = ("缺省", "线上", "腿")


@pytest.fixture(autouse=True)
def _english_unless_said(monkeypatch):
    monkeypatch.delenv("COURSE_LANG", raising=False)
    set_language(None)
    yield
    set_language(None)


def test_the_shipped_catalog_is_current_with_the_code_compiled_and_fully_translated():
    problems = catalog_tool.problems()
    assert not problems, "run python tools/course_catalog.py, then translate:\n" + "\n".join(
        problems
    )


def _entries():
    with catalog_tool.PO.open("rb") as handle:
        catalog = read_po(handle, locale="zh_CN")
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        yield ids, strings


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def test_every_translation_keeps_the_placeholders_and_uses_the_glossary_terms():
    for ids, strings in _entries():
        for translated in strings:
            assert _fields(translated) == _fields(ids[-1]), (ids, translated)
            assert not any(word in translated for word in FORBIDDEN), (ids, translated)
            words = re.sub(r"\{[a-z]*\}", "", ids[-1])
            assert HAN.search(translated) or not re.search("[a-z]", words), (ids, translated)


def test_the_feedback_label_hint_is_not_the_course_word_for_annotation_hints():
    labels = {ids[0]: strings[0] for ids, strings in _entries() if "Hint: {hint}" in ids[0]}
    assert len(labels) == 2, "the self-check's and the grader's Hint: labels are in the catalog"
    for english, chinese in labels.items():
        assert "小贴士" in chinese and "提示：" not in chinese, (english, chinese)


def test_a_check_prints_english_by_default_and_chinese_with_course_lang(capsys, monkeypatch):
    check("1a", {"read_runbook": TODO})
    english = capsys.readouterr().out
    assert "Part 1a" in english and "Hint:" in english and not HAN.search(english)
    monkeypatch.setenv("COURSE_LANG", "zh_CN")
    assert language() == "zh_CN"
    check("1a", {"read_runbook": TODO})
    chinese = capsys.readouterr().out
    assert "第 1a 部分" in chinese and "小贴士" in chinese and "Part 1a" not in chinese


def test_set_language_overrides_the_variable_and_an_unknown_language_is_english(monkeypatch):
    monkeypatch.setenv("COURSE_LANG", "zh_CN")
    assert set_language("en") == "en"
    assert set_language(None) == "zh_CN"
    monkeypatch.setenv("COURSE_LANG", "klingon")
    assert language() == "en"
    monkeypatch.setenv("COURSE_LANG", "zh-CN.UTF-8")
    assert language() == "zh_CN"


def test_the_confirmation_prompt_is_chinese_and_the_decision_values_stay_english():
    with using("zh_CN"):
        decision = SPEC.decide(None)
        matrix = decision_matrix(SPEC)
    assert decision.pre_call is PreCall.WARN and PreCall.WARN.value == "confirm with warning"
    assert HAN.search(decision.reason) and "最坏情况" in decision.reason
    english = decision_matrix(SPEC)
    assert matrix["before call"].tolist() == english["before call"].tolist()
    assert matrix["after call"].tolist() == english["after call"].tolist()


def test_a_table_shows_chinese_headers_and_values_beside_the_english_but_keeps_its_data():
    table = tools_table({"lookup": {"readOnlyHint": True}, "wipe": None})
    with using("zh_CN"):
        shown = localised(table)
    assert ("effective", "readOnlyHint") in table.columns
    assert ("生效值", "readOnlyHint") in shown.columns
    assert shown.loc["lookup", ("", "风险画像")] == "只读 (read-only)"
    assert table.loc["lookup", ("", "profile")] == "read-only"  # the data a lesson indexes
    assert localised(table) is table  # English: shown as it is


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("zh_CN", "zh_CN"),
        ("zh-CN", "zh_CN"),
        ("en", "en"),
        (None, "en"),
        (5, "en"),
        ("<script>alert(1)</script>", "en"),
        ("zh_CN" * 100, "en"),
    ],
)
def test_the_grader_reads_the_feedback_language_from_the_notebook_and_trusts_nothing_else(
    value, expected
):
    class Notebook:
        metadata = {"language": value} if value is not None else {}

    assert notebook_language(Notebook()) == expected


def test_a_message_is_said_in_the_language_in_use_and_its_data_never_changes():
    from course_lib.i18n import N_
    from course_lib.phrase import Phrase

    # a tool named like a catalog word ("missing" is 未提交 there) is data: it stays as it is
    said = Phrase(N_("{name} sounds read-only but lacks readOnlyHint: true, so clients treat it as a write"), name="missing")
    assert said.english().startswith("missing sounds read-only")
    with using("zh_CN"):
        chinese = said.text()
    assert chinese.startswith("missing ") and HAN.search(chinese) and "未提交" not in chinese
    assert said.text("zh_CN") == chinese and said.text() == said.english()  # English by default
    # a count takes its language's form; a value that is itself a message is translated too
    alarms = [Phrase.counted("the server has {n} tool, not two or three", "the server has {n} tools, not two or three", n) for n in (1, 3)]
    assert [m.english() for m in alarms] == ["the server has 1 tool, not two or three", "the server has 3 tools, not two or three"]
    assert [m.text("zh_CN") for m in alarms] == ["服务器有 1 个工具，而不是两到三个", "服务器有 3 个工具，而不是两到三个"]
    label = Phrase(N_("predict: {label}"), label=Phrase(N_("additive write, untrusted server")))
    assert label.english() == "predict: additive write, untrusted server"
    assert label.text("zh_CN") == "predict 预测：追加性写入，不可信服务器"
    # text from elsewhere, braces and all, is shown as it is
    assert Phrase("RULES must be a dict such as {'allow': [...]}").text("zh_CN") == "RULES must be a dict such as {'allow': [...]}"


@pytest.mark.parametrize(
    ("defence", "english"),
    [
        ({"auto_approve": set(), "on_taint": "ask"}, "on_taint must be PreCall.CONFIRM"),
        ({"auto_approve": {"nope"}, "on_taint": None}, "names tools the session does not have"),
        ({"auto_approve": "read_note", "on_taint": None}, "must be a set of tool names"),
        ({"on_taint": None}, "DEFENCE must be a dict with exactly the keys"),
    ],
)
def test_a_malformed_defence_is_told_in_the_learners_language(capsys, defence, english):
    check("3b", defence)
    assert english in capsys.readouterr().out
    with using("zh_CN"):
        check("3b", defence)
    said = [line for line in capsys.readouterr().out.splitlines() if "DEFENCE" in line]
    assert said and all(HAN.search(line) for line in said), said
    assert english not in "\n".join(said)
