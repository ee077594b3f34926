"""Find each paper's most related papers: TF-IDF cosine over its words and the catalog's keyphrases."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from papercat.enrich.keyphrases import (
    PaperPhrases,
    analyse_and_count_terms,
    count_terms,
    is_telling,
    reference_size,
    term_runs,
)
from papercat.parallel import parallel_map

__all__ = ["PaperTerms", "Related", "analyse_with_terms", "relate", "related_papers", "terms"]

PHRASE_BOOST = 2.0  # a keyphrase shared says more than its words shared one by one
MAX_SHARED = 4
DECIMALS = 4
MAX_PHRASE_WORDS = 3  # keyphrases are 1-3 words
# The commonest terms are scored as a dense float32 product (BLAS): almost every pair of papers
# shares some of them, so in a sparse product they make most of the work. 256 columns of 20,000
# papers are 20 MB.
HEAD_TERMS = 256
# Scores computed at once: a block of rows times every paper, float32. 8 million cells are 32 MB
# (plus as much for the dense product), so 20,000 papers stay far under 1 GB.
BLOCK_CELLS = 8_000_000
CHUNK = 64  # row maxima per chunk of this many papers bound each row's k-th best score from below
_TOLERANCE = 2 * 10.0 ** -DECIMALS  # float32 scores are within this of exact ones, far more than needed


@dataclass(frozen=True)
class Related:
    """A paper related to another: its position, the cosine similarity and the terms that link them."""

    index: int  # position of the related paper in docs
    score: float  # cosine similarity, rounded to DECIMALS
    shared: tuple[str, ...]  # up to MAX_SHARED shared terms or keyphrases, most important first


class _Features:
    """The columns of the paper-term matrix, words and keyphrases mixed, each with its key and name."""

    def __init__(self) -> None:
        self.columns: dict[tuple[bool, tuple[str, ...]], int] = {}
        self.keys: list[tuple[str, ...]] = []
        self.names: list[str] = []
        self.phrase: list[bool] = []
        self.spellings: dict[int, Counter[str]] = {}  # a word's spellings, once it has a second one

    def column(self, key: tuple[str, ...], name: str, phrase: bool, times: int = 1) -> int:
        """Return the column of a word key (a 1-tuple) or a keyphrase key, adding it when new."""
        column = self.columns.get((phrase, key))
        if column is None:
            column = self.columns[(phrase, key)] = len(self.names)
            self.keys.append(key)
            self.names.append(name)
            self.phrase.append(phrase)
            if times > 1:
                self.spellings[column] = Counter({name: times})
        elif name != self.names[column] or column in self.spellings:
            spellings = self.spellings.get(column)
            if spellings is None:
                spellings = self.spellings[column] = Counter({self.names[column]: 1})
            spellings[name] += times
        return column

    def settle_names(self) -> None:
        """Name each word by its most frequent spelling ("pretraining" over "pre-training" if more common)."""
        for column, spellings in self.spellings.items():
            self.names[column] = min(spellings.items(), key=lambda kv: (-kv[1], kv[0]))[0]


def _phrase_key(phrase: str) -> tuple[str, ...]:
    """Return a keyphrase's key: its words' keys ("Reward models" -> ("reward", "model"))."""
    return tuple(key for run in term_runs(phrase) for key, _ in run)


@dataclass(frozen=True)
class PaperTerms:
    """A paper's words and 1-3 word n-grams with their counts, from its title and abstract alone."""

    words: tuple[tuple[str, str, int], ...]  # (key, spelling, times) in order of first use
    grams: dict[tuple[str, ...], int]  # n-gram of word keys -> times, in order of first use; read only


def terms(title: str, abstract: str) -> PaperTerms:
    """Return the words and n-grams of a paper: the per-paper part of the TF-IDF matrix."""
    return PaperTerms(*count_terms(title, abstract))


def analyse_with_terms(title: str, abstract: str) -> tuple[PaperPhrases, PaperTerms]:
    """Return ``keyphrases.analyse(title, abstract)`` and ``terms(title, abstract)``: the words read once."""
    analysed, counts = analyse_and_count_terms(title, abstract)
    return analysed, PaperTerms(*counts)


