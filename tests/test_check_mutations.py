"""No single-point wrong answer gets a pass mark: for every part, a right answer changed in one place
fails its visible check, unless the change means the same (a hint that is not meaningful on a read-only tool,
an allow rule under an ask rule). For part 2d the grader's hidden cases are held to the same bar."""

from __future__ import annotations

import pytest
from mcp.types import ToolAnnotations

from course_lib import check, effective
from course_lib.annotations import HINTS, FIELDS
from course_lib.audit import check_behaviour
from course_lib.exercises.annotate import hint_states
from course_lib.exercises.content import EXPECTED_HINTS as EXPECTED
from course_lib.exercises.content import HONEST_TOOLS, LIAR, STATEMENTS, TRIFECTA_ANSWERS, TRUE_STATEMENTS
from course_lib.exercises.content import PREDICT_SCENARIOS as SCENARIOS
from course_lib.exercises.liar import EFFECTS
from course_lib.legs import Leg
from course_lib.feedback import reference_pair
from course_lib.clients import CLAUDE_CODE_MODES, CLAUDE_CODE_VERSION
from course_lib.decisions import PostCall, PreCall, Trust
from course_tools.grading import load_exercises
from course_lib.decisions import Outcome
from course_lib.permissions import Permissions, claude_code_outcome
from course_lib.replay import SESSION_TOOLS
from course_lib.rule_judges import FILE_OPS, LATER, OTHER_TOOLS

ATTR = {f.wire_name: f.attribute for f in FIELDS}
RIGHT_1A = {name: ToolAnnotations(**{ATTR[h]: (v if v != "n/a" else None) for h, v in hints.items()}) for name, hints in EXPECTED.items()}


def passes(part, answer, capsys) -> bool:
    result = bool(check(part, answer))
    capsys.readouterr()
    return result


def right_predict(annotations, trusted):
    return reference_pair(annotations, trusted)


def right_untrusted(annotations):
    return {name for name, value in annotations.items() if effective(value).open_world}


def right_contradiction(annotations, effects):
    return check_behaviour(annotations, effects)


def test_the_right_answers_pass(capsys):
    assert passes("1a", RIGHT_1A, capsys)
    assert passes("1b", right_untrusted, capsys)
    assert passes("2a", {k: right_predict(h, t is Trust.TRUSTED) for k, (_, h, t) in SCENARIOS.items()}, capsys)
    assert passes("2b", right_predict, capsys)
    assert passes("2c", set(TRUE_STATEMENTS), capsys)
    assert passes("3a", {leg: set(answers[0]) for leg, answers in TRIFECTA_ANSWERS.items()}, capsys)
    assert passes("4a", right_contradiction, capsys)
    assert passes("4b", {LIAR}, capsys)


def test_1a_every_flipped_hint_fails_unless_it_means_the_same(capsys):
    for name, right in RIGHT_1A.items():
        for hint in HINTS:
            for value in (True, False, None):
                changed = right.model_copy(update={ATTR[hint]: value})
                same = effective(changed) == effective(right)
                assert passes("1a", dict(RIGHT_1A, **{name: changed}), capsys) == same, (name, hint, value)
    assert not passes("1a", {k: v for k, v in RIGHT_1A.items() if k != "search_web"}, capsys)


def test_1b_a_function_wrong_on_one_kind_of_tool_fails(capsys):
    for _label, wrong_state in hint_states():
        def wrong(annotations, wrong_state=wrong_state):
            right = right_untrusted(annotations)
            for name, value in annotations.items():
                as_dict = None if value is None else value.model_dump(by_alias=True, exclude_none=True)
                if as_dict == wrong_state:
                    right ^= {name}
            return right
        assert not passes("1b", wrong, capsys), wrong_state


def test_2a_every_changed_decision_fails(capsys):
    right = {k: right_predict(h, t is Trust.TRUSTED) for k, (_, h, t) in SCENARIOS.items()}
    for key, (before, after) in right.items():
        for other in PreCall:
            if other is not before:
                assert not passes("2a", dict(right, **{key: (other, after)}), capsys), (key, other)
        flipped = PostCall.TRUST if after is PostCall.UNTRUSTED else PostCall.UNTRUSTED
        assert not passes("2a", dict(right, **{key: (before, flipped)}), capsys), key


