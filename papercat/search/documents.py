"""The catalog's papers as search documents."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..site import urls
from ..incremental.memo import digest
from ..model import Catalog, Paper


@dataclass(frozen=True)
class SearchDoc:
    """One paper as search sees it: its plain texts and what a result shows."""

    ref: str  # the paper's position in the catalog, as a string: short, and it names the doc shard
    id: str
    title: str
    url: str
    venues: tuple[str, ...]
    topics: tuple[str, ...]
    text: str  # the abstract as plain text: what the abstract field indexes and snippets quote
    names: str  # topic names and coined method names


def search_docs(catalog: Catalog, order: Sequence[str] = ()) -> list[SearchDoc]:
    """Return the catalog's papers as search documents: those of ``order`` (ids) first, in its order.

    The build gives the papers oldest arrival first, so a new listing's papers come last and
    leave the earlier doc shards as they were.
    """
    rank = {pid: i for i, pid in enumerate(order)}
    papers = sorted(catalog.papers, key=lambda p: rank.get(p.id, len(rank)))  # stable: catalog order after
    topic_names = {t.slug: t.name for t in catalog.topics}
    return [_search_doc(n, paper, topic_names) for n, paper in enumerate(papers)]


def _search_doc(n: int, paper: Paper, topic_names: dict[str, str]) -> SearchDoc:
    text = paper.text
    names = [topic_names[slug] for slug in paper.topic_slugs] + list(paper.keyphrases) + list(paper.names)
    return SearchDoc(ref=str(n), id=paper.id, title=paper.title, url=urls.paper_path(paper.id),
                     venues=paper.venues, topics=paper.topic_slugs, text=text, names=" ; ".join(names))


def doc_key(doc: SearchDoc) -> bytes:
    """Return the digest of what a document's terms are made of: their key in the cache."""
    return digest(doc.title, doc.names, doc.text)
