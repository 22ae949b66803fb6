"""course_lib.trifecta and course_lib.guard: trifecta analysis, taint tracking, the demo servers, the figure."""

from __future__ import annotations

import matplotlib
import pytest
from mcp.types import Tool, ToolAnnotations

from course_lib import Leg, SessionGuard, analyse_session, plot_session
from course_lib.connection import list_tools_sync
from course_lib.legs import Basis
from course_lib.decisions import PreCall, Trust
from course_lib.policy import SPEC
from course_lib.servers import build
from course_lib.servers.private_notes import SECRET

matplotlib.use("Agg")

from demo_session import demo_tools, tool  # noqa: E402

def test_demo_servers_together_complete_the_trifecta():
    report = analyse_session(demo_tools())
    assert report.complete
    assert report.suppliers(Leg.PRIVATE_DATA) == ["list_notes", "read_note", "send_email"]
    assert report.certainty(Leg.PRIVATE_DATA) is Basis.GUESS  # the notes are the surest claim
    assert report.suppliers(Leg.EXTERNAL_COMMUNICATION) == ["search_web", "send_email"]


def test_analysis_is_pure_a_server_or_command_is_refused_with_what_to_do(tmp_path):
    from course_lib import python_command

    command = python_command("-m", "course_lib", "serve", "mailer", "--root", str(tmp_path))
    for target in (command, build("private-notes")):
        with pytest.raises(ValueError, match="list its tools first"):
            analyse_session({"mailer": target})
    report = analyse_session({"mailer": list_tools_sync(command)})
    assert report.suppliers(Leg.EXTERNAL_COMMUNICATION) == ["send_email"]
    assert report.table().loc["send_email", "server"] == "mailer"


def test_the_notes_and_the_search_alone_are_not_a_trifecta():
    for name in ("private-notes", "web-search"):
        assert not analyse_session({name: list_tools_sync(build(name))}).complete, name


def test_the_mailer_alone_is_a_trifecta_only_at_worst():
    report = analyse_session({"mailer": list_tools_sync(build("mailer"))})
    assert report.complete  # send_email is not read-only: by the spec's defaults it may read anything
    assert report.certainty(Leg.PRIVATE_DATA) is Basis.WORST_CASE
    assert "worst case, by the spec's defaults: private data" in report.status


def test_private_data_from_hints_is_only_a_guess():
    report = analyse_session([tool("read_note", read_only_hint=True, open_world_hint=False)])
    assert report.certainty(Leg.PRIVATE_DATA) is Basis.GUESS
    assert "guess" in report.table().loc["read_note", "private data"]


def test_open_world_hint_cannot_separate_reading_from_sending():
    report = analyse_session([tool("search", read_only_hint=True, open_world_hint=True)])
    assert report.suppliers(Leg.UNTRUSTED_CONTENT) == ["search"]
    assert report.suppliers(Leg.EXTERNAL_COMMUNICATION) == ["search"]


def test_unannotated_tool_supplies_every_leg_by_spec_defaults():
    report = analyse_session([tool("do_things")])
    assert report.certainty(Leg.UNTRUSTED_CONTENT) is Basis.DEFAULT
    assert report.certainty(Leg.EXTERNAL_COMMUNICATION) is Basis.DEFAULT
    assert report.certainty(Leg.PRIVATE_DATA) is Basis.WORST_CASE
    assert report.complete


@pytest.mark.parametrize(
    "names",
    [["do_things"], ["read_notes", "fetch_url"], ["get_time"], ["list_rooms", "send_message", "delete_room"]],
)
def test_a_session_of_unannotated_tools_is_never_trifecta_free(names):
    report = analyse_session({"silent": [tool(name) for name in names]})
    assert report.complete, report.status
    assert "by the spec's defaults" in report.status


def test_the_issue_example_an_unannotated_notes_reader_and_fetcher_complete_the_trifecta():
    notes = Tool(name="read_notes", description="Read the team's private notes", input_schema={"type": "object"})
    fetch = Tool(name="fetch_url", description="Fetch a URL", input_schema={"type": "object"})
    report = analyse_session({"notes": [notes, fetch]})
    assert report.complete and "read_notes" in report.suppliers(Leg.PRIVATE_DATA)


def test_declaring_the_defaults_gives_the_same_legs_as_leaving_them_out():
    silent = analyse_session([tool("do_things")])
    explicit = analyse_session(
        [tool("do_things", read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=True)]
    )
    assert silent.legs == explicit.legs == list(Leg)


