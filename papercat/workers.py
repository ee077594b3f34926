"""One pool of forked worker processes: ``map`` a pure function over items, or ``submit`` one call.

The build's per-paper steps and the rendering of pages are independent item by item. The workers
are forked from the build, so they inherit the function and the items (closures too) without
pickling them; only the indices of the items go to them, and the results come back, pickled, in
order. The results are the same as a loop's, so the site is byte-identical however many workers.

Workers are used only where they are safe: where the system forks (not Windows, nor macOS, whose
system libraries may crash in a forked child), when the build is the only thread of its process
(forking a process with other threads, such as ``build.py serve``'s file watcher, can deadlock
the child; progress.py's ticker only redraws a bar on stderr, which no worker writes to), and
with more than one job. ``PAPERCAT_JOBS`` sets the number of workers (1 turns them off).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from functools import partial
from multiprocessing import connection
from typing import Any, Generic, TypeVar

from .errors import CatalogError

__all__ = ["MIN_ITEMS", "Future", "jobs", "map", "submit"]

T = TypeVar("T")
R = TypeVar("R")

MIN_ITEMS = 256  # below this, forking workers costs more than it saves
FORK_SAFE_THREAD = "progress-"  # the name of progress.py's ticker threads
_CHUNKS_PER_WORKER = 16  # small enough to balance uneven items and to report progress often
_FORK = multiprocessing.get_context("fork") if hasattr(os, "fork") else None


def jobs() -> int:
    """Return how many worker processes to use: PAPERCAT_JOBS, else the cores this process may use."""
    given = os.environ.get("PAPERCAT_JOBS", "").strip()
    if given:
        try:
            return max(1, int(given))
        except ValueError:
            raise CatalogError(f"PAPERCAT_JOBS={given!r}; expected a whole number of worker processes, "
                               "e.g. PAPERCAT_JOBS=1 for none") from None
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def map(compute: Callable[[T], R], items: Sequence[T], done: Callable[[int], None] | None = None,  # noqa: A001
        min_items: int = MIN_ITEMS) -> list[R]:
    """Return ``[compute(item) for item in items]``, computed by worker processes when that helps.

    ``compute`` must be a pure function whose results can be pickled. ``done(n)`` is called as
    each run of ``n`` items is finished (for a progress bar). Workers start for ``min_items``
    items or more (fewer for items that are each a large piece of work), one per ``min_items / 2``.
    """
    workers = min(jobs(), len(items) // max(1, min_items // 2))
    if workers < 2 or len(items) < min_items or not _can_fork():
        return _loop(compute, items, done)
    size = -(-len(items) // (workers * _CHUNKS_PER_WORKER))
    spans = [range(start, min(start + size, len(items))) for start in range(0, len(items), size)]
    parts = _run(lambda span: [compute(items[i]) for i in span], spans, workers, done)
    return [result for part in parts for result in part]


class Future(Generic[R]):
    """The result of one call made by ``submit``: ``result()`` waits for it."""

    def __init__(self, compute: Callable[[], R]) -> None:
        self._compute: Callable[[], R] | None = compute
        self._process: Any = None
        self._file: Any = None
        self._value: tuple[bool, Any] | None = None
        if jobs() > 1 and _can_fork():
            # The worker leaves its result in a file and ends: its memory goes then, not when asked for.
            # Not a daemon, so that it may fork workers of its own for a ``map``.
            self._file = tempfile.TemporaryFile()  # noqa: SIM115 - closed once read
            self._process = _FORK.Process(target=_leave_result, args=(compute, self._file))
            self._process.start()

    def result(self) -> R:
        """Return the call's result (computed now, without workers), or raise its error."""
        if self._value is None:
            self._value = self._collect() if self._process is not None else _outcome(self._compute)
            self._compute = None
        done, value = self._value
        if not done:
            raise value
        return value

    def _collect(self) -> tuple[bool, Any]:
        self._process.join()
        with self._file:
            self._file.seek(0)
            try:
                return pickle.load(self._file)
            except EOFError:
                raise _stopped(self._process.exitcode) from None


def submit(compute: Callable[[], R]) -> Future[R]:
    """Start ``compute()``, a pure function, in a worker process; return its Future."""
    return Future(compute)


def _loop(compute: Callable[[T], R], items: Sequence[T], done: Callable[[int], None] | None) -> list[R]:
    out = []
    for item in items:
        out.append(compute(item))
        if done is not None:
            done(1)
    return out


def _run(work: Callable[[T], list[Any]], tasks: Sequence[T], workers: int,
         done: Callable[[int], None] | None) -> list[list[Any]]:
    """Return ``[work(task) for task in tasks]``, each task given to the next worker free."""
    results: list[list[Any]] = [[] for _ in tasks]
    pending = iter(range(len(tasks)))
    busy: dict[connection.Connection, int] = {}
    started = []
    try:
        for _ in range(workers):
            here, there = _FORK.Pipe()
            process = _FORK.Process(target=_serve, args=(work, tasks, there), daemon=True)
            process.start()
            there.close()
            started.append((here, process))
        for here, _ in started:
            _give(here, pending, busy)
        by_end = {here: process for here, process in started}
        while busy:
            for here in connection.wait(list(busy)):
                n = busy.pop(here)
                results[n] = _received(here, by_end[here])
                if done is not None:
                    done(len(results[n]))
                _give(here, pending, busy)
    finally:
        for here, process in started:  # idle now, or stopped short by an error
            process.terminate()
            process.join()
            here.close()
    return results


def _give(here: connection.Connection, pending: Any, busy: dict[connection.Connection, int]) -> None:
    """Send the worker at ``here`` the next task, if there is one."""
    n = next(pending, None)
    if n is not None:
        here.send(n)
        busy[here] = n


def _received(here: connection.Connection, process: Any) -> list[Any]:
    try:
        done, value = here.recv()
    except EOFError:
        process.join()
        raise _stopped(process.exitcode) from None
    if not done:
        raise value
    return value


def _serve(work: Callable[[T], list[Any]], tasks: Sequence[T], there: connection.Connection) -> None:
    """In a worker: compute each task whose index comes, and send back its result or its error."""
    gc.freeze()  # the collector would walk, and so copy, every object the worker shares with the build
    while True:
        there.send(_outcome(partial(work, tasks[there.recv()])))


def _leave_result(compute: Callable[[], Any], file: Any) -> None:
    """In a worker: leave the outcome of ``compute()`` in ``file``."""
    gc.freeze()
    pickle.dump(_outcome(compute), file, protocol=pickle.HIGHEST_PROTOCOL)
    file.flush()


def _outcome(compute: Callable[[], R]) -> tuple[bool, Any]:
    """Return (True, ``compute()``), or (False, its error)."""
    try:
        return True, compute()
    except Exception as exc:  # noqa: BLE001 - any error is raised again where the result is asked for
        return False, exc


def _stopped(exitcode: int | None) -> CatalogError:
    return CatalogError(f"a worker process stopped without its result (exit code {exitcode}); "
                        "expected it to finish: was it killed, or out of memory?")


def _can_fork() -> bool:
    """Return whether workers can be forked safely: on Linux, with no thread but this one and
    progress.py's ticker."""
    others = [t for t in threading.enumerate()
              if t is not threading.current_thread() and not t.name.startswith(FORK_SAFE_THREAD)]
    return _FORK is not None and sys.platform.startswith("linux") and not others
