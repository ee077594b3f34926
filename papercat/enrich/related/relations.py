"""Every paper's related papers, and what it takes to add papers later."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from scipy import sparse

from papercat.text import folded

from .copies import _copies, _fold_sums, _later_copies
from .matrix import _Columns, _matrix
from .neighbours import Pair, _Comparison, _neighbours
from .scorer import _reachable
from .terms import PaperTerms, terms

B = TypeVar("B")


@dataclass(frozen=True)
class Related:
    """A paper related to another: its position, the cosine similarity and the terms that link them."""

    index: int  # position of the related paper in docs
    score: float  # cosine similarity, rounded to DECIMALS
    shared: tuple[str, ...]  # up to MAX_SHARED shared terms or keyphrases, most important first


# A Related as a plain tuple (index, score, shared): what ``Relations.plain`` gives.
Found = tuple[int, float, tuple[str, ...]]


def related_papers(docs: Sequence[tuple[str, str]], keyphrases: Sequence[Sequence[str]],
                   k: int = 5) -> list[tuple[Related, ...]]:
    """Return each paper's up to ``k`` most similar papers, best first, with the terms they share."""
    return relate(docs, [terms(title, abstract) for title, abstract in docs], keyphrases, k)


def relate(docs: Sequence[tuple[str, str]], papers: Sequence[PaperTerms], keyphrases: Sequence[Sequence[str]],
           k: int = 5, order: Sequence[int] | None = None) -> list[tuple[Related, ...]]:
    """Return related papers as ``related_papers`` does, given every paper's ``terms`` (maybe cached)."""
    return relate_beside(Corpus(docs, keyphrases, order), papers, lambda matrix: None, k)[0].found(order)


@dataclass(frozen=True)
class Corpus:
    """The papers to relate, by position in the catalog: each one's (title, abstract) and keyphrases,
    and the order they came in."""

    docs: Sequence[tuple[str, str]]
    keyphrases: Sequence[Sequence[str]]
    order: Sequence[int] | None = None  # the positions oldest first (see ``_matrix``); None: as given

    def oldest_first(self) -> Sequence[int]:
        """Return the papers' positions, oldest first."""
        return range(len(self.docs)) if self.order is None else self.order


@dataclass(frozen=True)
class Relations:
    """Every paper's related papers, with what it takes to add papers later (``extend``): all oldest first."""

    pairs: _Pairs  # each paper's related papers, best first
    rank: tuple[int, ...]  # each paper's position in the catalog then
    columns: _Columns
    rows: _Rows  # the TF-IDF matrix
    k: int
    folds: bytes  # each paper's folded abstract's CRC-32 (_fold_sums): how a later paper's copies are found

    def found(self, order: Sequence[int] | None = None) -> list[tuple[Related, ...]]:
        """Return the related papers by position in the catalog, given ``order`` (positions oldest first)."""
        return [tuple(Related(*x) for x in found) for found in self.plain(order)]

    def plain(self, order: Sequence[int] | None = None) -> list[list[Found]]:
        """Return what ``found`` returns as (index, score, shared) tuples: for a caller that makes records of
        its own of them (the catalog's), without making a Related of each first."""
        order = range(len(self.rank)) if order is None else order
        out: list[list[Found]] = [[] for _ in self.rank]
        pairs = self.pairs
        for a, b, score, shared in zip(pairs.left().tolist(), pairs.right().tolist(), pairs.scores().tolist(),
                                       pairs.shared):
            out[order[a]].append((order[b], score, shared))
        return out


@dataclass(frozen=True)
class _Pairs:
    """Pairs of papers (paper, related paper, score, shared terms), as plain bytes but for the terms: a
    cache file holds no numpy objects, and pickles a million of these fast."""

    left_bytes: bytes
    right_bytes: bytes
    score_bytes: bytes
    shared: tuple[tuple[str, ...], ...]

    @classmethod
    def of(cls, left: np.ndarray, right: np.ndarray, scores: np.ndarray, shared: Sequence[tuple[str, ...]]) -> _Pairs:
        return cls(left.astype(np.int64).tobytes(), right.astype(np.int64).tobytes(),
                   scores.astype(np.float64).tobytes(), tuple(shared))

    def left(self) -> np.ndarray:
        return np.frombuffer(self.left_bytes, np.int64)

    def right(self) -> np.ndarray:
        return np.frombuffer(self.right_bytes, np.int64)

    def scores(self) -> np.ndarray:
        return np.frombuffer(self.score_bytes, np.float64)


@dataclass(frozen=True)
class _Rows:
    """A CSR matrix as plain bytes, for the cache (which holds no numpy objects)."""

    shape: tuple[int, int]
    data: bytes
    indices: bytes
    indptr: bytes

    @classmethod
    def of(cls, matrix: sparse.csr_matrix) -> _Rows:
        return cls(matrix.shape, matrix.data.tobytes(), matrix.indices.astype(np.int64).tobytes(),
                   matrix.indptr.astype(np.int64).tobytes())

    def matrix(self, columns: int) -> sparse.csr_matrix:
        """Return the matrix, widened to ``columns``."""
        return sparse.csr_matrix((np.frombuffer(self.data, np.float64), np.frombuffer(self.indices, np.int64),
                                  np.frombuffer(self.indptr, np.int64)), shape=(self.shape[0], columns))