def test_closed_world_writes_may_reach_private_data_at_worst_and_nothing_else():
    report = analyse_session([tool("append_text", read_only_hint=False, destructive_hint=False, open_world_hint=False)])
    assert report.legs == [Leg.PRIVATE_DATA]
    assert report.certainty(Leg.PRIVATE_DATA) is Basis.WORST_CASE
    assert "missing" in report.status


def test_only_a_read_only_open_world_tool_is_not_guessed_to_reach_private_data():
    report = analyse_session([tool("search", read_only_hint=True, open_world_hint=True)])
    assert report.missing == [Leg.PRIVATE_DATA]


def test_a_worst_case_ranks_below_every_other_basis():
    assert list(Basis)[-1] is Basis.WORST_CASE


def test_host_labels_replace_inference_and_are_the_surest_basis():
    report = analyse_session(
        demo_tools(),
        labels={"search_web": ["untrusted content"], "send_email": "external communication", "list_notes": []},
    )
    assert report.suppliers(Leg.EXTERNAL_COMMUNICATION) == ["send_email"]
    assert report.suppliers(Leg.PRIVATE_DATA) == ["read_note"]
    assert report.certainty(Leg.UNTRUSTED_CONTENT) is Basis.HOST


def meta_tool(name: str, legs, **hints: bool) -> Tool:
    return Tool(
        name=name, input_schema={"type": "object"}, annotations=ToolAnnotations(**hints), _meta={"com.example.ops/legs": legs}
    )


def test_server_meta_adds_legs_but_never_removes_what_the_hints_imply():
    search = meta_tool("search_web", ["untrusted content"], read_only_hint=True, open_world_hint=True)
    report = analyse_session([search], meta_key="com.example.ops/legs")
    assert report.suppliers(Leg.EXTERNAL_COMMUNICATION) == ["search_web"]  # still there: _meta cannot hide a leg
    assert report.table().loc["search_web", "untrusted content"] == "declared hint"  # the surer basis wins
    notes = meta_tool("read_note", ["private data"], read_only_hint=False, destructive_hint=False, open_world_hint=False)
    assert analyse_session([notes], meta_key="com.example.ops/legs").certainty(Leg.PRIVATE_DATA) is Basis.META


def test_server_meta_ranks_below_a_declared_hint():
    order = list(Basis)
    assert order.index(Basis.HOST) < order.index(Basis.DECLARED) < order.index(Basis.META) < order.index(Basis.DEFAULT)


def test_server_meta_is_ignored_unless_the_host_names_its_key():
    search = meta_tool("search_mail", ["private data"], read_only_hint=True, open_world_hint=True)
    assert Leg.PRIVATE_DATA not in analyse_session([search]).legs
    assert Leg.PRIVATE_DATA in analyse_session([search], meta_key="com.example.ops/legs").legs


def test_malformed_server_meta_is_a_clear_error():
    bad = meta_tool("read_note", ["secrets"], read_only_hint=True, open_world_hint=False)
    with pytest.raises(ValueError, match="read_note.*com.example.ops/legs.*unknown trifecta leg"):
        analyse_session([bad], meta_key="com.example.ops/legs")


def test_host_labels_can_add_to_the_inference_instead_of_replacing_it():
    report = analyse_session(demo_tools(), labels={"read_note": ["private data"], "list_notes": []}, label_mode="add")
    assert report.certainty(Leg.PRIVATE_DATA) is Basis.HOST
    assert report.suppliers(Leg.PRIVATE_DATA) == ["list_notes", "read_note", "send_email"]  # "add" cannot take a guess away
    with pytest.raises(ValueError, match="label_mode"):
        analyse_session(demo_tools(), labels={}, label_mode="merge")


def test_label_for_an_unknown_tool_is_a_clear_error():
    with pytest.raises(ValueError, match="does not have.*send_mail"):
        analyse_session(demo_tools(), labels={"send_mail": ["external communication"]})


def test_unknown_leg_name_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown trifecta leg 'exfiltration'"):
        analyse_session(demo_tools(), labels={"send_email": ["exfiltration"]})


def test_bad_tools_argument_is_a_clear_error():
    with pytest.raises(ValueError, match="analyse_session needs the session's tools"):
        analyse_session(42)
    with pytest.raises(ValueError, match="Page"):
        build("web-search", pages=["https://example.com"])


