"""Lesson 06's closing recap: the right letters pass, and no single wrong answer gets a pass mark."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from course_lib.checks import TODO, Status
from course_lib.exercises import check
from course_lib.exercises.recap import QUESTIONS

ROOT = Path(__file__).resolve().parents[1]
RIGHT = {key: q.right for key, q in QUESTIONS.items()}


def test_the_right_letters_pass_and_say_no_grader_follows(capsys):
    assert check("recap", RIGHT).status is Status.PASSED
    out = capsys.readouterr().out
    assert "7 of 7 questions right" in out and "grader" not in out


@pytest.mark.parametrize("key", sorted(QUESTIONS))
@pytest.mark.parametrize("letter", ["a", "b", "c"])
def test_every_single_wrong_letter_fails_with_the_rule(key, letter, capsys):
    if letter == RIGHT[key]:
        pytest.skip("the right letter")
    result = check("recap", dict(RIGHT, **{key: letter}))
    assert result.status is Status.FAILED
    out = capsys.readouterr().out
    assert "1 of 7 questions wrong" in out and QUESTIONS[key].hint.split(":")[0] in out


def test_capitals_and_spaces_are_read_as_the_letter():
    assert check("recap", {k: f" {v.upper()} " for k, v in RIGHT.items()}).status is Status.PASSED


@pytest.mark.parametrize("answer", ["yes", 2, None, ["a"]])
def test_an_answer_that_is_not_a_letter_fails_and_says_how_to_answer(answer, capsys):
    assert check("recap", dict(RIGHT, q1=answer)).status is Status.FAILED
    assert "answer with one letter" in capsys.readouterr().out


def test_blanks_are_not_attempted_and_a_part_filled_in_is_not_a_pass(capsys):
    assert check("recap", dict.fromkeys(QUESTIONS, TODO)).status is Status.NOT_ATTEMPTED
    assert check("recap", dict(RIGHT, q7=TODO)).status is Status.NOT_ATTEMPTED
    assert check("recap", {"q1": "b"}).status is Status.NOT_ATTEMPTED


def test_an_unknown_question_is_named(capsys):
    assert check("recap", dict(RIGHT, q9="a")).status is Status.FAILED
    assert "no question named q9" in capsys.readouterr().out


def test_the_lesson_asks_every_question_the_check_knows_with_three_choices():
    notebook = json.loads((ROOT / "notebooks" / "06_beyond_hints.ipynb").read_text("utf-8"))
    text = "\n".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown")
    for key in QUESTIONS:
        found = re.search(rf"\*\*{key}\.\*\*(.*?)(?=\*\*q\d\.\*\*|\Z)", text, flags=re.S)
        assert found, f"lesson 06 does not ask {key}"
        assert all(f"({letter})" in found.group(1) for letter in "abc"), key
