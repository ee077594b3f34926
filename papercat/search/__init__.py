"""The search files: a Lunr index in segments of papers, each split by term prefix into small chunks,
plus display data.

The browser (static/search/engine.js) downloads the manifest, then only the chunks holding the
query's terms (in every segment) and the doc shards of the results it shows. Each chunk is itself a
serialized lunr index that keeps the whole index's term numbers and BM25 weights (counted over the
reference papers), so merging the chunks a query needs scores exactly as the whole index would, and
a new listing rewrites only the segments its papers join. docs/search.md describes the layout.

The steps, one module each: documents (papers as search documents) -> terms (one document's index
terms, lunrjs's pipeline) -> columns (every document's terms) -> index (BM25 weights, segments) ->
chunks (terms grouped by prefix) -> chunk_json (each chunk's bytes) -> files (the search/ folder).
"""

from .chunks import CHUNK_TARGET, Chunk, split_index
from .columns import TermColumns, TextFields, term_columns, terms_cached, text_fields
from .documents import SearchDoc, doc_key, search_docs
from .files import (
    DOC_SHARD_SIZE,
    FORMAT_VERSION,
    MANIFEST,
    SEGMENT_DOCS,
    IndexFile,
    SearchWork,
    search_files,
    search_work,
    segment_bounds,
)
from .format import FIELDS
from .index import Index, assemble_index, build_index, index_of, segment_index, serialize
from .terms import DocTerms, doc_terms

__all__ = ["CHUNK_TARGET", "DOC_SHARD_SIZE", "FIELDS", "FORMAT_VERSION", "MANIFEST", "SEGMENT_DOCS", "Chunk",
           "DocTerms", "Index", "IndexFile", "SearchDoc", "SearchWork", "TermColumns", "TextFields",
           "assemble_index", "build_index", "doc_key", "doc_terms", "index_of", "search_docs", "search_files",
           "search_work", "segment_bounds", "segment_index", "serialize", "split_index", "term_columns",
           "terms_cached", "text_fields"]
