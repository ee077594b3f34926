"""A content-hash cache of derived data between builds: one self-checking file per stage in a folder.

A stage ("abstracts", "keyphrases", ...) maps the sha256 of a computation's exact inputs to its
result. Its file is one or more parts, each a header and a payload of entries, and it is read on
first use and trusted only whole: in every part the magic bytes, the format version, the code
fingerprint (the source of every papercat module and the versions of the libraries whose output
is cached), the length and the sha256 of the payload must all match, and the unpickled payload
must be a dict of 32-byte keys to values of the stage's type. Anything else (a truncated,
corrupt, stale or foreign file) is logged and ignored, never raised, and the file is written
again when the build is saved. After a build each stage file holds only the entries that build
used, and it is written (atomically) only when that set changed: a rebuild with no change writes
no cache file. When the build only added entries (a new listing), they are appended as one more
part, so the old ones are not pickled again; a file of MAX_PARTS parts, or one that lost entries,
is written whole. A stage the build did not open stays as it was. The folder may be deleted at
any time; the next build just computes everything again.

A step that works on the whole catalog (the statistics keyphrases are picked against, related
papers) has a single-entry stage keyed by the hash of its inputs (for the first
those of the catalog's reference papers: see catalog.py), so a rebuild with no change skips
it; when it misses, the step's per-paper stage supplies the paper-by-paper part. Its header holds
that key, so a miss reads only the header, not the last build's entry.
The search index's paper-by-paper part, the documents' terms, is a single entry as well
(search.TermColumns, under a fixed key): the last build's documents in columns, each found in it
by its own key. Read whole, it is a few large strings rather than 21,000 small entries.

Payloads are pickles. The checksum is verified before unpickling, so a damaged file is never
unpickled; it proves nothing about who wrote the file, though, so the unpickler also refuses every
global but papercat's own classes. The cache belongs in the user's own working folder, as trusted
as the code and the content beside it: do not point ``--cache`` at a folder that others can write.
"""

from __future__ import annotations

import logging
import os
import pickle
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from .. import workers
from ..collector import paused_gc
from .memo_file import (
    CACHEDIR_TAG,
    NO_KEY,
    SUFFIX,
    Part,
    Spilled,
    Untrusted,
    decode_part,
    digest,
    digest_of,
    header_key,
    part_header,
    pickled_entries,
    write_atomically,
)

__all__ = ["DEFAULT_FOLDER", "Cache", "Stage", "default_cache", "digest", "digest_of", "open_cache"]

log = logging.getLogger(__name__)

DEFAULT_FOLDER = ".papercat-cache"
MAX_PARTS = 16  # a stage file that would get more is written whole, as one part
T = TypeVar("T")
R = TypeVar("R")
X = TypeVar("X")


