"""The catalog in numbers: papers per venue, per topic, and per main topic in each venue."""

from __future__ import annotations

from dataclasses import dataclass

from ..model import Catalog, Topic, Venue

SHADES = 5  # heat-map classes h0 (none) .. h4 (the most) in style.css


@dataclass(frozen=True)
class Row:
    """One topic of the topic x venue table: its papers (main topic) in each venue and in all."""

    topic: Topic
    cells: tuple[tuple[int, int], ...]  # (papers, shade) per venue, in the table's venue order
    total: int


@dataclass(frozen=True)
class Stats:
    """What the statistics page shows."""

    per_venue: tuple[tuple[Venue, int], ...]  # every paper listed in the venue
    per_topic: tuple[tuple[Topic, int], ...]  # every paper in the topic, main topic or not
    venues: tuple[Venue, ...]  # the table's columns
    rows: tuple[Row, ...]  # the table's rows, taxonomy order; topics that are no paper's main topic left out


def shade(count: int, most: int) -> int:
    """Return the heat-map class of a cell: 0 for none, else 1..SHADES-1 by its share of the largest cell."""
    if count <= 0 or most <= 0:
        return 0
    return min(SHADES - 1, 1 + (count * (SHADES - 1) - 1) // most)


def catalog_stats(catalog: Catalog) -> Stats:
    """Count the catalog's papers by venue, by topic, and by main topic within each venue.

    A table cell counts a venue's papers whose first topic is the row's: what the venue page's
    section for that topic lists, so each cell links to it.
    """
    counts = _main_topic_counts(catalog)
    rows = _rows(catalog, counts)
    return Stats(
        per_venue=tuple((v, len(catalog.by_venue[v.slug])) for v in catalog.venues),
        per_topic=tuple((t, len(catalog.by_topic[t.slug])) for t in catalog.topics),
        venues=catalog.venues,
        rows=rows,
    )


def _main_topic_counts(catalog: Catalog) -> dict[str, dict[str, int]]:
    """Count each venue's papers by their first topic: topic slug -> venue slug -> papers."""
    counts = {t.slug: {v.slug: 0 for v in catalog.venues} for t in catalog.topics}
    for venue in catalog.venues:
        for paper in catalog.by_venue[venue.slug]:
            counts[paper.topics[0].slug][venue.slug] += 1
    return counts


def _rows(catalog: Catalog, counts: dict[str, dict[str, int]]) -> tuple[Row, ...]:
    """Return the table's rows, shaded against its largest cell; topics with no papers left out."""
    most = max((n for row in counts.values() for n in row.values()), default=0)
    return tuple(
        Row(topic, tuple((counts[topic.slug][v.slug], shade(counts[topic.slug][v.slug], most))
                         for v in catalog.venues), sum(counts[topic.slug].values()))
        for topic in catalog.topics if sum(counts[topic.slug].values())
    )
