"""The same pure function over many items, spread over the machine's cores in forked worker processes.

The build's per-paper steps (rendering an abstract, deriving a title, analysing keyphrases, ...)
and the rendering of pages are independent item by item. ``parallel_map`` runs them in worker
processes forked from the build, so the workers see the function and the items without pickling
them; only the results travel back, in order. The results are the same as a plain loop's, so the
site is byte-identical however many workers there are.

Workers are used only where they help and are safe: on Linux (which forks safely), with more than one
core available, for enough items, and when the build is the only thread of its process (forking a
process with other threads, such as ``build.py serve``'s file watcher, can deadlock the child).
``PAPERCAT_JOBS`` sets the number of workers (1 turns them off).
"""

from __future__ import annotations

import gc
import marshal
import multiprocessing
import os
import pickle
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from functools import partial
from multiprocessing import connection
from typing import Any, BinaryIO, Generic, TypeVar

from .errors import CatalogError

__all__ = ["WORKER_NICENESS", "Plain", "jobs", "made_beside", "map_beside", "parallel_map", "started",
           "started_steps"]

T = TypeVar("T")
R = TypeVar("R")
B = TypeVar("B")

FORK_SAFE_THREAD = "progress-"  # the name of progress.py's ticker threads
MIN_ITEMS = 256  # below this, starting workers costs more than it saves
# How much lower than the build's the priority of ``map_beside``'s workers is when this process has work of
# its own beside them: it gets a core to itself, and so does not end alone after them. At 20,000 papers
# the search index, made beside the pages, ends with them: rendering 5.05 -> 4.68 s (3 alternated pairs).
WORKER_NICENESS = 10
_CHUNKS_PER_WORKER = 16  # small enough to balance uneven items and to report progress often


@dataclass(frozen=True)
class Plain(Generic[R]):
    """Results as Python's plain values (tuples, lists, dicts, strings, bytes, numbers, frozensets) and back.

    Workers send such results as marshal's bytes, which take about half the time pickle takes to make.
    """

    to_plain: Callable[[R], Any]
    from_plain: Callable[[Any], R]


# What the forked workers compute: set just before the fork, read by _run_chunk in the child.
_task: tuple[Callable[[Any], Any], Sequence[Any], Plain[Any] | None] | None = None


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


def parallel_map(compute: Callable[[T], R], items: Sequence[T], done: Callable[[int], None] | None = None,
                 min_items: int = MIN_ITEMS, plain: Plain[R] | None = None) -> list[R]:
    """Return ``[compute(item) for item in items]``, computed by worker processes when that helps.

    ``compute`` must be a pure function whose results can be pickled, or made plain by ``plain``.
    ``done(n)`` is called as each run of ``n`` items is finished (for a progress bar). Workers
    start for ``min_items`` items or more (fewer for items that are each a large piece of work),
    one per ``min_items / 2``.
    """
    return map_beside(compute, items, _nothing, done, min_items, plain)[0]


