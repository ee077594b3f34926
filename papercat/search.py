"""The search files: one global Lunr index split by term prefix into small chunks, plus display data.

The browser (static/search/engine.js) downloads the manifest, then only the chunks holding the
query's terms and the doc shards of the results it shows. Each chunk is itself a serialized lunr
index that keeps the global term numbers and BM25 weights, so merging the chunks a query needs
scores exactly as the whole index would. docs/search.md describes the layout.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from lunr.builder import Builder

from . import urls
from .abstract import plain_text
from .lunrjs import LUNR_VERSION, build_pipeline, search_pipeline, tokenize
from .model import Catalog, Paper

SEARCH_DIR = "search"
FORMAT_VERSION = 1
# Build-time boosts: a word of the title counts most, a coined name (GuardAgent) next, the abstract least.
FIELDS = (("title", 10), ("names", 5), ("abstract", 1))
DOC_SHARD_SIZE = 50
# A chunk is split while its serialized JSON is larger than this (and holds more than one term).
# About 4 bytes of JSON gzip to 1, so chunks come out at roughly 30-60 KB gzip; see docs/search.md.
CHUNK_TARGET = 200_000

_JSON = {"ensure_ascii": False, "sort_keys": True, "separators": (",", ":")}


@dataclass(frozen=True)
class SearchDoc:
    """One paper as search sees it: its plain texts and what a result shows."""

    ref: str  # the paper's position in the catalog, as a string: short, and it names the doc shard
    id: str
    title: str
    url: str
    venues: tuple[str, ...]
    topics: tuple[str, ...]
    text: str  # the abstract as plain text: what the abstract field indexes and snippets quote
    names: str  # topic names and coined method names


@dataclass(frozen=True)
class Chunk:
    """One chunk file: the prefixes it answers for and the terms it holds."""

    file: str  # path below search/, e.g. "t/7472.json"
    keys: tuple[tuple[str, bool], ...]  # (prefix, exact): exact keys hold only the term equal to prefix
    terms: tuple[str, ...]


# ---------------------------------------------------------------------------------------------
# Names. The plain text itself is abstract.plain_text: emphasis, math and LaTeX resolved, URLs left out.

# A coined name: a capital inside the word (GuardAgent, RWKVQuant, M-STaR) or letters with digits
# (Mind2Web-SC, GPT-4o). Plain capitalised words and acronyms are left to the title and abstract.
_WORD = re.compile(r"[\w][\w.+-]*[\w+]|\w")
_CAMEL = re.compile(r"[a-z].*[A-Z]|[A-Z]{2,}[a-z]|[A-Z][a-z]+[A-Z]")
_DIGITS = re.compile(r"(?=.*[A-Za-z])(?=.*\d)")
_HEAD = re.compile(r"^([^:]{2,60}):\s")  # "Liger: Linearizing LLMs ..." names its method


def method_names(title: str, abstract: str) -> list[str]:
    """Return the distinctive names a paper coins, in order: the title's head and mixed-case words."""
    found: dict[str, None] = {}
    head = _HEAD.match(title)
    if head and len(head.group(1).split()) <= 4:
        found[head.group(1)] = None
    for word in _WORD.findall(f"{title} {abstract}"):
        if len(word) >= 3 and (_CAMEL.search(word) or (len(word) >= 4 and _DIGITS.match(word))):
            found.setdefault(word, None)
    return list(found)


def search_docs(catalog: Catalog) -> list[SearchDoc]:
    """Return the catalog's papers as search documents, in catalog order."""
    topic_names = {t.slug: t.name for t in catalog.topics}
    return [_search_doc(n, paper, topic_names) for n, paper in enumerate(catalog.papers)]


def _search_doc(n: int, paper: Paper, topic_names: dict[str, str]) -> SearchDoc:
    text = paper.text
    title = plain_text(paper.title)
    names = ([topic_names[slug] for slug in paper.topic_slugs] + list(paper.keyphrases)
             + method_names(title, text))
    return SearchDoc(ref=str(n), id=paper.id, title=paper.title, url=urls.paper_path(paper.id),
                     venues=paper.venues, topics=paper.topic_slugs, text=text, names=" ; ".join(names))