@pytest.mark.parametrize("trusted", [True, False])
def test_2b_a_predict_wrong_on_one_input_fails(capsys, trusted):
    for _label, state in hint_states():
        def wrong(annotations, is_trusted, state=state):
            before, after = right_predict(annotations, is_trusted)
            if annotations == state and is_trusted == trusted:
                return (PreCall.ALLOW if before is not PreCall.ALLOW else PreCall.CONFIRM), after
            return before, after
        assert not passes("2b", wrong, capsys), (state, trusted)


def test_2b_idempotent_allowed_fails_and_is_told_why(capsys):
    def lenient(annotations, trusted):
        if trusted and annotations and annotations.get("idempotentHint") and not annotations.get("readOnlyHint"):
            return PreCall.ALLOW, right_predict(annotations, trusted)[1]
        return right_predict(annotations, trusted)
    assert not check("2b", lenient)
    assert "idempotent is not read-only" in capsys.readouterr().out


def test_2c_every_toggled_statement_fails(capsys):
    for letter in STATEMENTS:
        assert not passes("2c", set(TRUE_STATEMENTS) ^ {letter}, capsys), letter


def test_3a_one_tool_dropped_or_added_in_a_leg_fails_unless_accepted(capsys):
    right = {leg: set(answers[0]) for leg, answers in TRIFECTA_ANSWERS.items()}
    for leg, answer in right.items():
        for tool in SESSION_TOOLS:
            changed = answer ^ {tool}
            accepted = frozenset(changed) in TRIFECTA_ANSWERS[leg]
            assert passes("3a", {**right, leg: changed}, capsys) == accepted, (leg, tool)


def test_3a_the_mailer_alone_is_not_the_external_leg(capsys):
    # lesson 04, section 3: a search query leaves the host too
    right = {leg: set(answers[0]) for leg, answers in TRIFECTA_ANSWERS.items()}
    mailer_only = {**right, Leg.EXTERNAL_COMMUNICATION: {"send_email"}}
    assert not passes("3a", mailer_only, capsys)
    hidden = [c for c in load_exercises()["03_break_the_trifecta"].cases if c.id.startswith("3a.")]
    legs = {leg.value: sorted(tools) for leg, tools in mailer_only.items()}  # as the probe sends a set
    wrong = [c.id for c in hidden if c.judge(eval(c.expr, {"LEGS": legs}))]
    assert wrong == ["3a.external_communication"]


def test_4a_a_contradiction_wrong_on_one_input_fails(capsys):
    for _label, state in hint_states():
        for what, effects in EFFECTS.items():
            def wrong(annotations, seen, state=state, effects=effects):
                right = right_contradiction(annotations, seen)
                if annotations == state and tuple(seen) == effects:
                    return None if right else "a false alarm"
                return right
            assert not passes("4a", wrong, capsys), (state, what)


def test_4a_checks_an_additive_tool_that_deletes(capsys):
    def misses_additive(annotations, effects):
        return "lie" if annotations and annotations.get("readOnlyHint") is True and effects else None
    assert not passes("4a", misses_additive, capsys)


def _by_kind(removes):
    """A contradiction that judges an additive tool's effects by their kind, not `destructive`."""
    def contradiction(annotations, effects):
        if annotations and annotations.get("readOnlyHint") is True and effects:
            return "declared read-only, but it changed"
        additive = annotations and annotations.get("destructiveHint") is False and annotations.get("readOnlyHint") is not True
        return "declared additive, but it removed" if additive and any(removes(e) for e in effects) else None
    return contradiction


def _hidden_4a_failures(contradiction) -> list[str]:
    """The grader's hidden 4a cases the function gets wrong (each probe evaluated as the grader does)."""
    hidden = [c for c in load_exercises()["04_catch_the_liar"].cases if c.id.startswith("4a.")]
    assert hidden
    return [c.id for c in hidden if c.judge(eval(c.expr, {"contradiction": contradiction}))]


@pytest.mark.parametrize(
    "removes",
    [
        lambda e: e.kind == "deleted",  # misses an overwrite and removed rows
        lambda e: e.kind in ("deleted", "modified"),  # a file that grew is no removal
        lambda e: e.kind != "created",  # rows added are no removal either
        lambda e: e.destructive and e.kind != "db-write",  # removed rows are a removal
    ],
    ids=["only deletes", "any modification", "anything but a creation", "not table rows"],
)
def test_4a_an_additive_check_that_reads_the_kind_instead_of_destructive_fails(capsys, removes):
    assert not passes("4a", _by_kind(removes), capsys)
    assert _hidden_4a_failures(_by_kind(removes))  # and the grader takes marks off too


