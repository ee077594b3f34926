"""Turn parsed listings into the catalog: one paper per distinct abstract, enriched.

One paper's way through ``make_catalog``: ``merge_listings`` makes one ``_Merged`` of every entry
that gives its abstract; ``_texts`` renders that abstract and titles it (a ``_Texts``, by position,
with the order the papers came in); ``_keyphrases`` picks its keyphrases; ``related_papers``
(catalog_related.py) finds its related papers and its place on the map; ``_labelled`` its topics
and coined names, and ``discovered_topics`` a topic papercat found if none matched; ``_paper`` makes
its Paper of all of it, complete, and ``Catalog.assemble`` puts it in its venues and topics.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial
from operator import itemgetter

from . import workers
from .collector import paused_gc
from .incremental.memo import Cache, digest, digest_of
from .enrich import keyphrases, reference_papers, related
from .enrich.abstract import RenderedAbstract, plain_text, render_abstract
from .enrich.abstract.mathml import summarise_math_warnings
from .enrich.names import method_names
from .enrich.related import Found
from .enrich.titles import Candidate, derive_title, unique_titles
from .enrich.topics import OTHER, assign_topics
from .catalog_related import discovered_topics, related_papers
from .errors import Problem
from .content.listing import Listing
from .memo import Memo
from .model import Catalog, Link, Paper, RelatedPaper, Source, Topic, TopicMatch, Venue
from .content.overrides import Override
from .progress import Stage
from .search import TextFields, text_fields
from .text import folded


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
    overrides = overrides or {}
    cache = cache or Cache()
    bar = bar or Stage("enriching")
    bar.set_total(len(merged))
    texts = _texts(merged, arrival, overrides, cache, bar)
    problems += _abstract_warnings(texts)
    # The topics and coined names the cache lacks, and the search terms, are found by workers of their
    # own while this process goes on with the keyphrases and related papers.
    labels = _Labels.of(texts, taxonomy)
    found_labels = _start_labels(labels, cache)
    fields = workers.submit(partial(_search_fields, texts)) if search_fields is not None else None
    bar.restart("keyphrases")
    phrases = _keyphrases(texts, cache, bar)
    bar.restart("related papers")
    near = related_papers(texts, phrases, _related_key(texts, phrases), cache, bar)
    if fields is not None:
        search_fields.append(replace(fields.result(), ids=tuple(m.id for m in merged)))
    bar.restart("topics")
    bar.advance(len(merged))  # found beside the keyphrases and related papers
    topics, names = _labelled(labels, found_labels, cache)
    topics, discovered = discovered_topics(texts, phrases.picked, near.vectors, topics, overrides,
                                           (*taxonomy, OTHER))
    found = _Enrichment(phrases.picked, names, topics, _related_papers(merged, near.found))
    papers = [_paper(texts, found, n, venues, overrides.get(m.id, _NO_OVERRIDE))
              for n, m in enumerate(merged)]
    catalog = Catalog.assemble(papers, list(venues.values()), [*taxonomy, *discovered, OTHER], venue_order,
                               {m.id: place for m, place in zip(merged, near.places)})
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
class _Texts:
    """Every paper's texts, by position (reading order), and the order the papers came in: what each
    pass of the enrichment reads."""

    merged: list[_Merged]
    rendered: list[RenderedAbstract]
    titles: _Titles
    # Keyphrases and related papers read each paper's own title, not the one made unique against the
    # others: a new paper that shares an earlier one's title changes that title, and would otherwise
    # change the reference's statistics, and so every paper's keyphrases and related papers.
    docs: list[tuple[str, str]]  # (own title, abstract as plain text)
    keys: list[bytes]  # digest(*doc): each paper's inputs to keyphrases and related papers, hashed once
    oldest: list[int]  # the positions by arrival, oldest first
    reference: list[int]  # the first of ``oldest``, which keyphrases and related papers weigh words by

    def keys_oldest_first(self, papers: int | None = None) -> bytes:
        """Return the keys of the oldest ``papers`` (by default all), oldest first, joined."""
        return b"".join(self.keys[row] for row in self.oldest[:papers])


def _texts(merged: list[_Merged], arrival: Sequence[str], overrides: dict[str, Override], cache: Cache,
           bar: Stage) -> _Texts:
    """Return every paper's abstract rendered, its titles, and the order the papers came in (``arrival``)."""
    bar.restart("abstracts")
    # Rendering an abstract and deriving its title depend on the abstract alone: one key for both stages
    # (worked out only if a cache asks for it).
    abstract_key = Memo(lambda n: digest(merged[n].abstract)).__getitem__
    rendered = cache.stage("abstracts", RenderedAbstract).map(lambda n: render_abstract(merged[n].abstract),
                                                              range(len(merged)), abstract_key, bar.advance)
    bar.restart("titles")
    titles = _titles(merged, abstract_key, overrides, cache, bar)
    docs = [(title, r.text) for title, r in zip(titles.own, rendered)]
    position = {m.id: n for n, m in enumerate(merged)}
    oldest = list(dict.fromkeys([position[i] for i in arrival if i in position] + list(range(len(merged)))))
    return _Texts(merged, rendered, titles, docs, [digest(*doc) for doc in docs], oldest,
                  oldest[:reference_papers.reference_count(len(oldest))])