# ---------------------------------------------------------------------------------------------
# The index

def build_index(docs: Iterable[SearchDoc]) -> dict[str, Any]:
    """Return the serialized global lunr index of ``docs``, built with lunr.js's text pipeline."""
    builder = Builder()
    builder.pipeline = build_pipeline()
    builder.search_pipeline = search_pipeline()
    builder.ref("ref")
    for name, boost in FIELDS:
        builder.field(name, boost)
    for doc in docs:
        # lunr.py's tokenizer is not lunr.js's; a list is taken as ready-made tokens.
        builder.add({"ref": doc.ref, "title": tokenize(_indexed(plain_text(doc.title))),
                     "names": tokenize(doc.names), "abstract": tokenize(_indexed(doc.text))})
    return builder.build().serialize()


_INDEX_SEPARATORS = re.compile("[*\u2013\u2014]")


def _indexed(text: str) -> str:
    """Return ``text`` as indexed: dashes split words, and no term holds lunr's wildcard "*".

    lunr's tokenizer splits on spaces and hyphens only, so "guaranteed—such" would be one term.
    """
    return _INDEX_SEPARATORS.sub(" ", text)


def _js_order(term: str) -> bytes:
    """Sort key for JavaScript's string order (UTF-16 code units), which lunr.js's TokenSet requires."""
    return term.encode("utf-16-be", "surrogatepass")


@dataclass(frozen=True)
class _Leaf:
    """A prefix group of terms before neighbouring small groups are put in one file."""

    key: str
    exact: bool
    terms: tuple[str, ...]
    size: int


def split_index(index: dict[str, Any], target: int | None = CHUNK_TARGET) -> list[Chunk]:
    """Group the index's terms into chunks by prefix: split while a chunk is over ``target`` bytes.

    With ``target=None`` the whole index is one chunk (the unsplit baseline).
    """
    sizes = _term_sizes(index)
    terms = sorted(sizes)
    if target is None:
        return [Chunk("t/root.json", (("", False),), tuple(sorted(terms, key=_js_order)))]
    leaves = _split("", terms, sizes, target)
    # Neighbouring small leaves share a file, so a catalog does not become thousands of tiny files.
    groups: list[list[_Leaf]] = []
    for leaf in leaves:
        if groups and sum(x.size for x in groups[-1]) + leaf.size <= target:
            groups[-1].append(leaf)
        else:
            groups.append([leaf])
    return [Chunk(_chunk_file(group[0].key), tuple((x.key, x.exact) for x in group),
                  tuple(sorted((t for x in group for t in x.terms), key=_js_order))) for group in groups]


def _split(prefix: str, terms: list[str], sizes: dict[str, int], target: int) -> list[_Leaf]:
    """Return the leaves below ``prefix``: all its terms if they fit, else one subtree per next character."""
    size = sum(sizes[t] for t in terms)
    if size <= target or len(terms) == 1:
        return [_Leaf(prefix, False, tuple(terms), size)]
    leaves = []
    depth = len(prefix)
    if terms[0] == prefix:  # the term that is the prefix itself ("trans" beside "transf...")
        leaves.append(_Leaf(prefix, True, (prefix,), sizes[prefix]))
        terms = terms[1:]
    start = 0
    for i in range(1, len(terms) + 1):
        if i == len(terms) or terms[i][depth] != terms[start][depth]:
            leaves.extend(_split(terms[start][: depth + 1], terms[start:i], sizes, target))
            start = i
    return leaves


