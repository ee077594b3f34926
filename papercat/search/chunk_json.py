"""Chunks written as the JSON of serialized lunr indexes, joined from numbered pieces of text."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import count

import numpy as np
from lunr import __TARGET_JS_VERSION__ as LUNR_TARGET_JS_VERSION

from .arrays import _runs, _stable_order
from .chunks import Chunk
from .format import _ENCODER, FIELDS, _encode_string
from .index import Index
from .lunrjs import search_pipeline


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
    encoded = [piece.encode() for piece in _FIXED_PIECES]
    first = {}
    for kind, texts in _piece_texts(index).items():
        first[kind] = len(encoded)
        encoded.extend(text.encode() for text in texts)
    # 32-bit offsets (a few MB of pieces) make the joins several times quicker than 64-bit ones.
    sizes = np.fromiter(map(len, encoded), np.int32, len(encoded))
    return _Pieces(np.frombuffer(b"".join(encoded), dtype=np.uint8), np.cumsum(sizes, dtype=np.int32) - sizes,
                   sizes), first


def _piece_texts(index: Index) -> dict[str, Iterable[str]]:
    """Return the texts of the index's own pieces, by kind, in the order they are numbered."""
    encode, first_key = _encode_string, _encode_string(_KEYS[0])
    return {
        "term": (f"{n}," for n in index.written()),
        "weight": map(repr, index.weights.tolist()),
        "head": (f"[{encode(f'{name}/{ref}')},[" for ref in index.refs for name, _ in FIELDS),  # opens a part
        "ref": (f"{encode(ref)}:{{}}" for ref in index.refs),
        "more ref": (f",{encode(ref)}:{{}}" for ref in index.refs),
        "posting": (f'[{encode(term)},{{"_index":{n},{first_key}:{{' for n, term in zip(index.written(), index.terms)),
        "next field": (f"}},{encode(key)}:{{" for key in _KEYS[1:]),  # closes a field's refs, opens the next's
    }


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
