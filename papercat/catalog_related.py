"""Each paper's related papers and its place on the map, and what a build keeps of them for the next;
and the topics discovered for the papers no topic matched, grouped by the same TF-IDF rows.

Split from catalog.py, whose step this is: comparing every paper with all the others is the one
enrichment over the whole catalog, and a new listing only adds its papers to the last build's.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from operator import itemgetter
from typing import TYPE_CHECKING

import numpy as np
from scipy import sparse

from .enrich import reference_papers, related
from .enrich.discovered import TermVectors, Unmatched, discover_topics
from .enrich.related import Found
from .incremental.memo import Cache
from .enrich.paper_map import Layout, layout
from .enrich.paper_map import places as map_places
from .enrich.topics import OTHER
from .model import Topic, TopicMatch
from .progress import Stage

if TYPE_CHECKING:
    from collections.abc import Mapping

    from .catalog import _Keyphrases as Keyphrases
    from .catalog import _Texts as Texts
    from .content.overrides import Override

__all__ = ["Related", "RelatedState", "discovered_topics", "related_papers"]


@dataclass(frozen=True)
class RelatedState:
    """What a build keeps of its related papers and map for the next one: enough to add papers to them."""

    keys: bytes  # the papers' keys (``Texts.keys``), oldest first, joined
    relations: related.Relations
    places: list[tuple[int, int]]  # each paper's place on the map, oldest first
    axes: Layout | None  # the map's axes, from the reference papers; None for a map laid out whole

    def is_oldest_of(self, texts: Texts) -> bool:
        """Return whether this state's papers are the oldest of ``texts``, in the catalog in the order
        they had then."""
        rank = self.relations.rank
        earlier = texts.oldest[:len(rank)]
        return (len(self.keys) == 32 * len(rank) <= 32 * len(texts.oldest)
                and self.keys == texts.keys_oldest_first(len(rank))
                and np.array_equal(np.argsort(rank, kind="stable"), np.argsort(earlier, kind="stable")))


@dataclass(frozen=True)
class Related:
    """Every paper's related papers and its place on the map, by position."""

    found: list[list[Found]]  # (position, score, shared terms) of each related paper: Relations.plain
    places: list[tuple[int, int]]
    vectors: TermVectors  # the papers' TF-IDF rows, which discovered topics group them by


def related_papers(texts: Texts, phrases: Keyphrases, key: bytes, cache: Cache, bar: Stage) -> Related:
    """Return every paper's related papers and its place on the map.

    Both come from the papers' TF-IDF matrix, made of each paper's terms, counted alone (cached, or
    ``phrases.terms`` already), and are kept (a ``RelatedState``) under ``key``, the hash of the
    reference papers. When the last build's papers are the oldest ones now, in the same order in the catalog,
    only the new ones are counted and compared with all (``related.extend``), and placed on the map's
    axes, kept too (a catalog weighed by its oldest papers takes its map's axes from them:
    ``paper_map.Layout``), or the map is laid out again (a smaller catalog, laid out whole).
    """
    memo = cache.stage("related-state", RelatedState, single=True)
    last = memo.get(key)
    if last is not None and not last.is_oldest_of(texts):
        last = None
    if last is not None and len(last.relations.rank) == len(texts.docs):
        bar.advance(len(texts.docs))
        state = last
    else:
        state = (_related_anew(texts, phrases, cache, bar) if last is None
                 else _related_extended(last, texts, phrases, bar))
        memo.put(key, state)
        memo.close()  # the cache keeps only what it will write (the matrix and pairs, pickled)
    return Related(state.relations.plain(texts.oldest), _by_position(state.places, texts.oldest),
                   _vectors(state.relations, texts.oldest))


def _vectors(relations: related.Relations, oldest: list[int]) -> TermVectors:
    """Return the TF-IDF rows of ``relations`` (oldest first: ``oldest`` gives their papers), and their
    columns."""
    columns = relations.columns
    features = columns.features
    return TermVectors(relations.rows.matrix(len(features.names)), oldest, features.keys, features.names,
                       features.phrase, features.phrases, columns.phrase_keys)


