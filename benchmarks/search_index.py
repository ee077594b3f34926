"""Benchmark the search index on synthetic catalogs of 1,000 to 20,000 papers.

    .venv/bin/python benchmarks/search_index.py               # 1k, 10k and 20k papers
    .venv/bin/python benchmarks/search_index.py --sizes 1000 5000

Each catalog is written as listing files and read by papercat's own reader and enricher (titles,
topics), then only its search files are built: once split into prefix chunks (what the site ships)
and once as a single index (the baseline). Queries run in Node through static/search/engine.js,
each with a fresh engine, as on a first visit. "first result" is what a browser downloads before
it can show the first page of 10 results: manifest, chunks and doc shards that query fetched, plus
engine.js and lunr.js; sizes are gzip -9. The abstracts' words follow Zipf's law over a vocabulary
headed by the bundled catalog's words and continued by coined words, so the number of distinct
words grows with the catalog as Heaps' law says real text does; every paper coins a method name.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from papercat.catalog import make_catalog
from papercat.enrich.abstract import plain_text
from papercat.content.folder import read_content
from papercat.search import files as search_files_module
from papercat.search import search_files

VENUES = ["ICML 2025", "ICLR 2025", "NeurIPS 2024", "ACL 2024", "CVPR 2025"]
RARE_WORD = "quixotrelline"  # put into exactly one abstract
TAIL_WORDS = 400_000
ZIPF = 1.4
SEED = 20250101
_SYLLABLES = [c + v for c in "bcdfghjklmnprstvwz" for v in ["a", "e", "i", "o", "u", "ai", "ou", "ea"]]


def vocabulary(rng: random.Random) -> list[str]:
    """Return the bundled catalog's words by frequency, then coined words, most frequent first."""
    counts: collections.Counter[str] = collections.Counter()
    for path in sorted((ROOT / "content" / "listings").glob("*.txt")):
        for line in path.read_text(encoding="utf-8").splitlines()[1:]:
            for word in plain_text(line).split():
                word = word.strip(".,;:()[]\"'").lower()
                if word and not word.startswith("http"):
                    counts[word] += 1
    head = [w for w, _ in sorted(counts.items(), key=lambda x: (-x[1], x[0]))]
    seen = set(head)
    tail = []
    while len(tail) < TAIL_WORDS:
        word = "".join(rng.choice(_SYLLABLES) for _ in range(rng.choice((2, 3, 3, 4))))
        if rng.random() < 0.03:
            word += rng.choice(["-based", "-aware", "-free", "-level"])
        if word not in seen:
            seen.add(word)
            tail.append(word)
    return head + tail


def method_name(rng: random.Random) -> str:
    """Return a coined method name: GuardAgent- or RWKVQuant-like."""
    part = lambda: "".join(rng.choice(_SYLLABLES) for _ in range(rng.choice((1, 2)))).capitalize()
    style = rng.random()
    if style < 0.4:
        return part() + part()
    if style < 0.7:
        return "".join(rng.choice("ABCDEFGHKLMNPRSTVWXZ") for _ in range(rng.choice((3, 4)))) + part()
    letters = "".join(rng.choice("ABCDEFGHKLMNPRSTVWXZ") for _ in range(2))
    return f"{part()}-{letters}{rng.randint(1, 9)}"