def _abstract_warnings(texts: _Texts) -> list[Problem]:
    """Return the warnings of rendering the abstracts, each at the first entry that gave its abstract (the
    math shown as source summed up in one)."""
    return summarise_math_warnings([Problem(m.found[0][0].path, m.found[0][0].line, warning, warning=True)
                                    for m, r in zip(texts.merged, texts.rendered) for warning in r.warnings])


def _search_fields(texts: _Texts) -> TextFields:
    """Return the search terms of the papers' shown titles and abstracts."""
    return text_fields(texts.titles.shown, [r.text for r in texts.rendered])


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
    retitled = cache.stage("retitled", str)  # the candidate titles, under the digest of what each is made of
    return _Titles(first, unique_titles(first, [m.abstract for m in merged], given,
                                        lambda found: retitled.map(_made, found, lambda c: digest(*c.parts))))


def _made(candidate: Candidate) -> str:
    return candidate.make()


@dataclass(frozen=True)
class _Keyphrases:
    """Every paper's keyphrases, and the terms of the papers whose words were read to find them."""

    picked: list[tuple[str, ...]]  # by position
    # By key: counted in the same pass over the papers' words as their analyses, for ``_related``,
    # which empties it once the terms are in its matrix.
    terms: dict[bytes, related.PaperTerms]


def _keyphrases(texts: _Texts, cache: Cache, bar: Stage) -> _Keyphrases:
    """Return every paper's keyphrases: each paper analysed alone (cached), then picked against the
    statistics of the oldest papers (``texts.reference``; see ``reference_papers.reference_count``).

    Each paper's picks are cached under the reference's keys too, so a new listing's papers alone are
    analysed and picked, against the statistics cached.
    """
    signature = digest_of(_doc_parts("reference", [texts.keys[row] for row in texts.reference]))
    picks = cache.stage("picks", tuple)
    picked = [picks.get(digest(signature, key)) for key in texts.keys]
    todo = [row for row, done in enumerate(picked) if done is None]
    new, counted = _new_picks(texts, todo, signature, cache, bar)
    for row, found in zip(todo, new):
        picked[row] = found
        picks.put(digest(signature, texts.keys[row]), found)
    return _Keyphrases(picked, counted)


def _new_picks(texts: _Texts, todo: list[int], signature: bytes, cache: Cache,
               bar: Stage) -> tuple[list[tuple[str, ...]], dict[bytes, related.PaperTerms]]:
    """Return the keyphrases of the papers at positions ``todo``, picked against the statistics of the
    reference (``signature``: its papers' keys), counted if the cache lacks them; and the terms of the
    papers analysed now, by key."""
    statistics = cache.stage("keyphrase-statistics", keyphrases.Statistics, single=True)
    stats = statistics.get(signature) if todo else None
    if stats is None and todo:  # the reference's statistics to count: all its papers analysed
        analysed, counted = _analysed(texts, sorted({*todo, *texts.reference}), cache, bar)
        bar.note("picking keyphrases")
        stats = keyphrases.statistics([analysed[row] for row in texts.reference])
        statistics.put(signature, stats)
    else:
        analysed, counted = _analysed_now(texts, todo, bar)
        bar.note("picking keyphrases")
    return keyphrases.pick([analysed[row] for row in todo], stats=stats) if todo else [], counted


