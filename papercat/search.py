"""The search files: one global Lunr index split by term prefix into small chunks, plus display data.

The browser (static/search/engine.js) downloads the manifest, then only the chunks holding the
query's terms and the doc shards of the results it shows. Each chunk is itself a serialized lunr
index that keeps the global term numbers and BM25 weights, so merging the chunks a query needs
scores exactly as the whole index would. docs/search.md describes the layout.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain, repeat
from typing import Any

import numpy as np
from lunr import __TARGET_JS_VERSION__ as LUNR_TARGET_JS_VERSION

from . import urls
from .abstract import plain_text
from .cache import Cache, digest, digest_of, paused_gc
from .lunrjs import LUNR_VERSION, index_term, search_pipeline, tokenize
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
_ENCODER = json.JSONEncoder(**_JSON)  # what json.dumps(value, **_JSON) makes anew on every call


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
    # Each distinct word once, in order; a word of lowercase letters alone matches neither pattern.
    words = [w for w in dict.fromkeys(_WORD.findall(f"{title} {abstract}"))
             if len(w) >= 3 and not (w.islower() and w.isalpha())]
    for word in words:
        if _CAMEL.search(word) or (len(word) >= 4 and _DIGITS.match(word)):
            found.setdefault(word, None)
    return list(found)


def search_docs(catalog: Catalog, cache: Cache | None = None, order: Sequence[str] = ()) -> list[SearchDoc]:
    """Return the catalog's papers as search documents: those of ``order`` (ids) first, in its order.

    The build gives the papers oldest arrival first, so a new listing's papers come last and
    leave the earlier doc shards as they were.
    """
    rank = {pid: i for i, pid in enumerate(order)}
    papers = sorted(catalog.papers, key=lambda p: rank.get(p.id, len(rank)))  # stable: catalog order after
    topic_names = {t.slug: t.name for t in catalog.topics}
    coined = (cache or Cache()).stage("search-names", list).map(
        _coined_names, papers, lambda paper: digest(paper.title, paper.text))
    return [_search_doc(n, paper, topic_names, names) for n, (paper, names) in enumerate(zip(papers, coined))]


def _coined_names(paper: Paper) -> list[str]:
    """Return the names a paper coins (see method_names)."""
    return method_names(plain_text(paper.title), paper.text)


def _search_doc(n: int, paper: Paper, topic_names: dict[str, str], coined: list[str]) -> SearchDoc:
    text = paper.text
    names = [topic_names[slug] for slug in paper.topic_slugs] + list(paper.keyphrases) + coined
    return SearchDoc(ref=str(n), id=paper.id, title=paper.title, url=urls.paper_path(paper.id),
                     venues=paper.venues, topics=paper.topic_slugs, text=text, names=" ; ".join(names))


# ---------------------------------------------------------------------------------------------
# The index

@dataclass(frozen=True)
class DocTerms:
    """What lunr's builder makes of one search document: per field of FIELDS, its terms and its length."""

    # Per field: (its terms in order of first use, their frequencies, its length in terms).
    fields: tuple[tuple[tuple[str, ...], tuple[int, ...], int], ...]


def doc_terms(doc: SearchDoc) -> DocTerms:
    """Return a document's index terms per field, as lunr.py's Builder.add counts them (lunr.js pipeline)."""
    texts = {"title": _indexed(plain_text(doc.title)), "names": doc.names, "abstract": _indexed(doc.text)}
    fields = []
    for name, _ in FIELDS:
        counts: dict[str, int] = {}
        length = 0
        # lunr.js's tokenizer, then lunr.py's Tokenizer (which lowercases a list's tokens once more) and
        # the pipeline, which drops stop words and words of punctuation.
        for token in tokenize(texts[name]):
            term = index_term(token.lower())
            if term is not None:
                counts[term] = counts.get(term, 0) + 1
                length += 1
        fields.append((tuple(counts), tuple(counts.values()), length))
    return DocTerms(tuple(fields))


def build_index(docs: Iterable[SearchDoc], cache: Cache | None = None) -> dict[str, Any]:
    """Return the serialized global lunr index of ``docs``, built with lunr.js's text pipeline."""
    docs = list(docs)
    stage = (cache or Cache()).stage("search", DocTerms)
    terms = stage.map(doc_terms, docs, key=lambda d: digest(d.title, d.names, d.text))
    return assemble_index([d.ref for d in docs], terms)