def discovered_topics(texts: Texts, picked: list[tuple[str, ...]], vectors: TermVectors,
                      topics: list[tuple[TopicMatch, ...]], overrides: Mapping[str, Override],
                      taken: tuple[Topic, ...]) -> tuple[list[tuple[TopicMatch, ...]], tuple[Topic, ...]]:
    """Return every paper's topics, by position, with those only in Other (and given none in papers.yaml:
    ``overrides``, by id) put in the topics discovered for them (enrich.discovered), and those topics,
    whose names and slugs the ``taken`` topics do not have."""
    given = {i for i, o in overrides.items() if o.topics}
    unmatched = [Unmatched(n, m.id, picked[n], texts.rendered[n].text) for n, m in enumerate(texts.merged)
                 if len(topics[n]) == 1 and topics[n][0].slug == OTHER.slug and m.id not in given]
    found = discover_topics(unmatched, vectors, taken)
    return [(found.matches[n],) if n in found.matches else own for n, own in enumerate(topics)], found.topics


def _related_extended(last: RelatedState, texts: Texts, phrases: Keyphrases, bar: Stage) -> RelatedState:
    """Return ``last`` with the papers that came since: their terms counted (as they were analysed, for
    a new listing) and compared with all papers."""
    new = texts.oldest[len(last.relations.rank):]
    bar.advance(len(last.relations.rank))
    terms = [phrases.terms.get(texts.keys[row]) or related.terms(*texts.docs[row]) for row in new]
    bar.advance(len(new))
    bar.note("comparing papers")
    corpus = related.Corpus(texts.docs, phrases.picked, texts.oldest)
    relations, (places, axes) = related.extend(last.relations, corpus, terms,
                                               partial(_lay_out_map, texts, last.axes),
                                               partial(_free_terms, terms, phrases.terms))
    return RelatedState(texts.keys_oldest_first(), relations, places, axes)


def _related_anew(texts: Texts, phrases: Keyphrases, cache: Cache, bar: Stage) -> RelatedState:
    """Return the related papers and map of all papers: each one's terms counted (cached), all compared."""
    stage = cache.stage("related", related.PaperTerms)
    terms = stage.map(lambda item: related.terms(*item[1]), list(zip(texts.keys, texts.docs)), itemgetter(0),
                      bar.advance, phrases.terms)
    stage.close()
    bar.note("comparing papers")
    corpus = related.Corpus(texts.docs, phrases.picked, texts.oldest)
    relations, (places, axes) = related.relate_beside(corpus, terms, partial(_lay_out_map, texts, None),
                                                      before_comparing=partial(_free_terms, terms, phrases.terms))
    return RelatedState(texts.keys_oldest_first(), relations, places, axes)


def _lay_out_map(texts: Texts, axes: Layout | None,
                 matrix: sparse.csr_matrix) -> tuple[list[tuple[int, int]], Layout | None]:
    """Return the places on the map of the papers of ``matrix`` (a row each, oldest first) and its axes:
    ``axes`` (the last build's) or the reference papers' ones; none for a catalog that is its own
    reference (reference_papers.reference_count), laid out whole."""
    if len(texts.oldest) < reference_papers.REFERENCE_MIN:
        return map_places(matrix), None
    axes = axes or layout(matrix, len(texts.reference))
    return axes.places(matrix), axes


def _free_terms(terms: list[related.PaperTerms], counted: dict[bytes, related.PaperTerms]) -> None:
    """Let the papers' terms go: they are in the matrix now."""
    # Freed before the workers that compare the papers start, not once the catalog is made (0.2 s at
    # 20,000 papers): freed while they run, the pages of their millions of objects would be copied.
    terms.clear()
    counted.clear()


def _by_position(placed: list[tuple[int, int]], oldest: list[int]) -> list[tuple[int, int]]:
    """Return the places of the papers (``placed`` oldest first) by position."""
    places: list[tuple[int, int]] = [(0, 0)] * len(placed)
    for row, place in zip(oldest, placed):
        places[row] = place
    return places