def make_listings(folder: Path, papers: int) -> dict[str, str]:
    """Write ``papers`` synthetic abstracts as listing files; return the names queried later."""
    rng = random.Random(SEED)
    words = vocabulary(rng)
    # Zipf-Mandelbrot with exponent 1.4: about 11,000 distinct words in 200,000 and 50,000 in 2,000,000
    # (Heaps' law with an exponent near 0.65), a little richer than the bundled abstracts.
    weights = [1 / (rank + 2.7) ** ZIPF for rank in range(len(words))]
    cumulative = list(_accumulate(weights))
    names: list[str] = []
    abstracts: list[list[str]] = [[] for _ in VENUES]
    for n in range(papers):
        name = method_name(rng)
        while name in names:
            name = method_name(rng)
        names.append(name)
        sentences = []
        for s in range(rng.randint(6, 10)):
            drawn = rng.choices(words, cum_weights=cumulative, k=rng.randint(14, 26))
            if s == 2 or (s == 5 and rng.random() < 0.5):
                drawn.insert(rng.randrange(len(drawn)), name)
            if n == papers // 2 and s == 3:
                drawn.insert(4, RARE_WORD)
            if rng.random() < 0.2:
                drawn.append(f"{rng.randint(1, 99)}.{rng.randint(0, 99):02d}%")
            sentences.append(" ".join(drawn).capitalize() + ".")
        text = f"We propose {name}, a {' '.join(rng.choices(words[:400], k=5))}. " + " ".join(sentences)
        abstracts[n % len(VENUES)].append(text)
    (folder / "listings").mkdir(parents=True)
    for venue, texts in zip(VENUES, abstracts):
        body = f"{venue} Papers\n\n" + "\n\n".join(texts) + "\n"
        (folder / "listings" / f"{venue.replace(' ', '_')}.txt").write_text(body, encoding="utf-8")
    shutil.copy(ROOT / "content" / "topics.yaml", folder / "topics.yaml")
    return {"method": names[papers // 3]}


def _accumulate(values: list[float]):
    total = 0.0
    for value in values:
        total += value
        yield total


def gz(data: bytes) -> int:
    return len(gzip.compress(data, compresslevel=9, mtime=0))


def write(files: dict[str, bytes], site: Path) -> None:
    for rel, data in files.items():
        path = site / "search" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def run_node(site: Path, queries: list[dict], repeat: int = 3) -> list[dict]:
    """Run the queries through engine.js in Node, each on a fresh engine; keep the median time."""
    runs = []
    for _ in range(repeat):
        payload = json.dumps({"site": str(site), "queries": queries, "fresh": True})
        done = subprocess.run(["node", str(ROOT / "tests" / "js" / "search.js")], input=payload, text=True,
                              capture_output=True, check=True)
        runs.append(json.loads(done.stdout))
    out = runs[0]
    for i, result in enumerate(out):
        result["ms"] = statistics.median(run[i]["ms"] for run in runs)
    return out


def one_index(catalog) -> dict[str, bytes]:
    """Return the search files of ``catalog`` as one unsplit index of one segment: the baseline."""
    held = search_files_module.SEGMENT_DOCS
    search_files_module.SEGMENT_DOCS = max(held, len(catalog.papers))
    try:
        return search_files(catalog, target=None)
    finally:
        search_files_module.SEGMENT_DOCS = held


def bench(papers: int, work: Path) -> dict:
    """Build one synthetic catalog both ways and measure it."""
    content = work / f"content-{papers}"
    names = make_listings(content, papers)
    started = time.perf_counter()
    loaded, problems = read_content(content)
    catalog, found = make_catalog(list(loaded.listings), loaded.taxonomy)
    catalog_seconds = time.perf_counter() - started
    assert not [p for p in problems + found if not p.warning], problems + found
    started = time.perf_counter()
    split = search_files(catalog)
    split_seconds = time.perf_counter() - started
    single = one_index(catalog)
    manifest = json.loads(split["manifest.json"])
    chunk_gz = sorted(gz(split[f]) for f, _ in manifest["chunkFiles"])
    sites = {"split": work / f"split-{papers}", "single": work / f"single-{papers}"}
    write(split, sites["split"])
    write(single, sites["single"])
    static = sum(gz((ROOT / "static" / p).read_bytes()) for p in ("search/engine.js", "vendor/lunr/lunr.js"))
    queries = {"common word": "learning", "rare word": RARE_WORD, "method name": names["method"],
               "prefix": "transf", "two words": "reward model", "typo": "reinforcment",
               "ten words": "efficient reward model training with human preference data for language agents"}
    found_by = {}
    for kind, site in sites.items():
        # The single index takes seconds to load at 20,000 papers: one run of it is enough.
        runs = 3 if kind == "split" else 1
        results = run_node(site, [{"q": q, "limit": 10} for q in queries.values()], runs)
        files = split if kind == "split" else single
        found_by[kind] = [{"query": q, "total": r["total"],
                           "first": r["results"][0]["title"] if r["results"] else None,
                           "gzip": static + sum(gz(files[p]) for p in r["fetched"]), "ms": r["ms"],
                           "chunks": sum(p.startswith("t/") for p in r["fetched"]),
                           "docs": sum(p.startswith("docs/") for p in r["fetched"])}
                          for q, r in zip(queries.values(), results)]
    terms = sum(len(json.loads(split[f])["invertedIndex"]) for f, _ in manifest["chunkFiles"])
    return {
        "papers": papers, "terms": terms, "catalog_s": catalog_seconds, "index_s": split_seconds,
        "chunks": len(chunk_gz), "chunk_gz_median": statistics.median(chunk_gz), "chunk_gz_max": chunk_gz[-1],
        "total_gz": sum(gz(d) for d in split.values()), "single_gz": gz(single["t/0/root.json"]),
        "chunks_gz": sum(gz(split[f]) for f, _ in manifest["chunkFiles"]),
        "queries": list(queries), "split": found_by["split"], "single": found_by["single"],
    }


def report(rows: list[dict]) -> str:
    """Return the figures as Markdown tables."""
    kb = lambda n: f"{n / 1024:,.0f} KB"
    out = [("| papers | distinct terms | catalog read+enrich | search files build | chunks "
            "| chunk gzip median / max | all chunks gzip | all search files gzip | single index gzip |"),
           "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        out.append(f"| {r['papers']:,} | {r['terms']:,} | {r['catalog_s']:.1f} s | {r['index_s']:.1f} s | "
                   f"{r['chunks']:,} | {kb(r['chunk_gz_median'])} / {kb(r['chunk_gz_max'])} | "
                   f"{kb(r['chunks_gz'])} | {kb(r['total_gz'])} | {kb(r['single_gz'])} |")
    out += ["", ("| papers | query | kind | results | chunks + doc shards read | first result gzip, split "
                 "| Node load+query, split | first result gzip, single index "
                 "| Node load+query, single index |"),
            "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        for kind, s, one in zip(r["queries"], r["split"], r["single"]):
            out.append(f"| {r['papers']:,} | `{s['query']}` | {kind} | {s['total']:,} | "
                       f"{s['chunks']} + {s['docs']} | {kb(s['gzip'])} | {s['ms']:.0f} ms | "
                       f"{kb(one['gzip'])} | {one['ms']:.0f} ms |")
    return "\n".join(out)


def main() -> None:
    """Parse the options, run the sizes, print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 20000],
                        help="catalog sizes in papers (default: 1000 10000 20000)")
    parser.add_argument("--json", type=Path, help="also write the raw figures to this file")
    args = parser.parse_args()
    run_sizes(args.sizes, bench, report, args.json)


def run_sizes(sizes: list[int], bench: Callable[[int, Path], dict], report: Callable[[list[dict]], str],
              json_path: Path | None) -> None:
    """Run ``bench`` for each catalog size in a scratch folder, print ``report``, and save the rows."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="papercat-bench-") as tmp:
        for size in sizes:
            started = time.perf_counter()
            rows.append(bench(size, Path(tmp)))
            print(f"# {size:,} papers measured in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    print(report(rows))
    if json_path:
        json_path.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
