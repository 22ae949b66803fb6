"""Red team: names planted in a demo server's sandbox."""

from __future__ import annotations

from course_lib.connection import call_tool_sync
from course_lib.servers import ops_assistant


def test_a_log_named_with_an_impossible_date_does_not_stop_the_cleanup(tmp_path):
    server = ops_assistant.ops_assistant_server(tmp_path, enforce_scopes=False)
    logs = tmp_path / "logs" / "test"
    (logs / "app-2026-99-99.log").write_text("planted")
    dated = sorted(p.name for p in logs.iterdir() if p.name != "app-2026-99-99.log")
    result = call_tool_sync(server, "cleanup_logs", {"environment": "test", "keep_days": 0})
    # was: a bare "Error executing tool cleanup_logs" (ValueError: month must be in 1..12)
    assert not result.is_error, result.content[0].text
    assert f"deleted {len(dated) - 1} log file(s)" in result.content[0].text
    assert sorted(p.name for p in logs.iterdir()) == [dated[-1], "app-2026-99-99.log"]
