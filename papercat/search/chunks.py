"""The index's terms grouped by prefix into chunks, each small enough to download for a query."""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from dataclasses import dataclass
from functools import partial
from itertools import accumulate

import numpy as np

from .format import _ENCODER, FIELDS, _encode_string
from .index import Index

# A chunk is split while its serialized JSON is larger than this (and holds more than one term).
# About 4 bytes of JSON gzip to 1, so chunks come out at roughly 30-60 KB gzip; see docs/search.md.
CHUNK_TARGET = 200_000


@dataclass(frozen=True)
class Chunk:
    """One chunk file: the prefixes it answers for and the terms it holds."""

    file: str  # path below search/, e.g. "t/7472.json"
    keys: tuple[tuple[str, bool], ...]  # (prefix, exact): exact keys hold only the term equal to prefix
    terms: tuple[str, ...]


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
