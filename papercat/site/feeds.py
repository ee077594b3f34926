"""Atom feeds of the newest papers: the whole catalog, each venue and each topic."""

from __future__ import annotations

from typing import Any

from . import urls
from ..content.history import News
from ..model import Catalog, Paper
from .render import Page

# A feed carries the newest papers only: a reader polls it for what arrived, and 20,000 entries
# would be a 30 MB download. The catalog itself is in papers.json.
FEED_ENTRIES = 100


def entry_date(paper: Paper, news: News) -> str:
    """Return when a paper arrived, as Atom wants it: the listing's date, else 1 January of its year."""
    arrival = news.arrival.get(paper.id)
    day = arrival.date if arrival and arrival.date else f"{paper.year:04d}-01-01"
    return f"{day}T00:00:00Z"


def feed_pages(catalog: Catalog, news: News, site_title: str) -> list[Page]:
    """Return one feed per catalog, venue and topic, each with its newest papers first."""
    rank = {pid: i for i, pid in enumerate(news.order)}

    def newest(papers: tuple[Paper, ...]) -> list[Paper]:
        return sorted(papers, key=lambda p: (rank.get(p.id, len(rank)), p.id))

    feeds = [_feed(urls.FEED, urls.WHATS_NEW, f"{site_title}: newest papers",
                   "The papers of the listings added most recently.", newest(catalog.papers), news)]
    for venue in catalog.venues:
        members = newest(catalog.by_venue[venue.slug])
        feeds.append(_feed(urls.venue_feed_path(venue.slug), urls.venue_path(venue.slug),
                           f"{venue.label} · {site_title}", f"The newest papers of {venue.label}.", members, news))
    for topic in catalog.topics:
        members = newest(catalog.by_topic[topic.slug])
        feeds.append(_feed(urls.topic_feed_path(topic.slug), urls.topic_path(topic.slug),
                           f"{topic.name} · {site_title}", f"The newest papers on {topic.name}.", members, news))
    return feeds


def _feed(path: str, page: str, title: str, subtitle: str, papers: list[Paper], news: News) -> Page:
    entries = [(p, entry_date(p, news)) for p in papers[:FEED_ENTRIES]]
    context: dict[str, Any] = {
        "feed_path": path, "page": page, "title": title, "subtitle": subtitle, "entries": entries,
        # The feed changed when its newest entry did: the latest date among its entries.
        "updated": max((date for _, date in entries), default="1970-01-01T00:00:00Z"),
    }
    return Page(path, "feed.xml", context, source=f"feed {path}")