def test_4a_the_same_check_by_destructive_passes_visible_and_hidden(capsys):
    assert passes("4a", _by_kind(lambda e: e.destructive), capsys)
    assert _hidden_4a_failures(_by_kind(lambda e: e.destructive)) == []
    assert _hidden_4a_failures(right_contradiction) == []


def test_4a_every_hint_state_meets_every_kind_of_effect_in_the_visible_cases():
    kinds = {(e.kind, e.destructive) for effects in EFFECTS.values() for e in effects}
    assert kinds == {("created", False), ("modified", False), ("db-write", False),
                     ("deleted", True), ("modified", True), ("db-write", True)}


def test_4b_one_tool_dropped_or_added_fails(capsys):
    assert not passes("4b", set(), capsys)
    for honest in HONEST_TOOLS:
        assert not passes("4b", {LIAR, honest}, capsys), honest


def test_3b_one_changed_setting_fails_unless_it_means_the_same(capsys):
    right = {"auto_approve": {"send_email"}, "on_taint": PreCall.CONFIRM}
    assert passes("3b", right, capsys)
    read_only = {"list_notes", "read_note", "search_web"}  # allowed anyway: auto-approving changes nothing
    for tool in sorted(SESSION_TOOLS):
        changed = dict(right, auto_approve=right["auto_approve"] ^ {tool})
        assert passes("3b", changed, capsys) == (tool in read_only), tool
    for on_taint in (None, PreCall.DENY):
        assert not passes("3b", dict(right, on_taint=on_taint), capsys), on_taint


# Part 2d: the right rules, changed in one place. Whether a mutant is right is decided apart from the
# check, from the exercise's own requirements: what every tool does in every measured mode (the
# measured model of Claude Code), and that every rule names the file-ops server. Some mutants mean the
# same (ask and deny beat allow, so also allowing an asked write changes nothing): those must pass.
RIGHT_2D = {
    "allow": ["mcp__file-ops__read_file"],
    "ask": ["mcp__file-ops__append_text", "mcp__file-ops__set_value"],
    "deny": ["mcp__file-ops__delete_file"],
}
RULE_LISTS = ("allow", "ask", "deny")


def _mutants_2d():
    placed = [(where, rule) for where in RULE_LISTS for rule in RIGHT_2D[where]]
    for where, rule in placed:
        yield f"drop {rule}", dict(RIGHT_2D, **{where: [r for r in RIGHT_2D[where] if r != rule]})
        for other in RULE_LISTS:
            if other != where:
                moved = dict(RIGHT_2D, **{where: [r for r in RIGHT_2D[where] if r != rule]})
                yield f"move {rule} to {other}", dict(moved, **{other: [*moved[other], rule]})
    extra = [f"mcp__file-ops__{tool}" for tool in FILE_OPS]
    extra += ["mcp__file-ops", "mcp__file-ops__*"]  # server-wide, and its wildcard spelling
    extra += ["mcp__files__read_file", "mcp__mailer", "mcp__file-ops-backup__delete_file"]  # others
    extra += ["mcp__file-ops__*_file", "mcp__*"]  # wildcards that are not rules
    for where in RULE_LISTS:
        for rule in extra:
            if rule not in RIGHT_2D[where]:
                yield f"add {rule} to {where}", dict(RIGHT_2D, **{where: [*RIGHT_2D[where], rule]})


def _requirements_2d(answer, everything: bool):
    """What the rules make every tool do (None if they are not rules), and whether they stay on
    file-ops: the visible requirements, or with `everything` the grader's too (a server that
    declares every tool read-only, and the older Claude Code)."""
    try:
        rules = Permissions(**answer)
    except ValueError:
        return None
    lying = {tool: {"readOnlyHint": True, "openWorldHint": False} for tool in FILE_OPS}
    claim_sets = {"honest": FILE_OPS, "lying": lying} if everything else {"honest": FILE_OPS}
    versions = list(CLAUDE_CODE_MODES) if everything else [CLAUDE_CODE_VERSION]
    table = {}
    for version in versions:
        for mode in CLAUDE_CODE_MODES[version]:
            for name, claims in claim_sets.items():
                for tool, hints in claims.items():
                    key = (version, mode, name, tool)
                    table[key] = claude_code_outcome(rules, "file-ops", tool, hints, mode=mode, version=version)
            for (server, tool), hints in OTHER_TOOLS.items():
                table[(version, mode, server, tool)] = claude_code_outcome(rules, server, tool, hints, mode=mode, version=version)
            for tool, hints in LATER.items():  # a tool the server adds later: never silently run
                got = claude_code_outcome(rules, "file-ops", tool, hints, mode=mode, version=version)
                bare = claude_code_outcome(Permissions(), "file-ops", tool, hints, mode=mode, version=version)
                table[(version, mode, "later", tool)] = got is Outcome.RAN and bare is not Outcome.RAN
    return table, all(r.server == "file-ops" for name in RULE_LISTS for r in getattr(rules, name))


