"""Write the site: only files whose bytes changed, each replaced atomically; stale files removed."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from .errors import CatalogError
from .parallel import jobs

# Marks a folder as papercat's output, so a build never replaces a folder it did not make.
MARKER = ".papercat-site"
_RUN = 512  # files per run handed to a thread: few enough runs that handing them out costs little

T = TypeVar("T")
R = TypeVar("R")


class OutputFiles:
    """The site's files by path; a second file at the same path is an error naming both sources."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.sources: dict[str, str] = {}

    def add(self, path: str, data: bytes, source: str) -> None:
        if path in self.files:
            raise CatalogError(f"{source} and {self.sources[path]} would both write {path}; "
                               "expected each output path once")
        self.files[path] = data
        self.sources[path] = source

    def add_tree(self, folder: Path, prefix: str) -> None:
        """Add every file below ``folder`` under ``prefix``, in sorted order."""
        for file in sorted(p for p in folder.rglob("*") if p.is_file()):
            rel = file.relative_to(folder).as_posix()
            self.add(f"{prefix}/{rel}", file.read_bytes(), file.as_posix())


def check_output_folder(out_dir: Path) -> None:
    """Refuse to replace a folder that holds files but was not written by papercat."""
    if out_dir.exists() and not out_dir.is_dir():
        raise CatalogError(f"{out_dir}: is a file; expected a folder for the site (or no such path)")
    if out_dir.is_dir() and any(out_dir.iterdir()) and not (out_dir / MARKER).exists():
        raise CatalogError(f"{out_dir}: holds files that papercat did not write (no {MARKER} in it); "
                           "expected an empty folder or an earlier papercat site. Choose another --out")


@dataclass(frozen=True)
class WriteReport:
    """What a write changed: the paths written, how many were left alone, the paths removed."""

    written: tuple[str, ...]
    unchanged: int
    removed: tuple[str, ...]


def write_site(files: OutputFiles, out_dir: Path) -> WriteReport:
    """Bring ``out_dir`` to exactly ``files``, touching only what differs.

    A new folder is written beside ``out_dir`` and renamed into place. An earlier site keeps every
    file whose bytes are the same (so its mtime, and a deploy's diff, stay as they were); changed
    files are written beside it first and then renamed over the old ones, so a reader never sees a
    half-written file, and files no longer in the site are removed. Files and folders are made
    0644 and 0755 whatever the umask. The reading, writing and renaming are shared among a few
    threads (they wait on the system, not on Python), which have all ended when this returns.
    """
    check_output_folder(out_dir)
    parent = out_dir.resolve().parent
    parent.mkdir(parents=True, exist_ok=True)
    if not out_dir.exists():
        staging = _stage(files.files, parent, out_dir.name, marker=True)
        os.rename(staging, out_dir)
        return WriteReport(tuple(sorted(files.files)), 0, ())
    out = str(out_dir)
    old_files, old_folders = site_listing(out)
    old_files.pop(MARKER, None)
    paths = list(files.files)
    modes = dict(zip(paths, _in_threads(lambda rel: _same_bytes(out, rel, files.files[rel], old_files.get(rel)),
                                        paths)))
    changed = {rel: files.files[rel] for rel, mode in modes.items() if mode is None}
    removed = sorted(rel for rel in old_files if rel not in files.files)
    staging = _stage(changed, parent, out_dir.name, marker=False) if changed else None
    try:
        for rel in removed:  # first, so that a folder may become a file and a file a folder
            os.unlink(os.path.join(out, rel))
        _prune_empty_folders(out, removed)
        if staging is not None:
            _replace_all(str(staging), out, sorted(changed), old_folders)
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
    _fix_modes(out, modes)
    return WriteReport(tuple(sorted(changed)), len(files.files) - len(changed), tuple(removed))


def _in_threads(work: Callable[[T], R], items: Sequence[T]) -> list[R]:
    """Return ``[work(item) for item in items]``, shared among ``jobs()`` threads in runs of items.

    For file operations, which release the GIL while the system works. Every thread has ended
    when this returns (parallel.py forks workers only when no other thread runs); the first
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
        fd = os.open(os.path.join(out, rel), os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        held = bytearray()
        while len(held) <= len(data):  # one read but for a file that grows meanwhile
            chunk = os.read(fd, len(data) + 1 - len(held))
            if not chunk:
                break
            held += chunk
        return stat.S_IMODE(old.st_mode) if held == data else None
    except OSError:
        return None
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


def _stage(files: dict[str, bytes], parent: Path, name: str, marker: bool) -> Path:
    """Write ``files`` into a new hidden folder in ``parent``, world-readable; return the folder.

    Each folder is made once, then each file is one open (created with its final mode), one write
    and one close.
    """
    staging = Path(tempfile.mkdtemp(prefix=f".{name}.new-", dir=parent))
    try:
        os.chmod(staging, 0o755)  # mkdtemp made it 0700
        root = str(staging)
        mask = _umask()
        for folder in _folders(files):
            os.mkdir(os.path.join(root, folder), 0o755)
            if mask & 0o755:  # mkdir applied it
                os.chmod(os.path.join(root, folder), 0o755)
        _in_threads(lambda rel: _write_new(os.path.join(root, rel), files[rel], mask), list(files))
        if marker:
            _write_new(os.path.join(root, MARKER), b"", mask)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return staging


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
