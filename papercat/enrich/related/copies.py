"""Papers whose abstracts are the same once folded: never related to one another."""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Sequence

import numpy as np

from papercat.text import folded


def _copies(folds: Sequence[str], papers: Iterable[int] | None = None) -> dict[int, list[int]]:
    """Map each paper (of ``papers``, by default all) whose abstract appears more than once, folded
    (``folds``: ``text.folded``), to the other papers with that abstract."""
    groups: dict[str, list[int]] = {}
    for i, fold in enumerate(folds):
        groups.setdefault(fold, []).append(i)
    wanted = None if papers is None else set(papers)
    return {i: [j for j in group if j != i] for group in groups.values() if len(group) > 1 for i in group
            if wanted is None or i in wanted}


def _fold_sums(folds: Iterable[str]) -> bytes:
    """Return the CRC-32 of each folded abstract, 4 bytes each: what a later ``extend`` finds copies by
    without folding every earlier abstract again (a sum that matches is checked on the abstracts)."""
    sums = [zlib.crc32(fold.encode("utf-8", "surrogatepass")) for fold in folds]
    return np.array(sums, dtype=">u4").tobytes()


def _later_copies(earlier: bytes, abstracts: Sequence[str], start: int) -> tuple[dict[int, list[int]], bytes]:
    """Return what ``_copies`` of every folded abstract maps the papers from ``start`` on to (the later
    papers; ``abstracts`` are every paper's, oldest first), given ``earlier``, the ``_fold_sums`` of the
    papers before them; and the later papers' sums."""
    folds = [folded(abstract) for abstract in abstracts[start:]]
    sums = _fold_sums(folds)
    later = np.frombuffer(sums, dtype=">u4")
    # Earlier papers whose sum is a later one's: their abstracts are folded and compared; no other can match.
    matched = np.flatnonzero(np.isin(np.frombuffer(earlier, dtype=">u4"), later)).tolist()
    later_ones = range(len(matched), len(matched) + len(folds))
    found = _copies([folded(abstracts[i]) for i in matched] + folds, later_ones)
    number = [*matched, *range(start, len(abstracts))]  # a paper's position among those compared -> its own
    return {number[i]: [number[j] for j in copies] for i, copies in found.items()}, sums