def test_2d_one_changed_rule_fails_unless_it_means_the_same(capsys):
    hidden = [c for c in load_exercises()["02_predict_the_client"].cases if c.id.startswith("2d.")]
    assert passes("2d", RIGHT_2D, capsys) and not [c.id for c in hidden if c.judge(RIGHT_2D)]
    visible_right, all_right = _requirements_2d(RIGHT_2D, False), _requirements_2d(RIGHT_2D, True)
    same_count = wrong_count = 0
    for what, mutant in _mutants_2d():
        same = _requirements_2d(mutant, False) == visible_right
        assert passes("2d", mutant, capsys) == same, what
        graded_full = not [c.id for c in hidden if c.judge(mutant)]
        assert graded_full == (_requirements_2d(mutant, True) == all_right), what
        same_count, wrong_count = same_count + same, wrong_count + (not same)
    assert same_count >= 2 and wrong_count >= 30  # both kinds are really tried


# --- exercise 5: the learner's own server, its hints judged by what its tools did --------------

RIGHT_5 = {
    "list_notes": ToolAnnotations(read_only_hint=True, open_world_hint=False),
    "append_to_note": ToolAnnotations(
        read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
    ),
    "delete_note": ToolAnnotations(
        read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
    ),
}
EXAMPLES_5 = {
    "list_notes": {},
    "append_to_note": {"title": "welcome", "text": "Stand-up at 9:30."},
    "delete_note": {"title": "welcome"},
}


def notes_server(annotations):
    """The solution's notes server, with the annotations given (None: a tool left unannotated)."""
    from pathlib import Path

    from mcp.server import MCPServer

    def build(root):
        folder = Path(root)
        (folder / "welcome.txt").write_text("Welcome.\n")
        server = MCPServer("notes", log_level="WARNING")

        def tool(name):
            return server.tool(name=name, annotations=annotations[name])

        @tool("list_notes")
        def list_notes() -> list[str]:
            return sorted(p.stem for p in folder.glob("*.txt"))

        @tool("append_to_note")
        def append_to_note(title: str, text: str) -> str:
            with (folder / f"{Path(title).name}.txt").open("a") as handle:
                handle.write(text + "\n")
            return "added"

        @tool("delete_note")
        def delete_note(title: str) -> str:
            (folder / f"{Path(title).name}.txt").unlink(missing_ok=True)
            return "deleted"

        return server

    return build


def passes_5(build, examples, capsys) -> bool:
    return passes("5a", build, capsys) and passes("5b", (build, examples), capsys)


def hidden_5(build, examples) -> float:
    """The points the grader's hidden cases give this server (judged on the probes' values)."""
    from course_lib.observation import run_tools

    exercise = load_exercises()["05_your_own_server"]
    listed = [r.as_plain() for r in run_tools(build, {})]
    runs = [r.as_plain() for r in run_tools(build, examples)]
    total = 0.0
    for case in exercise.cases:
        value = listed if case.target == "my_server" else runs
        try:
            right = case.judge(value) is None
        except ValueError:
            right = False
        total += case.points if right else 0.0
    return round(total, 2)


def test_5_the_right_server_passes_and_scores_full_marks(capsys):
    build = notes_server(RIGHT_5)
    assert passes_5(build, EXAMPLES_5, capsys)
    assert hidden_5(build, EXAMPLES_5) == load_exercises()["05_your_own_server"].max_points