def assemble_index(refs: Sequence[str], docs: Sequence[DocTerms]) -> dict[str, Any]:
    """Return what ``lunr.Builder`` would serialize after adding the documents ``refs`` with these terms.

    lunr.py's builder re-tokenises every document and keeps a token set and Vector objects that
    serialization never uses. This follows its arithmetic operation for operation (BM25 with
    k1=1.2, b=0.75, its idf, rounding to 3 places), so the index is the same to the byte;
    tests/test_cache.py compares the two.
    """
    names = [name for name, _ in FIELDS]
    postings: dict[str, dict[str, Any]] = {}
    for ref, doc in zip(refs, docs):
        for name, (terms, _, _) in zip(names, doc.fields):
            for term in terms:
                posting = postings.get(term)
                if posting is None:
                    posting = postings[term] = {field: {} for field in names}
                    posting["_index"] = len(postings) - 1
                posting[name][ref] = {}
    count = len(refs)
    totals = [sum(doc.fields[i][2] for doc in docs) for i in range(len(names))]
    average = [total / count if count else 0.0 for total in totals]
    idf = np.zeros(len(postings))
    for posting in postings.values():
        with_term = sum(len(posting[name]) for name in names)
        x = (count - with_term + 0.5) / (with_term + 0.5)
        idf[posting["_index"]] = math.log(1 + abs(x))
    # Each term of each field vector, scored at once: IEEE arithmetic in numpy gives the very doubles
    # Python's does, operation for operation; Python's round() then rounds them as lunr.py does.
    k1, b = 1.2, 0.75
    fields = [(ref, (name, boost), field, mean) for ref, doc in zip(refs, docs)
              for (name, boost), field, mean in zip(FIELDS, doc.fields, average)]
    number = {term: posting["_index"] for term, posting in postings.items()}
    terms = np.fromiter(map(number.__getitem__, chain.from_iterable(f[2][0] for f in fields)), np.int64)
    tf = np.fromiter(chain.from_iterable(f[2][1] for f in fields), np.float64, len(terms))
    lengths = np.fromiter((len(f[2][0]) for f in fields), np.int64, len(fields))
    norm = np.repeat([k1 * (1 - b + b * (length / mean)) if terms_ else 0.0
                      for _, _, (terms_, _, length), mean in fields], lengths)
    boost = np.repeat(np.array([boost for _, (_, boost), _, _ in fields], dtype=np.float64), lengths)
    scores = idf[terms] * ((k1 + 1) * tf) / (norm + tf) * boost
    vector = np.repeat(np.arange(len(fields)), lengths)
    order = np.lexsort((terms, vector))  # each vector's elements by term number
    pairs = np.empty((len(terms), 2), dtype=object)
    pairs[:, 0] = terms[order].tolist()
    pairs[:, 1] = list(map(round, scores[order].tolist(), repeat(3)))
    elements = pairs.ravel().tolist()
    ends = np.cumsum(lengths * 2).tolist()
    vectors = [[f"{name}/{ref}", elements[end - 2 * n:end]]
               for (ref, (name, _), _, _), n, end in zip(fields, lengths.tolist(), ends)]
    return {
        "version": LUNR_TARGET_JS_VERSION,
        "fields": names,
        "fieldVectors": vectors,
        "invertedIndex": [[term, postings[term]] for term in sorted(postings)],
        "pipeline": search_pipeline().serialize(),
    }


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
    vectors = index["fieldVectors"]
    terms, scores, lengths = _vector_elements(vectors)
    # The ["ref/field",[...]] header is shared by the vector's terms; a field may have none.
    headers = [(len(field_ref) + 8) * 2 // max(len(elements), 2) for field_ref, elements in vectors]
    # Each element costs its header share and `term,score,` (str of the int, repr of the float).
    sizes = (np.repeat(np.array(headers, dtype=np.int64), lengths) + 2
             + np.fromiter(map(len, map(str, terms)), np.int64, len(terms))
             + np.fromiter(map(len, map(repr, scores)), np.int64, len(scores)))
    vector_bytes = np.bincount(np.array(terms, dtype=np.int64), weights=sizes,
                               minlength=len(index["invertedIndex"])).astype(np.int64).tolist()
    encode = _ENCODER.encode
    return {term: len(encode([term, posting])) + 1 + vector_bytes[posting["_index"]]
            for term, posting in index["invertedIndex"]}


def _vector_elements(vectors: list[list[Any]]) -> tuple[list[int], list[float], np.ndarray]:
    """Return the term numbers and scores of all field vectors, in order, and each vector's length."""
    flat = list(chain.from_iterable(elements for _, elements in vectors))
    lengths = np.fromiter((len(elements) // 2 for _, elements in vectors), np.int64, len(vectors))
    return flat[0::2], flat[1::2], lengths


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

@paused_gc()
def search_files(catalog: Catalog, target: int | None = CHUNK_TARGET,
                 cache: Cache | None = None, order: Sequence[str] = ()) -> dict[str, bytes]:
    """Return every file of the site's search/ folder by its path below search/ (docs in ``order``)."""
    docs = search_docs(catalog, cache, order)
    # The files are a function of the search documents, the venues and topics, and the target alone;
    # any other change to them is a change of code, which the cache's code fingerprint catches.
    memo = (cache or Cache()).stage("search-catalog", dict, single=True)
    key = digest_of(_catalog_parts(catalog, docs, target))
    files = memo.get(key)
    if files is None:
        files = _search_files(catalog, docs, target, cache)
        memo.put(key, files)
    return dict(files)


def _catalog_parts(catalog: Catalog, docs: list[SearchDoc], target: int | None) -> Iterator[str]:
    """Yield everything the search files are made of, for the cache key."""
    yield f"search files {FORMAT_VERSION} {target} {len(docs)} {len(catalog.venues)} {len(catalog.topics)}"
    for d in docs:
        yield from (d.ref, d.id, d.title, d.url, d.text, d.names, str(len(d.venues)), *d.venues,
                    str(len(d.topics)), *d.topics)
    for v in catalog.venues:
        yield from (v.slug, v.label)
    for t in catalog.topics:
        yield from (t.slug, t.name)


def _search_files(catalog: Catalog, docs: list[SearchDoc], target: int | None,
                  cache: Cache | None) -> dict[str, bytes]:
    index = build_index(docs, cache)
    if cache is not None:
        cache.stage("search", DocTerms).close()
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
    """Serialize every chunk: its terms' postings and the parts of the field vectors that hold them.

    Written out as ``_dump`` would write {"fieldVectors": [[field_ref, [term, score, ...]], ...],
    "fields": ..., "invertedIndex": ..., "pipeline": ..., "version": ...}, but with the vector
    parts (a million at 20,000 papers, most of one term) made as text in bulk rather than as lists.
    """
    postings = dict(index["invertedIndex"])
    owner = np.zeros(len(postings), dtype=np.int64)  # term number -> chunk
    for n, c in enumerate(chunks):
        owner[[postings[t]["_index"] for t in c.terms]] = n
    vectors = index["fieldVectors"]
    terms, scores, lengths = _vector_elements(vectors)
    # Every element by (chunk, vector), keeping term order within a vector: the parts, in order.
    vector = np.repeat(np.arange(len(vectors)), lengths)
    chunk = owner[np.array(terms, dtype=np.int64)]
    order = np.lexsort((vector, chunk))
    chunk, vector = chunk[order], vector[order]
    new_chunk = np.r_[True, chunk[1:] != chunk[:-1]] if len(order) else np.zeros(0, dtype=bool)
    new_part = new_chunk | np.r_[True, vector[1:] != vector[:-1]] if len(order) else new_chunk
    # Each element's text, `term,score` as json writes an int and a float, opened by `["ref",[` (after
    # a comma unless it opens the chunk) when it opens a part, and closed by `]]` when it ends one.
    # Made a batch of whole chunks at a time: the text of every element at once would take about
    # 500 MB more at 20,000 papers.
    heads = np.array([f"[{_ENCODER.encode(field_ref)},[" for field_ref, _ in vectors] + [""], dtype=object)
    ends = np.r_[new_part[1:], True] if len(order) else new_part
    terms_by_order = np.array(terms, dtype=object)[order]
    scores_by_order = np.array(scores, dtype=object)[order]
    del terms, scores
    starts = np.flatnonzero(new_chunk).tolist()
    parts = [""] * len(chunks)
    for first, last in _batches(starts):
        span = slice(starts[first], starts[last] if last < len(starts) else len(order))
        opening = np.where(new_part[span], np.where(new_chunk[span], "", ","), "").astype(object) + heads[
            np.where(new_part[span], vector[span], len(vectors))]
        closing = np.where(ends[span], "]]", ",").astype(object)
        pair = np.array(list(map("{},{!r}".format, terms_by_order[span], scores_by_order[span])), dtype=object)
        text = (opening + pair + closing).tolist()
        del opening, closing, pair
        bounds = [*starts[first:last], span.stop]
        for start, stop, n in zip(bounds, bounds[1:], chunk[starts[first:last]].tolist()):
            parts[n] = "".join(text[start - span.start:stop - span.start])
    encode = _ENCODER.encode  # the keys in sorted order, as _dump writes them
    middle = f',"fields":{encode(index["fields"])},"invertedIndex":'
    end = f',"pipeline":{encode(index["pipeline"])},"version":{encode(index["version"])}}}'
    return [f'{{"fieldVectors":[{parts[n]}]{middle}{encode([[t, postings[t]] for t in c.terms])}{end}'
            .encode() for n, c in enumerate(chunks)]


def _batches(starts: list[int], size: int = 250_000) -> Iterator[tuple[int, int]]:
    """Yield (first, last) chunk numbers of runs of whole chunks holding about ``size`` elements each."""
    first = 0
    while first < len(starts):
        last = first + 1
        while last < len(starts) and starts[last] - starts[first] < size:
            last += 1
        yield first, last
        first = last


def _dump(value: Any) -> bytes:
    """Serialize deterministically: sorted keys, compact separators, UTF-8."""
    return _ENCODER.encode(value).encode("utf-8")
