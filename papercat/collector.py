"""The garbage collector paused for steps that make millions of small, acyclic objects."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["paused_gc"]


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for a step that makes millions of small, acyclic objects.

    Each collection of the oldest generation walks every live object, and such a step triggers
    many: at 5,000 papers they took over half the time of writing the search chunks. What the step
    made and kept (the catalog, the pages' contexts) is then put in the oldest generation at once:
    left young, it would be walked by the next young collections, to find nothing (half a second
    of a 20,000-paper build). Reference counting still frees everything; a cycle made meanwhile
    waits for the next collection of the oldest generation.
    """
    enabled = gc.isenabled()
    # Inside a worker process, which froze the objects it shares with the build (workers.py), they stay
    # frozen: moved into the oldest generation, they would be walked, and so copied, by its next collection.
    frozen = gc.get_freeze_count() > 0
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()  # every object the collector tracks into its permanent generation,
        if not frozen:
            gc.unfreeze()  # and from there into the oldest, without walking any
        if enabled:
            gc.enable()
