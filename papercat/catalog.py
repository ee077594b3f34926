"""Turn parsed listings into the catalog: one paper per distinct abstract, enriched."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from operator import itemgetter
from typing import TypeVar

import numpy as np
from scipy import sparse

from . import workers
from .cache import Cache, digest, digest_of, paused_gc
from .enrich import keyphrases, reference_papers, related
from .enrich.abstract import RenderedAbstract, plain_text, render_abstract
from .enrich.names import method_names
from .enrich.related import Found
from .enrich.titles import derive_title, unique_titles
from .enrich.topics import OTHER, assign_topics
from .errors import Problem
from .listing import Listing
from .memo import Memo
from .model import Catalog, Link, Paper, RelatedPaper, Source, Topic, TopicMatch, Venue
from .overrides import Override
from .paper_map import Layout, layout
from .paper_map import places as map_places
from .progress import Stage
from .search import TextFields, text_fields
from .text import folded

T = TypeVar("T")


@dataclass(frozen=True)
class _Merged:
    """One distinct abstract and every listing entry that gave it, before enrichment."""

    id: str
    abstract: str
    found: tuple[tuple[Source, str], ...]  # (where, venue slug), in reading order


@paused_gc()
def make_catalog(listings: list[Listing], taxonomy: tuple[Topic, ...],
                 overrides: dict[str, Override] | None = None,
                 cache: Cache | None = None, bar: Stage | None = None,
                 arrival: Sequence[str] = (), search_fields: list[TextFields] | None = None,
                 ) -> tuple[Catalog, list[Problem]]:
    """Merge listings into papers (duplicates become one paper) and enrich them.

    ``arrival`` lists paper ids oldest first (``News.oldest_first``; papers it leaves out come after
    it, in reading order): keyphrases and related papers weigh words by the oldest papers (see
    ``reference_papers.reference_count``). With a ``cache``, results computed by an earlier build from the
    same inputs are reused. ``bar`` counts the papers of each pass (abstracts, titles, keyphrases,
    related, topics). Given a ``search_fields`` list, the papers' search terms of their titles and
    abstracts (search.text_fields) are worked out too, beside the other passes, and added to it.
    """
    merged, venues, venue_order, problems = merge_listings(listings)
    position = {m.id: n for n, m in enumerate(merged)}
    oldest = list(dict.fromkeys([position[i] for i in arrival if i in position] + list(range(len(merged)))))
    reference = oldest[:reference_papers.reference_count(len(oldest))]  # what keyphrases and related papers weigh by
    overrides = overrides or {}
    cache = cache or Cache()
    bar = bar or Stage("enriching")
    bar.set_total(len(merged))
    bar.restart("abstracts")
    # Rendering an abstract and deriving its title depend on the abstract alone: one key for both stages
    # (worked out only if a cache asks for it).
    abstract_key = Memo(lambda n: digest(merged[n].abstract)).__getitem__
    rendered = cache.stage("abstracts", RenderedAbstract).map(lambda n: render_abstract(merged[n].abstract),
                                                              range(len(merged)), abstract_key, bar.advance)
    for m, r in zip(merged, rendered):
        source = m.found[0][0]
        problems += [Problem(source.path, source.line, w, warning=True) for w in r.warnings]
    bar.restart("titles")
    named = _titles(merged, abstract_key, overrides, cache, bar)
    titles = named.shown
    # Keyphrases and related papers read each paper's own title, not the one made unique against the
    # others: a new paper that shares an earlier one's title changes that title, and would otherwise
    # change the reference's statistics, and so every paper's keyphrases and related papers.
    docs = [(title, r.text) for title, r in zip(named.own, rendered)]
    keys = [digest(*doc) for doc in docs]  # each paper's inputs to keyphrases and related papers, hashed once
    # The topics and coined names the cache lacks (if enough to pay for a worker process), and the
    # search terms, are found by workers of their own while this process goes on with the keyphrases
    # and related papers.
    taxonomy_key = digest(repr(taxonomy))
    texts = [f"{title} {r.text}" for title, r in zip(titles, rendered)]
    # A paper's topics and coined names depend on its text (shown title and abstract) alone.
    text_keys = [key if title == own else digest(title, r.text)
                 for key, title, own, r in zip(keys, titles, named.own, rendered)]
    topic_keys = [digest(taxonomy_key, key) for key in text_keys]
    topic_stage, name_stage = cache.stage("topics", tuple), cache.stage("names", tuple)
    need_topics = {key: n for n, key in enumerate(topic_keys) if topic_stage.get(key) is None}
    need_names = {key: n for n, key in enumerate(text_keys) if name_stage.get(key) is None}

    def topics_of(n: int) -> tuple[TopicMatch, ...]:
        return assign_topics(texts[n], taxonomy)

    def names_of(n: int) -> tuple[str, ...]:
        return tuple(method_names(plain_text(titles[n]), rendered[n].text))

    def both() -> tuple[list[tuple[TopicMatch, ...]], list[tuple[str, ...]]]:
        return [topics_of(n) for n in need_topics.values()], [names_of(n) for n in need_names.values()]

    def fields() -> TextFields:
        return text_fields(titles, [r.text for r in rendered])

    found = workers.submit(both) if len(need_topics) + len(need_names) >= workers.MIN_ITEMS else None
    found_fields = workers.submit(fields) if search_fields is not None else None
    bar.restart("keyphrases")
    phrases, counted = _keyphrases(docs, keys, reference, cache, bar)

    def unrelated(places: list[tuple[int, int]]) -> tuple[list[Paper], Catalog]:
        """Return the papers, by position, and the catalog, all but their related papers: made while
        worker processes compare the papers (see ``_related``)."""
        known_topics, known_names = found.result() if found is not None else ([], [])
        matches = topic_stage.map(topics_of, range(len(texts)), topic_keys.__getitem__, None,
                                  dict(zip(need_topics, known_topics)))
        names = name_stage.map(names_of, range(len(texts)), text_keys.__getitem__, None,
                               dict(zip(need_names, known_names)))
        papers = _papers(merged, rendered, titles, phrases, names, matches, venues, overrides)
        return papers, Catalog.assemble(papers, list(venues.values()), [*taxonomy, OTHER], venue_order,
                                        {m.id: place for m, place in zip(merged, places)})

    bar.restart("related papers")
    near, (papers, catalog) = _related(docs, keys, phrases, counted, oldest, reference, cache, bar, unrelated)
    if found_fields is not None:
        search_fields.append(replace(found_fields.result(), ids=tuple(m.id for m in merged)))
    bar.restart("topics")
    bar.advance(len(merged))  # found beside the related papers
    _relate(papers, near)
    return catalog, problems


def merge_listings(listings: list[Listing]) -> tuple[list[_Merged], dict[str, Venue], dict[str, list[str]],
                                                      list[Problem]]:
    """Return one record per distinct abstract, the venues, each venue's ids in listing order, problems."""
    problems: list[Problem] = []
    venues: dict[str, Venue] = {}
    venue_order: dict[str, list[str]] = {}
    sources: dict[str, list[tuple[Source, str]]] = {}  # id -> (source, venue slug), in reading order
    abstracts: dict[str, str] = {}  # id -> the first abstract read with that id
    for listing in listings:
        venue = venues.setdefault(listing.venue.slug, listing.venue)
        order = venue_order.setdefault(venue.slug, [])
        for entry in listing.entries:
            pid = entry.id
            source = Source(listing.path, entry.line)
            first = abstracts.setdefault(pid, entry.text)
            if first != entry.text and folded(first) != folded(entry.text):
                problems.append(Problem(listing.path, entry.line, f"two different abstracts have the id "
                                        f"{pid}; expected distinct ids (report this as a bug)"))
                continue
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