def test_5_every_changed_hint_fails_unless_it_means_the_same(capsys):
    from course_lib.lint import check_annotations

    full = load_exercises()["05_your_own_server"].max_points
    for name, right in RIGHT_5.items():
        for hint in HINTS:
            for value in (True, False, None):
                changed = right.model_copy(update={ATTR[hint]: value})
                if changed == right:
                    continue
                same = effective(changed) == effective(right) and not check_annotations(
                    {"name": name, "annotations": changed}
                )
                build = notes_server(dict(RIGHT_5, **{name: changed}))
                assert passes_5(build, EXAMPLES_5, capsys) == same, (name, hint, value)
                assert (hidden_5(build, EXAMPLES_5) == full) == same, (name, hint, value)


def test_5_a_writer_declared_read_only_and_a_deleter_declared_additive_fail(capsys):
    liar = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    additive = RIGHT_5["append_to_note"]
    for name, wrong in (("append_to_note", liar), ("delete_note", liar), ("delete_note", additive)):
        build = notes_server(dict(RIGHT_5, **{name: wrong}))
        assert not passes("5b", (build, EXAMPLES_5), capsys), name
        out = check("5b", (build, EXAMPLES_5))
        assert "❌" in capsys.readouterr().out and not out


def test_5_an_unannotated_tool_a_missing_example_and_a_lone_tool_fail(capsys):
    bare = notes_server(dict(RIGHT_5, delete_note=None))
    assert not passes("5a", bare, capsys)
    assert "it has no annotations" in (check("5a", bare) and "" or capsys.readouterr().out)
    build = notes_server(RIGHT_5)
    missing = {k: v for k, v in EXAMPLES_5.items() if k != "delete_note"}
    assert not passes("5b", (build, missing), capsys)
    assert hidden_5(build, missing) < load_exercises()["05_your_own_server"].max_points
    # a delete example that deletes nothing does not show what the tool can do
    assert not passes("5b", (build, dict(EXAMPLES_5, delete_note={"title": "none"})), capsys)


def test_5_a_server_with_no_tools_or_todo_examples_is_not_attempted(capsys):
    from mcp.server import MCPServer

    from course_lib import TODO
    from course_lib.checks import Status

    empty = check("5a", lambda root: MCPServer("empty", log_level="WARNING"))
    assert empty.status is Status.NOT_ATTEMPTED
    todo = check("5b", (notes_server(RIGHT_5), TODO))
    assert todo.status is Status.NOT_ATTEMPTED
    capsys.readouterr()


def test_5_a_tool_that_reaches_the_network_is_refused_and_judged_open_world(capsys):
    import socket

    from mcp.server import MCPServer

    def fetcher(open_world):
        def build(root):
            server = MCPServer("fetcher", log_level="WARNING")

            @server.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=open_world))
            def fetch_page(url: str) -> str:
                with socket.create_connection((url, 80), timeout=1):
                    return "fetched"

            @server.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False))
            def list_pages() -> list[str]:
                return []

            return server

        return build

    example = {"fetch_page": {"url": "example.com"}, "list_pages": {}}
    assert passes_5(fetcher(True), example, capsys)
    assert not passes("5b", (fetcher(False), example), capsys)
    assert "tried to reach" in (check("5b", (fetcher(False), example)) and "" or capsys.readouterr().out)
    assert socket.create_connection.__module__ == "socket"  # the network is given back afterwards


# Part 2e: the nine right predictions, each changed to every other outcome word, must fail.
RIGHT_2E = {
    "rotate_keys": {"Codex exec": "ASK-H", "Copilot prompt": "ASK-H", "Claude Code plan": "ASK"},
    "purge_cache": {"Codex exec": "RAN", "Copilot prompt": "RAN", "Claude Code plan": "RAN*"},
    "tag_release": {"Codex exec": "RAN", "Copilot prompt": "ASK-H", "Claude Code plan": "ASK"},
}


def test_2e_every_single_wrong_prediction_fails_visibly_and_in_the_grader(capsys):
    hidden = [c for c in load_exercises()["02_predict_the_client"].cases if c.id.startswith("2e.")]
    assert len(hidden) == 9 and passes("2e", RIGHT_2E, capsys)
    assert not [c.id for c in hidden if c.judge(RIGHT_2E)]
    words = ("RAN", "RAN*", "ASK", "ASK-H", "DENY", "HIDDEN")
    for tool, row in RIGHT_2E.items():
        for client, right in row.items():
            for word in words:
                if word == right:
                    continue
                wrong = {t: dict(r) for t, r in RIGHT_2E.items()}
                wrong[tool][client] = word
                assert not passes("2e", wrong, capsys), (tool, client, word)
                assert [c.id for c in hidden if c.judge(wrong)], (tool, client, word)
