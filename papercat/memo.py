"""A function's results by argument, worked out on first use and then only looked up."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Memo(dict[K, V]):
    """``compute(key)`` by key, each worked out on first use.

    A hit is a plain dict lookup, in C when called through ``memo.__getitem__`` (as ``map`` does): far
    less work than ``functools.lru_cache`` for the hot loops that use it (tokens, chunks of text,
    links). With a ``limit``, the memo starts afresh once it holds that many results.
    """

    def __init__(self, compute: Callable[[K], V], limit: int | None = None) -> None:
        super().__init__()
        self.compute = compute
        self.limit = limit

    def __missing__(self, key: K) -> V:
        if self.limit is not None and len(self) >= self.limit:
            self.clear()
        value = self[key] = self.compute(key)
        return value
