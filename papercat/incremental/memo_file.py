"""The memo's files: one per stage, of parts each sealed by a header, checked whole before use.

A part is the magic bytes, then a header (format version, code fingerprint, payload sha256,
payload length, and the key of a single-entry stage's entry), then the payload: a pickled dict of
32-byte keys to entries. The code fingerprint hashes the source of every papercat module, the word
lists they read and the versions of the libraries whose output is cached, so a file written by
other code is stale, not misread. The checksum is verified before unpickling, and the unpickler
builds only plain values and papercat's own classes.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import io
import os
import pickle
import secrets
import shutil
import struct
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO

from ..collector import paused_gc

MAGIC = b"papercat cache\n\x00"
FORMAT_VERSION = 2
SUFFIX = ".bin"
# After the magic: format version, code fingerprint, payload sha256, payload length, and the key of
# a single-entry stage's entry (zeros for other stages).
HEADER = struct.Struct(">I32s32sQ32s")
NO_KEY = bytes(32)
# Libraries whose output ends up in cached values (sanitised HTML, MathML, index terms, numbers).
_LIBRARIES = ("latex2mathml", "lunr", "nh3", "numpy", "scipy")
# Marks the folder as a cache for backup tools (https://bford.info/cachedir/).
CACHEDIR_TAG = b"Signature: 8a477f597d28d172789f06886806bc55\n# papercat's build cache; safe to delete.\n"

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
    package = Path(__file__).resolve().parent.parent  # papercat/
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


def pickled_entries(entries: dict[bytes, Any]) -> bytes:
    """Return a stage's entries pickled.

    With the collector paused: pickling a record makes short-lived tuples and dicts, and the
    collections they triggered walked the build's millions of objects (the related papers' entry, 5 MB,
    took 0.9 s instead of 0.2 s at 20,000 papers).
    """
    with paused_gc():
        return pickle.dumps(entries, protocol=pickle.HIGHEST_PROTOCOL)


@dataclass(frozen=True)
class Part:
    """A part of a stage file to write: a payload of pickled entries, to append or to make the whole file."""

    payload: bytes | Spilled
    key: bytes  # the key of a single-entry stage's entry, else NO_KEY
    appended: bool

    def data(self) -> bytes:
        return self.payload if isinstance(self.payload, bytes) else self.payload.read()


@dataclass(frozen=True)
class Spilled:
    """A payload kept in a temporary file until the build saves the cache: not in memory meanwhile."""

    file: BinaryIO
    offset: int
    size: int

    def read(self) -> bytes:
        self.file.seek(self.offset)
        return self.file.read(self.size)


def checked_header(data: bytes, start: int, name: str) -> tuple[bytes, bytes, int]:
    """Return the key, payload checksum and payload length of the part header at ``start``, if it is one
    of this code's for stage ``name``."""
    if len(data) < start + len(MAGIC) + HEADER.size or not data.startswith(MAGIC, start):
        raise Untrusted("is not a papercat cache file or is truncated")
    version, fingerprint, checksum, length, key = HEADER.unpack_from(data, start + len(MAGIC))
    if version != FORMAT_VERSION:
        raise Untrusted(f"has format version {version}, not {FORMAT_VERSION}", stale=True)
    if fingerprint != stage_fingerprint(name):
        raise Untrusted("was written by another version of papercat or its libraries", stale=True)
    return key, checksum, length


def stage_fingerprint(name: str) -> bytes:
    """Return the fingerprint a file of stage ``name`` must carry: this code, this stage."""
    return digest(code_fingerprint(), name)


def seal(name: str, payload: bytes, fingerprint: bytes | None = None, key: bytes = NO_KEY) -> bytes:
    """Return a stage file of one part: the header (magic, version, fingerprint, checksum, length,
    key), then ``payload``."""
    return part_header(name, payload, fingerprint, key) + payload


def part_header(name: str, payload: bytes, fingerprint: bytes | None = None, key: bytes = NO_KEY) -> bytes:
    """Return the header of the part that holds ``payload`` (the part is the two, one after the other)."""
    fingerprint = stage_fingerprint(name) if fingerprint is None else fingerprint
    return MAGIC + HEADER.pack(FORMAT_VERSION, fingerprint, hashlib.sha256(payload).digest(), len(payload), key)


class Untrusted(Exception):
    def __init__(self, message: str, stale: bool = False) -> None:
        super().__init__(message)
        self.stale = stale




def decode_part(data: bytes, start: int, name: str, kind: type | tuple[type, ...]) -> tuple[dict[bytes, Any], int]:
    """Return the entries of the part at ``start`` of a file of stage ``name`` (of ``kind`` entries), and
    where the next part starts; raise Untrusted if the part is not sound."""
    _, checksum, length = checked_header(data, start, name)
    start += len(MAGIC) + HEADER.size
    payload = memoryview(data)[start:start + length]
    if len(payload) != length:
        raise Untrusted(f"holds {len(payload)} bytes of data, not {length}: truncated or damaged")
    if hashlib.sha256(payload).digest() != checksum:
        raise Untrusted("fails its checksum: damaged")
    try:
        with paused_gc():
            found = _Unpickler(io.BytesIO(payload)).load()
    except Exception as exc:  # a well-formed file of unexpected content can fail in many ways
        raise Untrusted(f"cannot be unpickled ({type(exc).__name__}: {exc})") from exc
    if type(found) is not dict or not all(
            type(k) is bytes and len(k) == 32 and isinstance(v, kind) for k, v in found.items()):
        raise Untrusted(f"does not hold {name} entries")
    return found, start + length


def header_key(path: Path, name: str) -> bytes | None:
    """Return the key in the header of a file of stage ``name`` (a single-entry stage's), or None if the
    header is not sound."""
    try:
        with open(path, "rb") as f:
            return checked_header(f.read(len(MAGIC) + HEADER.size), 0, name)[0]
    except (OSError, Untrusted):
        return None  # reading the whole file tells what is wrong


def write_atomically(path: Path, *parts: bytes, after: bool = False) -> None:
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
