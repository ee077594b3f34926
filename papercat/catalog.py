"""Turn parsed listings into the catalog: one paper per distinct abstract, enriched."""

from __future__ import annotations

from .enrich.titles import derive_title
from .enrich.topics import OTHER, assign_topics
from .errors import Problem
from .listing import Listing
from .model import Catalog, Paper, Source, Topic, Venue
from .text import collapse_spaces, find_urls, paper_id


def make_catalog(listings: list[Listing], taxonomy: tuple[Topic, ...]) -> tuple[Catalog, list[Problem]]:
    """Merge listings into papers (duplicates become one paper), derive titles, topics, links."""
    problems: list[Problem] = []
    venues: dict[str, Venue] = {}
    venue_order: dict[str, list[str]] = {}
    sources: dict[str, list[tuple[Source, str]]] = {}  # id -> (source, venue slug), in reading order
    texts: dict[str, str] = {}  # id -> the normalised text it was made from
    abstracts: dict[str, str] = {}  # id -> the first abstract read with that id
    for listing in listings:
        venue = venues.setdefault(listing.venue.slug, listing.venue)
        order = venue_order.setdefault(venue.slug, [])
        for entry in listing.entries:
            pid = paper_id(entry.text)
            source = Source(listing.path, entry.line)
            key = collapse_spaces(entry.text).casefold()
            if pid in texts and texts[pid] != key:
                problems.append(Problem(listing.path, entry.line, f"two different abstracts have the id "
                                        f"{pid}; expected distinct ids (report this as a bug)"))
                continue
            texts[pid] = key
            abstracts.setdefault(pid, entry.text)
            seen = sources.setdefault(pid, [])
            same_venue = [s for s, v in seen if v == venue.slug]
            if same_venue:
                problems.append(Problem(listing.path, entry.line, f"the same abstract as {same_venue[0]} "
                                        f"in {venue.label}; listed once", warning=True))
            else:
                order.append(pid)
            seen.append((source, venue.slug))
    papers = [_paper(pid, abstracts[pid], found, venues, taxonomy) for pid, found in sources.items()]
    topics = (*taxonomy, OTHER)
    return Catalog.assemble(papers, list(venues.values()), list(topics), venue_order), problems


def _paper(pid: str, abstract: str, found: list[tuple[Source, str]], venues: dict[str, Venue],
           taxonomy: tuple[Topic, ...]) -> Paper:
    """Return the enriched paper for one distinct abstract."""
    venue_slugs = tuple(dict.fromkeys(v for _, v in found))
    title = derive_title(abstract) or f"Paper {pid}"  # an abstract of symbols has no words to use
    return Paper(
        id=pid,
        title=title,
        abstract=abstract,
        venues=venue_slugs,
        year=venues[venue_slugs[0]].year,
        sources=tuple(s for s, _ in found),
        topics=assign_topics(f"{title} {abstract}", taxonomy),
        links=find_urls(abstract),
    )
