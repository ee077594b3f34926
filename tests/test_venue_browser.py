"""The venue page's topic filter and title sort (static/venue.js) in headless Chromium.

Without JavaScript the page lists every paper and shows no controls; with it, the controls filter
and sort the cards the page already has, and the state lives in the URL.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.browser import RECORD_VIOLATIONS, csp_violations

pytest_plugins = ["tests.conftest_browser"]
pytestmark = pytest.mark.browser

VENUE = "icml-2025"
PHONE = {"width": 360, "height": 740}
# The visible cards, in the order a reader sees them.
VISIBLE_CARDS_JS = """() => Array.from(document.querySelectorAll('main li.card'))
  .filter(li => li.offsetParent !== null)
  .map(li => ({href: li.querySelector('h3 a').getAttribute('href'), title: li.dataset.title,
               position: +li.dataset.position}))"""
OVERFLOW_JS = "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"


def squash(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def venue_papers(site_papers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The venue's papers from papers.json, in listing order."""
    papers = [p for p in site_papers if VENUE in p["venues"]]
    assert len(papers) > 10
    return papers


@pytest.fixture(scope="module")
def venue_url(site_url: str) -> str:
    return f"{site_url}venues/{VENUE}.html"


@pytest.fixture
def page(chromium) -> Iterator[Any]:
    """A page that records console errors, uncaught exceptions and CSP violations."""
    ctx = chromium.new_context()
    ctx.add_init_script(RECORD_VIOLATIONS)
    page = ctx.new_page()
    page.errors = []
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.on("response", lambda r: page.errors.append(f"{r.status} for {r.url}") if r.status >= 400 else None)
    yield page
    try:
        assert csp_violations(page) == [], "CSP violations"
        assert page.errors == [], f"console errors: {page.errors}"
    finally:
        ctx.close()


def hrefs_to_urls(cards: list[dict[str, Any]]) -> list[str]:
    """Site-relative paper URLs of the cards (their links are relative to venues/)."""
    return [c["href"].removeprefix("../") for c in cards]


def state(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query)


def test_without_javascript_the_full_list_is_there_and_no_controls(chromium, venue_url, venue_papers):
    ctx = chromium.new_context(java_script_enabled=False)
    try:
        page = ctx.new_page()
        page.goto(venue_url)
        assert page.locator("#venue-controls").is_hidden()
        assert page.get_by_role("combobox").count() == 0
        assert page.locator("#venue-flat").is_hidden()
        cards = page.evaluate(VISIBLE_CARDS_JS)
        assert sorted(hrefs_to_urls(cards)) == sorted(p["url"] for p in venue_papers)
        # grouped by main topic, listing order within each group, numbered by listing position
        by_url = {p["url"]: n for n, p in enumerate(venue_papers, start=1)}
        assert all(by_url[u] == c["position"] for u, c in zip(hrefs_to_urls(cards), cards))
    finally:
        ctx.close()


def test_controls_are_revealed_labelled_and_count_all(page, venue_url, venue_papers):
    page.goto(venue_url)
    controls = page.get_by_role("form", name="Filter and sort papers")
    assert controls.is_visible()
    topic = page.get_by_label("Topic", exact=True)
    order = page.get_by_label("Order", exact=True)
    assert topic.is_visible() and order.is_visible()
    status = page.get_by_role("status")
    assert status.get_attribute("aria-live") == "polite"
    n = len(venue_papers)
    assert squash(status.inner_text()) == f"{n} of {n} papers"
    assert len(page.evaluate(VISIBLE_CARDS_JS)) == n
    assert page.url == venue_url  # the default state adds nothing to the URL


def test_every_topic_filters_to_exactly_its_papers(page, venue_url, venue_papers):
    page.goto(venue_url)
    options = page.locator("#venue-topic option").evaluate_all("os => os.map(o => [o.value, o.textContent])")
    slugs = [value for value, _ in options if value]
    # every topic of every paper (not only the main one) is offered, each with its count
    assert set(slugs) == {t for p in venue_papers for t in p["topics"]}
    n = len(venue_papers)
    for slug in slugs:
        page.select_option("#venue-topic", slug)
        expected = [p["url"] for p in venue_papers if slug in p["topics"]]
        shown = hrefs_to_urls(page.evaluate(VISIBLE_CARDS_JS))
        assert sorted(shown) == sorted(expected), slug
        assert squash(page.get_by_role("status").inner_text()) == f"{len(expected)} of {n} papers", slug
        label = dict(options)[slug]
        assert label.endswith(f"({len(expected)})"), label
        assert state(page.url) == {"topic": [slug]}
        # no empty group is left on screen, and the groups' counts are what they show
        for section in page.locator("section.venue-group:visible").all():
            shown_here = section.locator("li.card:visible").count()
            assert shown_here > 0
            assert squash(section.locator("h2 .count").inner_text()) == str(shown_here)


