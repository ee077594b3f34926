"""The files of the site's search/ folder: each segment's chunks, the manifest, the doc shards and
the facets."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from ..collector import paused_gc
from ..incremental.memo import Cache
from ..enrich import reference_papers
from ..model import Catalog
from .chunk_json import _chunk_data
from .chunks import CHUNK_TARGET, split_index
from .columns import TextFields, term_columns
from .documents import SearchDoc, doc_key, search_docs
from .format import FIELDS, _dump
from .index import Index, index_of, segment_index
from .lunrjs import LUNR_VERSION

FORMAT_VERSION = 2
DOC_SHARD_SIZE = 50
# The documents, in arrival order, are indexed in segments of this many: each its own lunr index split
# into chunks, weighted by the same reference statistics, so that a new listing changes the files of
# only the last segment or two (the others keep their bytes and modification times: output/writer.py).
SEGMENT_DOCS = 4096
# With several segments, a query reads a word's chunk in each: their chunks are split at this share of
# the target, so that a word costs about what one chunk of one index would (6 segments at 21,000 papers).
SEGMENT_TARGET_SHARE = 4


@paused_gc()
def search_files(catalog: Catalog, target: int | None = CHUNK_TARGET,
                 cache: Cache | None = None, order: Sequence[str] = ()) -> dict[str, bytes]:
    """Return every file of the site's search/ folder by its path below search/ (docs in ``order``)."""
    work = search_work(catalog, target, cache, order)
    return {**{path: make() for path, make in work.doc_files()}, **{file.path: file.data for file in work.files()}}


