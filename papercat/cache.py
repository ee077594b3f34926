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
papers, the search files) has a single-entry stage keyed by the hash of its inputs (for the first
two, those of the catalog's reference papers: see catalog.py), so a rebuild with no change skips
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

import gc
import hashlib
import importlib.metadata
import io
import logging
import os
import pickle
import secrets
import shutil
import struct
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from . import workers

__all__ = ["DEFAULT_FOLDER", "Cache", "Stage", "default_cache", "digest", "digest_of", "open_cache",
           "paused_gc", "seal"]

log = logging.getLogger(__name__)

DEFAULT_FOLDER = ".papercat-cache"
MAGIC = b"papercat cache\n\x00"
FORMAT_VERSION = 2
SUFFIX = ".bin"
# After the magic: format version, code fingerprint, payload sha256, payload length, and the key of
# a single-entry stage's entry (zeros for other stages).
_HEADER = struct.Struct(">I32s32sQ32s")
_NO_KEY = bytes(32)
MAX_PARTS = 16  # a stage file that would get more is written whole, as one part
# Libraries whose output ends up in cached values (sanitised HTML, MathML, index terms, numbers).
_LIBRARIES = ("latex2mathml", "lunr", "nh3", "numpy", "scipy")
# Marks the folder as a cache for backup tools (https://bford.info/cachedir/).
_CACHEDIR_TAG = b"Signature: 8a477f597d28d172789f06886806bc55\n# papercat's build cache; safe to delete.\n"

T = TypeVar("T")
R = TypeVar("R")
X = TypeVar("X")


def digest(*parts: str | bytes) -> bytes:
    """Return the sha256 of ``parts``, each length-prefixed so that ("ab", "c") and ("a", "bc") differ."""
    return digest_of(parts)


def digest_of(parts: Iterable[str | bytes]) -> bytes:
    """Return the sha256 of a stream of parts, as ``digest`` does."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return h.digest()


def code_files(package: Path) -> list[Path]:
    """Return the files of the package whose change can change what a build makes: its modules and
    the word lists they read (data/*.txt)."""
    return sorted([*package.rglob("*.py"), *package.rglob("data/*.txt")])


@lru_cache(maxsize=1)
def code_fingerprint() -> bytes:
    """Return the sha256 of papercat's source and the versions of the libraries whose output it caches."""
    h = hashlib.sha256()
    python = f"{sys.version_info[0]}.{sys.version_info[1]}"
    h.update(f"{MAGIC!r} {FORMAT_VERSION} python {python} {sys.byteorder}\n".encode())
    package = Path(__file__).resolve().parent
    for path in code_files(package):
        h.update(digest(path.relative_to(package).as_posix(), path.read_bytes()))
    for name in _LIBRARIES:
        try:
            version = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            version = "-"
        h.update(digest(name, version))
    return h.digest()


class _Unpickler(pickle.Unpickler):
    """An unpickler that builds only plain values and the classes papercat itself defines."""

    def find_class(self, module: str, name: str) -> Any:
        # Only a class defined in a papercat module by that name: not a function, and not a class a
        # papercat module merely imports (papercat.serve's subprocess.Popen, say).
        if module.startswith("papercat.") and name.isidentifier() and module in sys.modules:
            found = getattr(sys.modules[module], name, None)
            if isinstance(found, type) and found.__module__ == module and found.__qualname__ == name:
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a cache file")


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
        self.sealed: _Part | None = None  # what to write, once the build is done with the stage
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
        if self.used.get(key) is not value:  # a new entry, or a new value for it (uptodate.py's record)
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
        except _Untrusted as exc:
            (log.info if exc.stale else log.warning)("cache file %s %s; ignored, it will be written again",
                                                    path, exc)
            self.rewrite = True
            return {}
        return entries

    def _decode(self, data: bytes) -> dict[bytes, Any]:
        entries: dict[bytes, Any] = {}
        self.parts, start = 0, 0
        while start < len(data) or not self.parts:
            start = self._decode_part(data, start, entries)
            self.parts += 1
        return entries

    def _decode_part(self, data: bytes, start: int, entries: dict[bytes, Any]) -> int:
        """Add the entries of the part at ``start`` of the file to ``entries``; return where the next starts."""
        _, checksum, length = _checked_header(data, start, self.name)
        start += len(MAGIC) + _HEADER.size
        payload = memoryview(data)[start:start + length]
        if len(payload) != length:
            raise _Untrusted(f"holds {len(payload)} bytes of data, not {length}: truncated or damaged")
        if hashlib.sha256(payload).digest() != checksum:
            raise _Untrusted("fails its checksum: damaged")
        try:
            with paused_gc():
                found = _Unpickler(io.BytesIO(payload)).load()
        except Exception as exc:  # a well-formed file of unexpected content can fail in many ways
            raise _Untrusted(f"cannot be unpickled ({type(exc).__name__}: {exc})") from exc
        if type(found) is not dict or not all(
                type(k) is bytes and len(k) == 32 and isinstance(v, self.kind) for k, v in found.items()):
            raise _Untrusted(f"does not hold {self.name} entries")
        entries.update(found)
        return start + length

    def _header_key(self) -> bytes | None:
        """Return the key in the file's header (a single-entry stage's), or None if the header is not sound."""
        assert self.path is not None
        try:
            with open(self.path, "rb") as f:
                return _checked_header(f.read(len(MAGIC) + _HEADER.size), 0, self.name)[0]
        except (OSError, _Untrusted):
            return None  # reading the whole file tells what is wrong

    def part(self) -> _Part:
        """Return what to write of the stage: the entries this build added, to append to the file when
        it used all of the file's entries as they were; else every entry it used, to write whole."""
        entries, key, appended = self._part_entries()
        return _Part(_pickled_entries(entries), key, appended)

    def _part_entries(self) -> tuple[dict[bytes, Any], bytes, bool]:
        """Return the entries of ``part``, its key and whether it is appended."""
        loaded = self.loaded or {}
        if (not self.single and not self.rewrite and loaded and 0 < self.parts < MAX_PARTS
                and loaded.keys() <= self.used.keys() and all(self.used[k] is v for k, v in loaded.items())):
            return {k: v for k, v in self.used.items() if k not in loaded}, _NO_KEY, True
        key = next(iter(self.used)) if self.single and len(self.used) == 1 else _NO_KEY
        return self.used, key, False


def _pickled_entries(entries: dict[bytes, Any]) -> bytes:
    """Return a stage's entries pickled.

    With the collector paused: pickling a record makes short-lived tuples and dicts, and the
    collections they triggered walked the build's millions of objects (the related papers' entry, 5 MB,
    took 0.9 s instead of 0.2 s at 20,000 papers).
    """
    with paused_gc():
        return pickle.dumps(entries, protocol=pickle.HIGHEST_PROTOCOL)


@dataclass(frozen=True)
class _Part:
    """A part of a stage file to write: a payload of pickled entries, to append or to make the whole file."""

    payload: bytes | _Spilled
    key: bytes  # the key of a single-entry stage's entry, else _NO_KEY
    appended: bool

    def data(self) -> bytes:
        return self.payload if isinstance(self.payload, bytes) else self.payload.read()


@dataclass(frozen=True)
class _Spilled:
    """A payload kept in a temporary file until the build saves the cache: not in memory meanwhile."""

    file: BinaryIO
    offset: int
    size: int

    def read(self) -> bytes:
        self.file.seek(self.offset)
        return self.file.read(self.size)


def _checked_header(data: bytes, start: int, name: str) -> tuple[bytes, bytes, int]:
    """Return the key, payload checksum and payload length of the part header at ``start``, if it is one
    of this code's for stage ``name``."""
    if len(data) < start + len(MAGIC) + _HEADER.size or not data.startswith(MAGIC, start):
        raise _Untrusted("is not a papercat cache file or is truncated")
    version, fingerprint, checksum, length, key = _HEADER.unpack_from(data, start + len(MAGIC))
    if version != FORMAT_VERSION:
        raise _Untrusted(f"has format version {version}, not {FORMAT_VERSION}", stale=True)
    if fingerprint != stage_fingerprint(name):
        raise _Untrusted("was written by another version of papercat or its libraries", stale=True)
    return key, checksum, length


def stage_fingerprint(name: str) -> bytes:
    """Return the fingerprint a file of stage ``name`` must carry: this code, this stage."""
    return digest(code_fingerprint(), name)


def seal(name: str, payload: bytes, fingerprint: bytes | None = None, key: bytes = _NO_KEY) -> bytes:
    """Return a stage file of one part: the header (magic, version, fingerprint, checksum, length,
    key), then ``payload``."""
    return part_header(name, payload, fingerprint, key) + payload


def part_header(name: str, payload: bytes, fingerprint: bytes | None = None, key: bytes = _NO_KEY) -> bytes:
    """Return the header of the part that holds ``payload`` (the part is the two, one after the other)."""
    fingerprint = stage_fingerprint(name) if fingerprint is None else fingerprint
    return MAGIC + _HEADER.pack(FORMAT_VERSION, fingerprint, hashlib.sha256(payload).digest(), len(payload), key)


class _Untrusted(Exception):
    def __init__(self, message: str, stale: bool = False) -> None:
        super().__init__(message)
        self.stale = stale


class Cache:
    """The stage files of one cache folder; with ``folder=None`` the cache is off and every lookup misses."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder
        self.stages: dict[str, Stage] = {}
        self._spill: BinaryIO | None = None  # an unnamed temporary file: gone when the build process ends

    def spilled(self, part: _Part) -> _Part:
        """Return ``part`` with its payload moved to a temporary file (so the build's memory holds only
        what it still uses); the payload is read back to be saved."""
        if not isinstance(part.payload, bytes):
            return part
        if self._spill is None:
            self._spill = tempfile.TemporaryFile(prefix="papercat-cache-")  # noqa: SIM115 - closed by save()
        offset = self._spill.seek(0, os.SEEK_END)
        self._spill.write(part.payload)
        self._spill.flush()
        return _Part(_Spilled(self._spill, offset, len(part.payload)), part.key, part.appended)

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
        if not changed:
            return []
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            tag = self.folder / "CACHEDIR.TAG"
            if not tag.exists():
                tag.write_bytes(_CACHEDIR_TAG)
        except OSError as exc:
            log.warning("cache folder %s cannot be written (%s); the next build computes everything again",
                        self.folder, exc)
            return []
        written = []
        for stage in changed:
            part = stage.sealed if stage.sealed is not None else stage.part()
            try:  # the header and the payload, not the two joined: a copy of up to ~100 MB spared
                payload = part.data()
                _write_atomically(stage.path, part_header(stage.name, payload, key=part.key), payload,
                                  after=part.appended)
            except OSError as exc:
                log.warning("cache file %s cannot be written (%s)", stage.path, exc)
                continue
            stage.parts = stage.parts + 1 if part.appended else 1
            stage.loaded, stage.added, stage.rewrite, stage.sealed = dict(stage.used), 0, False, None
            written.append(stage.name)
        if self._spill is not None and all(s.sealed is None for s in self.stages.values()):
            self._spill.close()  # nothing left in it (a server rebuilding all day starts a new one)
            self._spill = None
        return written

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


def _write_atomically(path: Path, *parts: bytes, after: bool = False) -> None:
    """Write ``parts`` to a new file beside ``path`` (with the umask's usual mode) and rename it into place.

    With ``after``, the new file holds the old one's bytes first.
    """
    temp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        with open(temp, "xb") as out:
            if after:
                with open(path, "rb") as old:
                    shutil.copyfileobj(old, out, 1 << 22)
            out.writelines(parts)
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