def _term_sizes(index: dict[str, Any]) -> dict[str, int]:
    """Estimate each term's bytes in a chunk: its posting plus its elements of the field vectors."""
    vector_bytes: dict[int, int] = {}
    for field_ref, elements in index["fieldVectors"]:
        # The ["ref/field",[...]] header is shared by the vector's terms; a field may have none.
        header = (len(field_ref) + 8) * 2 // max(len(elements), 2)
        for i in range(0, len(elements), 2):
            pair = len(f"{elements[i]},{elements[i + 1]},")
            vector_bytes[elements[i]] = vector_bytes.get(elements[i], 0) + header + pair
    return {term: len(json.dumps([term, posting], **_JSON)) + 1 + vector_bytes.get(posting["_index"], 0)
            for term, posting in index["invertedIndex"]}


def _chunk_file(key: str) -> str:
    """Return a chunk's file name: its first prefix in hex, stable as the catalog grows."""
    if not key:
        return "t/root.json"
    name = key.encode("utf-8").hex()
    if len(name) > 64:  # a long shared prefix (a pasted hash) must not make an over-long file name
        name = name[:48] + "-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]
    return f"t/{name}.json"


# ---------------------------------------------------------------------------------------------
# The files

def search_files(catalog: Catalog, target: int | None = CHUNK_TARGET) -> dict[str, bytes]:
    """Return every file of the site's search/ folder by its path below search/."""
    docs = search_docs(catalog)
    index = build_index(docs)
    chunks = split_index(index, target)
    files: dict[str, bytes] = {}
    for chunk, data in zip(chunks, _chunk_data(index, chunks)):
        files[chunk.file] = data
    for start in range(0, len(docs), DOC_SHARD_SIZE):
        shard = [{"id": d.id, "title": d.title, "url": d.url, "venues": list(d.venues),
                  "topics": list(d.topics), "text": d.text} for d in docs[start:start + DOC_SHARD_SIZE]]
        files[f"docs/{start // DOC_SHARD_SIZE}.json"] = _dump(shard)
    venue_numbers = {v.slug: i for i, v in enumerate(catalog.venues)}
    topic_numbers = {t.slug: i for i, t in enumerate(catalog.topics)}
    files["facets.json"] = _dump({"venues": [[venue_numbers[s] for s in d.venues] for d in docs],
                                  "topics": [[topic_numbers[s] for s in d.topics] for d in docs]})
    files["manifest.json"] = _dump({
        "version": FORMAT_VERSION,
        "lunr": LUNR_VERSION,
        "docs": len(docs),
        "docShardSize": DOC_SHARD_SIZE,
        "fields": [list(f) for f in FIELDS],
        # [prefix, exact, file number]: a term lives in the chunk of the exact key equal to it, else
        # in the chunk of the longest non-exact key it starts with.
        "chunks": sorted([key, int(exact), n] for n, c in enumerate(chunks) for key, exact in c.keys),
        "chunkFiles": [[c.file, len(files[c.file])] for c in chunks],
        "venues": [[v.slug, v.label] for v in catalog.venues],
        "topics": [[t.slug, t.name] for t in catalog.topics],
    })
    return files


def _chunk_data(index: dict[str, Any], chunks: list[Chunk]) -> list[bytes]:
    """Serialize every chunk, walking the field vectors once rather than once per chunk."""
    postings = dict(index["invertedIndex"])
    owner = {postings[t]["_index"]: n for n, c in enumerate(chunks) for t in c.terms}
    vectors: list[list[list[Any]]] = [[] for _ in chunks]
    for field_ref, elements in index["fieldVectors"]:
        parts: dict[int, list[Any]] = {}
        for i in range(0, len(elements), 2):
            parts.setdefault(owner[elements[i]], []).extend(elements[i:i + 2])
        for n, kept in parts.items():
            vectors[n].append([field_ref, kept])
    return [_dump({"version": index["version"], "fields": index["fields"], "fieldVectors": vectors[n],
                   "invertedIndex": [[t, postings[t]] for t in c.terms], "pipeline": index["pipeline"]})
            for n, c in enumerate(chunks)]


def _dump(value: Any) -> bytes:
    """Serialize deterministically: sorted keys, compact separators, UTF-8."""
    return json.dumps(value, **_JSON).encode("utf-8")
