"""content/history.yaml: the order in which listing files arrived, for "What's new" and the feeds.

A build adds each listing it has not seen before, all those of one build under one new arrival
number, and records the date only when SOURCE_DATE_EPOCH gives one (never the clock). The file is
committed with the listings, so every later build, on any machine, orders papers the same way.
A listing is known by its path, or, once renamed, by its fingerprint: a hash of its paper ids.
"""

from __future__ import annotations

import datetime
import hashlib
import os
from dataclasses import dataclass, replace
from pathlib import Path

import yaml

from ..errors import Problem
from .yamlcheck import YamlChecker, read_mapping

HISTORY_FILE = "history.yaml"
_HEADER = """\
# Written by papercat: the order in which listing files arrived. Commit it with your listings.
# "What's new" shows the papers of the listings that arrived last; the feeds put them first.
# A renamed listing is recognised by its papers. Delete an entry to have its listing arrive anew.
"""


@dataclass(frozen=True)
class Arrival:
    """When one listing file arrived: its build number and, if SOURCE_DATE_EPOCH said so, the date."""

    file: str  # path below the content folder, "listings/icml-2025.txt"
    arrived: int  # 1 for the first build that saw listings, then one more per build that added some
    fingerprint: str  # hash of the listing's paper ids, in order
    papers: int
    date: str | None = None  # "2026-11-29", from SOURCE_DATE_EPOCH


@dataclass(frozen=True)
class History:
    """Every listing's arrival, in the order they arrived."""

    arrivals: tuple[Arrival, ...] = ()

    def of(self, file: str) -> Arrival | None:
        return next((a for a in self.arrivals if a.file == file), None)

    @property
    def latest(self) -> int:
        return max((a.arrived for a in self.arrivals), default=0)


ListingIds = tuple[str, str, list[str]]  # a listing's file, venue slug and paper ids in order


def fingerprint(paper_ids: list[str]) -> str:
    """Return the fingerprint of a listing: its paper ids in order, hashed."""
    return hashlib.sha256(" ".join(paper_ids).encode("ascii")).hexdigest()[:16]


def source_date(environ: dict[str, str] | None = None) -> str | None:
    """Return SOURCE_DATE_EPOCH as a UTC date, or None when it is unset or not a number."""
    value = (environ if environ is not None else os.environ).get("SOURCE_DATE_EPOCH", "").strip()
    if not value.isdigit():
        return None
    return datetime.datetime.fromtimestamp(int(value), datetime.timezone.utc).date().isoformat()


def update_history(history: History, listings: list[ListingIds], date: str | None) -> History:
    """Return the history of ``listings``: known ones kept, new ones added under one new number.

    Listings no longer in the content are dropped; a listing whose path is new but whose fingerprint
    matches a vanished entry was renamed and keeps its arrival.
    """
    present = {file for file, _, _ in listings}
    vanished = {a.fingerprint: a for a in history.arrivals if a.file not in present}
    kept: list[Arrival] = []
    new: list[Arrival] = []
    number = history.latest + 1
    for file, _, ids in listings:
        mark = fingerprint(ids)
        known = history.of(file) or vanished.pop(mark, None)
        if known is None:
            new.append(Arrival(file, number, mark, len(ids), date))
        else:
            kept.append(replace(known, file=file, fingerprint=mark, papers=len(ids)))
    kept.sort(key=lambda a: (a.arrived, a.file))
    return History(tuple(kept) + tuple(sorted(new, key=lambda a: a.file)))


