"""Is the site already what these inputs make? The check that lets a rebuild with no change skip the build.

A build's output is a function of its inputs: every file of the content folder (history.yaml
included), the templates, the static files, papercat's code and libraries (the cache's code
fingerprint), the base URL, --strict, whether history is recorded, SOURCE_DATE_EPOCH, and the
output folder. After a good build, the cache keeps, under the sha256 of all of them, what the
output folder then held: each file's path, size, modification time and sha256. When the next build
has the same inputs and finds the folder exactly so (no file changed, added or removed since), there
is nothing to do: it reports the last build's summary and warnings and writes nothing. When only
modification times differ (the files were touched, copied or checked out again), the files whose
time changed are read and compared by sha256: the same bytes are the same site, and the new times
are recorded. Anything else, a changed listing or a hand-edited page alike, makes a build, which
puts the site right. The record is kept by output folder, not by inputs.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import Problem
from ..output.writer import Staged, read_listed, site_listing
from .memo import Cache
from .memo_file import code_fingerprint, digest_of

__all__ = ["BuiltSite", "Inputs", "Summary", "built_site", "read_inputs", "remember"]

STAGE = "site"  # the cache stage: one entry, the last build's


@dataclass(frozen=True)
class Summary:
    """What a build's summary line reports: the catalog's size, the site's files, the warnings."""

    papers: int
    venues: int
    topics: int
    files: int  # the files of the site (the folder also holds papercat's marker)
    warnings: tuple[Problem, ...]


@dataclass(frozen=True)
class BuiltSite:
    """What a build left in its output folder, and its summary, for the next build to reuse."""

    inputs: bytes  # the key of the inputs it was built from (Inputs.key)
    files: tuple[tuple[str, int, int], ...]  # (path below the folder, size, mtime in ns), sorted by path
    digests: tuple[bytes, ...]  # the sha256 of each of those files, in the same order
    summary: Summary


@dataclass(frozen=True)
class Inputs:
    """The sha256 of each input file by where it is, and of the build's settings."""

    files: dict[str, bytes]
    settings: bytes

    def key(self) -> bytes:
        return digest_of([self.settings, *(part for path in sorted(self.files)
                                           for part in (path, self.files[path]))])

    def with_file(self, path: Path, data: bytes) -> Inputs:
        """Return these inputs with ``path`` now holding ``data`` (a file the build itself wrote)."""
        return Inputs({**self.files, _name(path): hashlib.sha256(data).digest()}, self.settings)


def read_inputs(folders: list[Path], out: Path, settings: list[str], skip: Path | None = None) -> Inputs:
    """Hash every file below ``folders`` (leaving out ``skip``, a cache kept inside one) and the settings."""
    files: dict[str, bytes] = {}
    skipped = str(skip.resolve()) + os.sep if skip is not None else None
    for folder in folders:
        for root, dirs, names in os.walk(folder):
            dirs.sort()
            if skipped and (str(Path(root).resolve()) + os.sep).startswith(skipped):
                continue
            for name in names:
                path = Path(root) / name
                files[_name(path)] = _file_sha256(path)
    return Inputs(files, digest_of([code_fingerprint(), str(out.resolve()), *settings]))


def built_site(cache: Cache, inputs: Inputs, out: Path) -> BuiltSite | None:
    """Return what the last build made from exactly ``inputs``, if ``out`` still holds just that.

    Files whose modification time alone changed are compared by content; when they all hold the
    bytes recorded, the new times are recorded (saved with the cache), so the next check is quick.
    """
    stage = cache.stage(STAGE, BuiltSite, single=True)
    found = stage.get(_out_key(out))
    if found is None or found.inputs != inputs.key():
        return None
    now = site_files(out)
    folder = os.fspath(out)
    if now == found.files:
        return found
    if len(now) != len(found.files):
        return None
    for (path, size, mtime), (old_path, old_size, old_mtime), sha in zip(now, found.files, found.digests):
        if path != old_path or size != old_size:
            return None
        if mtime != old_mtime and _sha256(os.path.join(folder, path), size) != sha:
            return None
    found = replace(found, files=now)
    stage.put(_out_key(out), found)
    return found


def remember(cache: Cache, inputs: Inputs, out: Path, summary: Summary, staged: Sequence[Staged]) -> None:
    """Record what the build just wrote into ``out`` from ``inputs`` (saved with the cache).

    The ``staged`` files give their sha256 (so that they need not be read again); any other
    file of the folder (papercat's marker) is read.
    """
    digests = {s.path: s.digest for s in staged if s.digest is not None}
    files = site_files(out)
    cache.stage(STAGE, BuiltSite, single=True).put(
        _out_key(out), BuiltSite(inputs.key(), files,
                                 tuple(digests.get(path) or _sha256(os.path.join(out, path), size)
                                       for path, size, _ in files), summary))


def _out_key(out: Path) -> bytes:
    """Return the record's key: the output folder's (the record is the last build's into it)."""
    return digest_of(["site record", str(out.resolve())])


def site_files(out: Path) -> tuple[tuple[str, int, int], ...]:
    """Return every file below ``out`` with its size and modification time, sorted by path."""
    return tuple(sorted((rel, st.st_size, st.st_mtime_ns) for rel, st in site_listing(os.fspath(out))[0].items()))


def _sha256(path: str, size: int) -> bytes:
    """Return the sha256 of the file at ``path``, whose size was ``size``: read whole, in one call mostly.

    A touched site's check hashes every file (21,000 at 20,000 papers): a Path, a file object and
    hashlib.file_digest's buffer cost more than the file (0.92 s against 0.6 s for the check). A file
    that grew meanwhile is hashed in full all the same.
    """
    return hashlib.sha256(read_listed(path, size, whole=True)).digest()


def _file_sha256(path: Path) -> bytes:
    """Return the sha256 of the file at ``path``, read in blocks (hashlib.file_digest needs Python 3.11)."""
    sha = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            sha.update(block)
    return sha.digest()


def _name(path: Path) -> str:
    return str(path.resolve())
