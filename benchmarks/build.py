"""Benchmark whole builds with and without the build cache on synthetic catalogs of 1,000 to 20,000 papers.

    .venv/bin/python benchmarks/build.py                  # 1k, 10k and 20k papers
    .venv/bin/python benchmarks/build.py --sizes 1000 5000 --json figures.json

The catalogs are search_index.py's (Zipf-distributed words over a growing vocabulary, a coined
method name per paper, five venues), plus one more listing of a sixth venue holding another 5 %
of the papers. Every build is ``papercat.pipeline.build`` in a fresh process, as ``build.py``
runs it, with the bundled templates and a base URL (so feeds and sitemaps are made too):

- full: the catalog without the extra listing, no cache and no earlier site;
- cold: the same with an empty cache folder (the full build plus writing the cache);
- no change: the same again, with the cache and the site the cold build left;
- add listing: the extra listing copied in, then built with that cache and site.

Times are wall-clock as the build measures them (``Result.seconds`` and its steps); peak memory is
the build process's peak resident size. Tests never assert times; this is for docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from search_index import VENUES, make_listings, run_sizes

BASE_URL = "https://example.org/catalog/"
EXTRA_SHARE = 0.05  # the added listing holds this share of the catalog's papers
EXTRA_HEADER = "COLM 2025 Papers"
SCENARIOS = ("full", "cold", "no change", "add listing")


def make_contents(papers: int, work: Path) -> tuple[Path, str]:
    """Write a catalog of ``papers`` papers; return its content folder and the text of the extra listing."""
    extra = max(1, round(papers * EXTRA_SHARE))
    generated = work / f"generated-{papers}"
    make_listings(generated, papers + extra)  # paper i is in venue file i % 5, in order
    content = work / f"content-{papers}"
    (content / "listings").mkdir(parents=True)
    shutil.copy(generated / "topics.yaml", content / "topics.yaml")
    added: list[str] = []
    for v, venue in enumerate(VENUES):  # make_listings puts paper i, in order, in the file of VENUES[i % 5]
        name = f"{venue.replace(' ', '_')}.txt"
        header, *abstracts = (generated / "listings" / name).read_text(encoding="utf-8").strip().split("\n\n")
        keep = [a for i, a in enumerate(abstracts) if v + 5 * i < papers]
        added += [a for i, a in enumerate(abstracts) if v + 5 * i >= papers]
        (content / "listings" / name).write_text(header + "\n\n" + "\n\n".join(keep) + "\n", encoding="utf-8")
    shutil.rmtree(generated)
    return content, EXTRA_HEADER + "\n\n" + "\n\n".join(added) + "\n"


def measure(content: Path, out: Path, cache: Path | None) -> dict:
    """Build once in this process and return its figures (the child side of ``run_build``)."""
    from papercat.pipeline import Paths, build

    started = time.perf_counter()
    result = build(Paths(content=content, out=out, cache=cache), base_url=BASE_URL)
    wall = time.perf_counter() - started
    changes = getattr(result, "changes", None)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KB on Linux, bytes on macOS
    peak /= (1 << 20) if sys.platform == "darwin" else 1024
    return {
        "papers": len(result.catalog.papers), "seconds": result.seconds, "wall": wall, "steps": result.steps,
        "files": result.files, "peak_mb": peak,
        "written": len(changes.written) if changes is not None else None,
        "unchanged": changes.unchanged if changes is not None else None,
        "removed": len(changes.removed) if changes is not None else None,
    }


def run_build(content: Path, out: Path, cache: Path | None) -> dict:
    """Build in a fresh process, as build.py would, and return its figures."""
    command = [sys.executable, __file__, "--child", str(content), str(out), str(cache or "")]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def bench(papers: int, work: Path) -> dict:
    """Measure the four builds of one catalog size."""
    content, extra = make_contents(papers, work)
    full = work / f"full-{papers}"
    shutil.copytree(content, full / "content")
    figures = {"full": run_build(full / "content", full / "site", None)}
    shutil.rmtree(full)
    cache, site = work / f"cache-{papers}", work / f"site-{papers}"
    figures["cold"] = run_build(content, site, cache)
    figures["no change"] = run_build(content, site, cache)
    (content / "listings" / "extra.txt").write_text(extra, encoding="utf-8")
    figures["add listing"] = run_build(content, site, cache)
    cache_mb = sum(f.stat().st_size for f in cache.iterdir()) / 1e6
    shutil.rmtree(content)
    shutil.rmtree(cache)
    shutil.rmtree(site)
    return {"papers": papers, "cache_mb": cache_mb, **figures}


def report(rows: list[dict]) -> str:
    """Return the figures as Markdown tables: the builds, then each build's steps."""
    out = [("| papers | full | cold cache | no change | add listing (+5 %) | cache size "
            "| peak memory, full / no change / add |"),
           "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        full = r["full"]["seconds"]
        cell = {name: f"{r[name]['seconds']:.1f} s ({r[name]['seconds'] / full:.0%})" for name in SCENARIOS}
        peaks = " / ".join(f"{r[name]['peak_mb']:,.0f}" for name in ("full", "no change", "add listing"))
        out.append(f"| {r['papers']:,} | {full:.1f} s | {cell['cold']} | {cell['no change']} "
                   f"| {cell['add listing']} | {r['cache_mb']:.0f} MB | {peaks} MB |")
    steps = list(dict.fromkeys(step for r in rows for name in SCENARIOS for step in r[name]["steps"]))
    header = f"| papers | build | papers built | {' | '.join(steps)} | files written / unchanged / removed |"
    out += ["", header,
            "| ---: | --- | ---: |" + " ---: |" * (len(steps) + 1)]
    for r in rows:
        for name in SCENARIOS:
            b = r[name]
            files = (f"{b['written']:,} / {b['unchanged']:,} / {b['removed']:,}" if b["written"] is not None
                     else f"{b['files']:,} files")
            out.append(f"| {r['papers']:,} | {name} | {b['papers']:,} | "
                       + " | ".join(f"{b['steps'].get(s, 0):.2f} s" for s in steps) + f" | {files} |")
    return "\n".join(out)


def main() -> None:
    """Parse the options, run the sizes, print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 20000],
                        help="catalog sizes in papers, before the extra listing (default: 1000 10000 20000)")
    parser.add_argument("--json", type=Path, help="also write the raw figures to this file")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:  # a child process measuring one build
        content, out, cache = args.child
        print(json.dumps(measure(Path(content), Path(out), Path(cache) if cache else None)))
        return
    run_sizes(args.sizes, bench, report, args.json)


if __name__ == "__main__":
    main()
