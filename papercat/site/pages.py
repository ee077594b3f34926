"""The pages of the site and what each one is given: the catalog laid out as pages."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from markupsafe import Markup

from . import urls
from .bibtex import bibtex_entry
from ..collector import paused_gc
from ..content.config import SiteConfig
from ..content.history import News
from ..memo import Memo
from ..model import Catalog, Paper, Venue
from ..enrich.paper_map import paper_map
from .render import Page
from .stats import catalog_stats

# How many papers of each new listing "What's new" shows (in the listing's order), as the feeds show
# their newest 100: the rest are on the venue's page. A whole conference is thousands of cards.
NEWS_PAPERS = 100


def shared_context(catalog: Catalog, config: SiteConfig) -> dict[str, Any]:
    """Return what every template may use: the site settings and lookups by slug."""
    return {
        "site": config,
        "venues_by_slug": {v.slug: v for v in catalog.venues},
        "topics_by_slug": {t.slug: t for t in catalog.topics},
        "counts": {"papers": len(catalog.papers), "venues": len(catalog.venues),
                   "topics": len(catalog.topics)},
    }


def site_pages(catalog: Catalog, news: News, base_url: str | None = None) -> list[Page]:
    """Return every HTML page of the site, in a fixed order."""
    # Tens of thousands of contexts, all kept: each collection they triggered would walk the catalog's
    # millions of objects again (80 % of the time of site_pages, at 20,000 papers).
    with paused_gc():
        return _site_pages(catalog, news, base_url)


def _site_pages(catalog: Catalog, news: News, base_url: str | None) -> list[Page]:
    by_id = {p.id: p for p in catalog.papers}
    venues = {v.slug: v for v in catalog.venues}
    pages = [
        Page(urls.HOME, "home.html", {"venues": catalog.venues, "topics": catalog.topics,
                                      "by_venue": catalog.by_venue, "by_topic": catalog.by_topic}),
        Page(urls.VENUES, "venues.html", {"venues": catalog.venues, "by_venue": catalog.by_venue}),
        Page(urls.TOPICS, "topics.html", {"topics": catalog.topics, "by_topic": catalog.by_topic}),
        Page(urls.SEARCH, "search.html", {"venues": catalog.venues, "topics": catalog.topics}),
        Page(urls.WHATS_NEW, "whatsnew.html", {"groups": [
            (arrival, venues[slug], [by_id[i] for i in ids[:NEWS_PAPERS]], len(ids))
            for arrival, slug, ids in news.latest]}),
        # The contexts that take work (the map, the statistics, a venue's groups, a paper's) are
        # made where the page renders: in a worker process, mostly, rather than here, before the
        # workers start (0.1 s at 20,000 papers).
        Page(urls.MAP, "map.html", make_context=partial(map_context, catalog)),
        Page(urls.STATS, "stats.html", make_context=partial(stats_context, catalog)),
        # Served for a missing path at any depth: its links start with the site's path.
        Page(urls.NOT_FOUND, "404.html", {"link_base": urls.base_path(base_url)}),
    ]
    pages += [Page(urls.venue_path(venue.slug), "venue.html", source=f"venue {venue.label}",
                   make_context=partial(venue_context, catalog, venue))
              for venue in catalog.venues]
    for topic in catalog.topics:
        pages.append(Page(urls.topic_path(topic.slug), "topic.html",
                          {"topic": topic, "papers": catalog.by_topic[topic.slug]},
                          source=f"topic {topic.slug}"))
    positions = {slug: {p.id: i for i, p in enumerate(papers)} for slug, papers in catalog.by_venue.items()}
    links = Memo(lambda pid: paper_link(by_id[pid]))  # each paper's link made once per process, where it is used
    pages += [Page(urls.paper_path(paper.id), "paper.html", source=str(paper.source),
                   make_context=partial(paper_context, catalog, paper, links, positions, venues))
              for paper in catalog.papers]
    return pages


def map_context(catalog: Catalog) -> dict[str, Any]:
    """Return what the map's page is given."""
    return {"map": paper_map(catalog)}


def stats_context(catalog: Catalog) -> dict[str, Any]:
    """Return what the statistics page is given."""
    return {"stats": catalog_stats(catalog)}


def venue_context(catalog: Catalog, venue: Venue) -> dict[str, Any]:
    """Return what a venue's page is given."""
    groups = venue_groups(catalog, venue.slug)
    return {"venue": venue, "groups": groups, "total": len(catalog.by_venue[venue.slug]),
            "topic_counts": topic_counts(catalog, groups)}


def paper_context(catalog: Catalog, paper: Paper, links: Mapping[str, PaperLink],
                  positions: dict[str, dict[str, int]], venues: dict[str, Venue]) -> dict[str, Any]:
    """Return what a paper's page is given (``links``, ``positions`` and ``venues``: the catalog's
    papers' links by id, and its lookups)."""
    return {"paper": paper, "abstract_html": Markup(paper.html),  # nh3 made it
            "neighbours": neighbours(catalog, paper, positions, links),
            "related": [(links[r.id], r) for r in paper.related],
            "bibtex": citation(paper, catalog, venues)}


@dataclass(frozen=True, slots=True)
class PaperLink:
    """Another paper as a page links to it: what the page shows of it, and no more.

    A paper's page is given its related papers and neighbours as links, not as whole papers: a
    template then shows of them only what every link to a paper shows.
    """

    id: str
    title: str
    venue: str  # the slug of its primary venue


