"""The Chinese README (README.zh-CN.md) stays in step with the English one a Chinese class is also shown.

Its set-up commands are the English ones (the Chinese-class launch differs only in the notebook it
opens), its agenda gives the same lessons and minutes with links to the zh-CN notebooks, and its
prose keeps the glossary's renderings and full-width quotes. Its links are checked with the README's
in tests/test_links.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from test_links import relative_links

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
README_ZH = (ROOT / "README.zh-CN.md").read_text(encoding="utf-8")
OPEN_LESSON = "notebooks/00_start_here.ipynb"
FENCED = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]*`")
# Renderings the glossary forbids: 缺省 reads as "default", 线上 as "production", 腿 is a calque.
FORBIDDEN = {"缺省": "未声明", "线上": "传输格式 / 传输字段名", "腿": "要素"}


def _marked(text: str, marker: str) -> str:
    block = text.split(f"<!-- {marker} -->", 1)[1].split(f"<!-- /{marker} -->", 1)[0].strip()
    return re.sub(r"^```\w*\n|\n```$", "", block)


def _fenced(text: str) -> list[str]:
    return [re.sub(r"^```\w*\n|\n```$", "", block) for block in FENCED.findall(text)]


def _agenda(text: str, header: str) -> list[list[str]]:
    lines = text.split(header, 1)[1].splitlines()[2:]
    rows = []
    for line in lines:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def _english_open_command() -> str:
    commands = [c for c in _fenced(README) if "jupyter lab" in c]
    assert len(commands) == 1, f"README.md should have one launch command, found {len(commands)}"
    return commands[0]


def prose(text: str) -> str:
    """The Chinese text a reader reads: no code blocks, no inline code, no HTML comments."""
    return INLINE_CODE.sub("", FENCED.sub("", re.sub(r"<!--.*?-->", "", text)))


def test_the_chinese_readme_gives_the_english_set_up_commands_byte_for_byte():
    english_open = _english_open_command()
    assert english_open in _fenced(README_ZH), "README.zh-CN.md should give README.md's launch unchanged"
    assert _marked(README_ZH, "ci:test-command") == _marked(README, "ci:test-command"), (
        "README.zh-CN.md's test command should be README.md's ci:test-command block, unchanged"
    )


def test_the_chinese_class_launch_differs_only_in_the_notebook_it_opens():
    english_open = _english_open_command()
    assert english_open.endswith(" " + OPEN_LESSON)
    expected = english_open.removesuffix(OPEN_LESSON) + "zh-CN/" + OPEN_LESSON
    assert _marked(README_ZH, "zh:open-command") == expected
    assert (ROOT / "zh-CN" / OPEN_LESSON).is_file()


def test_the_powershell_lines_are_the_launch_split_at_each_ampersand_pair():
    launch = _marked(README_ZH, "zh:open-command")
    expected = [
        part.replace("python3 ", "python ", 1).replace(".venv/bin/", ".venv\\Scripts\\")
        for part in launch.split(" && ")
    ]
    assert _marked(README_ZH, "zh:powershell-open").splitlines() == expected
    assert all("&&" not in block for block in _fenced(README_ZH) if "Scripts" in block), (
        "PowerShell 5.1 rejects &&: join its commands with ; and if ($?) {...}"
    )


def test_the_chinese_agenda_gives_the_english_lessons_minutes_and_zh_cn_links():
    english = _agenda(README, "| # | Lesson | Minutes |")
    chinese = _agenda(README_ZH, "| # | 课 | 分钟 |")
    assert len(chinese) == len(english), (
        f"the Chinese agenda has {len(chinese)} rows, the English one {len(english)}"
    )
    for en, zh in zip(english, chinese):
        assert zh[0] == ("练习" if en[0] == "ex" else en[0]), f"row {en[0]} stands as {zh[0]!r}"
        minutes_en, minutes_zh = re.findall(r"\d+", en[2]), re.findall(r"\d+", zh[2])
        assert minutes_zh[:1] == minutes_en[:1], (
            f"row {en[0]} ({en[1]}): {en[2]!r} in English, {zh[2]!r} in Chinese"
        )
        links_en = ["zh-CN/" + t for t in relative_links(en[1])]
        assert relative_links(zh[1]) == links_en, f"row {en[0]} should link {links_en}"


def test_the_chinese_readme_states_the_total_its_agenda_adds_up_to():
    rows = _agenda(README_ZH, "| # | 课 | 分钟 |")
    # a take-home row (课后完成) gives its minutes for the learner; the session's total leaves it out
    total = sum(int(re.findall(r"\d+", row[2])[0]) for row in rows if not row[2].startswith("课后"))
    assert f"合计 {total} 分钟" in README_ZH, f"README.zh-CN.md should say 合计 {total} 分钟"


@pytest.mark.parametrize("word", sorted(FORBIDDEN))
def test_the_chinese_readme_keeps_the_glossary_renderings(word):
    assert word not in README_ZH, f"README.zh-CN.md uses {word}: the glossary says {FORBIDDEN[word]}"


def test_chinese_prose_uses_full_width_quotes():
    quoted = [line for line in prose(README_ZH).splitlines() if '"' in line or "'" in line]
    assert not quoted, (
        "README.zh-CN.md has ASCII quotes in Chinese prose (use “…”):\n" + "\n".join(quoted)
    )


def test_prose_leaves_code_out_and_keeps_the_text():
    text = 'a “好” b `"x"` c\n```bash\necho "y"\n```\n<!-- "z" -->'
    assert '"' not in prose(text) and "“好”" in prose(text)
