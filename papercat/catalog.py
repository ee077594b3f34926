"""Turn parsed listings into the catalog: one paper per distinct abstract, enriched."""

from __future__ import annotations

from dataclasses import dataclass

from .abstract import RenderedAbstract, render_abstract
from .enrich.keyphrases import extract_keyphrases
from .enrich.related import related_papers
from .enrich.titles import derive_title, unique_titles
from .enrich.topics import OTHER, assign_topics
from .errors import Problem
from .listing import Listing
from .model import Catalog, Link, Paper, RelatedPaper, Source, Topic, TopicMatch, Venue
from .overrides import Override
from .text import collapse_spaces, paper_id


@dataclass(frozen=True)
class _Merged:
    """One distinct abstract and every listing entry that gave it, before enrichment."""

    id: str
    abstract: str
    found: tuple[tuple[Source, str], ...]  # (where, venue slug), in reading order


def make_catalog(listings: list[Listing], taxonomy: tuple[Topic, ...],
                 overrides: dict[str, Override] | None = None) -> tuple[Catalog, list[Problem]]:
    """Merge listings into papers (duplicates become one paper) and enrich them."""
    merged, venues, venue_order, problems = merge_listings(listings)
    overrides = overrides or {}
    rendered = [render_abstract(m.abstract) for m in merged]
    for m, r in zip(merged, rendered):
        source = m.found[0][0]
        problems += [Problem(source.path, source.line, w, warning=True) for w in r.warnings]
    titles = _titles(merged, overrides)
    docs = [(title, r.text) for title, r in zip(titles, rendered)]
    keyphrases = extract_keyphrases(docs)
    related = related_papers(docs, keyphrases)
    papers = [
        # A link that no shared term explains reads as noise, so it is left out.
        _paper(m, r, title, phrases,
               tuple(RelatedPaper(merged[x.index].id, x.score, x.shared) for x in near if x.shared),
               venues, taxonomy, overrides.get(m.id))
        for m, r, title, phrases, near in zip(merged, rendered, titles, keyphrases, related)
    ]
    topics = (*taxonomy, OTHER)
    return Catalog.assemble(papers, list(venues.values()), list(topics), venue_order), problems


def merge_listings(listings: list[Listing]) -> tuple[list[_Merged], dict[str, Venue], dict[str, list[str]],
                                                      list[Problem]]:
    """Return one record per distinct abstract, the venues, each venue's ids in listing order, problems."""
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
    merged = [_Merged(pid, abstracts[pid], tuple(found)) for pid, found in sources.items()]
    return merged, venues, venue_order, problems


def _titles(merged: list[_Merged], overrides: dict[str, Override]) -> list[str]:
    """Return every paper's title: given in papers.yaml, else derived; no two alike."""
    given = {i for i, m in enumerate(merged) if m.id in overrides and overrides[m.id].title}
    first = [overrides[m.id].title if i in given else derive_title(m.abstract) or f"Paper {m.id}"
             for i, m in enumerate(merged)]  # an abstract of symbols has no words to make a title of
    return unique_titles(first, [m.abstract for m in merged], keep=given)


def _paper(m: _Merged, rendered: RenderedAbstract, title: str, keyphrases: tuple[str, ...],
           related: tuple[RelatedPaper, ...], venues: dict[str, Venue], taxonomy: tuple[Topic, ...],
           override: Override | None) -> Paper:
    """Return the enriched paper for one distinct abstract."""
    override = override or Override()
    venue_slugs = tuple(dict.fromkeys(v for _, v in m.found))
    return Paper(
        id=m.id,
        title=title,
        abstract=m.abstract,
        venues=venue_slugs,
        year=override.year or venues[venue_slugs[0]].year,
        sources=tuple(s for s, _ in m.found),
        topics=_topics(f"{title} {rendered.text}", taxonomy, override.topics),
        links=tuple(Link(url, "given", label) for label, url in override.links) + rendered.links,
        html=rendered.html,
        text=rendered.text,
        keyphrases=keyphrases,
        related=related,
        authors=override.authors,
        title_given=override.title is not None,
    )


def _topics(text: str, taxonomy: tuple[Topic, ...], given: tuple[str, ...]) -> tuple[TopicMatch, ...]:
    """Return the derived topics, then those papers.yaml adds (which replace "Other")."""
    derived = assign_topics(text, taxonomy)
    if not given:
        return derived
    kept = tuple(t for t in derived if t.slug != OTHER.slug)
    have = {t.slug for t in kept}
    return kept + tuple(TopicMatch(slug, 0.0) for slug in given if slug not in have)
