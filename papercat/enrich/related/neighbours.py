"""Each paper's nearest papers: scored in blocks by worker processes, shortlisted, then scored exactly
and explained by the terms they share."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import pairwise

import numpy as np
from scipy import sparse

from papercat import workers
from papercat.enrich.keyphrases import is_telling

from .matrix import _Features
from .scorer import CHUNK, DECIMALS, _floor, _Scorer, _shortlist

MAX_SHARED = 4
# Scores computed at once: at most every paper times a strip (or block) of papers, float32. 8 million
# cells are 32 MB (plus as much for the dense product), so 20,000 papers stay far under 1 GB.
BLOCK_CELLS = 8_000_000
_RUNS_PER_WORKER = 8  # runs of chunks scored again, per worker: small enough to balance them

# (paper, related paper, rounded cosine, shared terms): what comparing finds; ``_best`` keeps the k best.
Pair = tuple[int, int, float, tuple[str, ...]]


@dataclass(frozen=True)
class _Comparison:
    """What every step of finding the papers' neighbours reads: the papers' rows, their scores, the rules."""

    matrix: sparse.csr_matrix  # the TF-IDF matrix, a row per paper, oldest first
    features: _Features  # its columns: what names the terms that two papers share
    scorer: _Scorer  # the approximate scores of the matrix's papers with one another
    k: int  # related papers per paper
    duplicates: dict[int, list[int]]  # a paper -> the others with its abstract: never related to it
    rank: np.ndarray  # each paper's position in the catalog: ties go to the lower

    @classmethod
    def of(cls, matrix: sparse.csr_matrix, features: _Features, k: int, duplicates: dict[int, list[int]],
           rank: np.ndarray) -> _Comparison:
        """Return the comparison of the papers of ``matrix``, scored by a new ``_Scorer``."""
        return cls(matrix, features, _Scorer(matrix), k, duplicates, rank)


@dataclass(frozen=True)
class _Shortlist:
    """The papers that some paper of a chunk may reach the floor of, chunk by chunk."""

    floor: np.ndarray  # by paper: the least float32 score that may be among its k best
    paper: np.ndarray  # the papers, chunk by chunk (a paper is in every chunk that may reach its floor)
    bounds: np.ndarray  # chunk c's papers are paper[bounds[c]:bounds[c + 1]]


def _products(matrix: sparse.csr_matrix, left: np.ndarray, right: np.ndarray) -> sparse.csr_matrix:
    """Return what each shared term adds to the cosines of pairs of papers: a row per pair."""
    return matrix[left].multiply(matrix[right]).tocsr()


def _exact(products: sparse.csr_matrix) -> np.ndarray:
    """Return the cosines of pairs of papers, summed over shared terms in term order: the same both ways."""
    return np.asarray(products.sum(axis=1)).ravel()


def _neighbours(comparison: _Comparison, floors: np.ndarray | None = None) -> list[Pair]:
    """Return (paper, related paper, rounded cosine, shared terms) for each paper's top k (and maybe more:
    ``_best`` keeps the k best), ties to the related paper of lower rank.

    With ``floors`` (one per earlier paper, the first ones: see ``_floors``), only the later papers
    are ranked against all, block by block, and each earlier paper against the later ones whose
    score may reach its floor: the pairs (earlier, later paper) are its top k of those.

    The blocks are independent, so worker processes share them (workers.py).
    """
    if floors is None:
        return _all_neighbours(comparison)
    n = comparison.matrix.shape[0]
    step = max(1, BLOCK_CELLS // comparison.scorer.width)
    blocks = [(start, min(n, start + step)) for start in range(len(floors), n, step)]
    found = workers.map(lambda block: _block_neighbours(comparison, floors, *block), blocks, min_items=2)
    return [pair for pairs in found for pair in pairs]


def _all_neighbours(comparison: _Comparison) -> list[Pair]:
    """Return what ``_neighbours`` returns without floors: every paper ranked against all, each pair scored
    once.

    The scores are symmetric, so only those on and below the diagonal are computed, a strip of
    papers (columns) against the papers from the strip's first on (rows) at a time. A strip gives
    each chunk of CHUNK papers' maximum score with each of its papers, and each of its papers'
    maximum with each chunk of the strip: the k-th best of a paper's chunk maxima bounds its k-th
    best score from below. Then only the chunks that reach that floor are scored again, cell by cell.
    """
    scorer, duplicates = comparison.scorer, comparison.duplicates
    n, width = comparison.matrix.shape[0], scorer.width
    step = max(CHUNK, BLOCK_CELLS // width // CHUNK * CHUNK)
    strips = [(start, min(width, start + step)) for start in range(0, n, step)]
    parts = workers.map(lambda strip: _strip_maxima(scorer, duplicates, *strip), strips, min_items=2)
    maxima = np.zeros((width, width // CHUNK), dtype=np.float32)  # paper x chunk of papers
    for (start, stop), (down, across) in zip(strips, parts):
        first, last = start // CHUNK, stop // CHUNK
        maxima[start:stop, first:] = down
        np.maximum(maxima[start:, first:last], across, out=maxima[start:, first:last])
    maxima = maxima[:n]
    chunks = maxima.shape[1]
    floor = _floor(maxima, comparison.k)
    paper, chunk = np.nonzero(maxima >= floor[:, None])
    order = np.argsort(chunk, kind="stable")
    paper, chunk = paper[order], chunk[order]
    bounds = np.searchsorted(chunk, np.arange(chunks + 1))
    shortlist = _Shortlist(floor, paper, bounds)
    # Runs of chunks with about as many hits each, a run a piece of work for a worker.
    shares = np.linspace(0, len(paper), min(chunks, _RUNS_PER_WORKER * workers.jobs()) + 1)[1:-1]
    edges = np.unique(np.r_[0, np.searchsorted(bounds, shares), chunks]).tolist()
    runs = list(pairwise(edges))
    found = workers.map(lambda run: _chunk_neighbours(comparison, shortlist, *run), runs, min_items=2)
    return [pair for pairs in found for pair in pairs]


def _strip_maxima(scorer: _Scorer, duplicates: dict[int, list[int]], start: int,
                  stop: int) -> tuple[np.ndarray, np.ndarray]:
    """Return the maxima of the scores of papers start..stop-1 (a strip, multiples of CHUNK) with the papers
    from ``start`` on: each paper of the strip's with each chunk from ``start``'s (a row per paper), and each
    paper's from ``start`` on with each chunk of the strip (a row per paper)."""
    scores = scorer.scores(slice(start, None), slice(start, stop))
    _unrelated(scores, duplicates, start, np.arange(start, stop))
    height, breadth = scores.shape
    down = scores.reshape(height // CHUNK, CHUNK, breadth).max(axis=1).T
    across = np.maximum.reduceat(scores, np.arange(0, breadth, CHUNK), axis=1)  # quicker than a reshaped max
    return np.ascontiguousarray(down), across


def _unrelated(scores: np.ndarray, duplicates: dict[int, list[int]], first: int, columns: np.ndarray) -> None:
    """Zero the scores (papers from ``first`` on down, ``columns`` across) of a paper with itself or a copy."""
    own = columns - first
    inside = (own >= 0) & (own < scores.shape[0])
    scores[own[inside], np.flatnonzero(inside)] = 0.0  # never related to itself
    for column, paper in enumerate(columns.tolist()):
        for copy in duplicates.get(paper, ()):
            if 0 <= copy - first < scores.shape[0]:
                scores[copy - first, column] = 0.0  # nor to another copy of itself


def _chunk_neighbours(comparison: _Comparison, shortlist: _Shortlist, first: int, last: int) -> list[Pair]:
    """Return the top k, among chunks first..last-1, of each paper of the ``shortlist`` of any of them."""
    paper, bounds, floor = shortlist.paper, shortlist.bounds, shortlist.floor
    left, others = [], []
    for chunk in range(first, last):
        mine = paper[bounds[chunk]:bounds[chunk + 1]]
        if not len(mine):
            continue
        rows = np.arange(chunk * CHUNK, (chunk + 1) * CHUNK)
        scores = comparison.scorer.scores(rows, mine)  # a chunk down, its papers across
        _unrelated(scores, comparison.duplicates, int(rows[0]), mine)
        hit, column = np.nonzero(scores >= floor[mine])
        left.append(mine[column])
        others.append(rows[hit])
    if not left:
        return []
    return _top(comparison, np.concatenate(left), np.concatenate(others))


def _block_neighbours(comparison: _Comparison, floors: np.ndarray, start: int, stop: int) -> list[Pair]:
    """Return the top k of papers start..stop-1, and the earlier papers' pairs with them, as ``_neighbours``
    does with ``floors``."""
    scores = comparison.scorer.scores(slice(None), slice(start, stop))
    _unrelated(scores, comparison.duplicates, 0, np.arange(start, stop))
    mine, others = _shortlist(scores, comparison.k)
    found = _top(comparison, mine + start, others)
    earlier, later = np.nonzero(scores[:len(floors)] >= floors[:, None])
    return found + _top(comparison, earlier, later + start)


def _top(comparison: _Comparison, left: np.ndarray, others: np.ndarray) -> list[Pair]:
    """Return (paper, related paper, rounded cosine, shared terms) for each paper of ``left``'s k best of
    the ``others`` paired with it, best first, ties to the lower rank, positive scores only."""
    if not len(left):
        return []
    products = _products(comparison.matrix, left, others)
    exact = np.round(_exact(products), DECIMALS)
    order = np.lexsort((comparison.rank[others], -exact, left))
    left, others, exact = left[order], others[order], exact[order]
    first = np.searchsorted(left, left)  # where each paper's pairs start
    keep = (np.arange(len(left)) - first < comparison.k) & (exact > 0)
    shared = _explain(products[order[keep]], comparison.features)
    return list(zip(left[keep].tolist(), others[keep].tolist(), exact[keep].tolist(), shared))


def _explain(products: sparse.csr_matrix, features: _Features) -> list[tuple[str, ...]]:
    """Return for each pair (a row of ``_products``) the shared terms that add most to its cosine.

    No word of a keyphrase already shown is shown again.
    """
    products.sort_indices()
    # Each pair's terms by contribution, largest first, ties by column: one sort for all pairs. Complex
    # numbers sort by real part, then imaginary part; a stable sort keeps the columns in order on ties and
    # runs fast over the pairs, which are in order already.
    rows = np.repeat(np.arange(products.shape[0]), np.diff(products.indptr))
    ranked = products.indices[np.argsort(rows - 1j * products.data, kind="stable")].tolist()
    bounds = products.indptr.tolist()
    names, keys, phrase = features.names, features.keys, features.phrase

    @cache
    def telling(column: int) -> bool:
        return is_telling(names[column])

    out = []
    for p in range(products.shape[0]):
        shown: list[str] = []
        words_shown: set[str] = set()
        for c in ranked[bounds[p]:bounds[p + 1]]:
            if phrase[c] or keys[c][0] not in words_shown and telling(c):
                shown.append(names[c])
                words_shown.update(keys[c])
                if len(shown) == MAX_SHARED:
                    break
        out.append(tuple(shown))
    return out
