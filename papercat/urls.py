"""Where each page lives in the site, and relative links that work under any base path."""

from __future__ import annotations

import posixpath

HOME = "index.html"
VENUES = "venues/index.html"
TOPICS = "topics/index.html"
SEARCH = "search/index.html"
PAPERS_JSON = "papers.json"


def paper_path(paper_id: str) -> str:
    """Return the path of a paper's page; it depends on the id alone, so it never moves."""
    return f"papers/{paper_id}.html"


def venue_path(slug: str) -> str:
    """Return the path of a venue's page."""
    return f"venues/{slug}.html"


def topic_path(slug: str) -> str:
    """Return the path of a topic's page."""
    return f"topics/{slug}.html"


def relative(from_page: str, target: str) -> str:
    """Return a link from the page at ``from_page`` to ``target`` (both site-relative paths)."""
    target, hash_, fragment = target.partition("#")
    link = posixpath.relpath(target, posixpath.dirname(from_page) or ".") if target else ""
    return f"{link}{hash_}{fragment}"
