"""The course's client models agree with every committed measurement of a real client.

course_lib/data/clients/<client>-<version>.json was measured offline with
``python -m course_tools measure-client``; the peers tier re-measures the pinned CLIs. Here each
measured cell is predicted from the models (`course_lib.clients.ClaudeCodePolicy`,
`course_lib.permissions`, `course_lib.clients.CodexPolicy`) and must match.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from course_lib.measured import Measurement, Result, committed_files
from course_lib.decisions import Outcome
from course_lib.permissions import ClaudeCodeSetup, Permissions
from course_tools.measure.profiles import combination_tools
from course_lib.client_census import CENSUS
from course_lib.clients import CLAUDE_CODE_MODES, CLAUDE_CODE_VERSION, ClaudeCodePolicy, CodexPolicy

ROOT = Path(__file__).resolve().parents[1]
MEASUREMENTS = {path.stem: Measurement.load(path) for path in committed_files()}
CLAUDE = [m for m in MEASUREMENTS.values() if m.client == "claude-code"]


def _server_and_tool(short: str) -> tuple[str, str]:
    return ("other", short) if short == "other_read" else ("profiles", short)


def test_the_committed_measurements_cover_both_claude_code_versions_and_codex():
    assert {(m.client, m.version) for m in MEASUREMENTS.values()} >= {
        ("claude-code", "2.1.197"), ("claude-code", "2.1.332"), ("codex", "0.171.0"),
    }


@pytest.mark.parametrize("name", sorted(MEASUREMENTS))
def test_every_committed_cell_was_the_same_on_every_repeat(name):
    m = MEASUREMENTS[name]
    assert m.timing["repeats"] >= 2
    assert [c.key for c in m.cells if not c.repeats_agree] == []


@pytest.mark.parametrize("m", CLAUDE, ids=[m.version for m in CLAUDE])
def test_claude_code_model_predicts_every_measured_cell(m):
    assert set(CLAUDE_CODE_MODES[m.version]) == set(m.modes), "the model should cover exactly the measured modes"
    hints = {p["tool"]: p["hints"] for p in m.profiles}
    wrong = []
    for cell in m.cells:
        setup = ClaudeCodeSetup(Permissions(**m.rule_sets[cell.rules]), cell.mode, m.version)
        # the stand-in calls the tools in this order, one session per run; hidden tools are never called
        calls = [(*_server_and_tool(short), hints[short]) for short in cell.results]
        outcomes = setup.session(calls, classifier=cell.classifier)
        for (server, tool, declared_hints), outcome in zip(calls, outcomes):
            judged = setup.classifier_judges(server, tool, declared_hints)
            predicted = Result(outcome, cell.classifier if judged else None)
            measured = cell.results[tool]
            if predicted != measured:
                wrong.append(f"{cell.key} tool={tool}: model says {predicted.short()}, measured {measured.short()}")
    assert wrong == []


@pytest.mark.parametrize("m", CLAUDE, ids=[m.version for m in CLAUDE])
def test_read_only_calls_run_concurrently_and_others_one_after_the_other(m):
    concurrency = m.notes["concurrency"]
    policy = ClaudeCodePolicy("bypassPermissions", version=m.version)
    hints = {p["tool"]: p["hints"] for p in m.profiles}
    for pair in concurrency.values():
        expected = all(policy.concurrency_safe(hints[t]) for t in pair["tools"])
        assert pair["concurrent"] is expected, pair


def test_codex_model_predicts_every_measured_cell_and_all_81_combinations():
    m = MEASUREMENTS["codex-0.171.0"]
    hints = {p["tool"]: p["hints"] for p in m.profiles}
    wrong = []
    for cell in m.cells:
        policy = CodexPolicy(cell.mode)
        for short, measured in cell.results.items():
            predicted = Outcome.RAN if cell.mode == "bypass" or not policy.needs_approval(hints[short]) else Outcome.ASK_HEADLESS
            if predicted is not measured.outcome:
                wrong.append(f"{cell.key} tool={short}: model says {predicted.name}, measured {measured.short()}")
    combos = combination_tools()
    for tool, measured in m.notes["combinations (exec)"].items():
        predicted = "ASK-H" if CodexPolicy.needs_approval(combos[tool]) else "RAN"
        if predicted != measured:
            wrong.append(f"combination {tool} {combos[tool]}: model says {predicted}, measured {measured}")
    assert len(m.notes["combinations (exec)"]) == 81
    assert wrong == []


CENSUS_FILES = [m for m in MEASUREMENTS.values() if m.client not in {"claude-code", "codex"}]


def test_every_committed_census_client_has_a_model():
    assert {f"{m.client}-{m.version}" for m in CENSUS_FILES} == set(CENSUS)


@pytest.mark.parametrize("m", CENSUS_FILES, ids=[f"{m.client}-{m.version}" for m in CENSUS_FILES])
def test_each_census_model_predicts_every_committed_cell(m):
    model = CENSUS[f"{m.client}-{m.version}"]
    hints = {p["tool"]: p["hints"] for p in m.profiles}
    assert set(model.modes) == set(m.modes), "the model should cover exactly the measured modes"
    wrong = []
    for cell in m.cells:
        calls = [(_server_and_tool(short)[0], hints[short]) for short in cell.results]
        predicted = model.session(calls, mode=cell.mode, setting=cell.rules, classifier=cell.classifier)
        for (short, measured), (outcome, judged) in zip(cell.results.items(), predicted):
            guess = Result(outcome, cell.classifier if judged else None)
            if guess != measured:
                wrong.append(f"{cell.key} tool={short}: model says {guess.short()}, measured {measured.short()}")
    assert wrong == []


def test_the_ready_made_claude_code_models_describe_the_version_the_peers_tier_pins():
    package = json.loads((ROOT / "tests" / "peers" / "npm-claude" / "package.json").read_text(encoding="utf-8"))
    assert package["dependencies"]["@anthropic-ai/claude-code"] == CLAUDE_CODE_VERSION
