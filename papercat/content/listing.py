"""Read listing files: a header naming venue and year, then abstracts separated by blank lines."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..incremental.memo import Cache, Stage, digest
from ..errors import Problem
from ..model import Venue
from ..text import clean_line, join_wrapped, paper_id, slugify

LISTING_GLOB = "*.txt"
HEADER_EXAMPLE = '"ICML 2025 Papers"'
MIN_ABSTRACT_WORDS = 5

# Canonical spellings of venues people write in several ways.
KNOWN_VENUES = {
    key: name
    for name in (
        "AAAI", "ACL", "AISTATS", "COLING", "COLM", "COLT", "CVPR", "EACL", "ECCV", "EMNLP", "ICCV",
        "ICLR", "ICML", "IJCAI", "KDD", "NAACL", "NeurIPS", "SIGIR", "TMLR", "UAI", "WACV", "WWW",
    )
    for key in [name.casefold()]
} | {"nips": "NeurIPS"}

# "ICML 2025 Papers", "ICML 2025 论文列表", "ACL 2024 Long Papers", "NeurIPS 2024".
_HEADER = re.compile(
    r"^(?P<venue>[^\W\d_][\w&.+/'’ -]{0,59}?)[\s'’-]+(?P<year>(?:19|20)\d\d)\b(?P<rest>.{0,60})$"
)
_NEWLINES = re.compile(r"\r\n?")


@dataclass(frozen=True)
class Entry:
    """One abstract of a listing, the line it starts on, and its paper id (computed once, here)."""

    line: int
    text: str
    id: str


@dataclass(frozen=True)
class Listing:
    """A parsed listing file: where it is, its venue and its abstracts in order."""

    path: str
    header: str
    venue: Venue
    entries: tuple[Entry, ...]


def find_listings(content_dir: Path) -> list[Path]:
    """Return the listing files below ``content_dir/listings`` in a stable order."""
    folder = content_dir / "listings"
    if not folder.is_dir():
        return []
    return sorted(
        (p for p in folder.rglob(LISTING_GLOB) if p.is_file() and not p.name.startswith(".")),
        key=lambda p: p.relative_to(folder).as_posix(),
    )


def decode(data: bytes, path: str) -> tuple[str | None, list[Problem]]:
    """Decode UTF-8 (with or without a BOM); report the first bad byte by line and offset."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None, [Problem(path, 1, "the file is UTF-16 (it starts with a UTF-16 byte order "
                                       "mark); expected UTF-8 text: save it again as UTF-8")]
    try:
        return data.decode("utf-8-sig"), []
    except UnicodeDecodeError as exc:
        line = len(_NEWLINES.sub("\n", data[: exc.start].decode("utf-8", "replace")).split("\n"))
        bad = data[exc.start : exc.start + 1].hex()
        return None, [Problem(path, line, f"byte 0x{bad} at byte offset {exc.start} is not UTF-8; "
                                          "expected UTF-8 text: save the file again as UTF-8")]


def split_lines(text: str) -> list[str]:
    """Split on any line end (LF, CRLF, CR) and clean each line."""
    return [clean_line(line).rstrip() for line in _NEWLINES.sub("\n", text).split("\n")]