def test_report_as_dict_names_suppliers_and_caveats():
    data = analyse_session(demo_tools()).as_dict()
    assert data["trifecta"] is True
    suppliers = data["legs"]["untrusted content"]["supplied_by"]
    assert {s["tool"] for s in suppliers} == {"search_web", "send_email"}
    assert any("openWorldHint" in c for c in data["caveats"])


def test_guard_taints_session_only_after_untrusted_output():
    guard = SessionGuard(analyse_session(demo_tools()), trust=Trust.TRUSTED, auto_approve={"send_email"})
    assert guard.check("send_email").action is PreCall.ALLOW
    guard.record("read_note")
    assert not guard.tainted
    guard.record("search_web")
    assert guard.tainted
    verdict = guard.check("send_email")
    assert verdict.action is PreCall.CONFIRM
    assert "tainted by search_web" in verdict.reason


def test_guard_without_defence_tracks_taint_but_changes_nothing():
    guard = SessionGuard(analyse_session(demo_tools()), trust=Trust.TRUSTED, auto_approve={"send_email"}, on_taint=None)
    guard.record("search_web")
    assert guard.tainted
    assert guard.check("send_email").action is PreCall.ALLOW


def test_guard_uses_the_policy_and_its_trust_level():
    report = analyse_session(demo_tools())
    assert SessionGuard(report, policy=SPEC, trust=Trust.TRUSTED).check("send_email").action is PreCall.CONFIRM
    # an untrusted server's read-only hint is ignored by the spec policy: the worst case applies
    assert SessionGuard(report, policy=SPEC, trust=Trust.UNTRUSTED).check("read_note").action is PreCall.WARN


def test_guard_rejects_unknown_names_and_options():
    report = analyse_session(demo_tools())
    with pytest.raises(ValueError, match="on_taint"):
        SessionGuard(report, on_taint="block")
    with pytest.raises(ValueError, match="not the string 'confirm': write PreCall.CONFIRM"):
        SessionGuard(report, on_taint="confirm")
    with pytest.raises(ValueError, match="on_taint must be PreCall.CONFIRM, PreCall.DENY or None"):
        SessionGuard(report, on_taint=PreCall.ALLOW)
    with pytest.raises(ValueError, match="auto_approve"):
        SessionGuard(report, auto_approve={"send_mail"})
    with pytest.raises(ValueError, match="no tool 'rm'"):
        SessionGuard(report).check("rm")


def test_web_search_records_queries_and_refuses_empty_ones(tmp_path):
    from course_lib.connection import call_tool_sync

    server = build("web-search", root=tmp_path)
    assert call_tool_sync(server, "search_web", {"query": "   "}).is_error
    call_tool_sync(server, "search_web", {"query": "disk full"})
    assert server.queries == ["disk full"]
    assert (tmp_path / "queries.log").read_text() == "disk full\n"


def test_mailer_keeps_outbox_in_its_sandbox_and_checks_addresses(tmp_path):
    from course_lib.connection import call_tool_sync

    server = build("mailer", root=tmp_path)
    assert call_tool_sync(server, "send_email", {"to": "not an address", "subject": "s", "body": "b"}).is_error
    call_tool_sync(server, "send_email", {"to": "mei@ops.example", "subject": "s", "body": "b"})
    assert '"to": "mei@ops.example"' in (tmp_path / "outbox.jsonl").read_text()


def test_private_notes_refuses_paths_that_leave_the_sandbox(tmp_path):
    from course_lib.connection import call_tool_sync

    server = build("private-notes", root=tmp_path)
    result = call_tool_sync(server, "read_note", {"title": "../etc/passwd"})
    assert result.is_error
    assert call_tool_sync(server, "read_note", {"title": "vpn"}).content[0].text.count(SECRET) == 1


def test_plot_marks_a_complete_trifecta_in_black_and_colours_tools_by_leg():
    ax = plot_session(analyse_session(demo_tools()))
    assert ax.get_title() == "Lethal trifecta: complete"
    assert ax.lines[0].get_color() == "#000000"  # not red: vermillion is too close to the orange of U
    labels = {t.get_text() for t in ax.texts}
    assert {"list_notes", "read_note", "search_web", "send_email"} <= labels
    incomplete = plot_session(analyse_session({"web-search": list_tools_sync(build("web-search"))}))
    assert incomplete.get_title() == "Lethal trifecta: incomplete"