def _analysed(texts: _Texts, need: list[int], cache: Cache,
              bar: Stage) -> tuple[dict[int, keyphrases.PaperPhrases], dict[bytes, related.PaperTerms]]:
    """Return the analyses of the papers at positions ``need``, by position, each read from the cache or
    made and kept there; and the terms of those made now, by key."""
    bar.advance(len(texts.docs) - len(need))
    stage = cache.stage("keyphrases", keyphrases.PaperPhrases)
    analysed, counted = stage.map_with(lambda item: related.analyse_with_terms(*item[1]),
                                       [(texts.keys[row], texts.docs[row]) for row in need], itemgetter(0),
                                       bar.advance)
    stage.close()
    return dict(zip(need, analysed)), counted


def _analysed_now(texts: _Texts, todo: list[int],
                  bar: Stage) -> tuple[dict[int, keyphrases.PaperPhrases], dict[bytes, related.PaperTerms]]:
    """Return the analyses of the (new) papers at positions ``todo``, by position, and their terms, by
    key: made now, and left out of the cache's analyses, which keep the reference's for its next count."""
    bar.advance(len(texts.docs) - len(todo))
    both = workers.map(lambda row: related.analyse_with_terms(*texts.docs[row]), todo, bar.advance)
    return ({row: analysis for row, (analysis, _) in zip(todo, both)},
            {texts.keys[row]: terms for row, (_, terms) in zip(todo, both)})


def _related_key(texts: _Texts, phrases: _Keyphrases) -> bytes:
    """Return the key of the related papers' state: the reference papers' inputs and keyphrases."""
    return digest_of(_doc_parts("related-state", [texts.keys[row] for row in texts.reference],
                                [phrases.picked[row] for row in texts.reference]))


def _doc_parts(stage: str, keys: list[bytes],
               phrases: list[tuple[str, ...]] | None = None) -> Iterator[str | bytes]:
    """Yield the parts of a catalog-wide cache key: every paper's ``digest(title, abstract)``, and each
    paper's keyphrases."""
    yield f"{stage} {len(keys)}"
    yield b"".join(keys)  # digests are all of one length
    if phrases is not None:
        yield repr(phrases)  # one part, not one per keyphrase: a repr tells apart what differs


@dataclass(frozen=True)
class _Labels:
    """How each paper's topics and coined names are found: both depend on its shown title and abstract."""

    texts: _Texts
    taxonomy: tuple[Topic, ...]
    topic_keys: list[bytes]  # by position: the key of a paper's topics in the cache
    name_keys: list[bytes]  # by position: the key of its names, its shown title's and abstract's digest

    @classmethod
    def of(cls, texts: _Texts, taxonomy: tuple[Topic, ...]) -> _Labels:
        """Return how the papers of ``texts`` are labelled with ``taxonomy``'s topics and their names."""
        titles = texts.titles
        name_keys = [key if shown == own else digest(shown, r.text)  # most shown titles are the own ones
                     for key, shown, own, r in zip(texts.keys, titles.shown, titles.own, texts.rendered)]
        taxonomy_key = digest(repr(taxonomy))
        return cls(texts, taxonomy, [digest(taxonomy_key, key) for key in name_keys], name_keys)

    def topics(self, n: int) -> tuple[TopicMatch, ...]:
        """Return the topics of the paper at position ``n``."""
        return assign_topics(f"{self.texts.titles.shown[n]} {self.texts.rendered[n].text}", self.taxonomy)

    def names(self, n: int) -> tuple[str, ...]:
        """Return the names that the paper at position ``n`` coins."""
        return tuple(method_names(plain_text(self.texts.titles.shown[n]), self.texts.rendered[n].text))


