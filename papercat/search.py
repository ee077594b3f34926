"""The search files: a Lunr index in segments of papers, each split by term prefix into small chunks,
plus display data.

The browser (static/search/engine.js) downloads the manifest, then only the chunks holding the
query's terms (in every segment) and the doc shards of the results it shows. Each chunk is itself a
serialized lunr index that keeps the whole index's term numbers and BM25 weights (counted over the
reference papers), so merging the chunks a query needs scores exactly as the whole index would, and
a new listing rewrites only the segments its papers join. docs/search.md describes the layout.
"""

from __future__ import annotations

import hashlib
import json
import math
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from itertools import accumulate, chain, count
from typing import Any

import numpy as np
from lunr import __TARGET_JS_VERSION__ as LUNR_TARGET_JS_VERSION

from . import urls
from .abstract import plain_text
from .cache import Cache, digest, paused_gc
from .enrich import keyphrases
from .lunrjs import LUNR_VERSION, index_terms, search_pipeline, tokenize
from .model import Catalog, Paper
from .parallel import parallel_map
from .text import counted

FORMAT_VERSION = 2
# Build-time boosts: a word of the title counts most, a coined name (GuardAgent) next, the abstract least.
FIELDS = (("title", 10), ("names", 5), ("abstract", 1))
DOC_SHARD_SIZE = 50
# A chunk is split while its serialized JSON is larger than this (and holds more than one term).
# About 4 bytes of JSON gzip to 1, so chunks come out at roughly 30-60 KB gzip; see docs/search.md.
CHUNK_TARGET = 200_000
# The documents, in arrival order, are indexed in segments of this many: each its own lunr index split
# into chunks, weighted by the same reference statistics, so that a new listing rewrites only the last
# segment or two (see SearchWork.files).
SEGMENT_DOCS = 4096
# With several segments, a query reads a word's chunk in each: their chunks are split at this share of
# the target, so that a word costs about what one chunk of one index would (6 segments at 21,000 papers).
SEGMENT_TARGET_SHARE = 4

_JSON = {"ensure_ascii": False, "sort_keys": True, "separators": (",", ":")}
_ENCODER = json.JSONEncoder(**_JSON)  # what json.dumps(value, **_JSON) makes anew on every call
# What _ENCODER.encode writes for a string, by the C function it calls, without that method's checks:
# the index's files are made of some 400,000 strings.
_encode_string = json.encoder.encode_basestring


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


@dataclass(frozen=True)
class Chunk:
    """One chunk file: the prefixes it answers for and the terms it holds."""

    file: str  # path below search/, e.g. "t/7472.json"
    keys: tuple[tuple[str, bool], ...]  # (prefix, exact): exact keys hold only the term equal to prefix
    terms: tuple[str, ...]


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


# ---------------------------------------------------------------------------------------------
# The index

@dataclass(frozen=True)
class DocTerms:
    """What lunr's builder makes of one search document: its fields' terms (in FIELDS's order), counted."""

    terms: tuple[str, ...]  # each field's distinct terms in order of first use, field after field
    # Each of those terms' frequency in its field, as uint32s: the index takes all documents' at once,
    # and a cache or a worker sends them in one piece (at 20,000 papers, the 1.5 million counts as
    # tuples of ints took 0.07 s more to read back from the cache and to take).
    counts: bytes
    sizes: tuple[int, ...]  # per field: how many of the terms are its
    lengths: tuple[int, ...]  # per field: its length in terms


def doc_terms(doc: SearchDoc) -> DocTerms:
    """Return a document's index terms per field, as lunr.py's Builder.add counts them (lunr.js pipeline)."""
    # The fields in FIELDS's order.
    fields = [_field(_indexed(plain_text(doc.title))), _field(doc.names), _field(_indexed(doc.text))]
    counts = np.fromiter(chain.from_iterable(f.values() for f in fields), np.uint32, sum(map(len, fields)))
    return DocTerms(tuple(chain.from_iterable(fields)), counts.tobytes(), tuple(map(len, fields)),
                    tuple(sum(f.values()) for f in fields))


def _field(text: str) -> dict[str, int]:
    """Return a field's index terms, each with how often the field has it, in order of first use."""
    # lunr.js's tokenizer, then lunr.py's Tokenizer (which lowercases a list's tokens once more: a
    # no-op on lower-case text, tests/test_search_index.py checks) and the pipeline, which drops
    # stop words and words of punctuation (None). Counted into a plain dict (text.counted), which
    # keeps the order of first use.
    terms = counted(index_terms(tokenize(text)))
    terms.pop(None, None)
    return terms


@dataclass(frozen=True)
class TextFields:
    """The title and abstract fields' terms of many papers, as ``doc_terms`` counts them, in columns: worked
    out beside the catalog's other steps by a worker (catalog.make_catalog) that sends them back in a
    few large pieces, not as millions of strings."""

    terms: tuple[str, ...]  # distinct, numbered in order of first use
    numbers: bytes  # uint32: the numbers of each field's terms, field after field, paper after paper
    counts: bytes  # uint32: how often each occurs in its field
    sizes: bytes  # int64: each field's number of terms, title then abstract, paper after paper
    lengths: bytes  # int64: each field's length in terms, likewise
    ids: tuple[str, ...] = ()  # the papers', in order: set by the process the fields are sent to

    def columns(self, docs: Sequence[SearchDoc]) -> TermColumns | None:
        """Return ``_analysed`` of the documents' ``doc_terms``: their titles' and abstracts' fields taken from
        here, their names' counted now; None if a document's paper is not here."""
        at = {pid: n for n, pid in enumerate(self.ids)}
        papers = [at.get(doc.id) for doc in docs]
        if not docs or None in papers:
            return None
        names = _Counted(_Numbering(zip(self.terms, range(len(self.terms)))))
        for doc in docs:
            names.add(_field(doc.names))
        # Every field's terms in one array (the titles' and abstracts' here, then the names'), and each
        # document's three fields taken from it in FIELDS's order: title, names, abstract.
        given = np.frombuffer(self.numbers, np.uint32)
        every = np.concatenate((given, np.array(names.numbers, np.uint32)))
        counts = np.concatenate((np.frombuffer(self.counts, np.uint32), np.array(names.counts, np.uint32)))
        text_sizes = np.frombuffer(self.sizes, np.int64)
        text_starts = (np.cumsum(text_sizes) - text_sizes).reshape(-1, 2)
        text_sizes = text_sizes.reshape(-1, 2)
        names_size = np.array(names.sizes, np.int64)
        rows = np.array(papers, np.int64)
        starts = np.column_stack((text_starts[rows, 0], len(given) + np.cumsum(names_size) - names_size,
                                  text_starts[rows, 1]))
        sizes = np.column_stack((text_sizes[rows, 0], names_size, text_sizes[rows, 1]))
        taken = _runs(starts.ravel(), sizes.ravel())
        flat = every[taken]
        # Numbered again in order of first use over these documents, as lunr numbers them.
        used, first = np.unique(flat, return_index=True)
        used = used[np.argsort(first, kind="stable")]
        renumbered = np.zeros(len(names.number), np.uint32)
        renumbered[used] = np.arange(len(used), dtype=np.uint32)
        text_lengths = np.frombuffer(self.lengths, np.int64).reshape(-1, 2)
        lengths = np.column_stack((text_lengths[rows, 0], np.array(names.lengths, np.int64), text_lengths[rows, 1]))
        return TermColumns(b"", tuple(np.array(list(names.number), dtype=object)[used].tolist()),
                           renumbered[flat].tobytes(), counts[taken].tobytes(), sizes.tobytes(), lengths.tobytes())


