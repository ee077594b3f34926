"""Search in real headless Chromium: the header box, the search page, its URL state and keyboard use.

The bundled site is served over HTTP below /catalog/ (tests/conftest_browser.py); one browser is
shared by the module and each test opens its own context, which fails the test on any console
error or uncaught exception.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect

from tests.browser import serve

pytest_plugins = ["tests.conftest_browser"]
pytestmark = pytest.mark.browser

SEARCH = "search/index.html"
VENUE, VENUE_LABEL = "icml-2025", "ICML 2025"
OTHER_LABEL = "ICLR 2025"
PHONE = {"width": 360, "height": 740}


# --- fixtures and helpers ------------------------------------------------------------------------


class ConsoleLog:
    """Console errors and uncaught exceptions of every page in a context."""

    def __init__(self, ctx: Any) -> None:
        self.errors: list[str] = []
        ctx.on("console", self._console)
        ctx.on("weberror", lambda error: self.errors.append(f"uncaught: {error.error}"))

    def _console(self, message: Any) -> None:
        # Chromium asks every origin for /favicon.ico; the site has none and does not link one.
        if message.type == "error" and not message.location.get("url", "").endswith("/favicon.ico"):
            self.errors.append(f"{message.location.get('url', '?')}: {message.text}")


@pytest.fixture
def context(chromium) -> Iterator[Any]:
    ctx = chromium.new_context()
    log = ConsoleLog(ctx)
    yield ctx
    ctx.close()
    assert not log.errors, "console errors:\n  " + "\n  ".join(log.errors)


def open_page(ctx: Any, url: str) -> Any:
    page = ctx.new_page()
    resp = page.goto(url)
    assert resp is not None and resp.status == 200, f"{url}: HTTP {resp.status if resp else '?'}"
    return page


def squash(text: str) -> str:
    return " ".join(text.split())


def paper_with(site_papers: list[dict[str, Any]], word: str) -> dict[str, Any]:
    """The one paper whose title holds ``word``."""
    found = [p for p in site_papers if word in p["title"]]
    assert len(found) == 1, f"{word!r} is in {len(found)} titles; expected one"
    return found[0]


def results(page: Any) -> Any:
    return page.locator("#search-results > li")


def result_links(page: Any) -> Any:
    return page.locator("#search-results .result-title a")


def wait_for_results(page: Any, query: str) -> None:
    """Wait until the status line announces results for ``query``, and the list shows some."""
    expect(page.get_by_role("status")).to_have_text(re.compile(rf"^\d+ results? for “{re.escape(query)}”"))
    expect(results(page).first).to_be_visible()


def search_for(page: Any, query: str) -> None:
    box = page.get_by_role("searchbox", name="Search titles and abstracts")
    box.fill("")
    box.press_sequentially(query)  # real key presses: results come as you type, no Enter
    wait_for_results(page, query)


def url_params(page: Any) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


def shown_venues(page: Any) -> list[list[str]]:
    """The venue badges of each result, in order."""
    return [[squash(b) for b in item.locator(".badge").all_inner_texts()] for item in results(page).all()]


# --- the search page finds papers ----------------------------------------------------------------


@pytest.mark.parametrize(("word", "how"), [("GuardAgent", "enter"), ("JuICE", "click"),
                                           ("RWKVQuant", "click")])
def test_a_paper_named_in_the_query_comes_first_and_opens(context, site_url, site_papers, word, how):
    paper = paper_with(site_papers, word)
    page = open_page(context, site_url + SEARCH)
    search_for(page, word)
    first = result_links(page).first
    assert squash(first.inner_text()) == squash(paper["title"])
    assert first.get_attribute("href") == site_url + paper["url"]
    item = results(page).first
    assert any(word.lower() in m.lower() for m in item.locator(".result-snippet mark").all_inner_texts()), (
        f"the snippet of {word} marks no hit: {item.locator('.result-snippet').inner_html()}")
    assert page.url == f"{site_url}{SEARCH}?q={word}", "the query is in the URL while typing"
    assert len(page.workers) == 1, "the engine runs in a Web Worker"

    if how == "enter":
        page.keyboard.press("ArrowDown")
        expect(first).to_be_focused()
        page.keyboard.press("Enter")
    else:
        first.click()
    page.wait_for_url(site_url + paper["url"])
    assert squash(page.get_by_role("heading", level=1).inner_text()) == squash(paper["title"])

    page.go_back()  # the search is still there
    expect(page.get_by_role("searchbox", name="Search titles and abstracts")).to_have_value(word)
    expect(result_links(page).first).to_have_attribute("href", site_url + paper["url"])


def test_results_show_title_venue_topics_and_a_snippet(context, site_url, site_papers):
    page = open_page(context, site_url + SEARCH)
    search_for(page, "agent")
    status = squash(page.get_by_role("status").inner_text())
    total = int(status.split()[0])
    assert status == f"{total} results for “agent”"
    by_url = {site_url + p["url"]: p for p in site_papers}
    topic_names = dict(zip(page.locator("#search-topic option").evaluate_all("os => os.map(o => o.value)"),
                           page.locator("#search-topic option").all_inner_texts()))
    for item in results(page).all():
        link = item.locator(".result-title a")
        paper = by_url[link.get_attribute("href")]
        assert squash(link.inner_text()) == squash(paper["title"])
        assert [squash(b) for b in item.locator(".badge").all_inner_texts()] == [paper["venue"]]
        assert [squash(c) for c in item.locator(".chip").all_inner_texts()] == [
            topic_names[t] for t in paper["topics"]]
        assert squash(item.locator(".result-snippet").inner_text()), f"{paper['id']}: no snippet"
    assert results(page).count() == min(total, 20)
    # a paper may match on its title or topic names alone, but the best ones show their hits
    assert results(page).first.locator(".result-snippet mark").count() >= 1


def test_show_more_results(context, site_url):
    page = open_page(context, site_url + SEARCH)
    search_for(page, "model")
    total = int(page.get_by_role("status").inner_text().split()[0])
    assert total > 40, "a query that matches more than two pages of results"
    assert results(page).count() == 10
    more = page.get_by_role("button", name="Show more results")
    expect(more).to_have_text(f"Show more results (10 of {total} shown)")
    first_ids = result_links(page).evaluate_all("ls => ls.map(a => a.href)")
    more.click()
    expect(results(page)).to_have_count(20)
    expect(result_links(page).nth(10)).to_be_focused()  # the first new result
    assert result_links(page).evaluate_all("ls => ls.map(a => a.href)")[:10] == first_ids
    for shown in range(30, total + 10, 10):
        more.click()
        expect(results(page)).to_have_count(min(shown, total))
    hrefs = result_links(page).evaluate_all("ls => ls.map(a => a.href)")
    assert len(set(hrefs)) == total


def test_stale_answers_are_dropped(context, site_url, site_papers):
    paper = paper_with(site_papers, "RWKVQuant")
    page = open_page(context, site_url + SEARCH)
    box = page.get_by_role("searchbox", name="Search titles and abstracts")
    for query in ["agent", "safety", "graph", "RWKVQuant"]:  # each typed past the debounce
        box.fill(query)
        page.wait_for_timeout(170)
    wait_for_results(page, "RWKVQuant")
    page.wait_for_timeout(400)  # any late reply for an earlier query has arrived by now
    expect(page.get_by_role("status")).to_have_text(re.compile(r"for “RWKVQuant”$"))
    assert result_links(page).first.get_attribute("href") == site_url + paper["url"]


# --- filters and the URL -------------------------------------------------------------------------


def test_the_venue_filter_is_in_the_url_and_back_restores(context, site_url):
    page = open_page(context, site_url + SEARCH)
    search_for(page, "agent")
    before = shown_venues(page)
    assert [OTHER_LABEL] in before, "the unfiltered results span both venues (so the filter bites)"

    page.get_by_label("Venue").select_option(VENUE)
    expect(page).to_have_url(re.compile(r"venue=" + VENUE))
    assert url_params(page) == {"q": ["agent"], "venue": [VENUE]}
    expect(page.get_by_role("status")).to_have_text(re.compile(rf"for “agent” \({VENUE_LABEL}\)$"))
    after = shown_venues(page)
    assert after and all(VENUE_LABEL in venues for venues in after), after
    assert len(after) < len(before)

    page.go_back()
    expect(page).to_have_url(f"{site_url}{SEARCH}?q=agent")
    expect(page.get_by_label("Venue")).to_have_value("")
    expect(page.get_by_role("status")).to_have_text(re.compile(r"results for “agent”$"))
    assert shown_venues(page) == before

    page.go_forward()
    expect(page.get_by_label("Venue")).to_have_value(VENUE)
    expect(page.get_by_role("status")).to_have_text(re.compile(rf"for “agent” \({VENUE_LABEL}\)$"))
    assert shown_venues(page) == after


def test_a_shared_url_restores_the_search(context, site_url, site_papers):
    page = open_page(context, f"{site_url}{SEARCH}?q=agent&venue={VENUE}")
    expect(page.get_by_role("searchbox", name="Search titles and abstracts")).to_have_value("agent")
    expect(page.get_by_label("Venue")).to_have_value(VENUE)
    expect(page.get_by_label("Topic")).to_have_value("")
    wait_for_results(page, "agent")
    venues = shown_venues(page)
    assert venues and all(VENUE_LABEL in v for v in venues)

    topic = next(t for p in site_papers if VENUE in p["venues"] and "agent" in p["abstract"]
                 for t in p["topics"])
    page = open_page(context, f"{site_url}{SEARCH}?q=agent&venue={VENUE}&topic={topic}")
    expect(page.get_by_label("Topic")).to_have_value(topic)
    wait_for_results(page, "agent")


def test_the_topic_filter_restricts_results(context, site_url, site_papers):
    page = open_page(context, site_url + SEARCH)
    search_for(page, "agent")
    topic = next(t for p in site_papers if "agent" in p["abstract"] for t in p["topics"])
    page.get_by_label("Topic").select_option(topic)
    expect(page).to_have_url(re.compile(r"topic=" + topic))
    expect(page.get_by_role("status")).to_have_text(re.compile(r"\)$"))
    by_url = {site_url + p["url"]: p for p in site_papers}
    hrefs = result_links(page).evaluate_all("links => links.map(a => a.href)")
    assert hrefs and all(topic in by_url[h]["topics"] for h in hrefs)


# --- keyboard ------------------------------------------------------------------------------------


def test_slash_focuses_the_header_search_box(context, site_url, site_papers):
    page = open_page(context, site_url + site_papers[0]["url"])
    header = page.get_by_role("banner").get_by_role("searchbox", name="Search papers")
    expect(header).not_to_be_focused()
    page.keyboard.press("/")
    expect(header).to_be_focused()
    assert header.input_value() == "", "the slash is not typed into the box"
    assert page.workers == [], "no search worker on a page that has not been searched from"
    with page.expect_worker():  # typing warms the index up for the search page
        page.keyboard.type("a/b")  # inside the box, "/" is just a character
    assert header.input_value() == "a/b"


def test_arrow_keys_move_through_the_results(context, site_url):
    page = open_page(context, site_url + SEARCH)
    box = page.get_by_role("searchbox", name="Search titles and abstracts")
    page.get_by_role("heading", level=1).click()
    page.keyboard.press("/")  # on the search page, "/" goes to its own box
    expect(box).to_be_focused()
    search_for(page, "agent")
    links = result_links(page)
    assert links.count() >= 3
    assert links.evaluate_all("ls => ls.map(a => a.tabIndex)") == [0] + [-1] * (links.count() - 1), (
        "the results are one Tab stop (roving tabindex)")

    page.keyboard.press("ArrowDown")
    expect(links.nth(0)).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(links.nth(1)).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(links.nth(2)).to_be_focused()
    assert links.evaluate_all("ls => ls.map(a => a.tabIndex)")[:3] == [-1, -1, 0]
    page.keyboard.press("ArrowUp")
    expect(links.nth(1)).to_be_focused()
    outline = links.nth(1).evaluate(
        "a => { const s = getComputedStyle(a); return `${s.outlineStyle} ${s.outlineWidth}`; }")
    assert outline.startswith("solid") and not outline.endswith(" 0px"), f"no visible focus: {outline}"
    page.keyboard.press("Escape")
    expect(box).to_be_focused()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowUp")
    expect(box).to_be_focused()

    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    href = links.nth(1).get_attribute("href")
    page.keyboard.press("Enter")
    page.wait_for_url(href)


def test_the_header_form_submits_to_the_search_page(context, site_url, site_papers):
    paper = paper_with(site_papers, "GuardAgent")
    page = open_page(context, site_url + site_papers[-1]["url"])
    header = page.get_by_role("search", name="Site")
    header.get_by_role("searchbox").fill("GuardAgent")
    header.get_by_role("searchbox").press("Enter")
    page.wait_for_url(f"{site_url}{SEARCH}?q=GuardAgent")
    expect(page.get_by_role("searchbox", name="Search titles and abstracts")).to_have_value("GuardAgent")
    wait_for_results(page, "GuardAgent")
    assert result_links(page).first.get_attribute("href") == site_url + paper["url"]


# --- without JavaScript, without a Worker, from a file ---------------------------------------------


def test_without_javascript_the_search_page_says_so_and_links_the_indexes(chromium, site_url):
    ctx = chromium.new_context(java_script_enabled=False)
    try:
        page = open_page(ctx, site_url + "index.html")
        header = page.get_by_role("search", name="Site")
        header.get_by_role("searchbox").fill("agent")
        header.get_by_role("button", name="Search").click()
        page.wait_for_url(f"{site_url}{SEARCH}?q=agent")
        notice = page.locator(".search-noscript")
        expect(notice).to_be_visible()
        assert "Search needs JavaScript" in notice.inner_text()
        expect(page.locator("#search-form")).to_be_hidden()  # controls that could do nothing
        notice.get_by_role("link", name="venue").click()
        page.wait_for_url(site_url + "venues/index.html")
        page.go_back()
        page.locator(".search-noscript").get_by_role("link", name="topic").click()
        page.wait_for_url(site_url + "topics/index.html")
    finally:
        ctx.close()


def test_without_a_worker_the_engine_runs_on_the_page(chromium, site_url, site_papers):
    paper = paper_with(site_papers, "JuICE")
    ctx = chromium.new_context()
    log = ConsoleLog(ctx)
    try:
        ctx.route(re.compile(r"/static/search-worker\.js$"), lambda route: route.fulfill(status=404, body=""))
        page = open_page(ctx, site_url + SEARCH)
        search_for(page, "JuICE")
        assert result_links(page).first.get_attribute("href") == site_url + paper["url"]
        assert page.evaluate("typeof window.PapercatSearch") == "object", "the engine runs on the page"
        assert page.workers == []
    finally:
        ctx.close()
    unexpected = [e for e in log.errors if "search-worker.js" not in e]
    assert not unexpected, unexpected


def test_from_a_file_the_search_page_explains_what_to_do(chromium, site_dir):
    ctx = chromium.new_context()
    try:
        page = ctx.new_page()
        page.goto((site_dir / SEARCH).as_uri() + "?q=agent")
        message = page.locator("#search-message")
        expect(message).to_be_visible()
        text = squash(message.inner_text())
        assert "opened from a file" in text and "python3 -m http.server" in text, text
        expect(message.get_by_role("link", name="venue")).to_have_attribute(
            "href", (site_dir / "venues" / "index.html").as_uri())
        expect(page.get_by_role("status")).to_have_text("Search is not available.")
    finally:
        ctx.close()


# --- a strict Content-Security-Policy -------------------------------------------------------------

CSP = ("default-src 'none'; script-src 'self'; worker-src 'self'; connect-src 'self'; style-src 'self'; "
       "img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")


def test_search_works_under_a_strict_content_security_policy(context, site_url, site_papers):
    """No inline script or style, no eval: every response carries a CSP that forbids them."""

    def with_csp(route: Any) -> None:
        response = route.fetch()
        route.fulfill(response=response, headers={**response.headers, "content-security-policy": CSP})

    context.route(re.compile(r"^" + re.escape(site_url)), with_csp)
    paper = paper_with(site_papers, "GuardAgent")
    page = open_page(context, site_url + site_papers[0]["url"])
    assert page.evaluate("document.querySelectorAll('script:not([src]), [style]').length") == 0
    page.keyboard.press("/")
    page.keyboard.type("GuardAgent")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{site_url}{SEARCH}?q=GuardAgent")
    wait_for_results(page, "GuardAgent")
    assert result_links(page).first.get_attribute("href") == site_url + paper["url"]
    assert len(page.workers) == 1
    # the context fixture fails the test on any console error, CSP violations included


# --- hostile text stays text ---------------------------------------------------------------------

HOSTILE = ('Quokkanets make language model agents safe against jailbreak attacks: they handle '
           '<img src=x onerror="window.__pwned=1"> and <script>window.__pwned=1</script> and a '
           'javascript:alert(1) link in the abstracts they read.')
HARMLESS = ("A second and harmless abstract about reinforcement learning for wombats and their burrows, "
            "with a reward model.")


def test_markup_in_an_abstract_is_shown_as_text(chromium, make_content, tmp_path):
    from papercat.pipeline import Paths, build

    content = make_content({"evil.txt": f"ICML 2025 Papers\n\n{HOSTILE}\n\n{HARMLESS}\n"})
    build(Paths(content=content, out=tmp_path / "root" / "catalog"))
    ctx = chromium.new_context()
    log = ConsoleLog(ctx)
    try:
        with serve(tmp_path / "root") as base:
            page = open_page(ctx, f"{base}catalog/{SEARCH}")
            search_for(page, "quokkanets")
            item = results(page).first
            text = item.inner_text()
            markup = ['<img src=x onerror="window.__pwned=1">', "<script>window.__pwned=1</script>"]
            assert any(m in text for m in markup), text
            assert "javascript:alert(1)" in text
            assert page.locator("#search-results img, #search-results script").count() == 0
            assert page.locator('#search-results a[href^="javascript:"]').count() == 0
            assert page.locator(".result-snippet mark").first.inner_text().lower().startswith("quokkanet")
            page.wait_for_timeout(200)
            assert page.evaluate("typeof window.__pwned") == "undefined"
            result_links(page).first.click()  # and the paper page itself
            page.wait_for_load_state()
            assert page.evaluate("typeof window.__pwned") == "undefined"
            assert page.locator("main img").count() == 0
    finally:
        ctx.close()
    assert not log.errors, log.errors


# --- layout --------------------------------------------------------------------------------------

OVERFLOW_JS = """() => {
  const width = document.documentElement.clientWidth;
  const wide = Array.from(document.body.querySelectorAll('*'))
    .filter(el => el.getBoundingClientRect().right > width + 0.5)
    .map(el => el.tagName.toLowerCase() + '.' + el.className);
  return {scrollWidth: document.documentElement.scrollWidth, clientWidth: width, wide: wide.slice(0, 5)};
}"""


def test_search_results_fit_a_phone(chromium, site_url):
    ctx = chromium.new_context(viewport=PHONE)
    try:
        page = open_page(ctx, site_url + SEARCH)
        search_for(page, "agent")
        page.get_by_label("Topic").select_option(index=1)  # the longest option text must fit too
        found = page.evaluate(OVERFLOW_JS)
        assert found["scrollWidth"] <= found["clientWidth"], found
    finally:
        ctx.close()