# Topics and names by key in the cache, of the papers whose topics or names it lacked.
_FoundLabels = tuple[dict[bytes, tuple[TopicMatch, ...]], dict[bytes, tuple[str, ...]]]


def _start_labels(labels: _Labels, cache: Cache) -> workers.Future[_FoundLabels] | None:
    """Start a worker on the topics and names the cache lacks, if there are enough to pay for one."""
    topic_stage, name_stage = cache.stage("topics", tuple), cache.stage("names", tuple)
    topics = {key: n for n, key in enumerate(labels.topic_keys) if topic_stage.get(key) is None}
    names = {key: n for n, key in enumerate(labels.name_keys) if name_stage.get(key) is None}
    if len(topics) + len(names) < workers.MIN_ITEMS:
        return None
    return workers.submit(partial(_find_labels, labels, topics, names))


def _find_labels(labels: _Labels, topics: dict[bytes, int], names: dict[bytes, int]) -> _FoundLabels:
    """Return the topics of the papers ``topics`` gives (key -> position), and the names of ``names``'."""
    return ({key: labels.topics(n) for key, n in topics.items()},
            {key: labels.names(n) for key, n in names.items()})


def _labelled(labels: _Labels, found: workers.Future[_FoundLabels] | None,
              cache: Cache) -> tuple[list[tuple[TopicMatch, ...]], list[tuple[str, ...]]]:
    """Return every paper's topics and coined names, by position: from the cache, from the worker that
    ``_start_labels`` started, or found now."""
    known_topics, known_names = found.result() if found is not None else ({}, {})
    papers = range(len(labels.topic_keys))
    topics = cache.stage("topics", tuple).map(labels.topics, papers, labels.topic_keys.__getitem__, None,
                                              known_topics)
    names = cache.stage("names", tuple).map(labels.names, papers, labels.name_keys.__getitem__, None,
                                            known_names)
    return topics, names


@dataclass(frozen=True)
class _Enrichment:
    """What the passes found for every paper, by position."""

    keyphrases: list[tuple[str, ...]]
    names: list[tuple[str, ...]]
    topics: list[tuple[TopicMatch, ...]]
    related: list[tuple[RelatedPaper, ...]]


def _related_papers(merged: list[_Merged], near: list[list[Found]]) -> list[tuple[RelatedPaper, ...]]:
    """Return each paper's related papers (``near``, by position: ``Relations.plain``), by position.

    A link that no shared term explains reads as noise, so it is left out.
    """
    ids = [m.id for m in merged]
    return [tuple([RelatedPaper(ids[index], score, shared) for index, score, shared in found if shared])
            for found in near]


_NO_OVERRIDE = Override()  # a paper papers.yaml says nothing about


def _paper(texts: _Texts, found: _Enrichment, n: int, venues: dict[str, Venue], override: Override) -> Paper:
    """Return the enriched paper at position ``n``, complete."""
    m, rendered = texts.merged[n], texts.rendered[n]
    venue_slugs = tuple(dict.fromkeys(v for _, v in m.found))
    return Paper(
        id=m.id,
        title=texts.titles.shown[n],
        abstract=m.abstract,
        venues=venue_slugs,
        year=override.year or venues[venue_slugs[0]].year,
        sources=tuple(s for s, _ in m.found),
        topics=_topics(found.topics[n], override.topics),
        links=tuple(Link(url, "given", label) for label, url in override.links) + rendered.links
        if override.links else rendered.links,
        html=rendered.html,
        text=rendered.text,
        keyphrases=found.keyphrases[n],
        names=found.names[n],
        related=found.related[n],
        authors=override.authors,
        title_given=override.title is not None,
    )


def _topics(derived: tuple[TopicMatch, ...], given: tuple[str, ...]) -> tuple[TopicMatch, ...]:
    """Return the derived topics, then those papers.yaml adds (which replace "Other")."""
    if not given:
        return derived
    specific = tuple(t for t in derived if t.slug != OTHER.slug)
    have = {t.slug for t in specific}
    return specific + tuple(TopicMatch(slug, 0.0) for slug in given if slug not in have)