@dataclass(frozen=True)
class _Titles:
    """Every paper's title, by position."""

    own: list[str]  # given in papers.yaml, else derived from the paper's abstract alone
    shown: list[str]  # the own titles, each repeated one made distinct (unique_titles)


def _titles(merged: list[_Merged], key: Callable[[int], bytes], overrides: dict[str, Override], cache: Cache,
            bar: Stage) -> _Titles:
    """Return every paper's title: given in papers.yaml, else derived (cached under ``key`` of its position,
    its abstract's digest); and those titles made unique."""
    given = {i for i, m in enumerate(merged) if m.id in overrides and overrides[m.id].title}
    bar.advance(len(given))
    derived = iter(cache.stage("titles", str).map(lambda n: derive_title(merged[n].abstract),
                                                  [i for i in range(len(merged)) if i not in given],
                                                  key, bar.advance))
    first = [overrides[m.id].title if i in given else next(derived) or f"Paper {m.id}"
             for i, m in enumerate(merged)]  # an abstract of symbols has no words to make a title of
    return _Titles(first, unique_titles(first, [m.abstract for m in merged], keep=given))


def _keyphrases(docs: list[tuple[str, str]], keys: list[bytes], reference: list[int], cache: Cache,
                bar: Stage) -> tuple[list[tuple[str, ...]], dict[bytes, related.PaperTerms]]:
    """Return every paper's keyphrases: each paper analysed alone (cached), then picked against the
    statistics of the oldest papers (``reference``: their positions by arrival; see
    ``reference_papers.reference_count``).

    ``keys`` are the papers' ``digest(title, abstract)``. Each paper's picks are cached under the
    reference's keys too, so a new listing's papers alone are analysed and picked, against the
    statistics cached. Also return the terms of the papers analysed now, by key: counted in the same
    pass over their words, for ``_related``.
    """
    signature = digest_of(_doc_parts("reference", [keys[row] for row in reference]))
    picks = cache.stage("picks", tuple)
    picked = [picks.get(digest(signature, k)) for k in keys]
    todo = [row for row, done in enumerate(picked) if done is None]
    statistics = cache.stage("keyphrase-statistics", keyphrases.Statistics, single=True)
    stats = statistics.get(signature) if todo else None
    counting = stats is None and bool(todo)  # the reference's statistics to count: all its papers analysed
    need = sorted({*todo, *reference}) if counting else todo
    bar.advance(len(docs) - len(need))
    if counting:  # each analysis read from the cache, or made and kept there
        stage = cache.stage("keyphrases", keyphrases.PaperPhrases)
        analysed, counted = stage.map_with(lambda item: related.analyse_with_terms(*item[1]),
                                           [(keys[row], docs[row]) for row in need], itemgetter(0), bar.advance)
        stage.close()
        by_row = dict(zip(need, analysed))
        bar.note("picking keyphrases")
        stats = keyphrases.statistics([by_row[row] for row in reference])
        statistics.put(signature, stats)
        new = [by_row[row] for row in todo]
    else:  # only new papers: analysed now, and left out of the cache's analyses (kept for the next reference)
        both = workers.map(lambda row: related.analyse_with_terms(*docs[row]), todo, bar.advance)
        counted = {keys[row]: terms for row, (_, terms) in zip(todo, both)}
        bar.note("picking keyphrases")
        new = [analysis for analysis, _ in both]
    for row, found in zip(todo, keyphrases.pick(new, stats=stats) if todo else []):
        picked[row] = found
        picks.put(digest(signature, keys[row]), found)
    return picked, counted


