"""WCAG 2.2 AA with axe-core in Debian Chromium: every page type, in the light and the dark theme.

axe-core comes from npm (pinned in tests/js/package-lock.json, installed by `make test-setup`). Pages
carry a Content-Security-Policy that forbids injected scripts, so the test's own context bypasses
it to run axe; what the site itself loads is unchanged.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest_plugins = ["tests.conftest_browser"]
pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parent / "js" / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]


@pytest.fixture(scope="module")
def axe_source() -> str:
    if not AXE.is_file():
        pytest.fail(f"{AXE} is missing: run `make test-setup` (npm ci in tests/js)", pytrace=False)
    return AXE.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def pages(site_papers: list[dict[str, Any]], site_dir: Path) -> dict[str, str]:
    """One page of each kind, as site-relative paths."""
    first = site_papers[0]
    kinds = {
        "home": "index.html",
        "venues index": "venues/index.html",
        "topics index": "topics/index.html",
        "venue": f"venues/{first['venue_slug']}.html",
        "topic": f"topics/{first['topics'][0]}.html",
        "paper": first["url"],
        "search": "search/index.html?q=agent",
        "what's new": "new/index.html",
        "map": "map/index.html",
        "statistics": "stats/index.html",
        "404": "no/such/page.html",
    }
    for kind, path in kinds.items():
        assert kind == "404" or (site_dir / path.split("?")[0]).is_file(), f"no {kind} page at {path}"
    return kinds


@pytest.fixture(params=["light", "dark"])
def themed(request: pytest.FixtureRequest, chromium: Any) -> Iterator[tuple[str, Any]]:
    ctx = chromium.new_context(color_scheme=request.param, bypass_csp=True)
    yield request.param, ctx
    ctx.close()


def run_axe(page: Any, source: str) -> list[dict[str, Any]]:
    page.evaluate(source)
    result = page.evaluate("tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})", TAGS)
    return result["violations"]


def describe(violations: list[dict[str, Any]]) -> str:
    lines = []
    for v in violations:
        targets = [" ".join(map(str, n["target"])) for n in v["nodes"][:3]]
        lines.append(f"{v['id']} ({v['impact']}): {v['help']} — {len(v['nodes'])} node(s), e.g. {targets}")
    return "\n  ".join(lines)


@pytest.mark.parametrize("kind", ["home", "venues index", "topics index", "venue", "topic", "paper", "search",
                                  "what's new", "map", "statistics", "404"])
def test_no_axe_violations(themed, site_url, pages, axe_source, kind):
    theme, ctx = themed
    page = ctx.new_page()
    page.goto(site_url + pages[kind])
    if kind == "search":
        page.wait_for_selector("#search-results li")
    violations = run_axe(page, axe_source)
    assert not violations, f"{kind} ({pages[kind]}, {theme} theme):\n  " + describe(violations)


def test_axe_finds_a_planted_violation(themed, site_url, axe_source):
    """The check can fail: a low-contrast, unnamed link planted in the home page is reported."""
    _, ctx = themed
    page = ctx.new_page()
    page.goto(site_url + "index.html")
    page.evaluate("""() => {
      const a = document.createElement('a'); a.href = 'x.html';
      const img = document.createElement('img'); img.src = 'x.png'; a.appendChild(img);
      document.querySelector('main').appendChild(a);
    }""")
    assert {v["id"] for v in run_axe(page, axe_source)} & {"link-name", "image-alt"}