class _Counted:
    """Fields' terms added one field after another: their numbers (``number``'s, by first use), how often
    each occurs in its field, and each field's number of terms and length in terms."""

    def __init__(self, number: _Numbering) -> None:
        self.number = number
        self.numbers: list[int] = []
        self.counts: list[int] = []
        self.sizes: list[int] = []
        self.lengths: list[int] = []

    def add(self, terms: dict[str, int]) -> None:
        """Add a field's terms (``_field``'s)."""
        self.numbers += map(self.number.__getitem__, terms)
        self.counts += terms.values()
        self.sizes.append(len(terms))
        self.lengths.append(sum(terms.values()))


def text_fields(titles: Sequence[str], texts: Sequence[str]) -> TextFields:
    """Return the title and abstract fields' terms of papers of these titles and plain abstracts."""
    fields = _Counted(_Numbering())
    for title, text in zip(titles, texts):
        fields.add(_field(_indexed(plain_text(title))))
        fields.add(_field(_indexed(text)))
    return TextFields(tuple(fields.number), np.array(fields.numbers, np.uint32).tobytes(),
                      np.array(fields.counts, np.uint32).tobytes(), np.array(fields.sizes, np.int64).tobytes(),
                      np.array(fields.lengths, np.int64).tobytes())


def doc_key(doc: SearchDoc) -> bytes:
    """Return the digest of what a document's terms are made of: their key in the cache."""
    return digest(doc.title, doc.names, doc.text)


def build_index(docs: Iterable[SearchDoc], cache: Cache | None = None) -> Index:
    """Return the global lunr index of ``docs``, built with lunr.js's text pipeline."""
    docs = list(docs)
    return index_of([d.ref for d in docs], term_columns(docs, cache))