def map_beside(compute: Callable[[T], R], items: Sequence[T], beside: Callable[[], B],
               done: Callable[[int], None] | None = None, min_items: int = MIN_ITEMS,
               plain: Plain[R] | None = None, alone: int = 0) -> tuple[list[R], B]:
    """Return ``parallel_map(compute, items, done, min_items)`` and ``beside()``.

    The first ``alone`` items are each a run of their own, where the others go to the workers in runs of
    equal length: items far longer than the rest (a page listing thousands of papers among thousands of
    short ones), which one run would hold together while the other workers ran out of work.

    ``beside`` runs in this process while the workers compute, so a step that cannot be split into
    items (a catalog-wide one) takes the core the workers leave to this process: they run at a priority
    WORKER_NICENESS lower than its (the items can be shared among however many cores are left; the
    one step beside them cannot). ``done`` hears of the runs finished meanwhile once ``beside``
    returns. Without workers, the items come first.
    """
    workers = min(jobs(), len(items) // max(1, min_items // 2))
    serial = workers < 2 or len(items) < min_items or not _can_fork()
    global _task
    # The collector leaves the objects made so far alone: it would traverse the catalog's millions
    # of objects again as the items make more, and in the workers it would copy them.
    gc.freeze()
    try:
        if serial:
            return _serial(compute, items, done), beside()
        alone = min(alone, len(items))
        size = max(1, -(-(len(items) - alone) // (workers * _CHUNKS_PER_WORKER)))
        spans = [(start, start + 1) for start in range(alone)]
        spans += [(start, min(start + size, len(items))) for start in range(alone, len(items), size)]
        results: list[list[R] | None] = [None] * len(spans)
        _task = (compute, items, plain)
        lower = WORKER_NICENESS if beside is not _nothing else 0
        with multiprocessing.get_context("fork").Pool(workers, os.nice, (lower,)) as pool:
            parts = pool.imap_unordered(_run_chunk, enumerate(spans))
            other = beside()
            for n, part in parts:
                results[n] = made = part if plain is None else list(map(plain.from_plain, marshal.loads(part)))
                if done is not None:
                    done(len(made))
    finally:
        _task = None
        gc.unfreeze()
    return [r for part in results for r in part], other  # type: ignore[union-attr]


@contextmanager
def started(compute: Callable[[], R], idle: bool = False) -> Iterator[Callable[[], R]]:
    """Start ``compute()``, a pure function, in a worker process; yield a function that waits for its result.

    So a catalog-wide step that cannot be split runs on the core this process leaves idle while it
    works alone, and the workers of ``parallel_map`` may start meanwhile. With ``idle``, the worker
    runs at the lowest priority: on the time other processes leave idle, so it may start long
    before its result is asked for without slowing them down. Without workers (one job,
    or forking unsafe: see ``_can_fork``) ``compute`` runs in this process when its result is asked
    for. A worker whose result is not asked for is stopped on leaving.
    """
    with started_steps([compute], idle) as (result,):
        yield result


@contextmanager
def started_steps(steps: Sequence[Callable[[], Any]], idle: bool = False) -> Iterator[list[Callable[[], Any]]]:
    """Start ``steps``, pure functions, one after the other in one worker process, as ``started`` starts
    one; yield a function per step that waits for its result, ready as soon as the step is done (the
    worker goes on with the next meanwhile)."""
    if not steps:
        yield []
        return
    if jobs() < 2 or not _can_fork():
        yield [_once(step) for step in steps]
        return
    # The worker leaves each result in a file and closes the step's pipe; once done, it ends: its memory
    # (pages it shares with this process, copied as either changes them) is freed then, not when the
    # results are asked for.
    with ExitStack() as stack:
        kept = [stack.enter_context(tempfile.TemporaryFile()) for _ in steps]
        pipes = [os.pipe() for _ in steps]
        stack.callback(lambda: [os.close(end) for end, _ in pipes])
        worker = multiprocessing.get_context("fork").Process(
            target=_run_started, args=(steps, kept, [end for _, end in pipes], idle), daemon=True)
        worker.start()
        for _, end in pipes:
            os.close(end)  # the worker's alone: the pipe reads as ended once the worker closes it or stops

        def result(n: int) -> Any:
            connection.wait([pipes[n][0]])
            kept[n].seek(0)
            try:
                done, value = pickle.load(kept[n])
            except EOFError:
                worker.join()
                raise CatalogError(f"a worker process stopped without its result (exit code {worker.exitcode}); "
                                   "expected it to finish: was it killed, or out of memory?") from None
            if not done:
                raise value
            return value

        try:
            yield [_once(partial(result, n)) for n in range(len(steps))]
        finally:
            if worker.is_alive():
                worker.terminate()
            worker.join()


def made_beside(make: Callable[[], bytes]) -> Callable[[], bytes]:
    """Start ``make()``, a pure function that returns bytes, in a worker process; return a function that
    waits for the bytes and returns them.

    For work whose result is wanted only much later (a cache entry pickled for the cache's save), on a
    core this process leaves idle meanwhile. Unlike ``started``, the worker is not tied to a block: it
    leaves the bytes in an unnamed temporary file and ends; a build that fails before asking for them
    loses nothing but the file. Without workers ``make`` runs now.
    """
    if jobs() < 2 or not _can_fork():
        made = make()
        return lambda: made
    file = tempfile.TemporaryFile()  # noqa: SIM115 - closed once read
    worker = multiprocessing.get_context("fork").Process(target=_make_into, args=(make, file), daemon=True)
    worker.start()

    def result() -> bytes:
        worker.join()
        if worker.exitcode != 0:
            file.close()
            raise OSError(f"a worker process stopped without its result (exit code {worker.exitcode})")
        file.seek(0)
        made = file.read()
        file.close()
        return made

    return _once(result)


def _make_into(make: Callable[[], bytes], file: BinaryIO) -> None:
    """In a worker: write ``make()`` to ``file``."""
    gc.freeze()  # the collector would walk, and so copy, the objects the worker shares with the build
    file.write(make())
    file.flush()


def _once(compute: Callable[[], R]) -> Callable[[], R]:
    """Return a function that returns ``compute()``, computed when first called."""
    found: list[R] = []

    def once() -> R:
        if not found:
            found.append(compute())
        return found[0]

    return once


def _run_started(steps: Sequence[Callable[[], Any]], kept: Sequence[BinaryIO], ends: Sequence[int],
                 idle: bool) -> None:
    """In a worker: compute each step and leave its result, or the error, in its file, then close its pipe's
    end."""
    if idle:
        os.nice(19)  # the lowest priority there is; the build process keeps its own
    gc.freeze()  # the collector would walk, and so copy, the objects the worker shares with the build
    for compute, file, end in zip(steps, kept, ends):
        try:
            out = (True, compute())
        except Exception as exc:  # noqa: BLE001 - any error of the step is raised again in the build
            out = (False, exc)
        pickle.dump(out, file, protocol=pickle.HIGHEST_PROTOCOL)
        file.flush()
        os.close(end)


def _nothing() -> None:
    return None


def _serial(compute: Callable[[T], R], items: Sequence[T], done: Callable[[int], None] | None) -> list[R]:
    if done is None:
        return [compute(item) for item in items]
    out = []
    for item in items:
        out.append(compute(item))
        done(1)
    return out


def _can_fork() -> bool:
    """Return whether workers can be forked safely: on Linux, with no thread but the build's and
    progress.py's ticker (which only redraws a bar on stderr, which no worker writes to).

    macOS has fork too, but its system libraries (numpy's Accelerate among them) may crash in a
    forked child; there the build runs in one process.
    """
    others = [t for t in threading.enumerate()
              if t is not threading.current_thread() and not t.name.startswith(FORK_SAFE_THREAD)]
    return sys.platform.startswith("linux") and not others


def _run_chunk(job: tuple[int, tuple[int, int]]) -> tuple[int, list[Any]]:
    """In a worker: compute one span of the items forked with it."""
    n, (start, end) = job
    assert _task is not None, "parallel_map's task is set before the workers fork"
    compute, items, plain = _task
    if plain is None:
        return n, [compute(items[i]) for i in range(start, end)]
    return n, marshal.dumps([plain.to_plain(compute(items[i])) for i in range(start, end)])