def paper_link(paper: Paper) -> PaperLink:
    return PaperLink(paper.id, paper.title, paper.venue)


def venue_groups(catalog: Catalog, venue_slug: str) -> list[tuple[Any, list[tuple[int, Paper]]]]:
    """Group a venue's papers by first topic (taxonomy order), each with its listing position."""
    by_first: dict[str, list[tuple[int, Paper]]] = {}
    for n, p in enumerate(catalog.by_venue[venue_slug], start=1):
        by_first.setdefault(p.topics[0].slug, []).append((n, p))
    return [(topic, by_first[topic.slug]) for topic in catalog.topics if topic.slug in by_first]


def topic_counts(catalog: Catalog, groups: list[tuple[Any, list[tuple[int, Paper]]]]) -> list[tuple[Any, int]]:
    """Return each topic (taxonomy order) with how many papers of a venue's groups are in it, if any."""
    counts = dict.fromkeys((t.slug for t in catalog.topics), 0)
    for _, members in groups:
        for _, paper in members:
            for slug in set(paper.topic_slugs):
                if slug in counts:
                    counts[slug] += 1
    return [(t, counts[t.slug]) for t in catalog.topics if counts[t.slug]]


@dataclass(frozen=True, slots=True)
class Neighbours:
    """A paper's place in one of its venues (1-based, of ``total``) and the papers before and after it.

    A record, not a dict: a template reads ``n.venue`` as an attribute first, and on a dict each of
    the 11 reads per page would raise and catch an AttributeError before looking up the key."""

    venue: str  # the venue's slug
    position: int
    total: int
    previous: PaperLink | None
    next: PaperLink | None


def neighbours(catalog: Catalog, paper: Paper, positions: dict[str, dict[str, int]],
               links: Mapping[str, PaperLink]) -> list[Neighbours]:
    """Return, for each venue of ``paper``, its position and the papers before and after it."""
    out = []
    for slug in paper.venues:
        papers = catalog.by_venue[slug]
        index = positions[slug][paper.id]
        out.append(Neighbours(slug, index + 1, len(papers), links[papers[index - 1].id] if index > 0 else None,
                              links[papers[index + 1].id] if index + 1 < len(papers) else None))
    return out


def citation(paper: Paper, catalog: Catalog, venues: dict[str, Venue] | None = None) -> str | None:
    """Return the paper's BibTeX entry, or None while papers.yaml gives it no authors.

    ``venues`` (the catalog's venues by slug) saves looking the venue up among all of them.
    """
    if not paper.authors:
        return None
    venue = venues[paper.venue] if venues is not None else next(v for v in catalog.venues if v.slug == paper.venue)
    url = next((link.url for link in paper.links if link.kind == "given"), None)
    return bibtex_entry(paper.id, paper.title, paper.authors, paper.year, venue.name, url)


def papers_json(catalog: Catalog) -> bytes:
    """Return the machine-readable export of the catalog, one record per paper.

    Written as ``json.dumps({"papers": [records]}, ensure_ascii=False, sort_keys=True, indent=1)``
    would write it, a record at a time (see _paper_record).
    """
    labels = {v.slug: v.label for v in catalog.venues}
    parts = [((",\n  " if n else "\n  ") + _paper_record(p, labels[p.venue])).encode("utf-8")
             for n, p in enumerate(catalog.papers)]
    return b"".join([b'{\n "papers": [', *parts, b"\n ]\n}\n" if parts else b"]\n}\n"])


def _paper_record(p: Paper, venue_label: str) -> str:
    """Return a paper's record of papers.json, as json.dumps(indent=1, sort_keys=True) writes it in the list.

    Its fields in one format, in the order of their keys: json writes with ``indent`` in Python,
    piece by piece (papers.json of 20,000 papers took 1.3 s and 380 MB at its peak), and a general
    writer of such dicts took 0.50 s where this takes 0.38 s. Strings go through json's own (C)
    encoder.
    """
    s, strings = _json_string, _json_strings
    return (f'{{\n   "abstract": {s(p.abstract)},'
            f'\n   "authors": {strings(p.authors)},'
            f'\n   "id": {s(p.id)},'
            f'\n   "keyphrases": {strings(p.keyphrases)},'
            f'\n   "links": {strings([link.url for link in p.links])},'
            f'\n   "related": {strings([r.id for r in p.related])},'
            f'\n   "sources": {strings([str(source) for source in p.sources])},'
            f'\n   "text": {s(p.text)},'
            f'\n   "title": {s(p.title)},'
            f'\n   "topics": {strings(p.topic_slugs)},'
            f'\n   "url": {s(urls.paper_path(p.id))},'
            f'\n   "venue": {s(venue_label)},'
            f'\n   "venue_slug": {s(p.venue)},'
            f'\n   "venues": {strings(p.venues)},'
            f'\n   "year": {int.__repr__(p.year)}'
            '\n  }')


def _json_strings(values: Sequence[str]) -> str:
    """Return a list of strings as a field of a papers.json record holds it (see _paper_record)."""
    return "[\n    " + ",\n    ".join(map(_json_string, values)) + "\n   ]" if values else "[]"


_json_string = json.encoder.encode_basestring  # type: ignore[attr-defined]  # as ensure_ascii=False writes it
