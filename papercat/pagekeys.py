"""Which pages need rendering again: each page's key, and the last build's keys to compare it with.

A page is a function of its template (and the templates that one reaches), its path, its own
context and what it reads of the shared one. Its key is the sha256 of all of that, taken as it
renders: the names of the shared context its templates mention (``site`` always: ``absolute()``
reads it), and of the lookups by slug (``venues_by_slug``, ``topics_by_slug``) just the entries it
read, which it notes as it reads them. The up-to-date record (uptodate.py) keeps each page's key
and those reads beside the file's size, modification time and sha256. The next build works the key
out again before rendering, from the page's context now and the same reads: a page given the same
context that read the same values would read them again and come out the same. When the key is the
same and the file is still what was written (same size and modification time), the page is kept as
it is, unrendered: a listing added to a large catalog renders the pages that change, not all.

Only the pages that opt in (``Page.keyed``) get keys: a paper's, whose context is small (the paper,
and its related papers and neighbours as links). The others list many papers and mostly change when
papers do; working out their keys would cost about what rendering them does. Data files made by a
function may carry a key of their own (``pipeline.DataFile.key``: the search's doc shards, keyed by
their documents' digests), kept the same way; they read nothing of the shared context.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import pickle
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

import jinja2
from jinja2 import meta
from markupsafe import Markup

__all__ = ["KEY_VERSION", "LOOKUPS", "Keys", "LastPage", "PageKey", "ReadLookup"]

KEY_VERSION = b"papercat page key 2"
LOOKUPS = ("venues_by_slug", "topics_by_slug")  # the shared lookups by slug, whose reads a page notes
ALL = "*"  # a read of the whole lookup (its length, its keys, its items...)


@dataclass(frozen=True)
class PageKey:
    """A page's key, and the entries of the shared lookups it read (``(lookup, slug)``, slug ``ALL``
    for the whole lookup), sorted: what the next build works the key out from."""

    key: bytes
    reads: tuple[tuple[str, str], ...]


# What the last build recorded of a keyed page: its key, and its file's size, mtime (ns) and sha256.
LastPage = tuple[PageKey, int, int, bytes]


class ReadLookup(dict[str, Any]):
    """A shared lookup by slug that notes which entries a page reads (in ``reads``, emptied per page).

    Jinja reads ``venues_by_slug[slug]`` (and ``venues_by_slug.slug``) by ``__getitem__``; any
    other use of the whole dict (``items()``, a loop, ``|length``, ``in``) is noted as a read of all
    of it.
    """

    __slots__ = ("reads",)

    def __init__(self, entries: Mapping[str, Any]) -> None:
        super().__init__(entries)
        self.reads: set[str] = set()

    def __getitem__(self, slug: str) -> Any:
        self.reads.add(slug)
        return dict.__getitem__(self, slug)

    def _all(self) -> None:
        self.reads.add(ALL)

    def get(self, slug: str, default: Any = None) -> Any:
        self.reads.add(slug)
        return dict.get(self, slug, default)

    def __contains__(self, slug: object) -> bool:
        self.reads.add(slug if isinstance(slug, str) else ALL)
        return dict.__contains__(self, slug)

    def __iter__(self):  # type: ignore[no-untyped-def]
        self._all()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._all()
        return dict.__len__(self)

    def keys(self):  # type: ignore[no-untyped-def]
        self._all()
        return dict.keys(self)

    def values(self):  # type: ignore[no-untyped-def]
        self._all()
        return dict.values(self)

    def items(self):  # type: ignore[no-untyped-def]
        self._all()
        return dict.items(self)


class Keys:
    """The keys of one build's pages, and the last build's record of them (see the module's docstring).

    Made in the build process before the workers fork; ``context``, ``key``, ``recording`` and
    ``reads`` run where pages render.
    """

    def __init__(self, env: jinja2.Environment, shared: dict[str, Any], last: Mapping[str, LastPage]) -> None:
        """``last`` is the last build's record of its keyed pages, by path."""
        self.env = env
        self.last = last
        self.shared = shared
        self._templates: dict[str, bytes] = {}
        # Each lookup's entries' digests, and each shared value's: once per build.
        self._entries = {name: {slug: _digest((name, slug, value)) for slug, value in shared[name].items()}
                         for name in LOOKUPS if name in shared}
        self._whole = {name: _digest(sorted(entries.items())) for name, entries in self._entries.items()}
        self._values = {name: _digest(value) for name, value in shared.items() if name not in LOOKUPS}
        self.lookups = {name: ReadLookup(shared[name]) for name in self._entries}

    def recording(self) -> dict[str, Any]:
        """Return the shared context with the lookups that note their reads, cleared for a new page."""
        for lookup in self.lookups.values():
            lookup.reads.clear()
        return {**self.shared, **self.lookups}

    def reads(self) -> tuple[tuple[str, str], ...]:
        """Return what the page just rendered read of the lookups (after ``recording``)."""
        return tuple(sorted((name, slug) for name, lookup in self.lookups.items() for slug in lookup.reads))

    def key(self, template: str, path: str, own: bytes, reads: Iterable[tuple[str, str]]) -> bytes:
        """Return the key of the page at ``path`` rendered by ``template`` from a context of digest ``own``
        (``context``) with these reads."""
        h = hashlib.sha256(KEY_VERSION)
        h.update(self._template(template))
        h.update(hashlib.sha256(path.encode()).digest())  # a digest: the parts that follow stay apart
        h.update(own)
        for name, slug in reads:
            if slug == ALL:
                h.update(self._whole[name])
            else:
                entries = self._entries[name]
                h.update(entries[slug] if slug in entries else _digest((name, slug, None)))
        return h.digest()

    @staticmethod
    def context(own: dict[str, Any]) -> bytes | None:
        """Return the digest of a page's own context, or None when it cannot be keyed."""
        try:
            return hashlib.sha256(_pickled(own)).digest()
        except (pickle.PicklingError, TypeError, AttributeError, ValueError):  # ValueError: a cycle
            return None

    def _template(self, template: str) -> bytes:
        """Return the digest of a template's sources (its own and every template it reaches) and of the
        shared values they name (``site`` always)."""
        found = self._templates.get(template)
        if found is None:
            sources, names = _reached(self.env, template)
            values = sorted((name, self._values[name]) for name in {*names, "site"} & self._values.keys())
            found = self._templates[template] = _digest((sorted(sources.items()), values))
        return found


def _reached(env: jinja2.Environment, template: str) -> tuple[dict[str, str], set[str]]:
    """Return the source of ``template`` and of every template it extends, includes or imports, by name,
    and every name they use that they do not set."""
    sources: dict[str, str] = {}
    names: set[str] = set()
    pending = [template]
    while pending:
        name = pending.pop()
        if name in sources:
            continue
        source = env.loader.get_source(env, name)[0]  # type: ignore[union-attr]
        sources[name] = source
        parsed = env.parse(source)
        names |= meta.find_undeclared_variables(parsed)
        for reached in meta.find_referenced_templates(parsed):
            if reached is None:  # a template named at render time: any of them
                pending += env.list_templates()
            else:
                pending.append(reached)
    return sources, names


class _Reducers(dict[type, Callable[[Any], Any]]):
    """How a key's pickle reduces each kind of object the pickler has no fast path for (it has one for
    str, int, tuple, dict...): a dataclass to its class and fields, so that its cached properties (a
    paper's topic slugs, a venue's label, kept in its __dict__ once asked for) are not part of it,
    and in one call (a frozen dataclass with slots is otherwise pickled by a Python __getstate__);
    Markup (a paper page's abstract) to its class and text, without the Python of copyreg's
    reduction of a str subclass. Anything else as pickle would reduce it."""

    def __missing__(self, kind: type) -> Callable[[Any], Any]:
        if kind is Markup:
            reducer: Callable[[Any], Any] = _markup
        elif dataclasses.is_dataclass(kind):
            names = [f.name for f in dataclasses.fields(kind)]
            get = attrgetter(*names)
            reducer = ((lambda obj: (kind, get(obj))) if len(names) > 1
                       else (lambda obj: (kind, (get(obj),))))
        else:
            reducer = _as_pickle_reduces
        self[kind] = reducer
        if reducer is not _as_pickle_reduces and _named(kind):
            raise _NewClass  # the pickle begun wrote the class out in full: begin again (_pickled)
        return reducer


class _NewClass(Exception):
    """A class was given its memo index while a pickle was being made: it is to begin again."""


# The classes the reducers reduce objects to, each by a memo index of its own (from its name, the
# same in every process): a pickle writes each as a reference to that index, where it would write
# the class's module and name in full and import the module to check them (two thirds of the time
# of a paper page's key). The pickle is never loaded; the index tells the classes apart as their
# names would. Never two classes at one index: a class whose index is taken is written in full.
_CLASSES: dict[int, tuple[int, type]] = {}
_INDEXES: dict[int, type] = {}


def _named(kind: type) -> bool:
    """Give ``kind`` its memo index, if it is free; return whether it has it."""
    name = f"{kind.__module__}.{kind.__qualname__}".encode()
    index = int.from_bytes(hashlib.sha256(name).digest()[:4], "big") | 0x100  # a 4-byte reference
    if _INDEXES.setdefault(index, kind) is not kind:
        return False
    _CLASSES[id(kind)] = (index, kind)
    return True


def _markup(obj: Markup) -> tuple[type, tuple[str]]:
    return Markup, (str.__str__(obj),)  # what copyreg reduces it to: its class and its text


def _as_pickle_reduces(obj: Any) -> Any:
    return obj.__reduce_ex__(pickle.HIGHEST_PROTOCOL)


_REDUCERS = _Reducers()


def _pickled(value: Any) -> bytes:
    """Return ``value`` pickled by value alone: no memo of what it holds (two equal strings are written
    alike whether or not they are one object), dataclasses as their fields, their classes as
    references to their memo index (_CLASSES)."""
    while True:
        out = io.BytesIO()
        pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
        pickler.fast = True  # nothing memoised: the bytes depend on the values, not on which objects are shared
        pickler.memo = _CLASSES  # but the classes found there are written as references
        pickler.dispatch_table = _REDUCERS  # type: ignore[assignment]
        try:
            pickler.dump(value)
        except _NewClass:  # a class met for the first time: written in full so far, by reference from now on
            continue
        return out.getvalue()


def _digest(value: Any) -> bytes:
    return hashlib.sha256(value if isinstance(value, bytes) else _pickled(value)).digest()
