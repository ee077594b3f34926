"""Benchmark keyphrases and related papers on synthetic catalogs of 1,000 to 20,000 papers.

    .venv/bin/python benchmarks/related.py               # 1k, 10k and 20k papers
    .venv/bin/python benchmarks/related.py --sizes 1000 50000

The catalogs are search_index.py's: abstracts whose words follow Zipf's law over the bundled
catalog's words continued by coined ones, so the vocabulary grows with the catalog as real text's
does, and every paper coins a method name. They are written as listing files and read by
papercat's own reader and enricher (which runs keyphrases and related papers too, so its time
includes theirs), and keyphrases and related papers get the (title, plain abstract) pairs the build
gives them. Each of the two then runs again in a fresh process: its time is
wall-clock, and its peak memory is that process's peak resident size less what it held before the
call (Python, the modules and the catalog's text).
"""

from __future__ import annotations

import argparse
import json
import pickle
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from search_index import make_listings, run_sizes

from papercat.catalog import make_catalog
from papercat.enrich.keyphrases import extract_keyphrases
from papercat.enrich.related import related_papers
from papercat.content.folder import read_content

STATUS = Path("/proc/self/status")


def memory_mb() -> tuple[float, float]:
    """Return this process's (resident, peak resident) size in MB."""
    if STATUS.exists():
        fields = dict(line.split(":", 1) for line in STATUS.read_text().splitlines() if ":" in line)
        return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KB on Linux, bytes on macOS
    peak /= (1 << 20) if sys.platform == "darwin" else 1024
    return peak, peak


def reset_peak() -> None:
    """Make the peak resident size start again from the current one (Linux 4.0+; elsewhere a no-op)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def make_docs(papers: int, work: Path) -> tuple[Path, float]:
    """Write a synthetic catalog, read it as the build does, pickle its (title, abstract) pairs."""
    content = work / f"content-{papers}"
    make_listings(content, papers)
    started = time.perf_counter()
    loaded, _ = read_content(content)
    catalog, _ = make_catalog(list(loaded.listings), loaded.taxonomy)
    docs = [(paper.title, paper.text) for paper in catalog.papers]  # what the build passes in
    seconds = time.perf_counter() - started
    path = work / f"docs-{papers}.pickle"
    path.write_bytes(pickle.dumps(docs))
    return path, seconds


def measure(step: str, docs_path: Path, keyphrases_path: Path) -> dict:
    """Run one step on a pickled catalog in this process; return its time, peak memory and figures."""
    docs = pickle.loads(docs_path.read_bytes())
    keyphrases = pickle.loads(keyphrases_path.read_bytes()) if step == "related" else None
    reset_peak()  # loading the catalog and the imports peaked higher than some calls do
    before, _ = memory_mb()
    started = time.perf_counter()
    if step == "keyphrases":
        result = extract_keyphrases(docs)
        figures = {"phrases per paper": sum(map(len, result)) / len(docs)}
        keyphrases_path.write_bytes(pickle.dumps(result))
    else:
        result = related_papers(docs, keyphrases)
        links = [r for found in result for r in found]
        figures = {"related per paper": len(links) / len(docs),
                   "mean score": sum(r.score for r in links) / max(1, len(links)),
                   "explained": sum(bool(r.shared) for r in links) / max(1, len(links))}
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "peak_mb": memory_mb()[1] - before, **figures}


def run_step(step: str, docs_path: Path, keyphrases_path: Path) -> dict:
    """Measure one step in a fresh Python, so its peak memory is its own."""
    done = subprocess.run([sys.executable, __file__, "--step", step, "--docs", str(docs_path),
                           "--keyphrases", str(keyphrases_path)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def bench(papers: int, work: Path) -> dict:
    """Build one synthetic catalog and measure keyphrases, then related papers, on it."""
    docs_path, catalog_seconds = make_docs(papers, work)
    keyphrases_path = work / f"keyphrases-{papers}.pickle"
    keyphrases = run_step("keyphrases", docs_path, keyphrases_path)
    related = run_step("related", docs_path, keyphrases_path)
    return {"papers": papers, "catalog_s": catalog_seconds, "keyphrases": keyphrases, "related": related}


def report(rows: list[dict]) -> str:
    """Return the figures as a Markdown table."""
    out = [("| papers | catalog read+enrich, all included | keyphrases | keyphrases peak memory "
            "| phrases per paper | related papers | related peak memory | related per paper | explained |"),
           "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        k, rel = r["keyphrases"], r["related"]
        out.append(f"| {r['papers']:,} | {r['catalog_s']:.1f} s | {k['seconds']:.1f} s "
                   f"| {k['peak_mb']:,.0f} MB | {k['phrases per paper']:.1f} | {rel['seconds']:.1f} s "
                   f"| {rel['peak_mb']:,.0f} MB | {rel['related per paper']:.2f} | {rel['explained']:.0%} |")
    return "\n".join(out)


def main() -> None:
    """Parse the options, run the sizes, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 20000],
                        help="catalog sizes in papers (default: 1000 10000 20000)")
    parser.add_argument("--json", type=Path, help="also write the raw figures to this file")
    parser.add_argument("--step", choices=["keyphrases", "related"], help=argparse.SUPPRESS)
    parser.add_argument("--docs", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--keyphrases", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.step:  # a child process measuring one step
        print(json.dumps(measure(args.step, args.docs, args.keyphrases)))
        return
    run_sizes(args.sizes, bench, report, args.json)


if __name__ == "__main__":
    main()