def _paper_counts(paper: PaperTerms, own: list[tuple[str, ...]], phrases: dict[tuple[str, ...], str],
                  features: _Features) -> dict[int, int]:
    """Return how often a paper uses each word and each catalog keyphrase (given by key), by column."""
    counts: dict[int, int] = {}
    for key, name, times in paper.words:
        column = features.column((key,), name, False, times)
        counts[column] = counts.get(column, 0) + times
    for gram, times in paper.grams.items():
        if gram in phrases:
            counts[features.column(gram, phrases[gram], True)] = times
    for key in own:  # its own keyphrases count even when spelt as an acronym ("RM" for reward model)
        column = features.column(key, phrases[key], True)
        counts[column] = max(counts.get(column, 0), 1)
    return counts


def _matrix(papers: Sequence[PaperTerms],
            keyphrases: Sequence[Sequence[str]]) -> tuple[sparse.csr_matrix, _Features]:
    """Return the l2-normalised TF-IDF matrix (papers x terms), sublinear in counts, and its columns."""
    keys: dict[str, tuple[str, ...]] = {}  # each distinct keyphrase's key
    phrases: dict[tuple[str, ...], str] = {}  # each key's first spelling
    for own in keyphrases:
        for phrase in own:
            if phrase not in keys:
                keys[phrase] = _phrase_key(phrase)
                if keys[phrase]:
                    phrases.setdefault(keys[phrase], phrase)
    features = _Features()
    rows, columns, counts = [], [], []
    for row, (paper, own) in enumerate(zip(papers, keyphrases)):
        own_keys = [keys[phrase] for phrase in own if keys[phrase]]
        found = _paper_counts(paper, own_keys, phrases, features)
        rows.extend([row] * len(found))
        columns.extend(found)
        counts.extend(found.values())
    features.settle_names()
    rows_a = np.array(rows, dtype=np.int64)
    columns_a = np.array(columns, dtype=np.int64)
    df = np.bincount(columns_a, minlength=len(features.names))
    idf = np.log(reference_size(len(papers)) / (1 + df)) + 1.0
    idf[np.array(features.phrase, dtype=bool)] *= PHRASE_BOOST
    data = (1.0 + np.log(np.array(counts, dtype=np.float64))) * idf[columns_a]
    norms = np.sqrt(np.bincount(rows_a, weights=data * data, minlength=len(papers)))
    data /= np.where(norms > 0, norms, 1.0)[rows_a]
    matrix = sparse.csr_matrix((data, (rows_a, columns_a)), shape=(len(papers), len(features.names)))
    matrix.sort_indices()  # sorted terms make cosine(a, b) and cosine(b, a) sum in the same order
    return matrix, features


def _duplicates(docs: Sequence[tuple[str, str]]) -> dict[int, list[int]]:
    """Map each paper whose abstract appears more than once to the other papers with that abstract."""
    groups: dict[str, list[int]] = {}
    for i, (_, abstract) in enumerate(docs):
        groups.setdefault(" ".join(abstract.casefold().split()), []).append(i)
    return {i: [j for j in group if j != i] for group in groups.values() if len(group) > 1 for i in group}


class _Scorer:
    """Approximate float32 cosines of a block of papers with all papers: dense for the commonest terms."""

    def __init__(self, matrix: sparse.csr_matrix) -> None:
        n, terms = matrix.shape
        self.width = n + (-n) % CHUNK  # padded with papers that share nothing, so rows split into chunks
        df = np.diff(matrix.tocsc().indptr)
        head = np.sort(np.argsort(-df, kind="stable")[:min(HEAD_TERMS, terms)])
        tail = np.setdiff1d(np.arange(terms), head)
        single = matrix.astype(np.float32)
        self.head = np.zeros((self.width, len(head)), dtype=np.float32)
        self.head[:n] = single[:, head].toarray()
        self.tail = single[:, tail].tocsr()
        self.tail_t = sparse.csr_matrix(self.tail.T.tocsr(), shape=(len(tail), self.width))

    def block(self, start: int, stop: int) -> np.ndarray:
        """Return the scores of papers start..stop-1 (rows) with every paper (columns, padded)."""
        scores = self.head[start:stop] @ self.head.T
        extra = (self.tail[start:stop] @ self.tail_t).tocoo()
        scores[extra.row, extra.col] += extra.data
        return scores


