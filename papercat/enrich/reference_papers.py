"""The reference papers: the oldest papers of a catalog, over which its word statistics are counted."""

from __future__ import annotations


def reference_size(papers: int) -> int:
    """Return the catalog size that inverse document frequencies use: the next power of two.

    IDF is log(size / document frequency). With the exact size, every paper added would shift
    every weight a little, reorder near ties and rewrite pages that have nothing to do with the
    new papers; a size that changes only when the catalog doubles keeps them as they were.
    """
    return 1 << papers.bit_length()


REFERENCE_MIN = 4096  # a smaller catalog is its own reference: every paper counts


def reference_count(papers: int) -> int:
    """Return how many of a catalog's oldest papers (by arrival) its word statistics are counted over.

    All of them below REFERENCE_MIN; from there on, the largest power of two the catalog reaches. So
    until the catalog doubles, a new listing changes no statistic, and no keyphrase or related-paper
    score of an earlier paper: its page changes only if a new paper is now among its closest.
    """
    return papers if papers < REFERENCE_MIN else 1 << (papers.bit_length() - 1)
