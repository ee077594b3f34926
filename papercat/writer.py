"""Write the site: only files whose bytes changed, each replaced atomically; stale files removed.

A build stages its files as it makes them (worker processes stage the pages they render), in a
hidden folder beside the site, and moves them into place once everything has been made: a failed
build leaves the earlier site as it was.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import TypeVar

from .errors import CatalogError
from .pagekeys import PageKey
from .workers import jobs

# Marks a folder as papercat's output, so a build never replaces a folder it did not make.
MARKER = ".papercat-site"
_RUN = 512  # files per run handed to a thread: few enough runs that handing them out costs little

T = TypeVar("T")
R = TypeVar("R")


def check_output_folder(out_dir: Path) -> None:
    """Refuse to replace a folder that holds files but was not written by papercat."""
    if out_dir.exists() and not out_dir.is_dir():
        raise CatalogError(f"{out_dir}: is a file; expected a folder for the site (or no such path)")
    if out_dir.is_dir() and any(out_dir.iterdir()) and not (out_dir / MARKER).exists():
        raise CatalogError(f"{out_dir}: holds files that papercat did not write (no {MARKER} in it); "
                           "expected an empty folder or an earlier papercat site. Choose another --out")


@dataclass(frozen=True, slots=True)
class Staged:
    """A file of the site once staged: its path below the site, the permission bits of the earlier
    site's file when that holds these bytes already and is kept (None: the bytes were staged), and
    their sha256 when the staging was asked for digests."""

    path: str
    kept_mode: int | None = None
    digest: bytes | None = None
    key: PageKey | None = None  # a keyed page's key (pagekeys.py), for the up-to-date record
    made: bool = True  # False for a page kept unrendered (Staging.keep)


@dataclass(frozen=True)
class WriteReport:
    """What a write changed: the paths written, how many were left alone, the paths removed."""

    written: tuple[str, ...]
    unchanged: int
    removed: tuple[str, ...]


class Staging:
    """The files of a site as they are made, staged beside ``out_dir`` and moved into place by ``finish``.

    Entered (``with``), it refuses a folder papercat did not write, lists the earlier site, and
    makes the staging folder: a hidden folder beside ``out_dir``. Left without ``finish`` (an
    error, Ctrl-C), it removes that folder (and the folders made for it), so the earlier site stays
    as it was. ``claim`` takes a path for a source, once; ``stage`` writes a claimed path's bytes
    into the staging folder unless the earlier site's file holds them already, and may run in
    worker processes forked after the claims, each staging its own paths; ``add`` does both. With
    ``write=False`` (a check) paths are claimed and nothing is read or written.
    """

    def __init__(self, out_dir: Path, write: bool = True, digests: bool = False) -> None:
        self.out_dir = out_dir
        self.write = write
        self.digests = digests  # whether each Staged carries its sha256
        self.sources: dict[str, str] = {}
        self.folder: str | None = None  # the staging folder while there is one
        self.fresh = True  # no earlier site: the staging folder becomes the site
        self.old_files: dict[str, os.stat_result] = {}
        self.old_folders: set[str] = set()
        self._made = {""}  # the folders this process has made (or found) in the staging folder
        self._mask = 0
        self._parents: list[Path] = []  # the folders made for the staging folder, deepest first

    def __enter__(self) -> Staging:  # noqa: PYI034 (typing.Self needs Python 3.11)
        if not self.write:
            return self
        check_output_folder(self.out_dir)
        parent = self.out_dir.resolve().parent
        self._parents = _missing_folders(parent)
        try:
            parent.mkdir(parents=True, exist_ok=True)
            self.folder = tempfile.mkdtemp(prefix=f".{self.out_dir.name}.new-", dir=parent)
            os.chmod(self.folder, 0o755)  # mkdtemp made it 0700
            self._mask = _umask()
            self.fresh = not self.out_dir.exists()
            if not self.fresh:
                self.old_files, self.old_folders = site_listing(str(self.out_dir))
                self.old_files.pop(MARKER, None)
        except BaseException:
            self._discard()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._discard()

    def claim(self, path: str, source: str) -> None:
        """Take ``path`` for ``source``; a second claim of a path is an error naming both sources."""
        if path in self.sources:
            raise CatalogError(f"{source} and {self.sources[path]} would both write {path}; "
                               "expected each output path once")
        self.sources[path] = source

    def stage(self, path: str, data: bytes, key: PageKey | None = None) -> Staged:
        """Write ``data``, the bytes of a claimed ``path`` (a page of ``key``, if keyed), into the staging
        folder unless the earlier site's file at ``path`` holds them already (it is then kept as it is)."""
        digest = hashlib.sha256(data).digest() if self.digests else None
        root = self.folder
        if root is None:  # a check
            return Staged(path, None, digest, key)
        kept = None if self.fresh else _same_bytes(str(self.out_dir), path, data, self.old_files.get(path))
        if kept is None:
            self._make_folder(root, path.rpartition("/")[0])
            _write_new(os.path.join(root, path), data, self._mask)
        return Staged(path, kept, digest, key)

    def keep(self, path: str, size: int, mtime_ns: int, digest: bytes, key: PageKey | None = None) -> Staged | None:
        """Return the earlier site's file at ``path`` (a page of ``key``, if keyed) as staged, unread, if
        it is still the regular file of that size and modification time whose sha256 was recorded as
        ``digest``; else None."""
        old = self.old_files.get(path)
        if old is None or not stat.S_ISREG(old.st_mode) or old.st_size != size or old.st_mtime_ns != mtime_ns:
            return None
        return Staged(path, stat.S_IMODE(old.st_mode), digest if self.digests else None, key, False)

    def add(self, path: str, data: bytes, source: str) -> Staged:
        """Claim ``path`` for ``source`` and stage ``data`` there."""
        self.claim(path, source)
        return self.stage(path, data)

    def add_tree(self, folder: Path, prefix: str) -> list[Staged]:
        """Add every file below ``folder`` under ``prefix``, in sorted order."""
        return [self.add(f"{prefix}/{file.relative_to(folder).as_posix()}", file.read_bytes(), file.as_posix())
                for file in sorted(p for p in folder.rglob("*") if p.is_file())]

    def finish(self, staged: Sequence[Staged]) -> WriteReport:
        """Bring ``out_dir`` to exactly the ``staged`` files, touching only what differs.

        A new site is the staging folder renamed into place. In an earlier site, every file whose
        bytes are the same was kept (so its mtime, and a deploy's diff, stay as they were); files
        no longer in the site are removed, and the staged ones renamed over the old ones, so a
        reader never sees a half-written file. Files and folders are made 0644 and 0755 whatever
        the umask. The renaming is shared among a few threads (they wait on the system, not on
        Python), which have all ended when this returns.
        """
        assert self.folder is not None, "finish is called once, on an entered Staging that writes"
        out = str(self.out_dir)
        self._parents = []  # the site goes beside them: they stay
        if self.fresh:
            _write_new(os.path.join(self.folder, MARKER), b"", self._mask)
            os.rename(self.folder, out)
            self.folder = None
            return WriteReport(tuple(sorted(s.path for s in staged)), 0, ())
        modes = {s.path: s.kept_mode for s in staged}
        changed = sorted(rel for rel, mode in modes.items() if mode is None)
        removed = sorted(rel for rel in self.old_files if rel not in modes)
        for rel in removed:  # first, so that a folder may become a file and a file a folder
            os.unlink(os.path.join(out, rel))
        _prune_empty_folders(out, removed)
        _replace_all(self.folder, out, changed, self.old_folders)
        self._discard()  # the staging folder, without files now
        _fix_modes(out, modes)
        return WriteReport(tuple(changed), len(modes) - len(changed), tuple(removed))

    def _make_folder(self, root: str, folder: str) -> None:
        """Make ``folder`` and its parents in the staging folder ``root``, unless this process or another has."""
        if folder in self._made:
            return
        self._make_folder(root, folder.rpartition("/")[0])
        path = os.path.join(root, folder)
        try:
            os.mkdir(path, 0o755)
            if self._mask & 0o755:  # mkdir applied it
                os.chmod(path, 0o755)
        except FileExistsError:  # made by another worker process
            pass
        self._made.add(folder)

    def _discard(self) -> None:
        """Remove the staging folder and the folders made for it, if they are there."""
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None
        for folder in self._parents:
            try:
                folder.rmdir()
            except OSError:  # never made, or something else went into it meanwhile
                break
        self._parents = []


