"""Light and dark themes, the header toggle and the print stylesheet, in headless Chromium.

The theme follows the OS (prefers-color-scheme) through CSS alone; static/theme.js, loaded before
the stylesheet, applies a choice stored in localStorage before the first paint and wires the toggle.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser import RECORD_VIOLATIONS, csp_violations

pytest_plugins = ["tests.conftest_browser"]
pytestmark = pytest.mark.browser

KEY = "papercat-theme"
LIGHT_BG = "rgb(255, 255, 255)"
DARK_BG = "rgb(21, 25, 31)"  # --bg of the dark theme, #15191f
BACKGROUND_JS = "() => getComputedStyle(document.body).backgroundColor"
# Runs in the page before any of its scripts (after a stored theme is set, as an earlier visit
# would have) and records the body's background in the first animation frame that has a body.
# A frame's rAF callbacks run just before it is painted: this is what the first paint shows.
FIRST_PAINT_JS = """
window.__first = null;
(function frame() {
  if (!document.body) { requestAnimationFrame(frame); return; }
  window.__first = {bg: getComputedStyle(document.body).backgroundColor,
                    theme: document.documentElement.dataset.theme || null};
})();
"""


@pytest.fixture(scope="module")
def pages(site_papers: list[dict[str, Any]]) -> dict[str, str]:
    """A few pages of different kinds, as site-relative paths."""
    paper = max(site_papers, key=lambda p: len(p["links"]))  # one with external links, for print
    assert paper["links"], "the bundled catalog has a paper with links"
    return {"home": "index.html", "venue": "venues/icml-2025.html", "paper": paper["url"],
            "search": "search/index.html"}


@pytest.fixture
def context(chromium) -> Iterator[Any]:
    ctx = chromium.new_context(color_scheme="light")
    ctx.add_init_script(RECORD_VIOLATIONS)
    yield ctx
    ctx.close()


def background(page: Any) -> str:
    return page.evaluate(BACKGROUND_JS)


def test_the_toggle_switches_and_the_choice_persists(context, site_url, pages):
    page = context.new_page()
    page.goto(site_url + pages["home"])
    toggle = page.locator("#theme-toggle")
    assert toggle.is_visible() and toggle.get_attribute("aria-pressed") == "false"
    assert background(page) == LIGHT_BG
    toggle.click()
    assert background(page) == DARK_BG
    assert toggle.get_attribute("aria-pressed") == "true"
    assert page.evaluate(f"localStorage.getItem('{KEY}')") == "dark"
    page.reload()  # across a reload
    assert background(page) == DARK_BG and toggle.get_attribute("aria-pressed") == "true"
    for kind in ("venue", "paper"):  # across pages of the same site
        page.goto(site_url + pages[kind])
        assert background(page) == DARK_BG, kind
    page.locator("#theme-toggle").click()  # and back
    assert background(page) == LIGHT_BG
    page.goto(site_url + pages["home"])
    assert background(page) == LIGHT_BG
    assert csp_violations(page) == []


def test_the_stored_choice_overrides_the_os(chromium, site_url, pages):
    ctx = chromium.new_context(color_scheme="dark")
    try:
        page = ctx.new_page()
        page.goto(site_url + pages["paper"])
        assert background(page) == DARK_BG
        assert page.locator("#theme-toggle").get_attribute("aria-pressed") == "true"
        page.locator("#theme-toggle").click()
        assert background(page) == LIGHT_BG
        page.goto(site_url + pages["venue"])
        assert background(page) == LIGHT_BG
        assert page.evaluate("getComputedStyle(document.documentElement).colorScheme") == "light"
    finally:
        ctx.close()


@pytest.mark.parametrize("scheme, expected", [("dark", DARK_BG), ("light", LIGHT_BG)])
def test_without_javascript_the_os_preference_applies_and_no_toggle_shows(chromium, site_url, pages,
                                                                         scheme, expected):
    ctx = chromium.new_context(color_scheme=scheme, java_script_enabled=False)
    try:
        page = ctx.new_page()
        for kind in ("home", "paper"):
            page.goto(site_url + pages[kind])
            assert background(page) == expected, kind
            assert page.locator("#theme-toggle").is_hidden(), f"{kind}: a toggle that cannot work shows"
    finally:
        ctx.close()


@pytest.mark.parametrize("scheme, stored, expected", [("light", "dark", DARK_BG), ("dark", "light", LIGHT_BG)])
def test_no_flash_the_first_paint_uses_the_stored_theme(chromium, site_url, pages, scheme, stored, expected):
    ctx = chromium.new_context(color_scheme=scheme)
    try:
        ctx.add_init_script(f"localStorage.setItem('{KEY}', '{stored}');" + FIRST_PAINT_JS)
        for kind in ("home", "paper"):
            page = ctx.new_page()
            page.goto(site_url + pages[kind], wait_until="commit")
            page.wait_for_function("() => window.__first !== null")
            first = page.evaluate("window.__first")
            assert first == {"bg": expected, "theme": stored}, f"{kind}: first frame {first}"
            page.close()
    finally:
        ctx.close()


def test_theme_script_is_small_and_before_the_stylesheet(site_dir, pages):
    script = site_dir / "static" / "theme.js"
    assert script.stat().st_size <= 1200, "static/theme.js blocks rendering: keep it tiny"
    html = (site_dir / pages["paper"]).read_text(encoding="utf-8")
    head = html[:html.index("</head>")]
    assert head.index("static/theme.js") < head.index("static/style.css")


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("kind", ["home", "venue", "paper", "search"])
def test_no_csp_violations_in_either_theme(chromium, site_url, pages, kind, scheme):
    ctx = chromium.new_context(color_scheme=scheme)
    ctx.add_init_script(RECORD_VIOLATIONS)
    errors: list[str] = []
    try:
        page = ctx.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(site_url + pages[kind])
        page.locator("#theme-toggle").click()
        page.reload()
        assert csp_violations(page) == [], f"{kind} ({scheme}): CSP violations"
        assert errors == [], f"{kind} ({scheme}): {errors}"
    finally:
        ctx.close()


def test_print_hides_the_chrome_and_shows_link_urls(chromium, site_url, pages):
    ctx = chromium.new_context(color_scheme="dark")  # print is black on white whatever the theme
    try:
        ctx.add_init_script(f"localStorage.setItem('{KEY}', 'dark')")
        page = ctx.new_page()
        page.goto(site_url + pages["paper"])
        assert page.locator(".site-header").is_visible()
        page.emulate_media(media="print")
        for selector in (".site-header", ".site-footer", ".pager", "#theme-toggle", ".breadcrumb"):
            assert page.locator(selector).first.is_hidden(), f"{selector} shows in print"
        assert page.get_by_role("heading", level=1).is_visible()
        assert background(page) == LIGHT_BG
        assert page.evaluate("getComputedStyle(document.body).color") == "rgb(0, 0, 0)"
        link = page.locator(".paper-links a").first
        after = link.evaluate("a => getComputedStyle(a, '::after').content")
        assert link.get_attribute("href") in after, after
        internal = page.locator(".related a").first
        assert internal.evaluate("a => getComputedStyle(a, '::after').content") in ("none", "normal")
        assert page.locator(".card, .related li").first.evaluate(
            "el => getComputedStyle(el).breakInside") == "avoid"
    finally:
        ctx.close()
