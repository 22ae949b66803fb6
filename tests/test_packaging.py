"""Packaging: environment.yml and pyproject.toml declare the same packages; the README's set-up is what CI runs."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
CONDA_ONLY = {"python", "pip"}


def normalise(requirement: str) -> tuple[str, str]:
    """Return (name, specifier) with the name in canonical form and any environment marker dropped."""
    requirement = requirement.split(";")[0].strip()
    match = re.match(r"^([A-Za-z0-9_.\-]+)\s*(.*)$", requirement)
    assert match, f"cannot read requirement {requirement!r}"
    name = re.sub(r"[-_.]+", "-", match.group(1)).lower()
    return name, match.group(2).replace(" ", "")


SELF = "mcp-annotations-course"


def extra_requirements(extras: dict[str, list[str]], name: str) -> list[str]:
    """An extra's requirements, with the course's own extras it names (`SELF[grade]`) expanded."""
    found: list[str] = []
    for requirement in extras[name]:
        if requirement.startswith(SELF + "["):
            for inner in requirement[len(SELF) + 1 :].rstrip("]").split(","):
                found += extra_requirements(extras, inner.strip())
        else:
            found.append(requirement)
    return found


def pyproject_requirements() -> set[tuple[str, str]]:
    """What environment.yml must match: the learner's core plus everything the tests install."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    test = extra_requirements(project["optional-dependencies"], "test")
    return {normalise(r) for r in project["dependencies"] + test}


def test_the_learners_install_is_the_course_and_nothing_of_the_tools():
    """README command 1 installs the core only: the design card's packages, no grader, no hub."""
    core = {normalise(r)[0] for r in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]}
    assert core == {"mcp", "jupyterlab", "nest-asyncio", "pandas", "matplotlib", "nbval", "ipykernel"}


def environment_requirements() -> set[tuple[str, str]]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    found = set()
    for entry in env["dependencies"]:
        if isinstance(entry, dict):
            found |= {normalise(r) for r in entry["pip"] if not r.startswith("-e")}
        else:
            found.add(normalise(entry))
    return {r for r in found if r[0] not in CONDA_ONLY}


def test_environment_yml_and_pyproject_declare_the_same_packages():
    in_pyproject, in_environment = pyproject_requirements(), environment_requirements()
    assert in_pyproject == in_environment, (
        f"only in pyproject.toml: {sorted(in_pyproject - in_environment)}; "
        f"only in environment.yml: {sorted(in_environment - in_pyproject)}"
    )


def test_environment_yml_uses_conda_forge_and_installs_the_course_itself():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    assert env["channels"] == ["conda-forge"]
    pip_section = next(e["pip"] for e in env["dependencies"] if isinstance(e, dict))
    assert "-e ." in pip_section


def test_mcp_is_pinned_to_major_version_2():
    assert ("mcp", ">=2,<3") in pyproject_requirements()


def test_readme_has_exactly_two_setup_commands_and_ci_runs_the_second():
    readme = (ROOT / "README.md").read_text()
    setup = readme.split("## Set up", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```bash\n(.*?)\n```", setup, flags=re.DOTALL)
    assert len(commands) == 2, f"the Set up section must hold exactly two commands, found {len(commands)}"
    opens, tests = commands
    # the repository is JupyterLab's root (so exercises/ is in its file browser), lesson 00 opens
    assert "jupyter lab --ServerApp.root_dir=. notebooks/00_start_here.ipynb" in opens
    assert '".[test]"' in tests and "pytest" in tests
    marked = readme.split("<!-- ci:test-command -->", 1)[1].split("<!-- /ci:test-command -->", 1)[0]
    assert tests in marked, "the test command CI runs must be the README's second command"
    assert "ci:test-command" in (ROOT / ".ci" / "run").read_text()


def test_license_is_an_spdx_expression_setuptools_will_keep_building():
    # the table form ({text = ...}) is deprecated and stops building after 2027-02-18
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert pyproject["project"]["license"] == "MIT"
    requires = [r.replace(" ", "") for r in pyproject["build-system"]["requires"]]
    minimums = [re.fullmatch(r"setuptools>=(\d+)", r) for r in requires]
    assert any(m and int(m.group(1)) >= 77 for m in minimums), (
        "an SPDX license string needs setuptools>=77 to build"
    )
