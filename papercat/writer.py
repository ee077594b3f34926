"""Write the site: only files whose bytes changed, each replaced atomically; stale files removed."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .errors import CatalogError

# Marks a folder as papercat's output, so a build never replaces a folder it did not make.
MARKER = ".papercat-site"


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
    half-written file, and files no longer in the site are removed.
    """
    check_output_folder(out_dir)
    parent = out_dir.resolve().parent
    parent.mkdir(parents=True, exist_ok=True)
    if not out_dir.exists():
        staging = _stage(files.files, parent, out_dir.name, marker=True)
        os.rename(staging, out_dir)
        return WriteReport(tuple(sorted(files.files)), 0, ())
    modes = {rel: _same_bytes(out_dir / rel, data) for rel, data in files.files.items()}
    changed = {rel: files.files[rel] for rel, mode in modes.items() if mode is None}
    removed = sorted(rel for rel in _existing(out_dir) if rel not in files.files)
    staging = _stage(changed, parent, out_dir.name, marker=False) if changed else None
    try:
        for rel in removed:  # first, so that a folder may become a file and a file a folder
            (out_dir / rel).unlink()
        _prune_empty_folders(out_dir, removed)
        for rel in sorted(changed):
            _replace(staging / rel, out_dir / rel, out_dir)
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
    _fix_modes(out_dir, modes)
    return WriteReport(tuple(sorted(changed)), len(files.files) - len(changed), tuple(removed))


def _same_bytes(path: Path, data: bytes) -> int | None:
    """Return the permission bits of ``path`` if it is a file with exactly ``data`` in it, else None.

    One open, one fstat and one read: sizes are compared first, since most changed files differ there.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size != len(data):
            return None
        held = bytearray()
        while len(held) <= len(data):  # one read but for a file that grows meanwhile
            chunk = os.read(fd, len(data) + 1 - len(held))
            if not chunk:
                break
            held += chunk
        return stat.S_IMODE(st.st_mode) if held == data else None
    except OSError:
        return None
    finally:
        os.close(fd)


def _existing(out_dir: Path) -> list[str]:
    """Return the site-relative paths of every file in an earlier site, but the marker."""
    found = []
    for folder, _, names in os.walk(out_dir):
        for name in names:
            rel = Path(folder, name).relative_to(out_dir).as_posix()
            if rel != MARKER:
                found.append(rel)
    return found


def _stage(files: dict[str, bytes], parent: Path, name: str, marker: bool) -> Path:
    """Write ``files`` into a new hidden folder in ``parent``, world-readable; return the folder.

    Each file is one open (created with its final mode), one write and one close; each folder is
    made once.
    """
    staging = Path(tempfile.mkdtemp(prefix=f".{name}.new-", dir=parent))
    try:
        mask = _umask()
        made = {staging}
        for rel, data in sorted(files.items()):
            target = staging / rel
            if target.parent not in made:
                target.parent.mkdir(parents=True, exist_ok=True)
                made.update(target.parents)
            _write_new(target, data, mask)
        if marker:
            _write_new(staging / MARKER, b"", mask)
        if mask & 0o755:  # mkdir applied it
            for folder in made:
                os.chmod(folder, 0o755)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return staging


def _write_new(path: Path, data: bytes, mask: int) -> None:
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


def _replace(source: Path, target: Path, out_dir: Path) -> None:
    """Rename ``source`` over ``target``, making its folders (and removing a file or folder in the way)."""
    for folder in reversed(target.relative_to(out_dir).parents[:-1]):
        path = out_dir / folder
        if path.exists() and not path.is_dir():
            path.unlink()
        if not path.exists():
            path.mkdir(mode=0o755)
    if target.is_dir():
        shutil.rmtree(target)
    os.replace(source, target)


def _prune_empty_folders(out_dir: Path, removed: list[str]) -> None:
    """Remove the folders that removing files left empty, deepest first."""
    folders = {out_dir / parent for rel in removed for parent in Path(rel).parents[:-1]}
    for folder in sorted(folders, key=lambda f: len(f.parts), reverse=True):
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()


def _fix_modes(out_dir: Path, modes: dict[str, int | None]) -> None:
    """Make every file of the site world-readable (a chmod leaves mtimes alone).

    ``modes`` holds the permission bits of the files left as they were (None for those written,
    which were made 0644).
    """
    for rel, mode in modes.items():
        if mode is not None and mode != 0o644:
            os.chmod(out_dir / rel, 0o644)
    for folder in {out_dir / p for rel in modes for p in Path(rel).parents}:
        if stat.S_IMODE(folder.stat().st_mode) != 0o755:
            os.chmod(folder, 0o755)
