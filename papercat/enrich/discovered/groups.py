"""Group papers by their TF-IDF rows: average-linkage clustering, cut where papers share too little.

Average linkage joins the two groups whose papers are most alike on average, and stops where the
closest two are alike by less than ``MIN_SIMILARITY`` (their papers' mean cosine). Unlike k-means it
needs no number of groups and no random start, and unlike single linkage it does not chain a field
into one group through papers that each resemble the next. Its input is put in a canonical order
(papers by id, columns by term), so the same papers give the same groups, bit for bit, whatever
order they were read or enriched in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from scipy import sparse
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.spatial.distance import squareform

# Two groups join while their papers' mean cosine similarity is at least this: about five times that
# of two papers picked at random from a real conference's listing (0.015), where a paper's closest
# scores 0.1-0.4. At 0.1 the groups were as coherent but fewer papers found one; below 0.07,
# groups began to take in papers that share a word or two.
MIN_SIMILARITY = 0.08
MIN_PAPERS = 3  # a smaller group is a pair, which each paper's related papers already show
# Linkage compares every pair of papers (quadratic in time and memory): past this many papers, the
# oldest are grouped and each later paper joins the group it is most like, on the same terms.
MAX_GROUPED = 2000


def canonical(rows: sparse.csr_matrix,
              column_key: Callable[[int], tuple]) -> tuple[sparse.csr_matrix, np.ndarray]:
    """Return ``rows`` with only the columns they use, in the order of ``column_key`` (of a column of
    ``rows``), and which column of ``rows`` each one is: the sums of cosines then run in one order, however
    the columns were numbered."""
    rows = rows.tocsr()
    used = np.unique(rows.indices)
    ordered = used[sorted(range(len(used)), key=lambda n: column_key(int(used[n])))]
    new = np.empty(rows.shape[1], dtype=np.int64)
    new[ordered] = np.arange(len(ordered))
    out = sparse.csr_matrix((rows.data, new[rows.indices], rows.indptr), shape=(rows.shape[0], len(used)))
    out.sort_indices()
    return out, ordered


def group_rows(rows: sparse.csr_matrix, oldest_first: Sequence[int]) -> list[list[int]]:
    """Return the groups of at least MIN_PAPERS rows (l2-normalised, in canonical order), each a sorted list
    of row numbers, largest group first (then by first row).

    ``oldest_first`` orders the rows by arrival: past MAX_GROUPED rows, the oldest are grouped and the
    others join the group whose mean row they are most like, if at least MIN_SIMILARITY.
    """
    grouped = sorted(oldest_first[:MAX_GROUPED])
    groups = _ordered([[grouped[n] for n in g] for g in _linked(rows[grouped]) if len(g) >= MIN_PAPERS])
    later = sorted(oldest_first[MAX_GROUPED:])
    if later and groups:
        for group, row in zip(_closest_groups(rows, groups, later), later):
            if group >= 0:
                groups[group].append(row)
    return _ordered(groups)


def _ordered(groups: list[list[int]]) -> list[list[int]]:
    """Return the groups, each sorted, largest first, then by first row."""
    return sorted((sorted(g) for g in groups), key=lambda g: (-len(g), g[0]))


def _linked(rows: sparse.csr_matrix) -> list[list[int]]:
    """Return the average-linkage groups of ``rows``, cut at MIN_SIMILARITY, singletons too."""
    if rows.shape[0] < 2:
        return [[n] for n in range(rows.shape[0])]
    similar = (rows @ rows.T).toarray()
    distance = np.clip(1.0 - similar, 0.0, 2.0)
    np.fill_diagonal(distance, 0.0)
    tree = linkage(squareform(distance, checks=False), method="average")
    # A small margin below the cut: a mean of exactly MIN_SIMILARITY, summed in another order, still joins.
    labels = fcluster(tree, 1.0 - MIN_SIMILARITY + 1e-12, criterion="distance")
    groups: dict[int, list[int]] = {}
    for n, label in enumerate(labels.tolist()):
        groups.setdefault(label, []).append(n)
    return list(groups.values())


def _closest_groups(rows: sparse.csr_matrix, groups: list[list[int]], later: list[int]) -> list[int]:
    """Return for each of the ``later`` rows the group (index) whose mean row it is most like, or -1 when
    it is like none by MIN_SIMILARITY: its mean cosine with the group's papers."""
    means = sparse.vstack([sparse.csr_matrix(rows[g].mean(axis=0)) for g in groups], format="csr")
    scores = (rows[later] @ means.T).toarray()
    best = scores.argmax(axis=1)  # the first of equal scores: the larger group
    return np.where(scores[np.arange(len(later)), best] >= MIN_SIMILARITY, best, -1).tolist()
