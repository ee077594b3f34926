"""Which pages need rendering again: each page's key, and the last build's keys to compare it with.

A page is a function of its template (and the templates that one reaches), its path, its own
context and what it reads of the shared one. Its key is the sha256 of all of that, taken as it
renders: the names of the shared context its templates mention (``site`` always: ``absolute()``
reads it), and of the lookups by slug (``venues_by_slug``, ``topics_by_slug``) just the entries it
read, which it notes as it reads them. The up-to-date record (manifest.py) keeps each page's key
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
import functools
import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import jinja2
from jinja2 import meta
from markupsafe import Markup

__all__ = ["KEY_VERSION", "LOOKUPS", "Keys", "LastFile", "PageKey", "ReadLookup"]

KEY_VERSION = b"papercat page key 3"
LOOKUPS = ("venues_by_slug", "topics_by_slug")  # the shared lookups by slug, whose reads a page notes
ALL = "*"  # a read of the whole lookup (its length, its keys, its items...)


@dataclass(frozen=True)
class PageKey:
    """A page's key, and the entries of the shared lookups it read (``(lookup, slug)``, slug ``ALL``
    for the whole lookup), sorted: what the next build works the key out from."""

    key: bytes
    reads: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class LastFile:
    """What the last build recorded of a keyed file: its key, and the file's size, mtime and sha256."""

    key: PageKey
    size: int
    mtime_ns: int
    digest: bytes


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

    def __init__(self, env: jinja2.Environment, shared: dict[str, Any], last: Mapping[str, LastFile]) -> None:
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
            return _digest(own)
        except (TypeError, ValueError, RecursionError):  # something else than plain data; a cycle
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


def _plain(value: Any) -> Any:
    """Return ``value`` as plain data: nested lists of str, int, float, bool and None.

    A value is written as it is when JSON has a kind of its own for it (str, int, float, bool,
    None), and otherwise as a list that begins with its kind: a tuple, list, dict (its items, in
    order: a template may show them in that order), Markup (autoescape outputs it as it is, a str
    it escapes), bytes, or a dataclass (its class's name and its fields, without the cached
    properties its __dict__ may hold). Anything else raises TypeError: its page is not keyed.
    """
    kind = type(value)
    if kind in _SCALARS:
        return value
    tagged = _TAGGED.get(kind)
    if tagged is not None:
        return tagged(value)
    names = _field_names(kind)
    return [names[0], *(_plain(getattr(value, name)) for name in names[1:])]


_SCALARS = frozenset({str, int, float, bool, type(None)})  # what JSON has a kind of its own for
_TAGGED: dict[type, Callable[[Any], list[Any]]] = {  # the other kinds, each as a list tagged with its kind
    tuple: lambda value: ["tuple", *map(_plain, value)],
    list: lambda value: ["list", *map(_plain, value)],
    dict: lambda value: ["dict", *([_plain(k), _plain(v)] for k, v in value.items())],
    Markup: lambda value: ["Markup", str.__str__(value)],
    bytes: lambda value: ["bytes", value.hex()],
}


@functools.cache
def _field_names(kind: type) -> tuple[str, ...]:
    """Return a dataclass's full name and the names of its fields; TypeError for any other class."""
    if not dataclasses.is_dataclass(kind):
        raise TypeError(f"a page key holds plain data and dataclasses, not {kind.__qualname__}")
    return (f"{kind.__module__}.{kind.__qualname__}", *(f.name for f in dataclasses.fields(kind)))


def _digest(value: Any) -> bytes:
    """Return the sha256 of ``value`` as canonical JSON (_plain)."""
    text = json.dumps(_plain(value), ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).digest()
