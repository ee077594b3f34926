"""Where each page lives in the site, and relative links that work under any base path."""

from __future__ import annotations

import re

HOME = "index.html"
VENUES = "venues/index.html"
TOPICS = "topics/index.html"
SEARCH = "search/index.html"
SEARCH_DIR = "search"  # the search index's files (search.py), beside its page
WHATS_NEW = "new/index.html"
MAP = "map/index.html"
STATS = "stats/index.html"
NOT_FOUND = "404.html"
SITEMAP = "sitemap.xml"
ROBOTS = "robots.txt"
NOJEKYLL = ".nojekyll"  # tells GitHub Pages to publish the folder as it is, with no Jekyll step
FEED = "feeds/all.xml"
PAPERS_JSON = "papers.json"

# An absolute http(s) URL of a folder: a host, an optional port and path, no query or fragment.
BASE_URL = re.compile(r"^https?://[A-Za-z0-9.-]+(?::[0-9]{1,5})?(?:/[^\s?#]*)?$")


def normalise_base_url(url: str) -> str:
    """Return ``url`` ending in exactly one slash: "https://x.io/repo" -> "https://x.io/repo/"."""
    return url.rstrip("/") + "/"


def base_path(base_url: str | None) -> str:
    """Return the path part of the base URL, "/repo/" (or "/" for a root or local site)."""
    if not base_url:
        return "/"
    rest = base_url.split("://", 1)[1]
    return "/" + rest.partition("/")[2]


def absolute(base_url: str, target: str) -> str:
    """Return the absolute URL of the site-relative ``target``; "index.html" becomes the folder."""
    return base_url + pretty(target)


def pretty(target: str) -> str:
    """Return ``target`` with a trailing "index.html" cut: the form a host serves and users share."""
    if target == HOME:
        return ""
    return target[: -len(HOME)] if target.endswith("/" + HOME) else target


def paper_path(paper_id: str) -> str:
    """Return the path of a paper's page; it depends on the id alone, so it never moves."""
    return f"papers/{paper_id}.html"


def venue_path(slug: str) -> str:
    """Return the path of a venue's page."""
    return f"venues/{slug}.html"


def topic_path(slug: str) -> str:
    """Return the path of a topic's page."""
    return f"topics/{slug}.html"


def venue_feed_path(slug: str) -> str:
    """Return the path of a venue's Atom feed."""
    return f"feeds/venues/{slug}.xml"


def topic_feed_path(slug: str) -> str:
    """Return the path of a topic's Atom feed."""
    return f"feeds/topics/{slug}.xml"


def relative(from_page: str, target: str) -> str:
    """Return a link from the page at ``from_page`` to ``target`` (both site-relative paths)."""
    folder = from_page.rpartition("/")[0]  # posixpath.dirname's result for a normalised path, with less work
    if "/" not in folder and target and "#" not in target:
        # Every page of the site is in its root or one folder down: a link cuts that folder off a
        # target inside it or climbs out of it, with far less work than _relpath (a big page meets
        # 20,000 links for the first time).
        if not folder:
            return target
        return target[len(folder) + 1:] if target.startswith(folder + "/") else "../" + target
    target, hash_, fragment = target.partition("#")
    return f"{_relpath(target, folder)}{hash_}{fragment}" if target else f"{hash_}{fragment}"


def _relpath(target: str, folder: str) -> str:
    """Return ``posixpath.relpath(target, folder)`` for site-relative paths, without its getcwd() per call."""
    # Both are normalised paths below the site's root (no "..", no leading "/"): drop the shared
    # folders, climb out of the rest of ``folder`` and go down into the rest of ``target``.
    parts, base = target.split("/"), folder.split("/") if folder else []
    shared = 0
    while shared < min(len(base), len(parts) - 1) and base[shared] == parts[shared]:
        shared += 1
    return "/".join([".."] * (len(base) - shared) + parts[shared:])