@dataclass(frozen=True, eq=False)
class TermColumns:
    """Every document's ``DocTerms``, in columns, with the terms numbered as the index numbers them.

    The cache keeps one of these, the last build's, rather than an entry per document: it reads
    back as a few large strings, not as 21,000 records each looked up. And while the last build's
    documents come first, in its order (a new listing's come last), their term numbers serve
    again: only the terms of the documents after them are numbered.
    """

    keys: bytes  # each document's doc_key (32 bytes), one after another
    terms: tuple[str, ...]  # by term number: in order of first use, as lunr numbers them
    numbers: bytes  # uint32: the number of each DocTerms.terms term, document after document
    counts: bytes  # uint32: DocTerms.counts, document after document
    sizes: bytes  # int64, (documents, fields): DocTerms.sizes
    lengths: bytes  # int64, (documents, fields): DocTerms.lengths

    def doc_keys(self) -> list[bytes]:
        return [self.keys[n:n + 32] for n in range(0, len(self.keys), 32)]

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Return numbers, counts, sizes and lengths as arrays (read-only views)."""
        return (np.frombuffer(self.numbers, np.uint32), np.frombuffer(self.counts, np.uint32),
                np.frombuffer(self.sizes, np.int64).reshape(-1, len(FIELDS)),
                np.frombuffer(self.lengths, np.int64).reshape(-1, len(FIELDS)))

    def sound(self) -> bool:
        """Return whether the columns agree with one another (a cache entry is used only then)."""
        docs = len(self.keys) // 32
        if len(self.keys) != 32 * docs or not len(self.sizes) == len(self.lengths) == 8 * docs * len(FIELDS):
            return False
        numbers, _, sizes, _ = self.arrays()
        return (len(self.numbers) == len(self.counts) == 4 * int(sizes.sum()) and int(sizes.min(initial=0)) >= 0
                and int(numbers.max(initial=0)) < max(len(self.terms), 1))


_NO_COLUMNS = TermColumns(b"", (), b"", b"", b"", b"")
_TERMS_STAGE = "search"
_TERMS_KEY = digest("the last build's search documents")  # the stage's one entry


def term_columns(docs: Sequence[SearchDoc], cache: Cache | None = None, keys: Sequence[bytes] | None = None,
                 fields: TextFields | None = None) -> TermColumns:
    """Return the documents' terms: those of the last build's documents (by ``doc_key``) from the cache,
    the others analysed now (``doc_terms``, in worker processes); when none is the last build's, made
    of ``fields`` if they hold every document's paper.

    ``keys`` are the documents' ``doc_key``s, if the caller has them already.
    """
    cache = cache or Cache()
    if not cache.enabled:
        return _all_analysed(docs, fields)
    keys = list(keys) if keys is not None else [doc_key(d) for d in docs]
    stage = cache.stage(_TERMS_STAGE, TermColumns)
    old = stage.get(_TERMS_KEY)
    if old is None or not old.sound():
        old = _NO_COLUMNS
    at = {key: n for n, key in enumerate(old.doc_keys())}
    sources = np.fromiter((at.get(key, -1) for key in keys), np.int64, len(keys))
    if (sources < 0).all():  # none is the last build's
        columns = replace(_all_analysed(docs, fields), keys=b"".join(keys))
    else:
        new = parallel_map(doc_terms, [docs[n] for n in np.flatnonzero(sources < 0).tolist()])
        columns = _columns(sources, new, old, b"".join(keys))
    stage.put(_TERMS_KEY, columns)
    stage.close()  # the columns are the caller's now: the stage keeps only its file
    return columns


def terms_cached(cache: Cache) -> bool:
    """Return whether ``cache`` holds the last build's documents' terms (``term_columns``'s)."""
    path = cache.stage(_TERMS_STAGE, TermColumns).path
    return path is not None and path.exists()


def _all_analysed(docs: Sequence[SearchDoc], fields: TextFields | None) -> TermColumns:
    """Return the columns of documents none of which a cache holds: made of ``fields`` if they hold every
    document's paper, else analysed now (in worker processes)."""
    made = fields.columns(docs) if fields is not None else None
    return made if made is not None else _analysed(parallel_map(doc_terms, docs))


def _analysed(docs: Sequence[DocTerms]) -> TermColumns:
    """Return the columns of documents all analysed now, none taken from a cache."""
    return _columns(np.full(len(docs), -1, dtype=np.int64), docs, _NO_COLUMNS)


def _columns(sources: np.ndarray, new: Sequence[DocTerms], old: TermColumns, keys: bytes = b"") -> TermColumns:
    """Return the columns of documents each of which is ``old``'s document ``sources[n]``, or (where that
    is -1) the next of ``new``."""
    fields, size = len(FIELDS), len(sources)
    old_numbers, old_counts, old_sizes, old_lengths = old.arrays()
    is_new = sources < 0
    sizes = np.empty((size, fields), dtype=np.int64)
    lengths = np.empty((size, fields), dtype=np.int64)
    sizes[~is_new] = old_sizes[sources[~is_new]]
    lengths[~is_new] = old_lengths[sources[~is_new]]
    sizes[is_new] = np.array([doc.sizes for doc in new], dtype=np.int64).reshape(-1, fields)
    lengths[is_new] = np.array([doc.lengths for doc in new], dtype=np.int64).reshape(-1, fields)
    # lunr numbers the terms in order of first use: the documents that are old's first ones, in its
    # order, use its first term numbers, whatever follows them. The rest are numbered after those.
    same = sources[:len(old_sizes)] == np.arange(min(size, len(old_sizes)))
    kept = len(same) if same.all() else int(np.argmin(same))
    if kept == size == len(old_sizes):
        return old
    old_elements = old_sizes.sum(axis=1)
    old_starts = np.cumsum(old_elements) - old_elements
    kept_elements = int(old_elements[:kept].sum())
    held = int(old_numbers[:kept_elements].max()) + 1 if kept_elements else 0
    number = _Numbering(zip(old.terms[:held], range(held)))
    # The rest's terms and counts, document after document: those of old documents gathered at once.
    rest = sources[kept:]
    reused = rest[rest >= 0]
    taken = _runs(old_starts[reused], old_elements[reused])
    reused_terms = np.array(old.terms, dtype=object)[old_numbers[taken]].tolist() if len(taken) else []
    reused_counts = old_counts[taken].tobytes()
    terms: list[Sequence[str]] = [doc.terms for doc in new]  # the new documents', in the usual case
    counts: list[bytes] = [doc.counts for doc in new]
    if len(reused):
        terms, counts = [], []
        fresh = iter(new)
        at = 0
        for source, elements in zip(rest.tolist(), old_elements[np.maximum(rest, 0)].tolist()):
            if source < 0:
                doc = next(fresh)
                terms.append(doc.terms)
                counts.append(doc.counts)
            else:
                terms.append(reused_terms[at:at + elements])
                counts.append(reused_counts[4 * at:4 * (at + elements)])
                at += elements
    rest_elements = int(sizes[kept:].sum())
    numbers = np.fromiter(map(number.__getitem__, chain.from_iterable(terms)), np.uint32, rest_elements)
    return TermColumns(keys, tuple(number), old.numbers[:4 * kept_elements] + numbers.tobytes(),
                       old.counts[:4 * kept_elements] + b"".join(counts), sizes.tobytes(), lengths.tobytes())


@dataclass(frozen=True, eq=False)
class Index:
    """The index ``lunr.Builder`` would make, held as columns instead of its millions of small objects.

    Field vector ``v`` is field ``FIELDS[v % len(FIELDS)]`` of document ``refs[v // len(FIELDS)]``.
    The vectors' elements, one after another, are a term number and that term's weight in the
    field, each vector's in order of term number. A term's postings are the vectors that hold it.
    ``serialize`` gives lunr's own form.
    """

    refs: tuple[str, ...]  # distinct
    terms: tuple[str, ...]  # by term number: in order of first use, as lunr numbers them
    lengths: np.ndarray  # each field vector's number of elements
    term: np.ndarray  # each element's term number
    weight: np.ndarray  # each element's weight, as its number in weights
    weights: np.ndarray  # the distinct weights, in order, rounded to 3 places as lunr.py rounds them
    # Each term's number as the serialized index writes it (in the order of the term numbers), if not
    # the term number itself: a segment's terms keep the numbers of the whole index (segment_index).
    numbers: np.ndarray | None = None
    # The position of its first document among all (index_of's ``first``): an index of the later documents
    # alone holds their field vectors, with the whole index's terms and weights, to make their segments of.
    first: int = 0

    def written(self) -> list[int]:
        """Return each term's number as the serialized index writes it."""
        return list(range(len(self.terms))) if self.numbers is None else self.numbers.tolist()

    def vectors(self) -> np.ndarray:
        """Return each element's field vector number."""
        return np.repeat(np.arange(len(self.lengths)), self.lengths)


def assemble_index(refs: Sequence[str], docs: Sequence[DocTerms]) -> Index:
    """Return the index ``lunr.Builder`` would make after adding the documents ``refs`` with these terms."""
    return index_of(refs, _analysed(docs))


def index_of(refs: Sequence[str], columns: TermColumns, reference: int | None = None, first: int = 0) -> Index:
    """Return the index ``lunr.Builder`` would make after adding the documents ``refs`` with these terms,
    its weights counted over the first ``reference`` documents (all of them by default).

    lunr.py's builder re-tokenises every document and keeps a token set and Vector objects that
    serialization never uses. This follows its arithmetic operation for operation (BM25 with
    k1=1.2, b=0.75, its idf, rounding to 3 places), so the serialized index is the same to the byte;
    tests/test_cache.py compares the two. With a ``reference``, the number of documents, each term's
    document frequency and the fields' mean lengths are those of the reference documents alone, as
    lunr would count them over those: the weights of every document stay as they are while later
    documents come and go. With ``first``, only the field vectors of the documents from ``first`` on
    are scored and kept (the weights are counted as without it): enough for their segments
    (``segment_index``), when the earlier segments are kept.
    """
    if len(set(refs)) != len(refs):
        raise ValueError("search documents need distinct refs")
    size, fields = len(refs), len(FIELDS)
    counted_docs = size if reference is None else min(reference, size)
    numbers, counts, sizes, field_lengths = columns.arrays()
    average = ([total / counted_docs for total in field_lengths[:counted_docs].sum(axis=0).tolist()]
               if counted_docs else [0.0] * fields)
    held = len(columns.terms)
    terms = numbers.astype(np.int64)
    # The documents holding a term in a field: the vectors holding it (a vector holds a term once).
    with_term = np.bincount(terms[:int(sizes[:counted_docs].sum())], minlength=held)
    x = (counted_docs - with_term + 0.5) / (with_term + 0.5)
    idf = np.array(list(map(math.log, (1 + np.abs(x)).tolist())), dtype=np.float64)  # Python's log, as lunr.py's
    # From here on, only the documents from ``first`` on.
    skipped = int(sizes[:first].sum())
    terms, counts, field_lengths = terms[skipped:], counts[skipped:], field_lengths[first:]
    size = size - first
    lengths = sizes[first:].reshape(size * fields)  # elements per vector
    # Each term of each field vector, scored at once: IEEE arithmetic in numpy gives the very doubles
    # Python's does, operation for operation. A field without terms has no elements to score: its
    # average length may be 0.
    k1, b = 1.2, 0.75
    tf = counts.astype(np.float64)
    mean = np.array([m or 1.0 for m in average], dtype=np.float64)
    norm = np.repeat((k1 * (1 - b + b * (field_lengths / mean))).reshape(size * fields), lengths)
    boost = np.repeat(np.tile(np.array([boost for _, boost in FIELDS], dtype=np.float64), size), lengths)
    scores = idf[terms] * ((k1 + 1) * tf) / (norm + tf) * boost
    # Each vector's elements by term number (a stable sort of the vectors, already in order, is quick).
    order = np.argsort(np.repeat(np.arange(size * fields), lengths) * max(held, 1) + terms, kind="stable")
    thousandths = _thousandths(scores[order])
    used_weights = np.zeros(thousandths.max() + 1 if len(thousandths) else 0, dtype=bool)
    used_weights[thousandths] = True
    weight = (np.cumsum(used_weights) - 1)[thousandths]  # a weight's number: how many smaller ones are used
    return Index(tuple(refs[first:]), columns.terms, lengths, terms[order], weight, np.flatnonzero(used_weights) / 1000,
                 first=first)


class _Numbering(dict[str, int]):
    """Numbers by key, each key numbered on first use: 0, 1, 2, ..."""

    def __missing__(self, key: str) -> int:
        self[key] = n = len(self)
        return n


def _thousandths(x: np.ndarray) -> np.ndarray:
    """Return ``round(v, 3) * 1000`` of every ``v`` as an integer, rounded as Python's round() rounds.

    round() rounds the exact binary value half to even; ``rint(v * 1000)`` does the same except
    where the product's own rounding error may cross a half, and those few are left to round().
    ``n / 1000`` is then exactly ``round(v, 3)``: both are the double nearest the decimal.
    """
    y = x * 1000
    n = np.rint(y)
    near = np.abs(np.abs(y - n) - 0.5) <= 4 * np.spacing(y)
    n[near] = [round(round(v, 3) * 1000) for v in x[near].tolist()]
    return n.astype(np.int64)


def serialize(index: Index) -> dict[str, Any]:
    """Return the index as lunr.py's Builder serializes it, down to the order of every dict's keys."""
    names = [name for name, _ in FIELDS]
    postings: list[dict[str, Any]] = [{**{name: {} for name in names}, "_index": n} for n in range(len(index.terms))]
    terms, weights = index.term.tolist(), index.weights[index.weight].tolist()
    vectors = []
    start = 0
    for v, length in enumerate(index.lengths.tolist()):
        ref, name = index.refs[v // len(names)], names[v % len(names)]
        elements: list[Any] = []
        for term, weight in zip(terms[start:start + length], weights[start:start + length]):
            postings[term][name][ref] = {}
            elements += (term, weight)
        vectors.append([f"{name}/{ref}", elements])
        start += length
    return {
        "version": LUNR_TARGET_JS_VERSION,
        "fields": names,
        "fieldVectors": vectors,
        "invertedIndex": [[term, postings[n]] for term, n in sorted(zip(index.terms, count()))],
        "pipeline": search_pipeline().serialize(),
    }


def _indexed(text: str) -> str:
    """Return ``text`` as indexed: dashes split words, and no term holds lunr's wildcard "*".

    lunr's tokenizer splits on spaces and hyphens only, so "guaranteed—such" would be one term.
    """
    return text.replace("*", " ").replace("\u2013", " ").replace("\u2014", " ")  # quicker than a pattern


def _js_order(term: str) -> bytes:
    """Sort key for JavaScript's string order (UTF-16 code units), which lunr.js's TokenSet requires."""
    return term.encode("utf-16-be", "surrogatepass")


def _beyond_bmp(terms: list[str]) -> bool:
    """Return whether a term has a character beyond U+FFFF, which JavaScript counts as two code units."""
    text = "".join(terms)
    return not text.isascii() and len(text.encode("utf-16-le", "surrogatepass")) > 2 * len(text)


@dataclass(frozen=True)
class _Leaf:
    """A prefix group of terms before neighbouring small groups are put in one file."""

    key: str
    exact: bool
    terms: tuple[str, ...]
    size: int


def split_index(index: Index, target: int | None = CHUNK_TARGET) -> list[Chunk]:
    """Group the index's terms into chunks by prefix: split while a chunk is over ``target`` bytes.

    With ``target=None`` the whole index is one chunk (the unsplit baseline).
    """
    sizes = _term_sizes(index)
    terms = sorted(sizes)
    # A run of the sorted terms is in JavaScript's order too unless a term has a character beyond U+FFFF
    # (two UTF-16 code units): only then are each chunk's terms sorted again (91,000 terms at 20,000
    # papers, 0.04 s).
    js_sorted = partial(sorted, key=_js_order) if _beyond_bmp(terms) else list
    if target is None:
        return [Chunk("t/root.json", (("", False),), tuple(js_sorted(terms)))]
    before = list(accumulate(map(sizes.__getitem__, terms), initial=0))  # bytes of the terms before each
    leaves = _split("", terms, before, 0, len(terms), target)
    # Neighbouring small leaves share a file, so a catalog does not become thousands of tiny files.
    groups: list[list[_Leaf]] = []
    size = 0
    for leaf in leaves:
        if groups and size + leaf.size <= target:
            groups[-1].append(leaf)
            size += leaf.size
        else:
            groups.append([leaf])
            size = leaf.size
    return [Chunk(_chunk_file(group[0].key), tuple((x.key, x.exact) for x in group),
                  tuple(js_sorted(t for x in group for t in x.terms))) for group in groups]


def _split(prefix: str, terms: list[str], before: list[int], start: int, stop: int, target: int) -> list[_Leaf]:
    """Return the leaves below ``prefix`` (``terms[start:stop]``): all its terms if they fit, else one
    subtree per next character."""
    size = before[stop] - before[start]
    if size <= target or stop - start == 1:
        return [_Leaf(prefix, False, tuple(terms[start:stop]), size)]
    leaves = []
    if terms[start] == prefix:  # the term that is the prefix itself ("trans" beside "transf...")
        leaves.append(_Leaf(prefix, True, (prefix,), before[start + 1] - before[start]))
        start += 1
    depth = len(prefix) + 1
    while start < stop:  # the terms sharing the next character are a run of the sorted terms
        key = terms[start][:depth]
        end = bisect_right(terms, key, start, stop, key=lambda t: t[:depth])
        leaves.extend(_split(key, terms, before, start, end, target))
        start = end
    return leaves


def _term_sizes(index: Index) -> dict[str, int]:
    """Estimate each term's bytes in a chunk: its posting plus its elements of the field vectors."""
    names = [name for name, _ in FIELDS]
    terms = len(index.terms)
    vector = index.vectors()
    doc, field = np.divmod(vector, len(names))
    # Each element costs `term,weight,` (str of the int, repr of the float) and its share of its
    # vector's ["field/ref",[...]] header; a field may have no elements.
    field_refs = np.array([len(name) + 1 + len(ref) for ref in index.refs for name in names], dtype=np.int64)
    headers = (field_refs + 8) * 2 // np.maximum(index.lengths * 2, 2)
    weights = np.array([len(repr(w)) for w in index.weights.tolist()], dtype=np.int64)
    digits = _digits(terms) if index.numbers is None else np.fromiter(map(len, map(str, index.written())), np.int64, terms)
    elements = headers[vector] + 2 + digits[index.term] + weights[index.weight]
    # A posting is ["term",{"_index":n,"abstract":{"ref":{},...},...}]: the term, its number, and
    # `"ref":{},` per element, but one comma fewer per field that holds the term.
    encode = _ENCODER.encode
    empty = len(encode(["", {"_index": 0, **{name: {} for name in names}}])) - len('""0')
    refs = np.array([len(_encode_string(ref)) + 4 for ref in index.refs], dtype=np.int64)
    held = np.bincount(index.term * len(names) + field, minlength=terms * len(names)).reshape(terms, len(names))
    sizes = (np.bincount(index.term, weights=elements + refs[doc], minlength=terms).astype(np.int64)
             + empty + np.fromiter(map(len, map(_encode_string, index.terms)), np.int64, terms) + digits
             - np.count_nonzero(held, axis=1) + 1)
    return dict(zip(index.terms, sizes.tolist()))


def _digits(n: int) -> np.ndarray:
    """Return the length of ``str(i)`` for each i in range(n)."""
    # One more digit from each power of ten on: writing out the 90,000 numbers took 15 ms.
    digits = np.ones(n, dtype=np.int64)
    power = 10
    while power < n:
        digits[power:] += 1
        power *= 10
    return digits


def _chunk_file(key: str) -> str:
    """Return a chunk's file name: its first prefix in hex, stable as the catalog grows."""
    if not key:
        return "t/root.json"
    name = key.encode("utf-8").hex()
    if len(name) > 64:  # a long shared prefix (a pasted hash) must not make an over-long file name
        name = name[:48] + "-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]
    return f"t/{name}.json"


# ---------------------------------------------------------------------------------------------
# The files

@paused_gc()
def search_files(catalog: Catalog, target: int | None = CHUNK_TARGET,
                 cache: Cache | None = None, order: Sequence[str] = ()) -> dict[str, bytes]:
    """Return every file of the site's search/ folder by its path below search/ (docs in ``order``)."""
    work = search_work(catalog, target, cache, order)
    return {**{path: make() for path, make, _ in work.doc_files()},
            **{file.path: file.data for file in work.files() if file.data is not None}}


@dataclass(frozen=True, eq=False)
class SearchWork:
    """The search documents, with the files made of them still to make.

    ``search_work`` makes the documents (their names cached, in worker processes). ``doc_files``
    are made of the documents alone, each by its own function, so that any process may make them
    (the build's page-rendering workers do). ``files()`` makes the index (the documents' terms
    included) unless the cache has it; the build runs it while the workers render the pages
    (pipeline.py), so that no terms are held while the pages come back.
    """

    catalog: Catalog
    docs: list[SearchDoc]
    doc_keys: list[bytes] | None  # each document's doc_key, with a cache
    target: int | None
    cache: Cache
    fields: TextFields | None = None  # the titles' and abstracts' fields, worked out beside the catalog

    @paused_gc()
    def files(self, keep: Callable[[str, bytes], bool] = lambda path, key: False) -> list[IndexFile]:
        """Return the index's files (each segment's chunks, and the manifest).

        A segment the last build made from the same documents (its key is in the cache) whose every
        file ``keep(path, key)`` finds in the site as that build left it is kept: its files come
        without bytes, unread. The others are made now (and remembered in the cache).
        """
        bounds = segment_bounds(len(self.docs))
        reference = keyphrases.reference_count(len(self.docs))  # weights counted as keyphrases' are
        target = self.target if self.target is None or len(bounds) == 1 else max(1, self.target // SEGMENT_TARGET_SHARE)
        stage = self.cache.stage(_SEGMENTS_STAGE, SegmentFiles)
        keys = [self._segment_key(start, stop, reference, target) for start, stop in bounds]
        kept = [self._kept(stage.get(key), key, keep) if key is not None else None for key in keys]
        if None in kept:
            columns = term_columns(self.docs, self.cache, self.doc_keys, self.fields)
            # The field vectors of the segments to make and those after them: not of the kept ones before.
            first = bounds[kept.index(None)][0]
            index = index_of([d.ref for d in self.docs], columns, reference, first)
        records: list[SegmentFiles] = []
        files: list[IndexFile] = []
        for n, ((start, stop), record) in enumerate(zip(bounds, kept)):
            if record is None:  # made now: its files with their bytes
                segment = _segment_files(segment_index(index, start, stop), n, target)
                record = segment.record()
                if keys[n] is not None:
                    stage.put(keys[n], record)
                files += [IndexFile(path, data, keys[n]) for path, data in segment.files]
            else:  # kept: its files come without bytes, unread
                files += [IndexFile(path, None, keys[n]) for path, _ in record.files]
            records.append(record)
        stage.close()  # the records are the caller's now: the cache keeps only what it will write
        return [*files, IndexFile(MANIFEST, _manifest(self.catalog, len(self.docs), bounds, records), None)]

    @staticmethod
    def _kept(record: SegmentFiles | None, key: bytes, keep: Callable[[str, bytes], bool]) -> SegmentFiles | None:
        """Return the last build's record of a segment if every file of it is in the site to keep, else None."""
        return record if record is not None and all(keep(path, key) for path, _ in record.files) else None

    def _segment_key(self, start: int, stop: int, reference: int, target: int | None) -> bytes | None:
        """Return the digest of what the segment of documents ``start:stop`` is made of (texts by their
        doc_key), or None without a cache: the reference documents' terms (its weights), and those of
        every document up to its last (its own, and the numbers of its terms: by first use)."""
        if self.doc_keys is None:
            return None
        return digest(f"search segment {FORMAT_VERSION} {target} {start} {stop} {reference}",
                      b"".join(self.doc_keys[:max(reference, stop)]))

    def doc_files(self) -> list[tuple[str, Callable[[], bytes], bytes | None]]:
        """Return the files shown with results (the doc shards, then the facets), each with the function
        that makes it and, with a cache, a key for a doc shard: the digest of what it is made of."""
        shards = [(f"docs/{n}.json", partial(_doc_shard, self.docs, n), self._shard_key(n))
                  for n in range(_shards(len(self.docs)))]
        return [*shards, ("facets.json", partial(_facets, self.catalog, self.docs), None)]

    def _shard_key(self, n: int) -> bytes | None:
        """Return the digest of what doc shard ``n`` shows (texts by their doc_key), or None without a cache."""
        if self.doc_keys is None:
            return None
        part = slice(n * DOC_SHARD_SIZE, (n + 1) * DOC_SHARD_SIZE)
        return digest(f"doc shard {FORMAT_VERSION} {DOC_SHARD_SIZE}", b"".join(self.doc_keys[part]),
                      _ENCODER.encode([[d.id, d.url, d.venues, d.topics] for d in self.docs[part]]))


_SEGMENTS_STAGE = "search-segments"


@paused_gc()
def search_work(catalog: Catalog, target: int | None = CHUNK_TARGET, cache: Cache | None = None,
                order: Sequence[str] = (), fields: TextFields | None = None) -> SearchWork:
    """Return the search documents (those of ``order``, ids, first), with the files made of them to make;
    the papers' title and abstract fields are taken from ``fields``, where they are."""
    cache = cache or Cache()
    docs = search_docs(catalog, order)
    # With a cache, each document's texts are hashed once (24 MB at 20,000 papers): their digest keys
    # the document's terms, and stands for the texts in the keys of its segment and its doc shard.
    # Without one nothing is looked up by them, and hashing every document would be time lost.
    doc_keys = [doc_key(d) for d in docs] if cache.enabled else None
    return SearchWork(catalog, docs, doc_keys, target, cache, fields)


def segment_bounds(docs: int) -> list[tuple[int, int]]:
    """Return the segments of ``docs`` documents as (start, stop): SEGMENT_DOCS each, the last one shorter."""
    return [(start, min(start + SEGMENT_DOCS, docs)) for start in range(0, docs, SEGMENT_DOCS)] or [(0, 0)]


def segment_index(index: Index, start: int, stop: int) -> Index:
    """Return the part of ``index`` that holds documents ``start:stop`` (positions among all documents), as
    an index of its own.

    Its terms are those the documents hold, in the order of their numbers in ``index``, and written
    with those numbers: every segment numbers a term as the whole index does, so the browser merges
    the chunks of several segments as those of one index (and sums a query's scores in the same
    order). The weights are ``index``'s. The whole index is its own segment, unchanged.
    """
    fields = len(FIELDS)
    if start == index.first == 0 and stop == len(index.refs):
        return index
    start, stop = start - index.first, stop - index.first
    ends = np.cumsum(index.lengths)
    first = int(ends[start * fields - 1]) if start else 0
    last = int(ends[stop * fields - 1]) if stop else 0
    used, term = np.unique(index.term[first:last], return_inverse=True)
    return Index(index.refs[start:stop], tuple(np.array(index.terms, dtype=object)[used].tolist()),
                 index.lengths[start * fields:stop * fields], term.astype(np.int64), index.weight[first:last],
                 index.weights, used)


MANIFEST = "manifest.json"


@dataclass(frozen=True)
class IndexFile:
    """A file of the search index: its path below search/, its bytes, and the key of its segment (with a
    cache). No bytes: the last build's file is kept as it is (``SearchWork.files``)."""

    path: str
    data: bytes | None
    key: bytes | None


@dataclass(frozen=True)
class SegmentFiles:
    """What the manifest (and a later build) needs of a segment: its files' paths and sizes, in order,
    and the manifest's keys that find them (file numbers counted from the segment's first file)."""

    files: tuple[tuple[str, int], ...]  # (path below search/, size in bytes)
    keys: tuple[tuple[str, int, int], ...]  # (prefix, exact, file number in the segment)


@dataclass(frozen=True)
class Segment:
    """One segment's chunk files, made: their bytes and the manifest's keys that find them."""

    files: tuple[tuple[str, bytes], ...]  # (path below search/, JSON)
    keys: tuple[tuple[str, int, int], ...]  # (prefix, exact, file number in the segment)

    def record(self) -> SegmentFiles:
        return SegmentFiles(tuple((path, len(data)) for path, data in self.files), self.keys)


def _segment_files(index: Index, number: int, target: int | None) -> Segment:
    """Return segment ``number``'s chunks: ``index`` split by term prefix, its files below t/<number>/."""
    chunks = split_index(index, target)
    return Segment(tuple((f"t/{number}/{c.file.removeprefix('t/')}", data) for c, data in zip(chunks, _chunk_data(index, chunks))),
                   tuple((key, int(exact), n) for n, c in enumerate(chunks) for key, exact in c.keys))


def _manifest(catalog: Catalog, docs: int, bounds: list[tuple[int, int]], segments: list[SegmentFiles]) -> bytes:
    """Return the manifest that finds the segments' chunks (and the other files)."""
    files: list[tuple[str, int]] = []
    keys: list[list[Any]] = []
    table = []
    for (start, stop), segment in zip(bounds, segments):
        first = len(files)
        keys += [[key, exact, first + n] for key, exact, n in segment.keys]
        files += segment.files
        table.append({"docs": [start, stop], "files": [first, len(files)]})
    return _dump({
        "version": FORMAT_VERSION,
        "lunr": LUNR_VERSION,
        "docs": docs,
        "docShardSize": DOC_SHARD_SIZE,
        "fields": [list(f) for f in FIELDS],
        # Each segment's documents (refs start:stop) and chunk files (first:last of chunkFiles).
        "segments": table,
        # [prefix, exact, file number]: in each segment, a term lives in the chunk of the exact key equal
        # to it, else in the chunk of the longest non-exact key it starts with.
        "chunks": sorted(keys),
        "chunkFiles": [[name, size] for name, size in files],
        "venues": [[v.slug, v.label] for v in catalog.venues],
        "topics": [[t.slug, t.name] for t in catalog.topics],
    })


def _shards(docs: int) -> int:
    """Return how many doc shards ``docs`` documents fill."""
    return -(-docs // DOC_SHARD_SIZE)


def _doc_shard(docs: list[SearchDoc], n: int) -> bytes:
    """Return doc shard ``n``: what a result shows of each of its documents."""
    return _dump([{"id": d.id, "title": d.title, "url": d.url, "venues": list(d.venues), "topics": list(d.topics),
                   "text": d.text} for d in docs[n * DOC_SHARD_SIZE:(n + 1) * DOC_SHARD_SIZE]])


def _facets(catalog: Catalog, docs: list[SearchDoc]) -> bytes:
    """Return each document's venues and topics, by their number in the manifest, for the filters."""
    venue_numbers = {v.slug: i for i, v in enumerate(catalog.venues)}
    topic_numbers = {t.slug: i for i, t in enumerate(catalog.topics)}
    return _dump({"venues": [[venue_numbers[s] for s in d.venues] for d in docs],
                  "topics": [[topic_numbers[s] for s in d.topics] for d in docs]})


def _chunk_data(index: Index, chunks: list[Chunk]) -> list[bytes]:
    """Serialize every chunk: its terms' postings and the parts of the field vectors that hold them.

    Written out as ``_dump`` would write {"fieldVectors": [[field_ref, [term, weight, ...]], ...],
    "fields": ..., "invertedIndex": [[term, posting], ...], "pipeline": ..., "version": ...} of the
    chunk's part of ``serialize(index)``. Each piece of text (a term number, a weight, a ref, ...)
    is made once; numpy puts the pieces of every chunk in order as numbers and joins them, so two
    million elements need no Python object each.
    """
    pieces, first = _pieces(index)
    number = dict(zip(index.terms, count()))
    listed = np.array([number[t] for c in chunks for t in c.terms], dtype=np.int64)  # chunk after chunk
    per_chunk = np.array([len(c.terms) for c in chunks], dtype=np.int64)
    vectors, vector_bounds = _vector_pieces(index, listed, per_chunk, first)
    postings, posting_bounds = _posting_pieces(index, listed, per_chunk, first)
    return [pieces.join(np.r_[_OPENING, vectors[vector_bounds[n]:vector_bounds[n + 1]].ravel(), _MIDDLE,
                              postings[posting_bounds[n]:posting_bounds[n + 1]], _CLOSING])
            for n in range(len(chunks))]


@dataclass(frozen=True, eq=False)
class _Pieces:
    """Numbered texts laid end to end as UTF-8, so that numpy joins any run of them."""

    data: np.ndarray  # uint8
    starts: np.ndarray
    sizes: np.ndarray

    def join(self, numbers: np.ndarray) -> bytes:
        """Return the pieces ``numbers``, one after another."""
        # np.take, not indexing: indexing converts 32-bit positions to 64-bit ones first, which took
        # twice as long as the gathering itself (68 MB of chunks at 20,000 papers).
        runs = _runs(np.take(self.starts, numbers), np.take(self.sizes, numbers))
        return np.take(self.data, runs).tobytes()


# The pieces every chunk shares, by number; then _pieces adds those of the index.
_FIXED_PIECES = ("", ",", "]],", "]]", "}}],", "}}]", '{"fieldVectors":[',
                 f'],"fields":{_ENCODER.encode([name for name, _ in FIELDS])},"invertedIndex":[',
                 f'],"pipeline":{_ENCODER.encode(search_pipeline().serialize())},'  # noqa: ISC004
                 f'"version":{_ENCODER.encode(LUNR_TARGET_JS_VERSION)}}}')
_NOTHING, _COMMA, _PART_END, _LAST_PART_END, _POSTING_END, _LAST_POSTING_END, _OPENING, _MIDDLE, _CLOSING = range(
    len(_FIXED_PIECES))
_KEYS = sorted(name for name, _ in FIELDS)  # a posting's fields as json's sort_keys writes them, after "_index"


def _pieces(index: Index) -> tuple[_Pieces, dict[str, int]]:
    """Return the pieces of text the index's chunks are made of, and the number of the first of each kind."""
    encode, first_key = _encode_string, _encode_string(_KEYS[0])
    kinds = {
        "term": (f"{n}," for n in index.written()),
        "weight": map(repr, index.weights.tolist()),
        "head": (f"[{encode(f'{name}/{ref}')},[" for ref in index.refs for name, _ in FIELDS),  # opens a part
        "ref": (f"{encode(ref)}:{{}}" for ref in index.refs),
        "more ref": (f",{encode(ref)}:{{}}" for ref in index.refs),
        "posting": (f'[{encode(term)},{{"_index":{n},{first_key}:{{' for n, term in zip(index.written(), index.terms)),
        "next field": (f"}},{encode(key)}:{{" for key in _KEYS[1:]),  # closes a field's refs, opens the next's
    }
    encoded = [piece.encode() for piece in _FIXED_PIECES]
    first = {}
    for kind, texts in kinds.items():
        first[kind] = len(encoded)
        encoded.extend(text.encode() for text in texts)
    # 32-bit offsets (a few MB of pieces) make the joins several times quicker than 64-bit ones.
    sizes = np.fromiter(map(len, encoded), np.int32, len(encoded))
    return _Pieces(np.frombuffer(b"".join(encoded), dtype=np.uint8), np.cumsum(sizes, dtype=np.int32) - sizes,
                   sizes), first


def _vector_pieces(index: Index, listed: np.ndarray, per_chunk: np.ndarray,
                   first: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """Return the pieces of the chunks' field vector parts, four an element, and where each chunk's begin.

    A part is a field vector's elements of the chunk's terms, in the vectors' order. An element is
    (opening its part: ["field/ref",[), `term,`, weight, and `,`, `]],` or, ending its chunk, `]]`.
    """
    owner = np.empty(len(index.terms), dtype=np.int64)  # term number -> chunk
    owner[listed] = np.repeat(np.arange(len(per_chunk)), per_chunk)
    vector = index.vectors()
    chunk = owner[index.term]
    # A stable sort of small numbers is a radix sort: quick.
    order = np.argsort(chunk.astype(np.uint16) if len(per_chunk) <= 1 << 16 else chunk, kind="stable")
    chunk, part = chunk[order], vector[order]
    new_chunk = np.r_[True, chunk[1:] != chunk[:-1]][:len(order)]
    new_part = new_chunk | np.r_[True, part[1:] != part[:-1]][:len(order)]
    pieces = np.empty((len(order), 4), dtype=np.int32)
    pieces[:, 0] = np.where(new_part, first["head"] + part, _NOTHING)
    pieces[:, 1] = first["term"] + index.term[order]
    pieces[:, 2] = first["weight"] + index.weight[order]
    pieces[:, 3] = np.where(np.r_[new_chunk[1:], True], _LAST_PART_END,
                            np.where(np.r_[new_part[1:], True], _PART_END, _COMMA))
    return pieces, np.r_[0, np.cumsum(np.bincount(chunk, minlength=len(per_chunk)))]


def _posting_pieces(index: Index, listed: np.ndarray, per_chunk: np.ndarray,
                    first: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """Return the pieces of the chunks' postings, chunk after chunk, and where each chunk's begin.

    A posting is its head (term, number and first field), then per field in key order its refs
    (sorted as strings, as json's sort_keys sorts them) and what closes the field; the last closes
    the posting too, and is followed by a comma unless the posting ends its chunk.
    """
    fields = len(FIELDS)
    place = np.empty(len(index.terms), dtype=np.int64)  # term number -> place among the listed terms
    place[listed] = np.arange(len(listed))
    doc, field = np.divmod(index.vectors(), fields)
    key = np.array([_KEYS.index(name) for name, _ in FIELDS], dtype=np.int64)[field]
    refs_in_order = np.array(sorted(range(len(index.refs)), key=index.refs.__getitem__), dtype=np.int64)
    grouped = place[index.term] * fields + key  # each element's (term's place, field's key)
    # The elements by ref (each document's run of elements, in order of refs), then stably by group.
    sizes = index.lengths.reshape(-1, fields).sum(axis=1)
    by_ref = _runs((np.cumsum(sizes) - sizes)[refs_in_order], sizes[refs_in_order])
    order = by_ref[_stable_order(grouped[by_ref])]
    group, doc = grouped[order], doc[order]
    held = np.bincount(group, minlength=len(listed) * fields)
    ends = np.cumsum(held)
    starts = ends - held
    # A term's own pieces are its head and what closes each field: the k-th ref of a field comes
    # after the pieces and refs of the terms before and of the fields before.
    step = fields + 1
    pieces = np.empty(len(listed) * step + len(order), dtype=np.int32)
    elements = np.arange(len(order))
    term, key = np.divmod(group, fields)
    pieces[term * step + 1 + key + elements] = np.where(elements == starts[group], first["ref"] + doc,
                                                        first["more ref"] + doc)
    heads = np.arange(len(listed)) * step + starts[::fields]
    pieces[heads] = first["posting"] + listed
    closes = np.repeat(np.arange(len(listed)) * step + 1, fields) + np.tile(np.arange(fields), len(listed)) + ends
    pieces[closes] = np.tile(np.r_[first["next field"] + np.arange(fields - 1), _POSTING_END], len(listed))
    last = np.cumsum(per_chunk)[per_chunk > 0] - 1  # the place of each chunk's last term
    pieces[closes[fields - 1::fields][last]] = _LAST_POSTING_END
    return pieces, np.r_[heads, len(pieces)][np.r_[0, np.cumsum(per_chunk)]]


def _runs(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Return ``range(start, start + size)`` for each start and size, one after another, as one array."""
    ends = np.cumsum(sizes, dtype=sizes.dtype)
    return np.repeat(starts - (ends - sizes), sizes) + np.arange(ends[-1] if len(ends) else 0, dtype=ends.dtype)


def _stable_order(keys: np.ndarray) -> np.ndarray:
    """Return the order that sorts ``keys`` (integers in [0, 2**32)) stably: two radix sorts of 16 bits each."""
    if len(keys) and keys.max() >> 32:
        return np.argsort(keys, kind="stable")
    low = np.argsort((keys & 0xFFFF).astype(np.uint16), kind="stable")
    return low[np.argsort((keys[low] >> 16).astype(np.uint16), kind="stable")]


def _dump(value: Any) -> bytes:
    """Serialize deterministically: sorted keys, compact separators, UTF-8."""
    return _ENCODER.encode(value).encode("utf-8")
