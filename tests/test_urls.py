"""Page paths and links: relative links that work under any base path, and absolute URLs."""

from __future__ import annotations

import itertools
import posixpath

import pytest

from papercat.site import urls

PAGES = ["index.html", "venues/index.html", "venues/icml-2025.html", "papers/abc.html", "search/index.html",
         "new/index.html", "a/b/c/d.html", "feeds/topics/x.xml", "static/style.css", "papers.json",
         "venuesx/a.html", "papers/x/y.html"]


@pytest.mark.parametrize("source, target", list(itertools.product(PAGES, PAGES)))
def test_relative_links_match_posixpath(source, target):
    expected = posixpath.relpath(target, posixpath.dirname(source) or ".")
    assert urls.relative(source, target) == expected
    assert urls.relative(source, target + "#frag") == expected + "#frag"
    assert posixpath.normpath(posixpath.join(posixpath.dirname(source), urls.relative(source, target))) == target


def test_a_fragment_alone_stays_on_the_page():
    assert urls.relative("papers/a.html", "#top") == "#top"


@pytest.mark.parametrize("base_url, path", [("https://u.github.io/repo/", "/repo/"), ("https://x.org/", "/"),
                                            (None, "/"), ("http://127.0.0.1:8000/a/b/", "/a/b/")])
def test_base_path(base_url, path):
    assert urls.base_path(base_url) == path


def test_absolute_urls_use_the_folder_for_an_index_page():
    base = "https://u.github.io/repo/"
    assert urls.absolute(base, "index.html") == base
    assert urls.absolute(base, "venues/index.html") == base + "venues/"
    assert urls.absolute(base, "papers/abc.html") == base + "papers/abc.html"
    assert urls.normalise_base_url("https://u.github.io/repo//") == base


@pytest.mark.parametrize("url, ok", [("https://u.github.io/repo/", True), ("http://localhost:8000", True),
                                     ("ftp://x.org/", False), ("https://x.org/?q=1", False),
                                     ("https://x.org/#top", False), ("//x.org/", False), ("x.org", False)])
def test_base_url_pattern(url, ok):
    assert bool(urls.BASE_URL.match(url)) == ok
