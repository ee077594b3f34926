"""Write the site as a whole: stage every file of the new site beside it, then swap the two folders.

A build stages the whole new site in a hidden folder beside the output folder (``.site.new-*``):
the files it makes are written there (worker processes stage the pages they render), and the
earlier site's files that hold the same bytes are hard-linked into it, so that they keep their
inode and modification time. Once everything is staged, one rename exchanges the two folders, and
the earlier site, now where the staging folder was, is removed. A build that stops at any moment
leaves the output folder as it was or as the new build makes it; the next build removes what it
left beside the site, and puts back an earlier site that a swap in two renames (where the system
cannot exchange two folders) had moved aside.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import TracebackType

from ..errors import CatalogError
from .swap import STAGING, clear_leftovers, lock_beside, remove_tree, swap

# Marks a folder as papercat's output, so a build never replaces a folder it did not make.
MARKER = ".papercat-site"


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


@dataclass(frozen=True)
class WriteReport:
    """What a write changed: the paths written, how many were left alone, the paths removed."""

    written: tuple[str, ...]
    unchanged: int
    removed: tuple[str, ...]


class Staging:
    """The whole new site, staged beside ``out_dir`` as it is made and swapped in by ``finish``.

    Entered (``with``), it waits for any other build writing beside ``out_dir`` (see swap.py),
    clears what a stopped build left there, refuses a folder papercat did not write, lists the
    earlier site and makes the staging folder. Left without ``finish`` (an error, Ctrl-C), it
    removes that folder (and the folders made for it), so the earlier site stays as it was.
    ``claim`` takes a path for a source, once; ``stage`` puts a claimed path's bytes into the
    staging folder (a hard link to the earlier site's file if that holds them already), and may run
    in worker processes forked after the claims, each staging its own paths; ``add`` does both.
    With ``write=False`` (a check) paths are claimed and nothing is read or written.
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
        # The folder swapped: a symbolic link to the site stays a link, to the new site.
        self.site = os.path.realpath(out_dir)
        self._made = {""}  # the folders this process has made (or found) in the staging folder
        self._mask = 0
        self._parents: list[Path] = []  # the folders made for the staging folder, deepest first
        self._lock: int | None = None

    def __enter__(self) -> Staging:  # noqa: PYI034 (typing.Self needs Python 3.11)
        if not self.write:
            return self
        parent = Path(self.site).parent
        self._parents = _missing_folders(parent)
        try:
            parent.mkdir(parents=True, exist_ok=True)
            self._lock = lock_beside(parent, self.out_dir)
            clear_leftovers(self.site)
            check_output_folder(self.out_dir)
            self.folder = tempfile.mkdtemp(prefix=f".{os.path.basename(self.site)}{STAGING}", dir=parent)
            os.chmod(self.folder, 0o755)  # mkdtemp made it 0700
            self._mask = _umask()
            self.fresh = not os.path.exists(self.site)
            if not self.fresh:
                self.old_files, self.old_folders = site_listing(self.site)
        except OSError as exc:
            self._discard()
            raise CatalogError(f"{exc.filename or parent}: {exc.strerror}; expected a folder where the "
                               "site can be staged beside the output folder") from exc
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

    def stage(self, path: str, data: bytes) -> Staged:
        """Put ``data``, the bytes of a claimed ``path``, into the staging
        folder: the earlier site's file at ``path`` if it holds them already, else a new file."""
        digest = hashlib.sha256(data).digest() if self.digests else None
        if self.folder is None:  # a check
            return Staged(path, None, digest)
        old = self.old_files.get(path)
        kept = _same_bytes(self.site, path, data, old)
        with self._staging(path) as target:
            if kept is None:
                _write_new(target, data, self._mask)
            else:
                assert old is not None
                _keep_file(os.path.join(self.site, path), target, old, self._mask, data)
        return Staged(path, kept, digest)

    def add(self, path: str, data: bytes, source: str) -> Staged:
        """Claim ``path`` for ``source`` and stage ``data`` there."""
        self.claim(path, source)
        return self.stage(path, data)

    def add_tree(self, folder: Path, prefix: str) -> list[Staged]:
        """Add every file below ``folder`` under ``prefix``, in sorted order."""
        return [self.add(f"{prefix}/{file.relative_to(folder).as_posix()}", file.read_bytes(), file.as_posix())
                for file in sorted(p for p in folder.rglob("*") if p.is_file())]

    def finish(self, staged: Sequence[Staged]) -> WriteReport:
        """Make ``out_dir`` exactly the ``staged`` files, in one step, and remove the earlier site.

        Files and folders are 0644 and 0755 whatever the umask. An earlier site that is already
        exactly these files, with those modes, is left alone (its folders' times too).
        """
        assert self.folder is not None, "finish is called once, on an entered Staging that writes"
        changed = sorted(s.path for s in staged if s.kept_mode is None)
        removed = sorted(set(self.old_files) - {s.path for s in staged} - {MARKER})
        self._parents = []  # the site goes beside them: they stay
        if not self.fresh and not changed and not removed and self._modes_right(staged):
            remove_tree(self.folder)
        else:
            self._stage_marker()
            self._swap_in()
        self.folder = None
        return WriteReport(tuple(changed), len(staged) - len(changed), tuple(removed))

    def _stage_marker(self) -> None:
        """Stage the file that marks the site as papercat's, keeping the earlier site's one if it has it."""
        with self._staging(MARKER) as target:
            if MARKER in self.old_files:
                _keep_file(os.path.join(self.site, MARKER), target, self.old_files[MARKER], self._mask)
            else:
                _write_new(target, b"", self._mask)

    def _swap_in(self) -> None:
        """Put the staging folder where the site is, then remove the earlier site."""
        assert self.folder is not None
        try:
            earlier = swap(self.folder, self.site, self.fresh)
        except OSError as exc:  # put right on leaving (clear_leftovers), if the swap took two renames
            raise CatalogError(f"{self.out_dir}: cannot be replaced ({exc.strerror}); expected a folder "
                               "papercat may rename. The site was left as it was") from exc
        self.folder = None  # (a Ctrl-C before this line removes the earlier site, where it was staged)
        if earlier is not None:
            remove_tree(earlier)

    def _modes_right(self, staged: Sequence[Staged]) -> bool:
        """Return whether the earlier site has the folders of ``staged``, its files 0644, its folders 0755."""
        folders = set(_folders(s.path for s in staged))
        return (folders == self.old_folders and all(s.kept_mode == 0o644 for s in staged)
                and all(stat.S_IMODE(os.stat(os.path.join(self.site, folder)).st_mode) == 0o755
                        for folder in ["", *folders]))

    @contextmanager
    def _staging(self, path: str) -> Iterator[str]:
        """Make the folders of ``path`` in the staging folder and give where its file goes; a failure to
        write there (a full disk) becomes an error that names the file."""
        assert self.folder is not None
        try:
            self._make_folder(self.folder, path.rpartition("/")[0])
            yield os.path.join(self.folder, path)
        except OSError as exc:
            raise CatalogError(f"{self.out_dir / path}: {exc.strerror}; expected room on the disk for the "
                               "new site. The site was left as it was") from exc

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
        """Remove the staging folder, undo a swap cut short, remove the folders made for the staging
        folder, and let the next build in."""
        if self.folder is not None:
            remove_tree(self.folder)
            self.folder = None
        if self._lock is not None:
            clear_leftovers(self.site)
        for folder in self._parents:
            try:
                folder.rmdir()
            except OSError:  # never made, or something else went into it meanwhile
                break
        self._parents = []
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None


def _missing_folders(folder: Path) -> list[Path]:
    """Return ``folder`` and those of its parents that do not exist, deepest first."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    return missing


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


def _keep_file(source: str, target: str, old: os.stat_result, mask: int, data: bytes | None = None) -> None:
    """Put the earlier site's file ``source`` (``old`` its lstat; ``data`` its bytes, if read) at ``target``.

    A hard link, so that it keeps its inode and modification time; a copy with that modification
    time, 0644, where the file has another mode (a chmod of a link would change the earlier site
    before the swap) or cannot be linked (a file system without hard links, an immutable file).
    """
    if stat.S_IMODE(old.st_mode) == 0o644:
        try:
            os.link(source, target, follow_symlinks=False)
            return
        except OSError as exc:
            if exc.errno == errno.ENOSPC:
                raise
    _write_new(target, read_listed(source, old.st_size, follow=False) if data is None else data, mask)
    os.utime(target, ns=(old.st_atime_ns, old.st_mtime_ns))


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