class Stage:
    """One stage's entries: sha256 of inputs -> result, read lazily from its file and kept to what is used."""

    def __init__(self, cache: Cache, name: str, kind: type | tuple[type, ...], single: bool = False) -> None:
        self.cache = cache
        self.name = name
        self.kind = kind
        self.single = single  # one entry per build: once it misses, the old one is of no more use
        self.loaded: dict[bytes, Any] | None = None  # None until first use
        self.used: dict[bytes, Any] = {}
        self.added = 0
        self.rewrite = False  # the file was there but could not be trusted
        self.sealed: Part | None = None  # what to write, once the build is done with the stage
        self.parts = 0  # the parts of the file as read
        self.closed = False
        self.hits = 0
        self.misses = 0

    @property
    def path(self) -> Path | None:
        folder = self.cache.folder
        return None if folder is None else folder / f"{self.name}{SUFFIX}"

    def get(self, key: bytes) -> Any | None:
        """Return the entry for ``key``, or None when there is none (or the cache is off)."""
        if self.cache.folder is None:
            return None
        if self.closed:
            self._reopen()
        if key in self.used:
            return self.used[key]
        if self.single and self.loaded is None and self._header_key() not in (None, key):
            self.misses += 1
            self.loaded, self.rewrite = {}, True  # the last build's entry is of no more use
            return None
        value = self._entries().get(key)
        if value is None:
            self.misses += 1
            if self.single and self.loaded:  # let the old entry (the last build's search files) go
                self.loaded, self.rewrite = {}, True
            return None
        self.hits += 1
        self.used[key] = value
        return value

    def put(self, key: bytes, value: Any) -> None:
        """Remember ``value`` for ``key``, replacing any earlier value (a no-op when the cache is off)."""
        if self.cache.folder is None:
            return
        if self.closed:
            self._reopen()
        if not isinstance(value, self.kind):
            raise TypeError(f"cache stage {self.name} holds {self.kind}, not {type(value).__name__}")
        if self.used.get(key) is not value:  # a new entry, or a new value for it (the manifest's record)
            self._entries()
            self.used[key] = value
            self.added += 1

    def map(self, compute: Callable[[T], R], items: Sequence[T], key: Callable[[T], bytes],
            done: Callable[[int], None] | None = None, known: dict[bytes, R] | None = None) -> list[R]:
        """Return ``[compute(item) for item in items]``, taking each result from the cache if it is there.

        ``known`` holds results the caller has already, by key (another stage's ``map_with`` worked
        them out): what the cache misses is taken from it, and kept, as if computed. The rest is
        computed by worker processes (workers.py); ``done(n)`` is called as ``n`` more items are ready.
        """
        if self.cache.folder is None and not known:
            return workers.map(compute, items, done)
        return self._map(lambda item: (compute(item), None), items, key, done, known or {})[0]

    def map_with(self, compute: Callable[[T], tuple[R, X]], items: Sequence[T], key: Callable[[T], bytes],
                 done: Callable[[int], None] | None = None) -> tuple[list[R], dict[bytes, X]]:
        """Return ``map``'s results for a ``compute`` that returns (result, by-product), and the by-product
        of each item computed now, by key: what this stage does not keep, for another stage's ``known``."""
        return self._map(compute, items, key, done, {})

    def _map(self, compute: Callable[[T], tuple[R, X]], items: Sequence[T], key: Callable[[T], bytes],
             done: Callable[[int], None] | None, known: dict[bytes, R]) -> tuple[list[R], dict[bytes, X]]:
        keys = [key(item) for item in items]
        out: list[R | None] = []
        for k in keys:
            value = self.get(k)
            if value is None and k in known:
                value = known[k]
                self.put(k, value)
            out.append(value)
        missing = [n for n, value in enumerate(out) if value is None]
        if done is not None:
            done(len(items) - len(missing))
        by_products: dict[bytes, X] = {}
        for n, (value, extra) in zip(missing, workers.map(compute, [items[n] for n in missing], done)):
            self.put(keys[n], value)
            out[n] = value
            by_products[keys[n]] = extra
        return out, by_products  # type: ignore[return-value]

    def changed(self) -> bool:
        """Return whether the file must be written: entries added, entries unused, or an untrusted file."""
        if self.sealed is not None:
            return True
        if self.loaded is None:
            return False
        return self.rewrite or self.added > 0 or len(self.used) != len(self.loaded)

    def close(self) -> None:
        """Let the entries go now, keeping only the file to write (pickled, it is far smaller).

        Meant for a stage whose entries nothing else holds on to (per-paper analyses), once the
        build has used them. Using the stage again reads them back.
        """
        if self.loaded is None or self.closed:
            return
        if not self.changed():
            self.sealed = None
        else:
            self.sealed = self.cache.spilled(self.part())
        self.loaded, self.used, self.closed = {}, {}, True

    def _reopen(self) -> None:
        """Undo ``close``: the entries this build used so far, and the file's others, are back."""
        self.closed = False
        self.loaded = self._load()
        if self.sealed is None:  # nothing changed: the build had used exactly the file's entries
            self.used = dict(self.loaded)
        else:
            with paused_gc():
                entries = pickle.loads(self.sealed.data())
            # An appended part holds the entries the build added to those of the file.
            self.used = {**self.loaded, **entries} if self.sealed.appended else entries
            self.sealed = None

    def _entries(self) -> dict[bytes, Any]:
        if self.loaded is None:
            self.loaded = self._load()
        return self.loaded

    def _load(self) -> dict[bytes, Any]:
        """Return the stage file's entries, or {} (marking the file for rewriting) when it is not sound."""
        path = self.path
        assert path is not None
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return {}
        except OSError as exc:
            log.warning("cache file %s cannot be read (%s); computing it again", path, exc)
            self.rewrite = True
            return {}
        try:
            entries = self._decode(data)
        except Untrusted as exc:
            (log.info if exc.stale else log.warning)("cache file %s %s; ignored, it will be written again",
                                                    path, exc)
            self.rewrite = True
            return {}
        return entries

    def _decode(self, data: bytes) -> dict[bytes, Any]:
        entries: dict[bytes, Any] = {}
        self.parts, start = 0, 0
        while start < len(data) or not self.parts:
            found, start = decode_part(data, start, self.name, self.kind)
            entries.update(found)
            self.parts += 1
        return entries

    def _header_key(self) -> bytes | None:
        """Return the key in the file's header (a single-entry stage's), or None if the header is not sound."""
        assert self.path is not None
        return header_key(self.path, self.name)

    def part(self) -> Part:
        """Return what to write of the stage: the entries this build added, to append to the file when
        it used all of the file's entries as they were; else every entry it used, to write whole."""
        entries, key, appended = self._part_entries()
        return Part(pickled_entries(entries), key, appended)

    def _part_entries(self) -> tuple[dict[bytes, Any], bytes, bool]:
        """Return the entries of ``part``, its key and whether it is appended."""
        loaded = self.loaded or {}
        if self._can_append(loaded):
            return {k: v for k, v in self.used.items() if k not in loaded}, NO_KEY, True
        key = next(iter(self.used)) if self.single and len(self.used) == 1 else NO_KEY
        return self.used, key, False

    def _can_append(self, loaded: dict[bytes, Any]) -> bool:
        """Return whether the entries this build added may go in a part of their own: it used every
        entry of a sound file of fewer than MAX_PARTS parts, as it was."""
        if self.single or self.rewrite or not loaded or not 0 < self.parts < MAX_PARTS:
            return False
        return loaded.keys() <= self.used.keys() and all(self.used[k] is v for k, v in loaded.items())


