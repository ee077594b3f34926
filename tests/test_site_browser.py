"""The built site in real headless Chromium, served over HTTP below /catalog/.

One browser is shared by the whole module; each test opens its own context.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser import RECORD_VIOLATIONS, csp_violations

pytest_plugins = ["tests.conftest_browser"]
pytestmark = pytest.mark.browser

PHONE = {"width": 360, "height": 740}
VENUE = "icml-2025"
VENUE_LABEL = "ICML 2025"


def squash(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def page_types(site_papers: list[dict[str, Any]]) -> dict[str, str]:
    """One page of each kind, as site-relative paths."""
    first = site_papers[0]
    return {
        "home": "index.html",
        "venues index": "venues/index.html",
        "topics index": "topics/index.html",
        "search": "search/index.html",
        "venue": f"venues/{VENUE}.html",
        "topic": f"topics/{first['topics'][0]}.html",
        "paper": first["url"],
        # the paper with the longest unbroken text (a URL in its abstract) is the likeliest to overflow
        "paper with links": max(site_papers, key=lambda p: max((len(u) for u in p["links"]), default=0))["url"],
        "what's new": "new/index.html",
        "map": "map/index.html",
        "stats": "stats/index.html",
    }


@pytest.fixture
def context(chromium) -> Iterator[Any]:
    ctx = chromium.new_context()
    yield ctx
    ctx.close()


@pytest.fixture
def phone(chromium) -> Iterator[Any]:
    ctx = chromium.new_context(viewport=PHONE)
    yield ctx
    ctx.close()


def open_page(ctx: Any, url: str) -> Any:
    page = ctx.new_page()
    resp = page.goto(url)
    assert resp is not None and resp.status == 200, f"{url}: HTTP {resp.status if resp else '?'}"
    return page


# --- (a) no horizontal overflow on a phone -------------------------------------------------------

OVERFLOW_JS = """() => {
  const root = document.documentElement;
  const width = root.clientWidth;
  const name = el => el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).trim().split(/\\s+/).join('.') : '');
  const wide = [];
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > width + 0.5) wide.push(name(el) + ' ends at ' + Math.round(r.right) + 'px');
    else if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX === 'visible')
      wide.push(name(el) + ' content is ' + el.scrollWidth + 'px wide in ' + el.clientWidth + 'px');
  }
  return {scrollWidth: root.scrollWidth, clientWidth: width, wide: wide.slice(0, 5)};
}"""


@pytest.mark.parametrize("kind", ["home", "venue", "topic", "paper", "paper with links",
                                  "venues index", "topics index", "search", "what's new", "404",
                                  "map", "stats"])
def test_no_horizontal_overflow_on_a_phone(phone, site_url, page_types, kind):
    page = phone.new_page()
    page.goto(site_url + page_types.get(kind, "no/such/page.html"))
    found = page.evaluate(OVERFLOW_JS)
    assert found["scrollWidth"] <= found["clientWidth"], (
        f"{kind} ({page_types[kind]}) scrolls sideways at {PHONE['width']}px: "
        f"scrollWidth {found['scrollWidth']} > clientWidth {found['clientWidth']}; "
        f"too wide: {found['wide']}")


# --- (b) the site works without JavaScript -------------------------------------------------------


def test_click_path_without_javascript(chromium, site_url, site_papers):
    by_url = {p["url"]: p for p in site_papers}
    ctx = chromium.new_context(java_script_enabled=False)
    try:
        page = open_page(ctx, site_url + "index.html")
        main = page.get_by_role("main")
        venues = main.get_by_role("region", name="Venues")
        for label in sorted({p["venue"] for p in site_papers}):
            assert venues.get_by_role("link", name=re.compile(rf"^{re.escape(label)}\b")).count() == 1, label

        # home -> venue
        venues.get_by_role("link", name=re.compile(rf"^{VENUE_LABEL}\b")).click()
        assert page.url == f"{site_url}venues/{VENUE}.html"
        assert squash(page.get_by_role("heading", level=1).inner_text()) == VENUE_LABEL

        # venue -> its first paper
        first = page.get_by_role("main").get_by_role("heading", level=3).first.get_by_role("link")
        title = squash(first.inner_text())
        first.click()
        paper = by_url.get(page.url.removeprefix(site_url))
        assert paper is not None, f"{page.url} is not a paper of papers.json"
        assert VENUE in paper["venues"]
        assert squash(page.get_by_role("heading", level=1).inner_text()) == title == squash(paper["title"])
        abstract = page.get_by_role("region", name="Abstract")
        assert squash(paper["text"]) in squash(abstract.inner_text())  # the abstract as rendered
        assert abstract.is_visible()

        # paper -> its first topic chip
        chip = page.get_by_role("list", name="Topics").get_by_role("link").first
        topic_name = squash(chip.inner_text())
        chip.click()
        assert page.url == f"{site_url}topics/{paper['topics'][0]}.html"
        assert squash(page.get_by_role("heading", level=1).inner_text()) == topic_name

        # the browser's Back button and forward again
        page.go_back()
        assert page.url == site_url + paper["url"]
        page.go_forward()
        assert page.url == f"{site_url}topics/{paper['topics'][0]}.html"

        # topic -> back to the paper, by its title in the topic's list
        page.get_by_role("main").get_by_role("link", name=title, exact=True).first.click()
        assert page.url == site_url + paper["url"]
        assert squash(page.get_by_role("heading", level=1).inner_text()) == title
        assert squash(paper["text"]) in squash(page.get_by_role("region", name="Abstract").inner_text())
    finally:
        ctx.close()


# --- (c) semantic structure ----------------------------------------------------------------------

HEADINGS_JS = """() => Array.from(document.querySelectorAll('h1,h2,h3,h4,h5,h6,[role=heading]'))
  .filter(h => !h.closest('[hidden],[aria-hidden=true]'))
  .map(h => [h.getAttribute('aria-level') ? +h.getAttribute('aria-level') : +h.tagName[1],
             h.textContent.trim().slice(0, 60)])"""

UNNAMED_JS = """() => Array.from(document.querySelectorAll('a[href]'))
  .filter(a => !a.textContent.trim() && !(a.getAttribute('aria-label') || '').trim()
               && !a.querySelector('img[alt]:not([alt=""])'))
  .map(a => a.getAttribute('href'))"""


@pytest.mark.parametrize("kind", ["home", "venue", "topic", "paper", "venues index", "topics index",
                                  "search", "map", "stats"])
def test_semantic_structure(context, site_url, page_types, kind):
    page = open_page(context, site_url + page_types[kind])
    where = f"{kind} ({page_types[kind]})"

    lang = page.locator("html").get_attribute("lang")
    assert lang and lang.strip(), f"{where}: <html> has no lang"

    for role, at_least, at_most in [("banner", 1, 1), ("navigation", 1, None), ("main", 1, 1),
                                    ("contentinfo", 1, 1)]:
        n = page.get_by_role(role).count()
        assert n >= at_least and (at_most is None or n <= at_most), f"{where}: {n} {role} landmark(s)"

    headings = page.evaluate(HEADINGS_JS)
    levels = [level for level, _ in headings]
    assert levels.count(1) == 1, f"{where}: {levels.count(1)} h1 elements; expected exactly one"
    assert levels[0] == 1, f"{where}: the first heading is h{levels[0]}, not the h1"
    skips = [f"h{a} {ta!r} -> h{b} {tb!r}" for (a, ta), (b, tb) in zip(headings, headings[1:]) if b > a + 1]
    assert not skips, f"{where}: heading levels skip: {skips[:3]}"

    anchors = page.locator("a[href]").count()
    in_tree = page.get_by_role("link").count()  # Playwright's role engine: hidden links are left out
    named = page.get_by_role("link", name=re.compile(r"\S")).count()  # accessible name, not just text
    assert anchors > 0
    suspects = page.evaluate(UNNAMED_JS)
    assert named == in_tree, f"{where}: {in_tree - named} link(s) without an accessible name: {suspects[:5]}"
    assert in_tree == anchors, f"{where}: {anchors - in_tree} link(s) hidden from assistive technology"


# --- (d) the pager follows the listing order ------------------------------------------------------


def test_next_follows_the_listing_order(context, site_url, site_papers):
    order = [p for p in site_papers if VENUE in p["venues"]]
    assert len(order) > 2
    page = open_page(context, site_url + order[0]["url"])
    pager = page.get_by_role("navigation", name=f"More papers in {VENUE_LABEL}")
    assert pager.get_by_role("link", name=re.compile(r"^Previous\b")).count() == 0, "the first has no Previous"
    for n, (here, there) in enumerate(zip(order, order[1:]), start=1):
        assert f"Paper {n} of {len(order)}" in squash(pager.inner_text()), here["url"]
        pager.get_by_role("link", name=re.compile(r"^Next\b")).click()
        assert page.url == site_url + there["url"], f"Next on {here['url']} went to {page.url}"
        assert squash(page.get_by_role("heading", level=1).inner_text()) == squash(there["title"])
    assert pager.get_by_role("link", name=re.compile(r"^Next\b")).count() == 0, "the last has no Next"
    # and one step back
    pager.get_by_role("link", name=re.compile(r"^Previous\b")).click()
    assert page.url == site_url + order[-2]["url"]


# --- (c) every page keeps to its Content-Security-Policy -------------------------------------------

REQUIRED_CSP = ["default-src 'self'", "object-src 'none'", "base-uri 'self'"]


@pytest.mark.parametrize("kind", ["home", "venue", "topic", "paper", "venues index", "topics index",
                                  "search", "what's new", "404", "map", "stats"])
def test_every_page_works_under_its_content_security_policy(chromium, site_url, page_types, kind):
    ctx = chromium.new_context()
    ctx.add_init_script(RECORD_VIOLATIONS)
    errors: list[str] = []
    try:
        page = ctx.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(site_url + page_types.get(kind, "no/such/deep/page.html"))
        policy = page.get_attribute('meta[http-equiv="Content-Security-Policy"]', "content")
        assert policy and all(d in [p.strip() for p in policy.split(";")] for d in REQUIRED_CSP), policy
        assert page.evaluate("document.querySelectorAll('script:not([src]), [style], style').length") == 0
        # the enhancements run: the stylesheet applies, and search's script answers "/"
        assert page.evaluate("getComputedStyle(document.querySelector('.skip-link')).position") == "absolute"
        if kind == "search":  # the worker starts and fetches the index
            page.fill("#search-q", "agent")
            page.wait_for_selector("#search-results li")
        elif kind != "404":
            page.keyboard.press("/")
            assert page.evaluate("document.activeElement.id") == "site-search-q"
        assert csp_violations(page) == [], f"{kind}: CSP violations"
        assert not [e for e in errors if "404" not in e], f"{kind}: console errors {errors}"
    finally:
        ctx.close()