def _shortlist(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Return (row, column) of every positive score that may be among its row's k best once exact."""
    rows, width = scores.shape
    maxima = scores.reshape(rows, width // CHUNK, CHUNK).max(axis=2)
    if maxima.shape[1] > k:  # the k-th best chunk maximum is at most the k-th best score
        floor = np.partition(maxima, maxima.shape[1] - k, axis=1)[:, maxima.shape[1] - k]
    else:
        floor = np.zeros(rows, dtype=scores.dtype)
    floor = np.maximum(floor - _TOLERANCE, np.finfo(np.float32).tiny)
    return np.nonzero(scores >= floor[:, None])


def _exact(matrix: sparse.csr_matrix, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Return the cosines of pairs of papers, summed over shared terms in term order: the same both ways."""
    if not len(left):
        return np.zeros(0)
    return np.asarray(matrix[left].multiply(matrix[right]).sum(axis=1)).ravel()


def _neighbours(matrix: sparse.csr_matrix, k: int,
                duplicates: dict[int, list[int]]) -> list[tuple[int, int, float]]:
    """Return (paper, related paper, rounded cosine) for each paper's top k, block of rows by block.

    The blocks are independent, so worker processes share them (parallel.py).
    """
    n = matrix.shape[0]
    scorer = _Scorer(matrix)
    step = max(1, BLOCK_CELLS // scorer.width)
    blocks = [(start, min(n, start + step)) for start in range(0, n, step)]
    found = parallel_map(lambda block: _block_neighbours(matrix, scorer, k, duplicates, *block), blocks,
                         min_items=2)
    return [pair for pairs in found for pair in pairs]


def _block_neighbours(matrix: sparse.csr_matrix, scorer: _Scorer, k: int, duplicates: dict[int, list[int]],
                      start: int, stop: int) -> list[tuple[int, int, float]]:
    """Return the top k of papers start..stop-1, as ``_neighbours`` does."""
    scores = scorer.block(start, stop)
    scores[np.arange(stop - start), np.arange(start, stop)] = 0.0  # never related to itself
    for i in range(start, stop):
        scores[i - start, duplicates.get(i, [])] = 0.0  # nor to another copy of itself
    rows, columns = _shortlist(scores, k)
    left = rows + start
    exact = np.round(_exact(matrix, left, columns), DECIMALS)
    # Each row's shortlist best first, ties to the lower index; keep its first k positive scores.
    order = np.lexsort((columns, -exact, left))
    left, columns, exact = left[order], columns[order], exact[order]
    first = np.searchsorted(left, left)  # where each row's shortlist starts
    keep = (np.arange(len(left)) - first < k) & (exact > 0)
    return list(zip(left[keep].tolist(), columns[keep].tolist(), exact[keep].tolist()))


def _explain(matrix: sparse.csr_matrix, features: _Features,
             pairs: list[tuple[int, int, float]]) -> list[tuple[str, ...]]:
    """Return for each pair the shared terms that add most to its cosine, no word of a phrase shown before."""
    if not pairs:
        return []
    products = matrix[[a for a, _, _ in pairs]].multiply(matrix[[b for _, b, _ in pairs]]).tocsr()
    # Each pair's terms by contribution, largest first, ties by column: one sort for all pairs.
    rows = np.repeat(np.arange(len(pairs)), np.diff(products.indptr))
    ranked = products.indices[np.lexsort((products.indices, -products.data, rows))].tolist()
    bounds = products.indptr.tolist()
    out = []
    for p in range(len(pairs)):
        shown: list[str] = []
        words_shown: set[str] = set()
        for c in ranked[bounds[p]:bounds[p + 1]]:
            name, key = features.names[c], features.keys[c]
            if features.phrase[c] or key[0] not in words_shown and is_telling(name):
                shown.append(name)
                words_shown.update(key)
            if len(shown) == MAX_SHARED:
                break
        out.append(tuple(shown))
    return out


def related_papers(docs: Sequence[tuple[str, str]], keyphrases: Sequence[Sequence[str]],
                   k: int = 5) -> list[tuple[Related, ...]]:
    """Return each paper's up to ``k`` most similar papers, best first, with the terms they share."""
    return relate(docs, [terms(title, abstract) for title, abstract in docs], keyphrases, k)


def relate(docs: Sequence[tuple[str, str]], papers: Sequence[PaperTerms], keyphrases: Sequence[Sequence[str]],
           k: int = 5) -> list[tuple[Related, ...]]:
    """Return related papers as ``related_papers`` does, given every paper's ``terms`` (maybe cached)."""
    k = max(0, min(k, len(docs) - 1))
    if not k:
        return [() for _ in docs]
    matrix, features = _matrix(papers, keyphrases)
    pairs = _neighbours(matrix, k, _duplicates(docs))
    out: list[list[Related]] = [[] for _ in docs]
    for (a, b, score), shared in zip(pairs, _explain(matrix, features, pairs)):
        out[a].append(Related(b, score, shared))
    return [tuple(related) for related in out]
