"""course_lib.monitoring: the seeded day, the five signals (on a hand-checked log) and the dashboard."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from course_lib.decisions import PreCall
from course_lib.monitoring import EVENT_COLUMNS, SIGNALS, five_signals, hourly_signals, simulate_day
from course_lib.plots import plot_dashboard

ALLOW, CONFIRM = PreCall.ALLOW, PreCall.CONFIRM

T = pd.Timestamp("2026-11-30 09:00")


def call(tool="read_file", *, read_only=True, sensitive=False, decision=ALLOW, answer=None, authorised=None, write=False, hour=9):
    return {
        "time": T.replace(hour=hour), "event": "tools/call", "server": "s", "tool": tool, "hints": "",
        "declared_read_only": read_only, "sensitive": sensitive, "decision": decision, "answer": answer,
        "authorised": authorised, "write_observed": write,
    }


def listing(tool, hints, hour):
    return {"time": T.replace(hour=hour), "event": "tools/list", "server": "s", "tool": tool, "hints": hints}


def small_log() -> pd.DataFrame:
    rows = [
        listing("a", "readOnly=true", 9),
        listing("a", "readOnly=false", 10),  # change 1
        listing("a", "readOnly=false", 11),
        listing("a", "readOnly=true", 12),  # change 2
        listing("b", "readOnly=true", 9),
        call("a", read_only=True, write=True),  # a read-only tool wrote
        call("a", read_only=True, write=False),
        call("d", read_only=False, sensitive=True, decision=CONFIRM, answer=True, write=True),
        call("d", read_only=False, sensitive=True, decision=CONFIRM, answer=True, write=True),
        call("d", read_only=False, sensitive=True, decision=CONFIRM, answer=False),
        call("d", read_only=False, sensitive=True, decision=ALLOW, write=True, hour=10),
        call("q", authorised=True, hour=10),
        call("q", authorised=True, hour=10),
        call("q", authorised=True, hour=10),
        call("q", authorised=False, hour=10),
    ]
    return pd.DataFrame(rows, columns=list(EVENT_COLUMNS))


def test_five_signals_match_a_hand_checked_log():
    values = five_signals(small_log())["value"]
    assert values["writes by read-only tools"] == 1
    assert values["sensitive calls without confirmation"] == pytest.approx(1 / 3)  # 3 ran, 1 not asked
    assert values["hint changes"] == 2
    assert values["confirmation approval rate"] == pytest.approx(2 / 3)  # 2 approved, 1 declined
    assert values["authorisation rejection rate"] == pytest.approx(1 / 4)


def test_status_says_alert_outside_the_healthy_range():
    status = five_signals(small_log())["status"]
    assert status["writes by read-only tools"] == "ALERT"
    assert status["confirmation approval rate"] == "ok"
    assert status["authorisation rejection rate"] == "ALERT"  # 25 % is too many


def test_a_signal_with_nothing_to_count_says_no_data():
    frame = five_signals(pd.DataFrame([call()], columns=list(EVENT_COLUMNS)))
    assert math.isnan(frame.loc["confirmation approval rate", "value"])
    assert frame.loc["confirmation approval rate", "status"] == "no data"


def test_hourly_signals_count_a_hint_change_in_the_hour_it_appears():
    hourly = hourly_signals(small_log())
    assert hourly["hint changes"].to_dict() == {9: 0, 10: 1, 11: 0, 12: 1}
    assert hourly.loc[10, "sensitive calls without confirmation"] == 1.0


def test_the_simulated_day_records_typed_decisions_and_answers_never_text():
    calls = simulate_day(2026).query("event == 'tools/call'")
    assert {type(d) for d in calls["decision"]} == {PreCall}
    assert set(calls["decision"]) == {ALLOW, CONFIRM}
    assert str(calls["answer"].dtype) == "boolean"
    asked = calls["decision"].eq(CONFIRM)
    assert calls.loc[asked, "answer"].notna().all() and calls.loc[~asked, "answer"].isna().all()
    assert "confirmation" not in calls.columns
    shown = calls.head(3).to_string()
    assert "PreCall." not in shown and ("allow" in shown or "confirm" in shown)


def test_a_decision_that_is_no_precall_value_is_refused_by_name_not_miscounted():
    log = small_log()
    log["decision"] = log["decision"].map(lambda d: d if pd.isna(d) else f"{d} ")
    with pytest.raises(ValueError, match="decision 'allow ' .*PreCall"):
        five_signals(log)
    log = small_log()
    log.loc[log["event"] == "tools/call", "answer"] = "approved"
    with pytest.raises(ValueError, match="answer 'approved'"):
        five_signals(log)


def test_the_simulated_day_is_seeded():
    pd.testing.assert_frame_equal(simulate_day(7), simulate_day(7))
    assert not simulate_day(7).equals(simulate_day(8))


def test_a_bad_day_raises_every_alert_and_a_healthy_day_none():
    bad = five_signals(simulate_day(2026, problems=True))["status"]
    good = five_signals(simulate_day(2026, problems=False))["status"]
    assert set(bad) == {"ALERT"}
    assert set(good) == {"ok"}


def test_the_dashboard_has_a_panel_per_signal_with_its_healthy_band():
    figure = plot_dashboard(simulate_day(1))
    panels = [ax for ax in figure.axes if ax.axison]
    assert len(panels) == len(SIGNALS)
    for ax, signal in zip(panels, SIGNALS):
        assert ax.get_title().startswith(signal.name)
        assert ax.patches, "the healthy range is shaded"


def test_bad_input_gets_a_clear_error():
    with pytest.raises(ValueError, match="lacks the column"):
        five_signals(pd.DataFrame({"time": []}))
    with pytest.raises(ValueError, match="DataFrame"):
        five_signals([])
    with pytest.raises(ValueError, match="seed"):
        simulate_day("seven")


def test_an_authorisation_recorded_as_text_is_refused_with_the_values_to_use():
    log = small_log()
    log.loc[log["event"] == "tools/call", "authorised"] = "rejected"
    with pytest.raises(ValueError, match="authorised 'rejected' is not the server's check"):
        five_signals(log)
