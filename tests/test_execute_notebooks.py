"""tools/execute_notebooks.py refuses to store a Chinese lesson's figures without a CJK font."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import execute_notebooks  # noqa: E402


def test_a_chinese_notebook_is_not_executed_where_no_cjk_font_would_draw_its_figures(
    tmp_path, monkeypatch, capsys
):
    import course_lib.plots.fonts as fonts

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print('ran')")])
    nb.metadata["language"] = "zh_CN"
    path = tmp_path / "lesson.ipynb"
    nbformat.write(nb, path)
    before = path.read_text(encoding="utf-8")
    monkeypatch.setattr(fonts, "cjk_family", lambda: None)
    assert execute_notebooks.main([str(path)]) == 2
    err = capsys.readouterr().err
    assert "no CJK font" in err and "fonts-noto-cjk" in err and "Traceback" not in err
    assert path.read_text(encoding="utf-8") == before  # nothing stored
