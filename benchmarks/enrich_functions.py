"""Time papercat's per-paper enrichment functions one by one, and digest what they return.

    .venv/bin/python benchmarks/enrich_functions.py                      # 5,000 synthetic papers
    .venv/bin/python benchmarks/enrich_functions.py --papers 20000 --dump after.json

The abstracts are the bundled catalog's, then synthetic ones (benchmarks/search_index.py's
make_listings). Each function runs once over every paper, in the order a build calls them, and
the table gives its seconds; the garbage collector is paused, as in a build. With --dump, a
sha256 of each function's outputs (their repr) is written as JSON: an optimisation must leave
every digest as it was.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from search_index import make_listings

from papercat import search
from papercat.collector import paused_gc
from papercat.enrich import keyphrases, related
from papercat.enrich.abstract import render_abstract
from papercat.enrich.names import method_names
from papercat.enrich.titles import derive_title, unique_titles
from papercat.enrich.topics import assign_topics
from papercat.content.folder import read_content
from papercat.search import chunk_json


def abstracts_of(content: Path) -> tuple[list[str], tuple]:
    """Return the distinct abstracts of a content folder's listings, in reading order, and its taxonomy."""
    loaded, _ = read_content(content)
    texts = [entry.text for listing in loaded.listings for entry in listing.entries]
    return list(dict.fromkeys(texts)), loaded.taxonomy


def run(abstracts: list[str], taxonomy: tuple) -> tuple[dict[str, tuple[float, float]], dict[str, Any]]:
    """Run every function over the abstracts as a build does; return (wall, CPU) seconds and outputs."""
    seconds: dict[str, tuple[float, float]] = {}
    outputs: dict[str, Any] = {}

    def timed(name: str, call: Callable[[], Any]) -> Any:
        start, cpu = time.perf_counter(), time.process_time()
        outputs[name] = result = call()
        seconds[name] = (time.perf_counter() - start, time.process_time() - cpu)
        return result

    rendered = timed("render_abstract", lambda: [render_abstract(a) for a in abstracts])
    derived = timed("derive_title", lambda: [derive_title(a) for a in abstracts])
    first = [t or f"Paper {n}" for n, t in enumerate(derived)]
    titles = timed("unique_titles", lambda: unique_titles(first, abstracts))
    docs = [(title, r.text) for title, r in zip(titles, rendered)]
    # One pass gives both halves, as in a build; they are digested under their own names.
    both = timed("related.analyse_with_terms", lambda: [related.analyse_with_terms(*doc) for doc in docs])
    del outputs["related.analyse_with_terms"]
    analyses = outputs["keyphrases.analyse"] = [analysed for analysed, _ in both]
    terms = outputs["related.terms"] = [counted for _, counted in both]
    phrases = timed("keyphrases.pick", lambda: keyphrases.pick(analyses))
    timed("related.relate", lambda: related.relate(docs, terms, phrases))
    matches = timed("topics.assign_topics", lambda: [assign_topics(f"{t} {r.text}", taxonomy)
                                                      for t, r in zip(titles, rendered)])
    names = {t.slug: t.name for t in taxonomy}
    search_docs = [search.SearchDoc(ref=str(n), id=str(n), title=title, url=f"/p/{n}/", venues=(),
                                    topics=tuple(m.slug for m in found), text=r.text,
                                    names=" ; ".join([names.get(m.slug, m.slug) for m in found]
                                                     + list(own) + method_names(title, r.text)))
                   for n, (title, r, own, found) in enumerate(zip(titles, rendered, phrases, matches))]
    doc_terms = timed("search.doc_terms", lambda: [search.doc_terms(d) for d in search_docs])
    index = timed("search.assemble_index", lambda: search.assemble_index([d.ref for d in search_docs],
                                                                         doc_terms))
    outputs["search.assemble_index"] = search.serialize(index)  # the Index's repr would elide its arrays
    chunks = search.split_index(index)
    timed("search._chunk_data", lambda: chunk_json._chunk_data(index, chunks))
    return seconds, outputs


def digest(value: Any) -> str:
    """Return the sha256 of a value's repr: equal outputs, equal digests.

    A set's repr follows its hash order, which changes from process to process: sets are sorted first.
    """
    return hashlib.sha256(repr(_sorted_sets(value)).encode("utf-8", "surrogatepass")).hexdigest()


def _sorted_sets(value: Any) -> Any:
    """Return the value with every (frozen)set of PaperPhrases made a sorted list."""
    if isinstance(value, list):
        return [_sorted_sets(v) for v in value]
    if isinstance(value, keyphrases.PaperPhrases):
        return (value.tokens, value.runs, value.phrases, sorted(value.proper))
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--papers", type=int, default=5000, help="synthetic papers (default 5000)")
    parser.add_argument("--dump", type=Path, help="write each function's output digest to this JSON file")
    args = parser.parse_args()
    bundled, taxonomy = abstracts_of(ROOT / "content")
    with tempfile.TemporaryDirectory() as tmp:
        make_listings(Path(tmp), args.papers)
        synthetic, _ = abstracts_of(Path(tmp))
    abstracts = list(dict.fromkeys(bundled + synthetic))
    with paused_gc():  # as make_catalog and search_files run them
        seconds, outputs = run(abstracts, taxonomy)
    # CPU seconds are steadier than wall seconds on a busy machine.
    print(f"{len(abstracts):,} papers ({len(bundled)} bundled)          wall s    CPU s")
    for name, (wall, cpu) in seconds.items():
        print(f"{name:28} {wall:8.2f} {cpu:8.2f}")
    print(f"{'total':28} {sum(w for w, _ in seconds.values()):8.2f} {sum(c for _, c in seconds.values()):8.2f}")
    if args.dump:
        digests = {name: digest(value) for name, value in outputs.items()}
        args.dump.write_text(json.dumps({"papers": len(abstracts), "seconds": seconds, "digests": digests},
                                        indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