def _related(docs: list[tuple[str, str]], keys: list[bytes], phrases: list[tuple[str, ...]],
             counted: dict[bytes, related.PaperTerms], oldest: list[int], reference: list[int], cache: Cache,
             bar: Stage, alongside: Callable[[list[tuple[int, int]]], T]) -> tuple[list[list[Found]], T]:
    """Return every paper's related papers, by position, and ``alongside(places)`` of every paper's place
    on the map, by position: run while worker processes compare the papers.

    Both come from the papers' TF-IDF matrix, made of each paper's terms, counted alone (cached,
    or ``counted`` already, by ``keys``: see ``_keyphrases``; emptied once used), and kept with the related papers and
    the places under the hash of the ``reference`` papers (the first of ``oldest``, all positions by
    arrival; see ``reference_papers.reference_count``). When the last build's papers are the oldest ones
    now, in the same order in the catalog, only the new ones are counted and compared with all
    (``related.extend``); beside, the new papers are placed on the map's axes, kept too (a catalog
    weighed by its oldest papers takes its map's axes from them: ``paper_map.Layout``), or the map is
    laid out again (a smaller catalog, laid out whole).
    """
    memo = cache.stage("related-state", tuple, single=True)
    key = digest_of(_doc_parts("related-state", [keys[row] for row in reference], [phrases[row] for row in reference]))
    held = memo.get(key)  # (the papers' keys oldest first, joined; their Relations; their places; the map's Layout)
    earlier = held[1] if held is not None and _extends(held[0], held[1].rank, keys, oldest) else None
    # A catalog that is its own reference (reference_papers.reference_count) is laid out whole; a larger one on
    # its reference's axes.
    whole = len(oldest) < reference_papers.REFERENCE_MIN
    kept = held[3] if earlier is not None else None

    terms: list[related.PaperTerms] = []

    def made() -> None:
        # The terms are in the matrix now: their millions of objects are freed before the workers that
        # compare the papers start, not once the catalog is made (0.2 s at 20,000 papers).
        terms.clear()
        counted.clear()

    def beside(matrix: sparse.csr_matrix) -> tuple[tuple[list[tuple[int, int]], Layout | None], T]:
        found = None if whole else kept or layout(matrix, len(reference))
        placed = map_places(matrix) if found is None else found.places(matrix)
        return (placed, found), alongside(_by_position(placed, oldest))

    if earlier is not None and len(earlier.rank) == len(docs):
        bar.advance(len(docs))
        relations, ((placed, found), other) = earlier, ((held[2], kept), alongside(_by_position(held[2], oldest)))
    elif earlier is not None:  # a new listing: its papers' terms were counted as they were analysed
        new = oldest[len(earlier.rank):]
        bar.advance(len(earlier.rank))
        terms += [counted.get(keys[row]) or related.terms(*docs[row]) for row in new]
        bar.advance(len(new))
        bar.note("comparing papers")
        relations, ((placed, found), other) = related.extend(earlier, related.Corpus(docs, phrases, oldest), terms, beside, made)
    else:
        stage = cache.stage("related", related.PaperTerms)
        terms += stage.map(lambda item: related.terms(*item[1]), list(zip(keys, docs)), itemgetter(0), bar.advance,
                          counted)
        stage.close()
        bar.note("comparing papers")
        relations, ((placed, found), other) = related.relate_beside(related.Corpus(docs, phrases, oldest), terms, beside,
                                                                    before_comparing=made)
    if relations is not earlier:
        memo.put(key, (b"".join(keys[row] for row in oldest), relations, placed, found))
        memo.close()  # the cache keeps only what it will write (the matrix and pairs, pickled)
    return relations.plain(oldest), other


