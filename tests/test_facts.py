"""Factual slips an independent check found stay fixed in the lessons, the README and the docs.

Each test names the slip, the source that corrects it, and fails if the old wording comes back.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
EXERCISES = sorted((ROOT / "solutions").glob("*.ipynb")) + sorted((ROOT / "exercises").glob("*.ipynb"))


def _text(path: Path, kind: str | None = None) -> str:
    if path.suffix == ".md":
        return path.read_text(encoding="utf-8")
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n\n".join(
        "".join(c["source"]) for c in cells if kind is None or c["cell_type"] == kind
    )


def _all(paths: list[Path], kind: str | None = None) -> str:
    return "\n\n".join(_text(path, kind) for path in paths)


def _paragraphs(text: str) -> list[str]:
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", text)]


READER_FACING = LESSONS + DOCS + EXERCISES


def test_anthropic_is_not_said_to_document_no_read_only_rule():
    # Anthropic's connector review criteria: read-only tools can run without per-call confirmation
    # in Claude, destructive tools always prompt. Only Claude Code's behaviour is "no hint rule".
    text = _all(READER_FACING)
    assert "Anthropic documents no rule" not in text
    lesson = _text(ROOT / "notebooks" / "02_defaults.ipynb")
    assert "https://claude.com/docs/connectors/building/review-criteria" in lesson
    assert "without per-call confirmation" in " ".join(lesson.split())


def test_claude_code_docs_are_linked_at_their_current_address():
    text = _all(READER_FACING)
    assert "docs.anthropic.com/en/docs/claude-code" not in text
    assert "https://code.claude.com/docs/en/mcp" in _text(ROOT / "docs" / "connect.md")


def test_every_mention_of_inspector_badges_says_which_version():
    # 2.x: badges only for hints set to true; 0.21-1.0.x: all four with defaults; 0.15.0: none.
    version = re.compile(r"\b(2\.x|v?2\.3\.0|0\.15\.0|0\.21)\b")
    unversioned = [
        p
        for p in _paragraphs(_all(READER_FACING, "markdown"))
        if "badge" in p.lower() and not version.search(p)
    ]
    assert not unversioned, "Inspector badges described without a version:\n" + "\n".join(
        unversioned
    )


def test_inspector_versions_are_told_apart_where_the_badge_rule_is_taught():
    for path in (ROOT / "docs" / "inspect.md", ROOT / "notebooks" / "02_defaults.ipynb"):
        text = " ".join(_text(path).split())
        assert all(v in text for v in ("0.15.0", "0.21", "2.x")), (
            f"{path.name} should say what 0.15.0, 0.21-1.0.x and 2.x show"
        )


def test_openai_open_world_guidance_is_quoted_exactly():
    quote = "publicly visible internet state or external third-party systems"
    text = " ".join(_all(READER_FACING).split())
    assert quote in text
    for found in re.finditer(re.escape(quote), text):
        assert text[: found.start()].endswith('"can change '), (
            f"misquoted: ...{text[found.start() - 40 : found.end()]}"
        )


def test_seps_are_described_only_as_their_threads_show_them():
    # SEP-1560 (secretHint) is closed; SEP-1487 (trustedHint) and SEP-1561 (retitled SEP-1541,
    # verifiedOutputHint) are open: modelcontextprotocol issues 1487, 1560, 1561.
    text = " ".join(_all(READER_FACING).split())
    for stale in (
        "1561, 1560) were closed",
        "output-trust and secret hints were closed",
        "were closed; no MCP proposal",
    ):
        assert stale not in text
    lesson = _text(ROOT / "notebooks" / "04_lethal_trifecta.ipynb")
    for number in (1487, 1560, 1561):
        assert f"modelcontextprotocol/modelcontextprotocol/issues/{number}" in lesson, (
            f"SEP-{number} is not cited"
        )
    assert "SEP-1541" in lesson and "verifiedOutputHint" in lesson


def test_anthropic_directory_reading_annotations_title_is_mentioned():
    lesson = " ".join(_text(ROOT / "notebooks" / "01_fields.ipynb").split())
    assert "directory reads `annotations.title`" in lesson
    assert "basicmachines-co/basic-memory/pull/1031" in lesson


def test_lessons_do_not_deny_a_proposal_nobody_made():
    assert "egressHint" not in _all(LESSONS)


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_lessons_decide_one_way(path: Path):
    code = _text(path, "code")
    assert not re.search(r"\b[A-Z_]+\.decide\(", code), (
        f"{path.name}: write decide(policy, tool, trust=...)"
    )


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_english_lessons_carry_no_inline_chinese_glosses(path: Path):
    # the glossary of the Chinese book carries the terms
    found = re.findall(r".{0,20}[\u3400-\u9fff]+.{0,5}", _text(path, "markdown"))
    assert not found, f"{path.name}: inline Chinese: {found}"


def test_what_chatgpt_does_with_read_only_hints_names_its_source():
    # ChatGPT cannot be measured here: that it skips confirmation on readOnlyHint is OpenAI's
    # word, in the Apps SDK reference (https://developers.openai.com/apps-sdk/reference).
    unsourced = [
        p
        for p in _paragraphs(_all(READER_FACING, "markdown"))
        if "ChatGPT" in p and "skip" in p.lower() and "Apps SDK" not in p
    ]
    assert not unsourced, "ChatGPT's behaviour stated without its source:\n" + "\n".join(unsourced)
    lesson = _text(ROOT / "notebooks" / "02_defaults.ipynb")
    assert "https://developers.openai.com/apps-sdk/reference" in lesson
