"""Discovered topics in Debian Chromium: a catalog of fields the taxonomy does not know, served, its
discovered topics listed and marked, each page valid HTML (vnu.jar) and free of axe violations."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from papercat.pipeline import Paths, build
from tests.browser import serve
from tests.test_a11y_browser import axe_source, describe, run_axe, themed  # noqa: F401  (fixtures used below)
from tests.test_discovered_topics import TAXONOMY, field_listings
from tests.test_html_valid import _describe, _vnu

pytest_plugins = ["tests.conftest_browser"]
pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def fields_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str, Any]]:
    """The fields catalog built and served below /catalog/; yields (site folder, its URL, the catalog)."""
    root = tmp_path_factory.mktemp("fields")
    content = root / "content"
    (content / "listings").mkdir(parents=True)
    (content / "topics.yaml").write_text(TAXONOMY, encoding="utf-8")
    for name, text in field_listings().items():
        (content / "listings" / name).write_text(text, encoding="utf-8")
    served = root / "served"
    with serve(served) as base:
        result = build(Paths(content=content, out=served / "catalog", cache=None), base_url=f"{base}catalog/")
        yield served / "catalog", f"{base}catalog/", result.catalog


def test_the_topic_index_lists_the_discovered_topics_in_a_section_of_their_own(chromium, fields_site):
    _, url, catalog = fields_site
    found = [t.name for t in catalog.topics if t.discovered]
    page = chromium.new_page()
    page.goto(url + "topics/index.html")
    section = page.locator("section", has=page.get_by_role("heading", name="Discovered topics"))
    assert section.get_by_role("link").all_inner_texts() == found
    assert "grouped them automatically" in section.inner_text()
    section.get_by_role("link", name=found[0]).click()
    page.wait_for_load_state()
    assert page.get_by_role("heading", level=1).inner_text() == found[0]
    assert page.locator(".badge", has_text="Discovered topic").is_visible()
    page.locator(".card a").first.click()
    page.wait_for_load_state()
    assert "grouped automatically with papers it resembles" in page.locator(".why").inner_text()


@pytest.mark.parametrize("path", ["index.html", "topics/index.html", "topic", "paper"])
def test_pages_with_discovered_topics_have_no_axe_violations(themed, fields_site, axe_source,  # noqa: F811
                                                             path):
    theme, ctx = themed
    _, url, catalog = fields_site
    topic = next(t for t in catalog.topics if t.discovered)
    path = {"topic": f"topics/{topic.slug}.html",
            "paper": f"papers/{catalog.by_topic[topic.slug][0].id}.html"}.get(path, path)
    page = ctx.new_page()
    page.goto(url + path)
    violations = run_axe(page, axe_source)
    assert not violations, f"{path} ({theme} theme):\n  " + describe(violations)


def test_pages_with_discovered_topics_are_valid_html(fields_site):
    folder, _, catalog = fields_site
    topics = [folder / "topics" / f"{t.slug}.html" for t in catalog.topics if t.discovered]
    papers = [folder / "papers" / f"{p.id}.html" for p in catalog.papers]
    errors = _vnu([folder / "index.html", folder / "topics" / "index.html", *topics, *papers])
    assert not errors, _describe(errors, folder)