def relate_beside(corpus: Corpus, papers: Sequence[PaperTerms], from_matrix: Callable[[sparse.csr_matrix], B],
                  k: int = 5, before_comparing: Callable[[], None] | None = None) -> tuple[Relations, B]:
    """Return what ``relate`` finds for the ``corpus``, given every paper's terms (``papers``), as
    Relations, and ``from_matrix`` of the TF-IDF matrix (a row per paper, oldest first): a catalog-wide
    step this process runs once worker processes have compared the papers.

    ``before_comparing()`` is called once the matrix is made, before the workers start: where a caller
    frees the papers' terms. Freed while the workers run, their objects' pages, shared with the
    workers, would each be copied first (about 65,000 pages at 20,000 papers).
    """
    matrix, columns = _matrix(papers, corpus.keyphrases, corpus.oldest_first())
    if before_comparing is not None:
        before_comparing()
    relations = _compared(matrix, columns, corpus, max(0, min(k, len(corpus.docs) - 1)))
    return relations, from_matrix(matrix)


def extend(relations: Relations, corpus: Corpus, papers: Sequence[PaperTerms],
           from_matrix: Callable[[sparse.csr_matrix], B], before_comparing: Callable[[], None] | None = None
           ) -> tuple[Relations, B]:
    """Return ``relate_beside(corpus, all papers' terms, from_matrix, relations.k)`` for a catalog whose
    oldest papers are those of ``relations``, in the same order in the catalog, under the same
    reference (see ``_matrix``): only the new papers' ``papers`` (terms, oldest first) are needed.

    The earlier papers' rows and their pairs stay as they were; only the new papers are compared with
    all, and an earlier paper's related papers change only where a new paper enters them.
    ``before_comparing()`` as ``relate_beside`` calls it.
    """
    columns = relations.columns
    new = [corpus.keyphrases[row] for row in corpus.oldest_first()[len(relations.rank):]]
    columns.learn(new)
    rows, cols, counts = columns.rows(papers, new, 0)
    added = columns.weights(rows, cols, counts, len(papers))
    matrix = sparse.vstack([relations.rows.matrix(added.shape[1]), added], format="csr")
    if before_comparing is not None:
        before_comparing()
    return _compared(matrix, columns, corpus, relations.k, relations), from_matrix(matrix)


def _compared(matrix: sparse.csr_matrix, columns: _Columns, corpus: Corpus, k: int,
              earlier: Relations | None = None) -> Relations:
    """Return the Relations of ``matrix`` (a row per paper of the ``corpus``, oldest first).

    With the ``earlier`` Relations of the first papers (see ``extend``), only the later papers are
    compared with all, and the earlier ones' lists take them in where they may reach them.
    """
    order = corpus.oldest_first()
    rank = np.array(order, dtype=np.int64)
    abstracts = [corpus.docs[row][1] for row in order]
    earlier_pairs = None
    floors = None
    if earlier is None:
        folds = [folded(abstract) for abstract in abstracts]
        duplicates, sums = _copies(folds), _fold_sums(folds)
    else:  # only the later papers are compared, so only their copies matter
        earlier_pairs = earlier.pairs
        floors = _floors(earlier_pairs, len(earlier.rank), k)
        duplicates, later = _later_copies(earlier.folds, abstracts, len(earlier.rank))
        sums = earlier.folds + later
    found = _neighbours(_Comparison.of(matrix, columns.features, k, duplicates, rank), floors) if k else []
    return Relations(_best(earlier_pairs, found, rank, k), tuple(order), columns, _Rows.of(matrix), k, sums)


def _floors(pairs: _Pairs, papers: int, k: int) -> np.ndarray:
    """Return the least float32 score by which a paper may enter each of the first ``papers``' top k."""
    left, scores = pairs.left(), pairs.scores()
    first = np.searchsorted(left, np.arange(papers))
    full = np.searchsorted(left, np.arange(papers), side="right") - first >= k
    floors = np.zeros(papers)
    floors[full] = scores[first[full] + k - 1]
    return _reachable(floors).astype(np.float32)


def _best(earlier: _Pairs | None, pairs: list[Pair], rank: np.ndarray, k: int) -> _Pairs:
    """Return each paper's k best of the ``earlier`` pairs and then ``pairs`` (all positive), best first, ties
    to the lower ``rank``."""
    left, right, scores, shared = zip(*pairs) if pairs else ((), (), (), ())
    left_a, right_a = np.array(left, np.int64), np.array(right, np.int64)
    scores_a = np.array(scores, np.float64)
    if earlier is not None:
        left_a, right_a = np.concatenate((earlier.left(), left_a)), np.concatenate((earlier.right(), right_a))
        scores_a, shared = np.concatenate((earlier.scores(), scores_a)), earlier.shared + shared
    if not len(left_a):
        return _Pairs.of(*(np.zeros(0),) * 3, ())
    order = np.lexsort((rank[right_a], -scores_a, left_a))
    ranked = left_a[order]
    keep = order[np.arange(len(order)) - np.searchsorted(ranked, ranked) < k]  # the first k of each paper
    return _Pairs.of(left_a[keep], right_a[keep], scores_a[keep], [shared[n] for n in keep.tolist()])