def _missing_folders(folder: Path) -> list[Path]:
    """Return ``folder`` and those of its parents that do not exist, deepest first."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    return missing


def _in_threads(work: Callable[[T], R], items: Sequence[T]) -> list[R]:
    """Return ``[work(item) for item in items]``, shared among ``jobs()`` threads in runs of items.

    For file operations, which release the GIL while the system works. Every thread has ended
    when this returns (workers.py forks workers only when no other thread runs); the first
    error is raised.
    """
    threads = min(jobs(), len(items) // _RUN)
    if threads < 2:
        return [work(item) for item in items]
    runs = [items[start:start + _RUN] for start in range(0, len(items), _RUN)]
    with ThreadPoolExecutor(threads, thread_name_prefix="papercat-writer") as pool:
        done = list(pool.map(lambda run: [work(item) for item in run], runs))
    return [result for run in done for result in run]


def _same_bytes(out: str, rel: str, data: bytes, old: os.stat_result | None) -> int | None:
    """Return the permission bits of the file ``rel`` in ``out`` if it holds exactly ``data``, else None.

    ``old`` is the file's lstat from the listing of the folder, or None: a file of another size (as
    most changed files are) or anything but a regular file is not opened.
    """
    if old is None or not stat.S_ISREG(old.st_mode) or old.st_size != len(data):
        return None
    try:
        held = read_listed(os.path.join(out, rel), len(data), follow=False)
    except OSError:
        return None
    return stat.S_IMODE(old.st_mode) if held == data else None


def read_listed(path: str, size: int, follow: bool = True, whole: bool = False) -> bytes:
    """Return the bytes of the file at ``path``, listed as ``size`` bytes long, in one read mostly.

    The read asks for one byte more, in case the file grew meanwhile (a longer file then shows it);
    with ``whole``, the rest of such a file is read too. Unless ``follow``, a symbolic link is not.
    """
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW))
    try:
        held = os.read(fd, size + 1)
        while len(held) < size:  # a short read, which regular files hardly give
            chunk = os.read(fd, size + 1 - len(held))
            if not chunk:
                break
            held += chunk
        if whole and len(held) > size:
            held += b"".join(iter(partial(os.read, fd, 1 << 22), b""))
        return held
    finally:
        os.close(fd)


def site_listing(out: str) -> tuple[dict[str, os.stat_result], set[str]]:
    """Return every file below ``out`` (its lstat by path below ``out``) and every folder; nothing if
    there is no such folder. Symbolic links are listed as files, never followed."""
    files: dict[str, os.stat_result] = {}
    folders: set[str] = set()
    pending = [""] if os.path.isdir(out) else []
    while pending:
        folder = pending.pop()
        with os.scandir(os.path.join(out, folder)) as entries:
            for entry in entries:
                rel = f"{folder}/{entry.name}" if folder else entry.name
                if entry.is_dir(follow_symlinks=False):
                    folders.add(rel)
                    pending.append(rel)
                else:
                    files[rel] = entry.stat(follow_symlinks=False)
    return files, folders


def _folders(paths: Iterable[str]) -> list[str]:
    """Return every folder the site-relative ``paths`` lie in (but the site's own), parents first."""
    found = set()
    for rel in paths:
        folder = rel.rpartition("/")[0]
        while folder and folder not in found:
            found.add(folder)
            folder = folder.rpartition("/")[0]
    return sorted(found)  # a parent sorts before what is in it


def _write_new(path: str, data: bytes, mask: int) -> None:
    """Create ``path`` holding ``data``, mode 0644 whatever the umask ``mask``."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    try:
        if mask & 0o644:
            os.fchmod(fd, 0o644)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def _umask() -> int:
    """Return the process's umask (read by setting it and setting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _replace_all(staging: str, out: str, paths: list[str], old_folders: set[str]) -> None:
    """Rename each of ``paths`` from ``staging`` over the same path in ``out``.

    First each folder they need is made (a file in its way removed), once per folder; then a
    folder of the earlier site where a file now goes is removed.
    """
    for folder in _folders(paths):
        path = os.path.join(out, folder)
        if os.path.lexists(path) and not os.path.isdir(path):
            os.unlink(path)
        if not os.path.isdir(path):
            os.mkdir(path, 0o755)
    for rel in paths:
        if rel in old_folders and os.path.isdir(os.path.join(out, rel)):
            shutil.rmtree(os.path.join(out, rel))
    _in_threads(lambda rel: os.replace(os.path.join(staging, rel), os.path.join(out, rel)), paths)


def _prune_empty_folders(out: str, removed: list[str]) -> None:
    """Remove the folders that removing files left empty, deepest first."""
    for folder in sorted(_folders(removed), key=lambda f: f.count("/"), reverse=True):
        path = os.path.join(out, folder)
        if os.path.isdir(path) and not os.listdir(path):
            os.rmdir(path)


def _fix_modes(out: str, modes: dict[str, int | None]) -> None:
    """Make every file of the site world-readable (a chmod leaves mtimes alone).

    ``modes`` holds the permission bits of the files left as they were (None for those written,
    which were made 0644).
    """
    for rel, mode in modes.items():
        if mode is not None and mode != 0o644:
            os.chmod(os.path.join(out, rel), 0o644)
    for folder in [out, *(os.path.join(out, f) for f in _folders(modes))]:
        if stat.S_IMODE(os.stat(folder).st_mode) != 0o755:
            os.chmod(folder, 0o755)
