"""Approximate float32 cosines of papers, and the floors below which a score cannot be among the best."""

from __future__ import annotations

import numpy as np
from scipy import sparse

DECIMALS = 4
# The commonest terms are scored as a dense float32 product (BLAS): almost every pair of papers
# shares some of them, so in a sparse product they make most of the work. 192 columns of 20,000
# papers are 15 MB; at 20,000 papers 256 took 5% longer and 128 was no faster.
HEAD_TERMS = 192
CHUNK = 64  # maxima per chunk of this many papers bound each paper's k-th best score from below
_TOLERANCE = 2 * 10.0 ** -DECIMALS  # float32 scores are within this of exact ones, far more than needed


class _Scorer:
    """Approximate float32 cosines of papers with papers: dense for the commonest terms."""

    def __init__(self, matrix: sparse.csr_matrix) -> None:
        n, terms = matrix.shape
        self.width = n + (-n) % CHUNK  # padded with papers that share nothing, so rows split into chunks
        df = np.bincount(matrix.indices, minlength=terms)
        head = np.sort(np.argsort(-df, kind="stable")[:min(HEAD_TERMS, terms)])
        # Each cell goes to the head or the tail, at its column's place there (both in column order): one
        # pass over the cells, where picking the columns of each out of the matrix took five times as long.
        in_head = np.zeros(terms, dtype=bool)
        in_head[head] = True
        place = np.cumsum(~in_head) - 1
        place[head] = np.arange(len(head))
        headed = in_head[matrix.indices]
        rows = np.repeat(np.arange(n), np.diff(matrix.indptr))
        data = matrix.data.astype(np.float32)
        self.head = np.zeros((self.width, len(head)), dtype=np.float32)
        self.head[rows[headed], place[matrix.indices[headed]]] = data[headed]
        tailed = ~headed
        index = np.int32 if len(data) < 2**31 else np.int64  # as scipy would pick
        indptr = np.zeros(self.width + 1, dtype=index)
        np.cumsum(np.bincount(rows[tailed], minlength=n), out=indptr[1:n + 1])
        indptr[n + 1:] = indptr[n]
        self.tail = sparse.csr_matrix((data[tailed], place[matrix.indices[tailed]].astype(index), indptr),
                                      shape=(self.width, terms - len(head)))

    def scores(self, rows: slice | np.ndarray, columns: slice | np.ndarray) -> np.ndarray:
        """Return the scores of papers ``rows`` (down; padded) with papers ``columns`` (across).

        Papers down the rows let the chunk maxima (``_shortlist``, ``_strip_maxima``) reduce whole rows
        at a time.
        """
        scores = self.head[rows] @ self.head[columns].T
        _add_sparse(scores, self.tail[rows] @ self.tail[columns].T.tocsr())
        return scores


try:  # scipy's own loop that adds a CSR matrix into a dense one (toarray's, which zeroes the array first)
    from scipy.sparse._sparsetools import csr_todense as _csr_add
except ImportError:  # a private name: should a later scipy drop it, numpy's indexing adds the same
    _csr_add = None


def _add_sparse(dense: np.ndarray, extra: sparse.csr_matrix) -> None:
    """Add ``extra`` (canonical CSR, of ``dense``'s dtype) into the first rows of ``dense`` (C-contiguous)."""
    rows, columns = extra.shape
    if _csr_add is not None:
        _csr_add(rows, columns, extra.indptr, extra.indices, extra.data, dense[:rows])
        return
    # Added by flat position: cheaper than indexing by (row, column) pairs.
    cells = np.repeat(np.arange(rows) * columns, np.diff(extra.indptr)) + extra.indices
    dense.ravel()[cells] += extra.data


def _reachable(floor: np.ndarray) -> np.ndarray:
    """Return the least float32 scores that may be an exact score of ``floor`` or more: positive ones."""
    return np.maximum(floor - _TOLERANCE, np.finfo(np.float32).tiny)


def _floor(maxima: np.ndarray, k: int) -> np.ndarray:
    """Return, for each row of chunk maxima (a paper's with every chunk of papers), the least float32 score
    that may be among the paper's k best once exact: the k-th best chunk maximum is at most the k-th
    best score."""
    chunks = maxima.shape[1]
    if chunks <= k:
        return _reachable(np.zeros(len(maxima), dtype=maxima.dtype))
    return _reachable(np.partition(maxima, chunks - k, axis=1)[:, chunks - k])


def _shortlist(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Return (column, row) of every positive score that may be among its column's k best once exact."""
    width, columns = scores.shape
    chunks = scores.reshape(width // CHUNK, CHUNK, columns)
    maxima = chunks.max(axis=1).T  # a row of chunk maxima for each column of scores
    floor = _floor(maxima, k)
    # Only the few chunks whose maximum reaches the floor are searched, not every cell.
    column, chunk = np.nonzero(maxima >= floor[:, None])
    hit, offset = np.nonzero(chunks[chunk, :, column] >= floor[column, None])
    return column[hit], chunk[hit] * CHUNK + offset