@dataclass(frozen=True, eq=False)
class SearchWork:
    """The search documents, with the files made of them still to make.

    ``search_work`` makes the documents (their names cached, in worker processes). ``doc_files``
    are made of the documents alone, each by its own function, so that any process may make them
    (the build's page-rendering workers do). ``files()`` makes the index (the documents' terms
    cached); the build runs it while the workers render the pages (site/files.py), so that no
    terms are held while the pages come back.
    """

    catalog: Catalog
    docs: list[SearchDoc]
    doc_keys: list[bytes] | None  # each document's doc_key, with a cache
    target: int | None
    cache: Cache
    fields: TextFields | None = None  # the titles' and abstracts' fields, worked out beside the catalog

    @paused_gc()
    def files(self) -> list[IndexFile]:
        """Return the index's files: each segment's chunks, and the manifest."""
        bounds = segment_bounds(len(self.docs))
        reference = reference_papers.reference_count(len(self.docs))  # weights counted as keyphrases' are
        target = self._chunk_target(len(bounds))
        columns = term_columns(self.docs, self.cache, self.doc_keys, self.fields)
        index = index_of([d.ref for d in self.docs], columns, reference, 0)
        segments = [_segment_files(segment_index(index, start, stop), n, target) for n, (start, stop) in enumerate(bounds)]
        return [*(IndexFile(path, data) for segment in segments for path, data in segment.files),
                IndexFile(MANIFEST, _manifest(self.catalog, len(self.docs), bounds, segments))]

    def _chunk_target(self, segments: int) -> int | None:
        """Return the size a chunk is split at, in each of ``segments`` segments."""
        return self.target if self.target is None or segments == 1 else max(1, self.target // SEGMENT_TARGET_SHARE)

    def doc_files(self) -> list[tuple[str, Callable[[], bytes]]]:
        """Return the files shown with results (the doc shards, then the facets), each with the function
        that makes it."""
        shards = [(f"docs/{n}.json", partial(_doc_shard, self.docs, n)) for n in range(_shards(len(self.docs)))]
        return [*shards, ("facets.json", partial(_facets, self.catalog, self.docs))]




@paused_gc()
def search_work(catalog: Catalog, target: int | None = CHUNK_TARGET, cache: Cache | None = None,
                order: Sequence[str] = (), fields: TextFields | None = None) -> SearchWork:
    """Return the search documents (those of ``order``, ids, first), with the files made of them to make;
    the papers' title and abstract fields are taken from ``fields``, where they are."""
    cache = cache or Cache()
    docs = search_docs(catalog, order)
    # With a cache, each document's texts are hashed once (24 MB at 20,000 papers): their digest keys
    # the document's terms. Without one nothing is looked up by them, and hashing every document
    # would be time lost.
    doc_keys = [doc_key(d) for d in docs] if cache.enabled else None
    return SearchWork(catalog, docs, doc_keys, target, cache, fields)


def segment_bounds(docs: int) -> list[tuple[int, int]]:
    """Return the segments of ``docs`` documents as (start, stop): SEGMENT_DOCS each, the last one shorter."""
    return [(start, min(start + SEGMENT_DOCS, docs)) for start in range(0, docs, SEGMENT_DOCS)] or [(0, 0)]


MANIFEST = "manifest.json"


@dataclass(frozen=True)
class IndexFile:
    """A file of the search index: its path below search/ and its bytes."""

    path: str
    data: bytes


@dataclass(frozen=True)
class Segment:
    """One segment's chunk files: their bytes and the manifest's keys that find them."""

    files: tuple[tuple[str, bytes], ...]  # (path below search/, JSON)
    keys: tuple[tuple[str, int, int], ...]  # (prefix, exact, file number in the segment)


def _segment_files(index: Index, number: int, target: int | None) -> Segment:
    """Return segment ``number``'s chunks: ``index`` split by term prefix, its files below t/<number>/."""
    chunks = split_index(index, target)
    return Segment(tuple((f"t/{number}/{c.file.removeprefix('t/')}", data) for c, data in zip(chunks, _chunk_data(index, chunks))),
                   tuple((key, int(exact), n) for n, c in enumerate(chunks) for key, exact in c.keys))


def _manifest(catalog: Catalog, docs: int, bounds: list[tuple[int, int]], segments: list[Segment]) -> bytes:
    """Return the manifest that finds the segments' chunks (and the other files)."""
    files: list[tuple[str, int]] = []
    keys: list[list[Any]] = []
    table = []
    for (start, stop), segment in zip(bounds, segments):
        first = len(files)
        keys += [[key, exact, first + n] for key, exact, n in segment.keys]
        files += [(path, len(data)) for path, data in segment.files]
        table.append({"docs": [start, stop], "files": [first, len(files)]})
    return _dump({
        "version": FORMAT_VERSION,
        "lunr": LUNR_VERSION,
        "docs": docs,
        "docShardSize": DOC_SHARD_SIZE,
        "fields": [list(f) for f in FIELDS],
        # Each segment's documents (refs start:stop) and chunk files (first:last of chunkFiles).
        "segments": table,
        # [prefix, exact, file number]: in each segment, a term lives in the chunk of the exact key equal
        # to it, else in the chunk of the longest non-exact key it starts with.
        "chunks": sorted(keys),
        "chunkFiles": [[name, size] for name, size in files],
        "venues": [[v.slug, v.label] for v in catalog.venues],
        "topics": [[t.slug, t.name] for t in catalog.topics],
    })


def _shards(docs: int) -> int:
    """Return how many doc shards ``docs`` documents fill."""
    return -(-docs // DOC_SHARD_SIZE)


def _doc_shard(docs: list[SearchDoc], n: int) -> bytes:
    """Return doc shard ``n``: what a result shows of each of its documents."""
    return _dump([{"id": d.id, "title": d.title, "url": d.url, "venues": list(d.venues), "topics": list(d.topics),
                   "text": d.text} for d in docs[n * DOC_SHARD_SIZE:(n + 1) * DOC_SHARD_SIZE]])


def _facets(catalog: Catalog, docs: list[SearchDoc]) -> bytes:
    """Return each document's venues and topics, by their number in the manifest, for the filters."""
    venue_numbers = {v.slug: i for i, v in enumerate(catalog.venues)}
    topic_numbers = {t.slug: i for i, t in enumerate(catalog.topics)}
    return _dump({"venues": [[venue_numbers[s] for s in d.venues] for d in docs],
                  "topics": [[topic_numbers[s] for s in d.topics] for d in docs]})
