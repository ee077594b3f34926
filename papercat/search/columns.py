"""Every document's index terms in columns: from the last build's cache, the catalog's fields, or
analysed now."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import chain

import numpy as np

from .. import workers
from ..incremental.memo import Cache, digest
from ..enrich.abstract import plain_text
from .arrays import _runs
from .documents import SearchDoc, doc_key
from .format import FIELDS
from .terms import DocTerms, _field, _indexed, _Numbering, doc_terms


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
    old = _sound(stage.get(_TERMS_KEY))
    at = {key: n for n, key in enumerate(old.doc_keys())}
    sources = np.fromiter((at.get(key, -1) for key in keys), np.int64, len(keys))
    if (sources < 0).all():  # none is the last build's
        columns = replace(_all_analysed(docs, fields), keys=b"".join(keys))
    else:
        new = workers.map(doc_terms, [docs[n] for n in np.flatnonzero(sources < 0).tolist()])
        columns = _columns(sources, new, old, b"".join(keys))
    stage.put(_TERMS_KEY, columns)
    stage.close()  # the columns are the caller's now: the stage keeps only its file
    return columns


def _sound(columns: TermColumns | None) -> TermColumns:
    """Return the cache's columns if they agree with one another, else none."""
    return columns if columns is not None and columns.sound() else _NO_COLUMNS


def terms_cached(cache: Cache) -> bool:
    """Return whether ``cache`` holds the last build's documents' terms (``term_columns``'s)."""
    path = cache.stage(_TERMS_STAGE, TermColumns).path
    return path is not None and path.exists()


def _all_analysed(docs: Sequence[SearchDoc], fields: TextFields | None) -> TermColumns:
    """Return the columns of documents none of which a cache holds: made of ``fields`` if they hold every
    document's paper, else analysed now (in worker processes)."""
    made = fields.columns(docs) if fields is not None else None
    return made if made is not None else _analysed(workers.map(doc_terms, docs))


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
        terms, counts = _interleaved(rest.tolist(), old_elements[np.maximum(rest, 0)].tolist(), new, reused_terms,
                                     reused_counts)
    rest_elements = int(sizes[kept:].sum())
    numbers = np.fromiter(map(number.__getitem__, chain.from_iterable(terms)), np.uint32, rest_elements)
    return TermColumns(keys, tuple(number), old.numbers[:4 * kept_elements] + numbers.tobytes(),
                       old.counts[:4 * kept_elements] + b"".join(counts), sizes.tobytes(), lengths.tobytes())


def _interleaved(sources: list[int], elements: list[int], new: Sequence[DocTerms], reused_terms: list[str],
                 reused_counts: bytes) -> tuple[list[Sequence[str]], list[bytes]]:
    """Return each document's terms and counts: the next of ``new`` where its source is -1, else the next
    ``elements`` of the old documents' ``reused_terms`` and ``reused_counts``."""
    terms: list[Sequence[str]] = []
    counts: list[bytes] = []
    fresh = iter(new)
    at = 0
    for source, size in zip(sources, elements):
        if source < 0:
            doc = next(fresh)
            terms.append(doc.terms)
            counts.append(doc.counts)
        else:
            terms.append(reused_terms[at:at + size])
            counts.append(reused_counts[4 * at:4 * (at + size)])
            at += size
    return terms, counts