class Cache:
    """The stage files of one cache folder; with ``folder=None`` the cache is off and every lookup misses."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder
        self.stages: dict[str, Stage] = {}
        self._spill: BinaryIO | None = None  # an unnamed temporary file: gone when the build process ends

    def spilled(self, part: Part) -> Part:
        """Return ``part`` with its payload moved to a temporary file (so the build's memory holds only
        what it still uses); the payload is read back to be saved."""
        if not isinstance(part.payload, bytes):
            return part
        if self._spill is None:
            self._spill = tempfile.TemporaryFile(prefix="papercat-cache-")  # noqa: SIM115 - closed by save()
        offset = self._spill.seek(0, os.SEEK_END)
        self._spill.write(part.payload)
        self._spill.flush()
        return Part(Spilled(self._spill, offset, len(part.payload)), part.key, part.appended)

    @property
    def enabled(self) -> bool:
        return self.folder is not None

    def stage(self, name: str, kind: type | tuple[type, ...], single: bool = False) -> Stage:
        """Return the stage ``name`` of ``kind`` entries (one entry per build if ``single``)."""
        stage = self.stages.get(name)
        if stage is None:
            stage = self.stages[name] = Stage(self, name, kind, single)
        return stage

    def save(self) -> list[str]:
        """Write every stage file whose entries changed; return their names. A failed write is only logged."""
        if self.folder is None:
            return []
        changed = [stage for stage in self.stages.values() if stage.changed()]
        if not changed or not self._folder_ready():
            return []
        written = [stage.name for stage in changed if self._write(stage)]
        self._close_spill()
        return written

    def _close_spill(self) -> None:
        """Close the temporary file of spilled payloads once none is left in it (a server rebuilding
        all day starts a new one)."""
        if self._spill is not None and all(s.sealed is None for s in self.stages.values()):
            self._spill.close()
            self._spill = None

    def _folder_ready(self) -> bool:
        """Make the cache folder, marked as a cache, if it is not there; return whether it can be written."""
        assert self.folder is not None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            tag = self.folder / "CACHEDIR.TAG"
            if not tag.exists():
                tag.write_bytes(CACHEDIR_TAG)
        except OSError as exc:
            log.warning("cache folder %s cannot be written (%s); the next build computes everything again",
                        self.folder, exc)
            return False
        return True

    def _write(self, stage: Stage) -> bool:
        """Write a changed stage's file (or append its new part); return whether it was written."""
        part = stage.sealed if stage.sealed is not None else stage.part()
        try:  # the header and the payload, not the two joined: a copy of up to ~100 MB spared
            payload = part.data()
            write_atomically(stage.path, part_header(stage.name, payload, key=part.key), payload,
                             after=part.appended)
        except OSError as exc:
            log.warning("cache file %s cannot be written (%s)", stage.path, exc)
            return False
        stage.parts = stage.parts + 1 if part.appended else 1
        stage.loaded, stage.added, stage.rewrite, stage.sealed = dict(stage.used), 0, False, None
        return True

    def summary(self) -> dict[str, tuple[int, int]]:
        """Return (hits, misses) per stage used, for benchmarks and tests."""
        return {name: (s.hits, s.misses) for name, s in self.stages.items()}


def default_cache(content: Path) -> Path:
    """Return where a content folder's cache goes by default: beside it (./.papercat-cache for ./content)."""
    return content.parent / DEFAULT_FOLDER


def open_cache(folder: Path | None) -> Cache:
    """Return the cache kept in ``folder`` (None: no cache). Nothing is read until a stage is used."""
    if folder is not None and folder.exists() and not folder.is_dir():
        log.warning("cache folder %s is a file; building without a cache", folder)
        return Cache(None)
    return Cache(folder)