def test_sorting_by_title_gives_one_list_in_locale_order(page, venue_url, venue_papers):
    page.goto(venue_url)
    page.get_by_label("Order", exact=True).select_option("title")
    assert page.locator("section.venue-group:visible").count() == 0
    assert page.locator("#venue-flat").is_visible()
    assert page.locator("main .toc").is_hidden()
    cards = page.evaluate(VISIBLE_CARDS_JS)
    assert sorted(hrefs_to_urls(cards)) == sorted(p["url"] for p in venue_papers)
    titles = {p["url"]: squash(p["title"]) for p in venue_papers}
    shown = [titles[u] for u in hrefs_to_urls(cards)]
    in_order = page.evaluate(
        """titles => { const c = new Intl.Collator(document.documentElement.lang, {numeric: true});
                       return titles.every((t, i) => i === 0 || c.compare(titles[i - 1], t) <= 0); }""",
        shown)
    assert in_order, shown
    assert state(page.url) == {"sort": ["title"]}

    # sorted and filtered together; then listing order brings the groups back
    page.get_by_label("Topic", exact=True).select_option("reasoning")
    expected = [p for p in venue_papers if "reasoning" in p["topics"]]
    cards = page.evaluate(VISIBLE_CARDS_JS)
    assert [titles[u] for u in hrefs_to_urls(cards)] == [
        t for t in shown if t in {squash(p["title"]) for p in expected}]
    page.get_by_label("Order", exact=True).select_option("")
    assert page.locator("#venue-flat").is_hidden()
    assert page.locator("main .toc").is_visible()
    regrouped = page.evaluate(VISIBLE_CARDS_JS)
    assert sorted(hrefs_to_urls(regrouped)) == sorted(p["url"] for p in expected)
    for section in page.locator("section.venue-group:visible").all():
        positions = [int(p) for p in section.locator("li.card:visible").evaluate_all(
            "cs => cs.map(c => c.dataset.position)")]
        assert positions == sorted(positions)


def test_the_url_keeps_the_state_through_reload_and_back(page, venue_url, venue_papers):
    page.goto(venue_url)
    page.get_by_label("Topic", exact=True).select_option("agents")
    page.get_by_label("Order", exact=True).select_option("title")
    assert state(page.url) == {"topic": ["agents"], "sort": ["title"]}
    n_agents = sum("agents" in p["topics"] for p in venue_papers)
    n = len(venue_papers)

    page.reload()
    assert page.locator("#venue-topic").input_value() == "agents"
    assert page.locator("#venue-sort").input_value() == "title"
    assert page.locator("#venue-flat").is_visible()
    assert len(page.evaluate(VISIBLE_CARDS_JS)) == n_agents
    assert squash(page.get_by_role("status").inner_text()) == f"{n_agents} of {n} papers"

    page.go_back()  # to ?topic=agents, grouped
    assert state(page.url) == {"topic": ["agents"]}
    assert page.locator("#venue-sort").input_value() == ""
    assert page.locator("#venue-flat").is_hidden()
    assert len(page.evaluate(VISIBLE_CARDS_JS)) == n_agents
    page.go_back()  # to the plain page
    assert page.url == venue_url
    assert page.locator("#venue-topic").input_value() == ""
    assert len(page.evaluate(VISIBLE_CARDS_JS)) == n
    assert squash(page.get_by_role("status").inner_text()) == f"{n} of {n} papers"

    # a shared link opens in that state; an unknown topic is ignored and dropped from the URL
    page.goto(venue_url + "?topic=reasoning&sort=title")
    assert len(page.evaluate(VISIBLE_CARDS_JS)) == sum("reasoning" in p["topics"] for p in venue_papers)
    page.goto(venue_url + "?topic=no-such-topic")
    assert page.url == venue_url
    assert len(page.evaluate(VISIBLE_CARDS_JS)) == n


def test_the_controls_work_from_the_keyboard(page, venue_url, venue_papers):
    page.goto(venue_url)
    topic = page.locator("#venue-topic")
    topic.focus()
    page.keyboard.press("ArrowDown")  # a closed select: the next option, and a change event
    first = page.locator("#venue-topic option").nth(1).get_attribute("value")
    assert topic.input_value() == first
    assert page.evaluate("document.activeElement.id") == "venue-topic"  # focus stays put
    expected = sum(first in p["topics"] for p in venue_papers)
    assert re.fullmatch(rf"{expected} of {len(venue_papers)} papers", squash(page.get_by_role("status").inner_text()))
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "venue-sort"


def test_no_horizontal_overflow_on_a_phone_with_the_controls(chromium, venue_url):
    ctx = chromium.new_context(viewport=PHONE)
    try:
        page = ctx.new_page()
        for query in ["", "?topic=efficiency", "?topic=efficiency&sort=title"]:
            page.goto(venue_url + query)
            assert page.locator("#venue-controls").is_visible()
            width, client = page.evaluate(OVERFLOW_JS)
            assert width <= client, f"{query or 'default'}: scrolls sideways at {PHONE['width']}px ({width} > {client})"
    finally:
        ctx.close()