def _by_position(placed: list[tuple[int, int]], oldest: list[int]) -> list[tuple[int, int]]:
    """Return the places of the papers (``placed`` oldest first) by position."""
    places: list[tuple[int, int]] = [(0, 0)] * len(placed)
    for row, place in zip(oldest, placed):
        places[row] = place
    return places


def _extends(held: bytes, rank: tuple[int, ...], keys: list[bytes], oldest: list[int]) -> bool:
    """Return whether the papers ``held`` (keys joined, oldest first) are the oldest papers now, in the
    catalog in the order ``rank`` gave them."""
    earlier = oldest[:len(rank)]
    return (len(held) == 32 * len(rank) <= 32 * len(oldest) and held == b"".join(keys[row] for row in earlier)
            and np.array_equal(np.argsort(rank, kind="stable"), np.argsort(earlier, kind="stable")))


def _doc_parts(stage: str, keys: list[bytes],
               phrases: list[tuple[str, ...]] | None = None) -> Iterator[str | bytes]:
    """Yield the parts of a catalog-wide cache key: every paper's ``digest(title, abstract)``, and each
    paper's keyphrases."""
    yield f"{stage} {len(keys)}"
    yield b"".join(keys)  # digests are all of one length
    if phrases is not None:
        yield repr(phrases)  # one part, not one per keyphrase: a repr tells apart what differs


def _papers(merged: list[_Merged], rendered: list[RenderedAbstract], titles: list[str],
            phrases: list[tuple[str, ...]], names: list[tuple[str, ...]], matches: list[tuple[TopicMatch, ...]],
            venues: dict[str, Venue], overrides: dict[str, Override]) -> list[Paper]:
    """Return the enriched papers, one per distinct abstract, from what each pass found for it: all but
    their related papers (see ``_relate``)."""
    return [_paper(m, r, title, own, coined, venues, derived, overrides.get(m.id, _NO_OVERRIDE))
            for m, r, title, own, coined, derived in zip(merged, rendered, titles, phrases, names, matches)]


def _relate(papers: list[Paper], near: list[list[Found]]) -> None:
    """Give each paper (by position) its related papers (``near``, by position: ``Relations.plain``).

    The papers are made while worker processes compare them (see ``make_catalog``), before anyone
    else sees them: this is the one change to a Paper after it is made, and nothing has hashed it.
    A link that no shared term explains reads as noise, so it is left out.
    """
    ids = [p.id for p in papers]
    for paper, found in zip(papers, near):
        object.__setattr__(paper, "related", tuple([RelatedPaper(ids[index], score, shared)
                                                    for index, score, shared in found if shared]))


_NO_OVERRIDE = Override()  # a paper papers.yaml says nothing about


def _paper(m: _Merged, rendered: RenderedAbstract, title: str, keyphrases: tuple[str, ...],
           names: tuple[str, ...], venues: dict[str, Venue], derived: tuple[TopicMatch, ...],
           override: Override) -> Paper:
    """Return the enriched paper for one distinct abstract."""
    venue_slugs = tuple(dict.fromkeys(v for _, v in m.found))
    return Paper(
        id=m.id,
        title=title,
        abstract=m.abstract,
        venues=venue_slugs,
        year=override.year or venues[venue_slugs[0]].year,
        sources=tuple(s for s, _ in m.found),
        topics=_topics(derived, override.topics),
        links=tuple(Link(url, "given", label) for label, url in override.links) + rendered.links
        if override.links else rendered.links,
        html=rendered.html,
        text=rendered.text,
        keyphrases=keyphrases,
        names=names,
        authors=override.authors,
        title_given=override.title is not None,
    )


def _topics(derived: tuple[TopicMatch, ...], given: tuple[str, ...]) -> tuple[TopicMatch, ...]:
    """Return the derived topics, then those papers.yaml adds (which replace "Other")."""
    if not given:
        return derived
    kept = tuple(t for t in derived if t.slug != OTHER.slug)
    have = {t.slug for t in kept}
    return kept + tuple(TopicMatch(slug, 0.0) for slug in given if slug not in have)
