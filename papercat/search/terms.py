"""One document's index terms, as lunr.js's text pipeline makes them."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain

import numpy as np

from ..enrich.abstract import plain_text
from ..text import counted
from .documents import SearchDoc
from .lunrjs import index_terms, tokenize


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


class _Numbering(dict[str, int]):
    """Numbers by key, each key numbered on first use: 0, 1, 2, ..."""

    def __missing__(self, key: str) -> int:
        self[key] = n = len(self)
        return n


def _indexed(text: str) -> str:
    """Return ``text`` as indexed: dashes split words, and no term holds lunr's wildcard "*".

    lunr's tokenizer splits on spaces and hyphens only, so "guaranteed—such" would be one term.
    """
    return text.replace("*", " ").replace("\u2013", " ").replace("\u2014", " ")  # quicker than a pattern
