"""The README's two commands: `make` sets up and builds without the tests' tools; `make test` has them."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tests.conftest import ROOT

TEST_TOOLS = ("npm", "install-chromium", "[test]", "pytest")  # [test]: pytest, Playwright

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def planned(target: str) -> str:
    """Return the commands `make TARGET` would run from scratch (a dry run that takes nothing as made)."""
    done = subprocess.run(["make", "--dry-run", "--always-make", target], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    return done.stdout


def test_make_builds_the_site_without_npm_java_or_chromium():
    commands = planned("all")
    assert "build.py build" in commands
    for tool in TEST_TOOLS:
        assert tool not in commands, f"`make` runs {tool!r}, which only the tests need"


def test_make_test_installs_what_the_tests_need_and_runs_them():
    commands = planned("test")
    for tool in TEST_TOOLS:
        assert tool in commands, f"`make test` does not set up {tool!r}"


def test_the_oldest_python_tested_is_the_one_pyproject_claims():
    claimed = re.search(r'requires-python\s*=\s*">=(\d+\.\d+)"', (ROOT / "pyproject.toml").read_text())
    oldest = re.search(r"(?m)^OLDEST\s*:?=\s*(\S+)", (ROOT / "Makefile").read_text())
    assert claimed and oldest, "expected requires-python in pyproject.toml and OLDEST in the Makefile"
    assert oldest.group(1) == claimed.group(1)
    assert "make test-oldest" in (ROOT / ".ci" / "run").read_text()
