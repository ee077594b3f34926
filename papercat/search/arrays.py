"""Array helpers the search index is built with."""

from __future__ import annotations

import numpy as np


def _runs(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Return ``range(start, start + size)`` for each start and size, one after another, as one array."""
    ends = np.cumsum(sizes, dtype=sizes.dtype)
    return np.repeat(starts - (ends - sizes), sizes) + np.arange(ends[-1] if len(ends) else 0, dtype=ends.dtype)


def _stable_order(keys: np.ndarray) -> np.ndarray:
    """Return the order that sorts ``keys`` (integers in [0, 2**32)) stably: two radix sorts of 16 bits each."""
    if len(keys) and keys.max() >> 32:
        return np.argsort(keys, kind="stable")
    low = np.argsort((keys & 0xFFFF).astype(np.uint16), kind="stable")
    return low[np.argsort((keys[low] >> 16).astype(np.uint16), kind="stable")]
