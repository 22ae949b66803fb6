"""The two command lines: `course_lib` (learners: serve, inspect) and `course_tools` (grade, hub,
measure-client). A tool whose extra is missing names the pip line; the old spellings name the new."""

from __future__ import annotations

import pytest

from course_lib.__main__ import main as course_main
from course_tools import extras
from course_tools.__main__ import main as tools_main


@pytest.mark.parametrize("command", ["grade", "hub", "measure-client"])
def test_the_old_spelling_names_the_new_command_and_fails(command, capsys):
    assert course_main([command, "--help"]) == 2
    err = capsys.readouterr().err
    assert f"python -m course_tools {command}" in err
    assert len(err.strip().splitlines()) == 1


def test_a_tool_whose_extra_is_missing_names_the_pip_line_and_exits_non_zero(monkeypatch, capsys):
    monkeypatch.setitem(extras.EXTRAS, "grade", ("nbclient", "a_module_that_is_not_installed"))
    assert tools_main(["grade", "--self-test"]) == 2
    err = capsys.readouterr().err
    assert "a_module_that_is_not_installed" in err
    assert 'pip install -e ".[grade]"' in err
    assert "Traceback" not in err


def test_the_learners_command_line_offers_only_the_learners_commands(capsys):
    with pytest.raises(SystemExit):
        course_main(["--help"])
    out = capsys.readouterr().out
    assert "serve" in out and "inspect" in out
    assert "grade" not in out and "measure-client" not in out
