"""The GitHub Pages workflow: what it triggers on, what it may do, and that its commands exist."""

from __future__ import annotations

import re
import shlex

import pytest
import yaml
from click.testing import CliRunner

from papercat.cli import main
from tests.conftest import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "pages.yml"
ACTIONS = {"actions/checkout": "v4", "actions/configure-pages": "v5", "actions/setup-python": "v5",
           "actions/upload-pages-artifact": "v3"}
PAGES_URL = "https://user.github.io/papercat"  # what configure-pages gives: no trailing slash


@pytest.fixture(scope="module")
def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def triggers(workflow: dict) -> dict:
    """Return the ``on:`` mapping; YAML 1.1 (PyYAML) reads the bare key ``on`` as True."""
    assert ("on" in workflow) != (True in workflow), "expected one 'on:' key"
    return workflow["on"] if "on" in workflow else workflow[True]


def steps(workflow: dict, job: str) -> list[dict]:
    return workflow["jobs"][job]["steps"]


def index_of(steps_: list[dict], predicate, what: str) -> int:
    found = [i for i, step in enumerate(steps_) if predicate(step)]
    assert len(found) == 1, f"expected one step that {what}; found {len(found)}"
    return found[0]


def uses(action: str):
    return lambda step: step.get("uses", "").split("@")[0] == action


def runs(pattern: str):
    return lambda step: re.search(pattern, step.get("run", "")) is not None


def test_runs_on_a_push_to_main_that_changes_the_site_and_by_hand(workflow):
    on = triggers(workflow)
    assert set(on) == {"push", "workflow_dispatch"}
    assert on["push"]["branches"] == ["main"]
    paths = set(on["push"]["paths"])
    for path in ("content/**", "templates/**", "static/**", "papercat/**", "build.py", "pyproject.toml",
                 "Makefile", "tests/**", ".github/workflows/pages.yml"):
        assert path in paths, path
    # every path pattern names something that exists (a typo would silently never trigger)
    for path in paths:
        assert (ROOT / path.removesuffix("/**")).exists(), path


def test_has_only_the_permissions_pages_needs(workflow):
    assert workflow["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    for name, job in workflow["jobs"].items():
        assert "permissions" not in job, name


def test_one_deployment_at_a_time_none_cancelled(workflow):
    assert workflow["concurrency"] == {"group": "pages", "cancel-in-progress": False}


def test_build_job_uses_the_pages_actions_at_their_current_major_versions(workflow):
    build = steps(workflow, "build")
    for action, version in ACTIONS.items():
        step = build[index_of(build, uses(action), f"uses {action}")]
        assert step["uses"] == f"{action}@{version}"
    checkout = build[index_of(build, uses("actions/checkout"), "checks out")]
    assert checkout.get("with", {}).get("persist-credentials") is False


def test_build_job_tests_then_builds_for_the_pages_address_then_uploads_site(workflow):
    build = steps(workflow, "build")
    pages = index_of(build, uses("actions/configure-pages"), "configures Pages")
    assert build[pages]["id"] == "pages"
    test = index_of(build, runs(r"(?m)^\s*make test\s*$"), "runs `make test`")
    site = index_of(build, runs(r"build\.py build\b"), "runs `build.py build`")
    upload = index_of(build, uses("actions/upload-pages-artifact"), "uploads the site")
    assert pages < site and test < site < upload
    assert build[upload]["with"] == {"path": "site"}


def test_build_step_passes_the_pages_address_and_the_commit_time(workflow):
    build = steps(workflow, "build")
    step = build[index_of(build, runs(r"build\.py build\b"), "runs `build.py build`")]
    script = _expand(step)
    assert f'--base-url "{PAGES_URL}/"' in script
    assert 'export SOURCE_DATE_EPOCH="$(git log -1 --format=%ct)"' in script
    assert script.index("SOURCE_DATE_EPOCH") < script.index("build.py")


def test_deploy_job_deploys_what_build_uploaded(workflow):
    deploy = workflow["jobs"]["deploy"]
    assert deploy["needs"] == "build" or deploy["needs"] == ["build"]
    assert deploy["environment"] == {"name": "github-pages", "url": "${{ steps.deployment.outputs.page_url }}"}
    step = deploy["steps"][index_of(deploy["steps"], uses("actions/deploy-pages"), "deploys")]
    assert step["uses"] == "actions/deploy-pages@v4" and step["id"] == "deployment"


def _expand(step: dict) -> str:
    """Return the step's script with ${{ ... }} and its env variables filled in as on a runner."""
    outputs = {"steps.pages.outputs.base_url": PAGES_URL}

    def fill(text: str) -> str:
        return re.sub(r"\$\{\{\s*([^}]*?)\s*\}\}", lambda m: outputs.get(m.group(1), f"<{m.group(1)}>"), text)

    env = {name: fill(str(value)) for name, value in step.get("env", {}).items()}
    script = fill(step["run"])
    return re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: env.get(m.group(1) or m.group(2), m.group(0)), script)


def _commands(workflow: dict) -> list[list[str]]:
    """Every `make ...` and `... build.py ...` line of every run step, as words."""
    found = []
    for job in workflow["jobs"].values():
        for step in job["steps"]:
            if "run" not in step:
                continue
            for line in _expand(step).splitlines():
                words = shlex.split(line)
                if words and (words[0] == "make" or any(w.endswith("build.py") for w in words)):
                    found.append(words)
    return found


def test_every_make_target_it_runs_exists(workflow):
    targets = set(re.findall(r"(?m)^([A-Za-z0-9_.-]+)\s*:(?!=)", (ROOT / "Makefile").read_text()))
    made = [words for words in _commands(workflow) if words[0] == "make"]
    assert made, "expected the workflow to run the tests with make"
    for words in made:
        for target in (w for w in words[1:] if not w.startswith("-") and "=" not in w):
            assert target in targets, f"make {target}: no such target in the Makefile"


def test_every_build_py_command_it_runs_works(workflow, tmp_path, monkeypatch):
    # The command as written, with the runner's address filled in, builds the bundled catalog.
    monkeypatch.chdir(ROOT)  # the workflow runs it from the checkout
    built = [words for words in _commands(workflow) if words[0] != "make"]
    assert built, "expected the workflow to run build.py"
    for words in built:
        python, script, command, *args = words
        assert python == ".venv/bin/python" and script == "build.py", words  # what `make` sets up
        assert "--out" not in args  # upload-pages-artifact takes site/
        usage = CliRunner().invoke(main, [command, "--help"])
        assert usage.exit_code == 0, usage.output
        for option in (a for a in args if a.startswith("--")):
            assert re.search(rf"^\s+{option}\b", usage.output, re.MULTILINE), f"build.py {command} has no {option}"
        result = CliRunner().invoke(main, [command, *args, "--out", str(tmp_path / "site")])
        assert result.exit_code == 0, result.output
        assert (tmp_path / "site" / "index.html").is_file()
