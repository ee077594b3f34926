"""What picking needs of the catalog: the reference papers' vocabulary, phrase document frequencies
and proper nouns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, repeat

import numpy as np

from papercat.enrich.reference_papers import reference_size

from .analysis import PaperPhrases
from .words import _Key, _Token


class _Vocabulary:
    """Numbers for a catalog's distinct words (as written) and word keys, and phrase codes made of them."""

    BITS = 21  # bits per word of a phrase code: three words and 2 million keys fit in an int64

    def __init__(self) -> None:
        self.keys: dict[str, int] = {}

    def key_numbers(self, tokens: Sequence[_Token]) -> list[int]:
        """Return the numbers of words' keys, numbering each key when new."""
        keys = self.keys
        numbers = [keys.setdefault(token[0], len(keys)) for token in tokens]
        if len(keys) >= 1 << self.BITS:
            raise ValueError("more distinct words than keyphrase codes can hold")
        return numbers

    def phrase_codes(self, keys: np.ndarray, papers: np.ndarray) -> np.ndarray:
        """Return the codes of the 1-3 word phrases in packed key numbers (-1 opens a run), once per paper.

        ``papers`` numbers the paper of each key number; each paper's keys start with -1.
        """
        shift, k = self.BITS, keys + 1  # 0 opens a run and never joins a phrase
        ok = k > 0
        pairs, triples = ok[:-1] & ok[1:], ok[:-2] & ok[1:-1] & ok[2:]
        codes = np.concatenate([k[ok], ((k[:-1] << shift) | k[1:])[pairs],
                                ((k[:-2] << 2 * shift) | (k[1:-1] << shift) | k[2:])[triples]])
        where = np.concatenate([papers[ok], papers[:-1][pairs], papers[:-2][triples]])
        # Sorted by code, each code's papers stay in order: a code has one length, and the codes of each
        # length come paper after paper.
        order = np.argsort(codes, kind="stable")
        codes, where = codes[order], where[order]
        first = np.ones(len(codes), dtype=bool)
        first[1:] = (codes[1:] != codes[:-1]) | (where[1:] != where[:-1])
        return codes[first]

    def codes(self, keys: Sequence[_Key]) -> np.ndarray:
        """Return phrases' codes: their words' key numbers plus one, BITS bits each; -1 for a phrase with a
        word the vocabulary lacks."""
        if not keys:
            return np.zeros(0, np.int64)
        sizes = np.fromiter(map(len, keys), np.int64, len(keys))
        ends = np.cumsum(sizes)
        numbers = np.fromiter(map(self.keys.get, chain.from_iterable(keys), repeat(-1)), np.int64, int(ends[-1]))
        after = np.repeat(ends, sizes) - np.arange(len(numbers)) - 1  # the words after each in its phrase
        codes = np.add.reduceat((numbers + 1) << (self.BITS * after), ends - sizes)  # the bits never overlap
        if numbers.min() < 0:  # a word the vocabulary lacks (counted as 0 bits) makes a phrase no code has
            codes[np.minimum.reduceat(numbers, ends - sizes) < 0] = -1
        return codes


class _Counts:
    """Document frequencies of phrase codes, merged in batches so memory stays near the distinct phrases."""

    BATCH = 1 << 21  # codes held before a merge

    def __init__(self) -> None:
        self.codes = np.zeros(0, np.int64)
        self.counts = np.zeros(0, np.int64)
        self.pending: list[np.ndarray] = []
        self.size = 0

    def add(self, codes: np.ndarray) -> None:
        """Count phrase codes, each once per paper it occurs in."""
        self.pending.append(codes)
        self.size += len(codes)
        if self.size >= self.BATCH:
            self.merge()

    def merge(self) -> None:
        """Fold the pending codes into the sorted codes and their counts."""
        if not self.pending:
            return
        new, counts = np.unique(np.concatenate(self.pending), return_counts=True)
        codes = np.concatenate((self.codes, new))
        counts = np.concatenate((self.counts, counts))
        order = np.argsort(codes, kind="stable")
        codes, counts = codes[order], counts[order]
        starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]]) if len(codes) else order
        self.codes, self.counts = codes[starts], np.add.reduceat(counts, starts) if len(codes) else counts
        self.pending, self.size = [], 0

    def __getstate__(self) -> dict:
        self.merge()
        return {"codes": self.codes.tobytes(), "counts": self.counts.tobytes()}  # a cache holds no numpy objects

    def __setstate__(self, state: dict) -> None:
        self.__init__()  # type: ignore[misc]
        self.codes = np.frombuffer(state["codes"], dtype=np.int64)
        self.counts = np.frombuffer(state["counts"], dtype=np.int64)

    def lookup(self, codes: np.ndarray) -> np.ndarray:
        """Return the document frequency of each code: 0 for a code never counted."""
        where = np.minimum(np.searchsorted(self.codes, codes), len(self.codes) - 1)
        return np.where(self.codes[where] == codes, self.counts[where], 0) if len(self.codes) else 0 * codes


_TOKENIZE_BATCH = 4096  # papers whose phrase codes are found at once


def _tokenize(papers: Sequence[PaperPhrases]) -> tuple[_Vocabulary, _Counts, set[str]]:
    """Return the catalog's vocabulary, its phrase document frequencies and its proper nouns."""
    proper: set[str] = set().union(*(paper.proper for paper in papers))
    lowercase: set[str] = set()
    vocabulary, counts = _Vocabulary(), _Counts()
    for start in range(0, len(papers), _TOKENIZE_BATCH):
        batch = papers[start:start + _TOKENIZE_BATCH]
        tokens = list(chain.from_iterable(paper.tokens for paper in batch))
        # The papers' word numbers become catalog key numbers; -1 (the appended last one) opens a run.
        keys = np.array(vocabulary.key_numbers(tokens) + [-1], dtype=np.int64)
        local = np.frombuffer(b"".join(paper.runs for paper in batch), dtype=np.int32)
        where = np.repeat(np.arange(len(batch)), [len(paper.runs) // 4 for paper in batch])  # 4-byte int32s
        before = np.cumsum([0] + [len(paper.tokens) for paper in batch])  # the words of the papers before
        counts.add(vocabulary.phrase_codes(keys[np.where(local < 0, -1, local + before[where])], where))
        lowercase.update([t[0] for t in tokens if t[0] in proper and t[1].islower()])
    counts.merge()
    return vocabulary, counts, proper - lowercase  # proper: capitalised mid-sentence, never lowercase


@dataclass(frozen=True)
class Statistics:
    """What picking needs of the catalog, counted over its reference papers: their vocabulary, the
    document frequency of each phrase, their proper nouns, and the size IDF divides."""

    vocabulary: _Vocabulary
    counts: _Counts
    proper: frozenset[str]  # capitalised mid-sentence, never lowercase
    size: int

    def proper_of(self, paper: PaperPhrases) -> frozenset[str]:
        """Return the proper nouns of the reference, and those of the paper's words it has never seen."""
        new = [word for word in paper.proper if word not in self.vocabulary.keys]
        if not new:
            return self.proper
        lowercase = {token[0] for token in paper.tokens if token[1].islower()}
        return self.proper.union(word for word in new if word not in lowercase)


def statistics(reference: Sequence[PaperPhrases]) -> Statistics:
    """Return the statistics of the reference papers (see ``reference_count``)."""
    vocabulary, counts, proper = _tokenize(reference)
    return Statistics(vocabulary, counts, frozenset(proper), reference_size(len(reference)))
