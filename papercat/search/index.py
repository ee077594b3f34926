"""The lunr index as columns: BM25 weights as lunr.py counts them, its segments, and lunr's own form."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import count
from typing import Any

import numpy as np
from lunr import __TARGET_JS_VERSION__ as LUNR_TARGET_JS_VERSION

from ..incremental.memo import Cache
from .columns import TermColumns, _analysed, term_columns
from .documents import SearchDoc
from .format import FIELDS
from .lunrjs import search_pipeline
from .terms import DocTerms


def build_index(docs: Iterable[SearchDoc], cache: Cache | None = None) -> Index:
    """Return the global lunr index of ``docs``, built with lunr.js's text pipeline."""
    docs = list(docs)
    return index_of([d.ref for d in docs], term_columns(docs, cache))


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
