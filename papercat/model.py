"""The catalog's records: small frozen dataclasses and the sorted indexes over them."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property


@dataclass(frozen=True)
class Source:
    """Where a record came from: a path relative to the content folder and a 1-based line."""

    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class Venue:
    """A venue in one year, e.g. ICML 2025; several listings may feed one venue."""

    slug: str  # "icml-2025"
    name: str  # "ICML"
    year: int  # 2025

    @cached_property  # read for every badge and card
    def label(self) -> str:
        return f"{self.name} {self.year}"


@dataclass(frozen=True)
class Topic:
    """A topic of the taxonomy in content/topics.yaml, with its weighted keywords, or one papercat found."""

    slug: str
    name: str
    description: str
    keywords: tuple[tuple[str, float], ...] = ()
    discovered: bool = False  # found by papercat (enrich.discovered) for papers the taxonomy did not match


@dataclass(frozen=True)
class TopicMatch:
    """Why a paper is in a topic: its score and the phrases that matched."""

    slug: str
    score: float
    phrases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Link:
    """A link of a paper: found in its abstract or given in papers.yaml."""

    url: str  # http(s) only
    kind: str  # "code", "project", "other", or "given" (papers.yaml)
    label: str  # "Code", "Project page", the host name, or the label given


@dataclass(frozen=True)
class RelatedPaper:
    """Another paper close to this one, and the terms they share."""

    id: str
    score: float
    shared: tuple[str, ...]


@dataclass(frozen=True)
class Paper:
    """One paper: identified by its normalised abstract, listed under one or more venues."""

    id: str
    title: str
    abstract: str
    venues: tuple[str, ...]  # distinct venue slugs, the first is the paper's primary venue
    year: int
    sources: tuple[Source, ...]  # every listing entry that gave this abstract
    topics: tuple[TopicMatch, ...] = ()
    links: tuple[Link, ...] = ()  # given links first, then those found in the abstract
    html: str = ""  # the abstract rendered and sanitised
    text: str = ""  # the abstract as plain text
    keyphrases: tuple[str, ...] = ()
    names: tuple[str, ...] = ()  # the names it coins (GuardAgent, Mind2Web-SC), which search boosts
    related: tuple[RelatedPaper, ...] = ()
    authors: tuple[str, ...] = ()  # from papers.yaml
    title_given: bool = False  # the title came from papers.yaml, not from the abstract

    @property
    def venue(self) -> str:
        return self.venues[0]

    @property
    def source(self) -> Source:
        return self.sources[0]

    @cached_property  # frozen fields: worked out once (it is read for every card of every page)
    def topic_slugs(self) -> tuple[str, ...]:
        return tuple(t.slug for t in self.topics)


@dataclass(frozen=True)
class Catalog:
    """Every paper, venue and topic, with indexes built once in a fixed order."""

    papers: tuple[Paper, ...]  # ordered by primary venue, then listing position
    venues: tuple[Venue, ...]  # newest year first, then by name
    topics: tuple[Topic, ...]  # those with papers: taxonomy order, then the discovered ones, "Other" last
    by_venue: dict[str, tuple[Paper, ...]] = field(default_factory=dict)  # listing order
    by_topic: dict[str, tuple[Paper, ...]] = field(default_factory=dict)  # catalog order
    places: dict[str, tuple[int, int]] = field(default_factory=dict)  # paper id -> (x, y) on the map

    @classmethod
    def assemble(
        cls,
        papers: list[Paper],
        venues: list[Venue],
        topics: list[Topic],
        venue_order: dict[str, list[str]],
        places: dict[str, tuple[int, int]],
    ) -> Catalog:
        """Build the sorted indexes; ``venue_order`` gives each venue's paper ids in listing order, ``places``
        each paper's place on the map (paper_map.places)."""
        by_id = {p.id: p for p in papers}
        ordered_venues = sorted_venues(venues)
        by_venue = {v.slug: tuple(by_id[i] for i in venue_order[v.slug]) for v in ordered_venues}
        ordered = [by_id[i] for i in paper_order(ordered_venues, venue_order, {p.id: p.venue for p in papers})]
        in_topic = papers_by_topic(ordered)
        kept_topics = used_topics(topics, in_topic)
        by_topic = {t.slug: tuple(in_topic.get(t.slug, ())) for t in kept_topics}
        return cls(tuple(ordered), tuple(ordered_venues), kept_topics, by_venue, by_topic, places)


def papers_by_topic(papers: list[Paper]) -> dict[str, list[Paper]]:
    """Return each topic slug's papers, in the order given; topics no paper has are absent."""
    in_topic: dict[str, list[Paper]] = {}  # one pass over the papers, not one per topic
    for p in papers:
        for slug in p.topic_slugs:
            listed = in_topic.setdefault(slug, [])
            if not listed or listed[-1] is not p:  # once, even for a topic the paper has twice
                listed.append(p)
    return in_topic


def used_topics(topics: list[Topic], in_topic: dict[str, list[Paper]]) -> tuple[Topic, ...]:
    """Return the topics some paper is in: a default taxonomy covers the whole field, and a listing of one
    corner of it should not get pages and feeds of topics it has no paper in."""
    return tuple(t for t in topics if t.slug in in_topic)


def sorted_venues(venues: list[Venue]) -> list[Venue]:
    """Return the venues in catalog order: newest year first, then by name."""
    return sorted(venues, key=lambda v: (-v.year, v.name.casefold(), v.slug))


def paper_order(venues: list[Venue], venue_order: dict[str, list[str]], primary: dict[str, str]) -> list[str]:
    """Return the paper ids in catalog order: by primary venue (``primary``: id -> slug), then listing position."""
    return [i for v in sorted_venues(venues) for i in venue_order[v.slug] if primary[i] == v.slug]