def iter_paragraphs(lines: list[str], start: int) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, text)`` for each run of non-blank lines from index ``start`` on."""
    block: list[str] = []
    first = 0
    for index in range(start, len(lines) + 1):
        line = lines[index] if index < len(lines) else ""
        if line.strip():
            if not block:
                first = index + 1
            block.append(line)
        elif block:
            yield first, join_wrapped(block)
            block = []


def parse_header(line: str) -> tuple[str, int] | None:
    """Return ``(venue name, year)`` from a header line, or None when it is not one."""
    match = _HEADER.match(line.strip())
    if not match or len(match.group("venue").split()) > 6:
        return None
    name = " ".join(match.group("venue").replace("’", "'").strip(" -'").split())
    if not name:
        return None
    return KNOWN_VENUES.get(re.sub(r"[^a-z0-9]", "", name.casefold()), name), int(match.group("year"))


def venue_for(name: str, year: int) -> Venue:
    """Return the venue record for a normalised name and a year."""
    return Venue(slug=f"{slugify(name) or 'venue'}-{year}", name=name, year=year)


def parse_listing(data: bytes, path: str) -> tuple[Listing | None, list[Problem]]:
    """Parse one listing file's bytes; return the listing and every problem found in it."""
    text, problems = decode(data, path)
    if text is None:
        return None, problems
    lines = split_lines(text)
    head = next((i for i, line in enumerate(lines) if line.strip()), None)
    if head is None:
        return None, [Problem(path, 1, f"the file is empty; expected a header line like "
                                       f"{HEADER_EXAMPLE}, then abstracts separated by blank lines")]
    header = lines[head].strip()
    parsed = parse_header(header)
    if parsed is None:
        shown = header if len(header) <= 60 else header[:57] + "..."
        return None, [Problem(path, head + 1, f'no venue header: found "{shown}"; expected a first '
                                              f"line naming the venue and year, like {HEADER_EXAMPLE}")]
    entries = _entries(lines, head + 1, path, problems)
    if not entries:
        problems.append(Problem(path, head + 1, f'the header "{header}" is followed by no abstracts; '
                                                "expected abstracts separated by blank lines after it"))
        return None, problems
    return Listing(path, header, venue_for(*parsed), tuple(entries)), problems


def _entries(lines: list[str], start: int, path: str, problems: list[Problem]) -> list[Entry]:
    """Return the abstracts from line index ``start`` on, adding a warning for each too short."""
    entries = []
    for line, abstract in iter_paragraphs(lines, start):
        words = len(abstract.split(maxsplit=MIN_ABSTRACT_WORDS))  # the count when it is under the minimum
        if words < MIN_ABSTRACT_WORDS:
            problems.append(Problem(path, line, f'skipped "{abstract}": {words} word'
                                                f"{'s' if words != 1 else ''} is too short for an "
                                                f"abstract; expected at least {MIN_ABSTRACT_WORDS}",
                                    warning=True))
            continue
        entries.append(Entry(line, abstract, paper_id(abstract)))
    return entries


def read_listings(content_dir: Path, display_root: Path,
                  cache: Cache | None = None) -> tuple[list[Listing], list[Problem]]:
    """Read every listing in the content folder; problems name files relative to ``display_root``.

    With a ``cache``, a listing whose bytes an earlier build parsed without a problem is taken from
    it, not parsed again (a listing with problems is always parsed, so that they are reported).
    """
    listings, problems = [], []
    files = find_listings(content_dir)
    if not files:
        where = display_path(content_dir / "listings", display_root)
        return [], [Problem(where, 0, f"no listing files; expected one or more {LISTING_GLOB} "
                                      f"files, each starting with a header like {HEADER_EXAMPLE}")]
    stage = (cache or Cache()).stage("listings", Listing)
    for file in files:
        # Pages name the file relative to the content folder, wherever the build ran from.
        path = file.relative_to(content_dir).as_posix()
        listing, found = _read_listing(stage, file, path, display_path(file, display_root))
        problems.extend(found)
        if listing is not None:
            listings.append(listing)
    return listings, problems


def _read_listing(stage: Stage, file: Path, path: str, shown: str) -> tuple[Listing | None, list[Problem]]:
    """Return one listing, named ``path``, from the cache or parsed, and the problems found in it."""
    data = file.read_bytes()
    key = digest(data) if stage.cache.enabled else b""
    listing = stage.get(key) if key else None
    if listing is not None:
        if listing.path != path:  # the same bytes under another name
            listing = dataclasses.replace(listing, path=path)
        return listing, []
    listing, found = parse_listing(data, shown)
    if listing is None:
        return None, found
    listing = dataclasses.replace(listing, path=path)
    if key and not found:
        stage.put(key, listing)
    return listing, found


def display_path(path: Path, root: Path) -> str:
    """Return ``path`` relative to ``root`` when it is inside it, else as given."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()