def dump_history(history: History) -> bytes:
    """Return history.yaml's text: a short header, then one entry per listing in arrival order."""
    lines = [_HEADER.rstrip("\n"), "listings:"]
    for a in history.arrivals:
        lines.append(f"- file: {_scalar(a.file)}")
        lines.append(f"  arrived: {a.arrived}")
        if a.date:
            lines.append(f"  date: {a.date}")
        lines.append(f"  papers: {a.papers}")
        lines.append(f"  fingerprint: {a.fingerprint}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def save_history(history: History, path: Path) -> None:
    """Write history.yaml when its text changed (atomically: a temporary file renamed over it)."""
    data = dump_history(history)
    if path.exists() and path.read_bytes() == data:
        return
    temporary = path.with_name(f".{path.name}.new")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def _scalar(text: str) -> str:
    """Return ``text`` as a YAML scalar that reads back as the same string."""
    dumped = yaml.safe_dump(text, allow_unicode=True, default_style=None, width=1_000_000)
    return dumped.removesuffix("\n...\n").rstrip("\n")


def load_history(path: Path, shown: str) -> tuple[History, list[Problem]]:
    """Read history.yaml (missing means no listing has arrived yet); every problem at once."""
    check, root, top = read_mapping(path, shown, HISTORY_FILE)
    if top is None:
        return History(), check.problems
    check.unknown_keys(top, ["listings"], HISTORY_FILE)
    node = top["listings"][1] if "listings" in top else None
    if not isinstance(node, yaml.SequenceNode):
        check.fail(node or root, "expected a 'listings:' list; delete the file to start the history anew")
        return History(), check.problems
    arrivals = []
    for index, item in enumerate(node.value, start=1):
        arrival = _arrival(check, item, f"entry {index} of listings")
        if arrival is not None:
            if any(a.file == arrival.file for a in arrivals):
                check.fail(item, f'"{arrival.file}" is listed twice; expected each listing file once')
            else:
                arrivals.append(arrival)
    return History(tuple(arrivals)), check.problems


# The keys an entry of listings may have, and those it must have.
_ARRIVAL_KEYS = ("file", "arrived", "date", "papers", "fingerprint")
_REQUIRED_KEYS = ("file", "arrived", "fingerprint", "papers")
_TIMESTAMP = "tag:yaml.org,2002:timestamp"


def _arrival(check: YamlChecker, node: yaml.Node, what: str) -> Arrival | None:
    """Return the arrival an entry of listings describes, or None once its problems are reported."""
    found = check.mapping(node, what)
    if found is None:
        return None
    check.unknown_keys(found, list(_ARRIVAL_KEYS), what)
    values = _arrival_values(check, found, what)
    missing = [n for n in _REQUIRED_KEYS if n not in found]
    if missing:
        check.fail(node, f'{what} has no {", ".join(missing)}; expected file, arrived, papers and fingerprint')
        return None
    if None in values.values():
        return None
    date = values.get("date")
    if date is not None and not _is_date(str(date)):
        check.fail(found["date"][1], f'"date" of {what} is "{date}"; expected a date like 2026-11-29')
        return None
    return Arrival(str(values["file"]), int(values["arrived"]), str(values["fingerprint"]),
                   int(values["papers"]), str(date) if date else None)


def _arrival_values(check: YamlChecker, found: dict, what: str) -> dict[str, object]:
    """Read the entry's texts and whole numbers; one that is wrong is reported and read as None."""
    values: dict[str, object] = {}
    for name in ("file", "fingerprint", "date"):
        if name in found:
            values[name] = _text(check, name, found[name][1], what)
    for name in ("arrived", "papers"):
        if name in found:
            values[name] = _whole(check, found[name][1], f'"{name}" of {what}')
    return values


def _text(check: YamlChecker, name: str, node: yaml.Node, what: str) -> str | None:
    """Return a text value of the entry ``what``."""
    # An unquoted date such as 2026-11-29 is read by YAML as a timestamp; its text is what we keep.
    if name == "date" and node.tag == _TIMESTAMP:
        return node.value
    return check.string(node, f'"{name}" of {what}')


def _whole(check: YamlChecker, node: yaml.Node, what: str) -> int | None:
    if isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:int" and node.value.isdigit():
        return int(node.value)
    check.fail(node, f"{what} is {node.value if isinstance(node, yaml.ScalarNode) else 'not a number'}; "
                     "expected a whole number")
    return None


def _is_date(text: str) -> bool:
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return True


# How many of the latest arrivals "What's new" shows.
NEWS_ARRIVALS = 3


@dataclass(frozen=True)
class News:
    """Papers by arrival: what "What's new" and the feeds show."""

    order: tuple[str, ...]  # every paper id, newest arrival first, then by file and position
    oldest_first: tuple[str, ...]  # every paper id, oldest arrival first, then by file and position
    arrival: dict[str, Arrival]  # paper id -> the listing it first arrived with
    # the newest listings: each with its venue slug and the papers that arrived with it
    latest: tuple[tuple[Arrival, str, tuple[str, ...]], ...]


NO_NEWS = News((), (), {}, ())


def make_news(history: History, listings: list[ListingIds]) -> News:
    """Return the papers of ``listings`` ordered by when they first arrived, newest first."""
    first = _first_arrivals(history, listings)
    order = sorted(first, key=lambda pid: (-first[pid][0][0], first[pid][0][1], first[pid][0][2]))
    oldest_first = sorted(first, key=lambda pid: first[pid][0])
    latest = _latest_listings(history, listings, first, order)
    arrivals = {pid: arrival for pid, (_, arrival) in first.items()}
    return News(tuple(order), tuple(oldest_first), arrivals, tuple(latest))


_FirstArrivals = dict[str, tuple[tuple[int, str, int], Arrival]]  # paper id -> (sort key, arrival)


def _first_arrivals(history: History, listings: list[ListingIds]) -> _FirstArrivals:
    """Map each paper id to the earliest listing it arrived with, and its place there."""
    first: _FirstArrivals = {}
    for file, _, ids in listings:
        arrival = history.of(file)
        if arrival is None:
            continue
        for position, pid in enumerate(ids):
            key = (arrival.arrived, file, position)
            if pid not in first or key < first[pid][0]:
                first[pid] = (key, arrival)
    return first


def _latest_listings(history: History, listings: list[ListingIds], first: _FirstArrivals,
                     order: list[str]) -> list[tuple[Arrival, str, tuple[str, ...]]]:
    """Return the listings of the latest arrivals, each with its venue and its new papers."""
    venue_of = {file: venue for file, venue, _ in listings}
    numbers = sorted({a.arrived for a in history.arrivals}, reverse=True)[:NEWS_ARRIVALS]
    latest = []
    for arrival in sorted(history.arrivals, key=lambda a: (-a.arrived, a.file)):
        if arrival.arrived in numbers:
            new = tuple(pid for pid in order if first[pid][1].file == arrival.file)
            if new:
                latest.append((arrival, venue_of[arrival.file], new))
    return latest
