"""Write the site atomically: everything goes into a fresh folder that then replaces the old one."""

from __future__ import annotations

import os
import shutil
import tempfile
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


def write_site(files: OutputFiles, out_dir: Path) -> None:
    """Write ``files`` into a temporary sibling of ``out_dir``, then swap it into place."""
    check_output_folder(out_dir)
    parent = out_dir.resolve().parent
    parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.new-", dir=parent))
    try:
        for rel, data in sorted(files.files.items()):
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        (staging / MARKER).write_bytes(b"")
        for folder, dirs, names in os.walk(staging):
            for name in dirs:
                os.chmod(os.path.join(folder, name), 0o755)
            for name in names:
                os.chmod(os.path.join(folder, name), 0o644)
        os.chmod(staging, 0o755)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    old = None
    if out_dir.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.old-", dir=parent))
        os.rename(out_dir, old / "site")
    os.rename(staging, out_dir)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
