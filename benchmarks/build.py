"""Benchmark whole builds against the performance targets, on two kinds of catalog of 1,000 to 50,000 papers.

    .venv/bin/python benchmarks/build.py                    # both catalogs, 1k, 10k, 20k and 50k papers
    .venv/bin/python benchmarks/build.py --sizes 1000 10000 --json figures.json
    .venv/bin/python benchmarks/build.py --sizes 20000 --text real --scenarios full lunr.js

The catalogs (catalogs.py; ``--text``, both by default, each size measured for both in turn) are
search_index.py's synthetic one (Zipf-distributed random words over a growing vocabulary) and
realtext.py's real one (new abstracts recombined from the sentences of the real-dev abstracts,
found at ../shared/real-dev, ``--real-dev`` or $PAPERCAT_REAL_DEV), each with a coined method name
per paper and five venues, plus one more listing of a sixth venue holding another 5 % of the
papers (1,000 papers at 20,000). Every build is ``papercat.pipeline.build`` in a fresh
process, as ``build.py`` runs it, with the bundled templates and a base URL (so pages, the search
index, related papers, the map, feeds and sitemaps are all made):

- full: the catalog without the extra listing, no cache and no earlier site;
- lunr.js: the reference, benchmarks/lunrjs_reference.js: Node's lunr.js building and serialising
  one index over the same listing files (the fields of papercat's search index), run just after
  the full build. The two are measured in alternated pairs (``--pairs``, 3 by default), each full
  build into a new folder; the tables show each one's median run, and full ÷ lunr.js is the median
  of the pairs' quotients;
- cold: the same catalog with an empty cache folder (the full build plus writing the cache);
- no change: the same again, with the cache and the site the cold build left (papercat finds the
  site already what the content makes: incremental/manifest.py);
- touched: the same again after every file of the site was given another modification time, so
  that check reads the files and compares them by content, to find nothing to write;
- add listing: the extra listing copied in, then built with that cache and site.

No folder is removed until every size is measured, and the full build of each size waits until
the files the previous size's builds replaced are a minute old: on ext4 without a journal (this
benchmark's machine), the kernel checks every inode freed in the last minute (five, if not yet
written out) before it reuses one, which made creating a site's 21,000 files right after deleting
another's cost two to three times as much system time (``settle``).

Times are wall-clock as the build measures them (``Result.seconds`` and its steps). Peak memory is
sampled from this process every 50 ms: the summed PSS of the build process and every process below
it (worker processes too; see memory.py); the build process's own peak resident size (VmHWM) and
ru_maxrss are shown beside it (on Linux, ru_maxrss also keeps the peak of the benchmark process that
started the build, so it is at least that process's size).
MB are 10**6 bytes. Tests never assert times; the figures are for docs/performance.md. The tables
(build_report.py) are each catalog's, with the issue's targets, then both catalogs' distinct terms
beside real-dev's own.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from build_report import LUNR_SCRIPT, REFERENCE, SCENARIOS, lower_median, report
from catalogs import TEXTS, extra_papers, make_contents
from memory import run_sampled

# The catalogs' generators import papercat's whole build (search_index.py) or take seconds to load
# (realtext.py): the benchmark imports them when it makes a catalog, and the child process that
# measures a build does not, so that its "whole process" is what build.py's is.

BASE_URL = "https://example.org/catalog/"
MB = 1e6


def measure(content: Path, out: Path, cache: Path | None) -> dict:
    """Build once in this process and return its figures (the child side of ``run_build``)."""
    from papercat.pipeline import Paths, build

    started = time.perf_counter()
    result = build(Paths(content=content, out=out, cache=cache), base_url=BASE_URL)
    wall = time.perf_counter() - started
    changes = getattr(result, "changes", None)
    unit = MB if sys.platform == "darwin" else MB / 1024  # ru_maxrss is bytes on macOS, KB on Linux
    used = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    return {
        "cpu_s": sum(u.ru_utime + u.ru_stime for u in used),  # workers too, once they have been waited for
        "papers": result.papers, "seconds": result.seconds, "wall": wall,
        "steps": {name: s for name, s in result.steps.items() if isinstance(s, (int, float))},
        "files": result.files,
        "hwm_mb": _vm_hwm_mb(),
        "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / unit,
        "children_maxrss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / unit,
        "written": len(changes.written) if changes is not None else None,
        "unchanged": changes.unchanged if changes is not None else None,
        "removed": len(changes.removed) if changes is not None else None,
    }


def _vm_hwm_mb() -> float | None:
    """Return this process's peak resident size since it started (VmHWM), in MB; None off Linux.

    Unlike ru_maxrss, which on Linux keeps the peak of the process that forked and exec'd this one
    (the benchmark's own, with its vocabulary), VmHWM starts again at exec.
    """
    try:
        status = Path("/proc/self/status").read_text(encoding="ascii")
    except OSError:
        return None
    return next(int(line.split()[1]) * 1024 / MB for line in status.splitlines() if line.startswith("VmHWM:"))


def run_build(content: Path, out: Path, cache: Path | None) -> dict:
    """Build in a fresh process, as build.py would, sampling its memory; return its figures.

    A failed build gives {"error": ...} (the end of its stderr) instead of stopping the benchmark.
    """
    return _run_measured([sys.executable, __file__, "--child", str(content), str(out), str(cache or "")])


def run_lunrjs(content: Path) -> dict:
    """Run the lunr.js reference over the content folder's listings in Node; return its figures."""
    return _run_measured(["node", "--max-old-space-size=16384", str(LUNR_SCRIPT), str(content),
                          "--abstract-only-too"])


def _run_measured(command: list[str]) -> dict:
    """Run a command that prints its figures as a last line of JSON, sampling its memory and the load."""
    load = os.getloadavg()[0]
    done, memory = run_sampled(command)
    if done.returncode != 0:
        return {"error": f"exit {done.returncode}: {done.stderr.strip()[-2000:]}", **_memory(memory)}
    return {**json.loads(done.stdout.strip().splitlines()[-1]), **_memory(memory), "load": load}


def _memory(sampled: dict) -> dict:
    """The sampler's figures, its "seconds" (the process's wall time from the outside) renamed."""
    return {**{k: v for k, v in sampled.items() if k != "seconds"}, "process_seconds": sampled["seconds"]}


_replaced = [-math.inf]  # when a build last replaced or removed files (time.monotonic)
SETTLED = 65.0  # seconds: the kernel's minute, and then some


def settle() -> float:
    """Write out what the kernel holds (``os.sync``), then wait until files replaced by an earlier build
    are ``SETTLED`` seconds old, so that the next build does not pay for reusing their inodes; return the
    seconds waited."""
    os.sync()
    wait = max(0.0, _replaced[0] + SETTLED - time.monotonic())
    time.sleep(wait)
    return wait


def free_gb(path: Path) -> float:
    return shutil.disk_usage(path).free / 1e9


@dataclass(frozen=True)
class Plan:
    """What to measure of each catalog size."""
    scenarios: tuple[str, ...]
    pairs: int = 1  # alternated pairs of the full build and lunr.js
    real_dev: Path | None = None  # the real abstracts, if not found where realtext.py looks


def bench(plan: Plan, text: str, papers: int, work: Path) -> dict:
    """Measure the builds of one catalog size of one text; its folders stay until ``work`` is removed."""
    log = lambda said: print(f"# {text}, {papers:,} papers: {said}", file=sys.stderr, flush=True)
    log(f"{free_gb(work):.0f} GB free in {work.parent}")
    contents = make_contents(text, papers, work, plan.real_dev)
    row: dict = {"text": text, "papers": papers, "extra_papers": extra_papers(papers),
                 "distinct_terms": contents.distinct_terms}
    if text == "real":
        row["real_dev"] = _real_dev_figures(plan.real_dev)
    folder = work / f"{text}-{papers}"
    _full_and_reference(plan, row, contents.folder, folder / "full", log)
    _incremental(plan, row, contents, folder, log)
    log(f"{free_gb(work):.0f} GB free")
    return row


def _real_dev_figures(real_dev: Path | None) -> dict:
    """The real abstracts' own size and vocabulary, beside which the real catalog's is shown."""
    import realtext

    source = realtext.load_source(realtext.find_real_dev(real_dev))
    return {"papers": source.abstracts, "distinct_terms": source.distinct, "heaps_beta": source.heaps_beta}


def _full_and_reference(plan: Plan, row: dict, content: Path, full: Path, log) -> None:
    """Measure the full build and lunr.js in alternated pairs, each full build into a folder of its own.

    A site already there would leave the build nothing to write; and the machine's drift within the
    hour moves one measurement of either by a third, less so a pair measured back to back.
    """
    if "full" in plan.scenarios:
        shutil.copytree(content, full / "content")
        log(f"waited {settle():.0f} s for files replaced earlier to be a minute old")
    for n in range(plan.pairs):
        if "full" in plan.scenarios:
            row.setdefault("full runs", []).append(run_build(full / "content", full / f"site-{n}", None))
            log(_said(f"full ({n + 1} of {plan.pairs})", row["full runs"][-1]))
        if REFERENCE in plan.scenarios:
            row.setdefault(f"{REFERENCE} runs", []).append(run_lunrjs(content))
            log(_said(f"{REFERENCE} ({n + 1} of {plan.pairs})", row[f"{REFERENCE} runs"][-1]))
    for name in ("full", REFERENCE):
        if f"{name} runs" in row:
            row[name] = _median_run(row[f"{name} runs"])
    if "full" in plan.scenarios:
        row["site_mb"] = _size(full / "site-0") / MB if (full / "site-0").exists() else None


def _incremental(plan: Plan, row: dict, contents, folder: Path, log) -> None:
    """Measure the cold build, then no change, touched and add listing with its cache and site."""
    if not {"cold", "no change", "touched", "add listing"} & set(plan.scenarios):
        return
    content, cache, site = contents.folder, folder / "cache", folder / "site"
    row["cold"] = run_build(content, site, cache)  # the later ones need its cache
    log(_said("cold", row["cold"]))
    if "error" not in row["cold"]:
        for name in ("no change", "touched", "add listing"):
            if name not in plan.scenarios:
                continue
            if name == "touched":  # the up-to-date check reads the files and compares them by content
                for path in site.rglob("*"):
                    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
            if name == "add listing":
                (content / "listings" / "extra.txt").write_text(contents.extra_listing, encoding="utf-8")
            row[name] = run_build(content, site, cache)
            log(_said(name, row[name]))
    if cache.exists():
        row["cache_mb"] = _size(cache) / MB
    if "add listing" in row:  # its write replaced files
        _replaced[0] = time.monotonic()


def _median_run(runs: list[dict]) -> dict:
    """Return the run of median time; a failed one if any failed."""
    failed = [b for b in runs if "error" in b]
    return failed[0] if failed else lower_median(runs, key=lambda b: b["seconds"])


def _size(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def _said(name: str, b: dict) -> str:
    if "error" in b:
        return f"{name} FAILED: {b['error'][-300:]}"
    return f"{name} {b['seconds']:.1f} s, peak {b['peak_pss_mb']:,.0f} MB"


def main() -> None:
    """Parse the options, run the sizes of each catalog, print the tables."""
    args = _parser().parse_args()
    if args.child:  # a child process measuring one build
        content, out, cache = args.child
        print(json.dumps(measure(Path(content), Path(out), Path(cache) if cache else None)))
        return
    texts = TEXTS if args.text == "both" else (args.text,)
    if "real" in texts:
        import realtext

        realtext.find_real_dev(args.real_dev)  # missing, it stops the run here rather than after an hour
    plan = Plan(tuple(args.scenarios), max(1, args.pairs), args.real_dev)
    started = time.perf_counter()
    rows = run_all(plan, texts, sorted(args.sizes))
    print(report(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    print(f"# all measured in {time.perf_counter() - started:.0f} s", file=sys.stderr)


def run_all(plan: Plan, texts: tuple[str, ...], sizes: list[int]) -> list[dict]:
    """Measure every size, each for every catalog text in turn, in one scratch folder."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="papercat-bench-") as tmp:
        for size in sizes:
            for text in texts:
                started = time.perf_counter()
                rows.append(bench(plan, text, size, Path(tmp)))
                print(f"# {text}, {size:,} papers measured in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return rows


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 20000, 50000],
                        help="catalog sizes in papers, before the extra listing (default: 1000 10000 20000 50000)")
    parser.add_argument("--text", choices=("both", *TEXTS), default="both",
                        help="which catalog: synthetic (random words), real (recombined real sentences) or "
                        "both, each size for both in turn (default: both)")
    parser.add_argument("--real-dev", type=Path, metavar="FOLDER",
                        help="the real abstracts for --text real (default: $PAPERCAT_REAL_DEV, else "
                        "../shared/real-dev from the checkout)")
    parser.add_argument("--scenarios", nargs="+", choices=(*SCENARIOS, REFERENCE), default=[*SCENARIOS, REFERENCE],
                        metavar="NAME", help=f"what to measure, of: {', '.join(repr(s) for s in (*SCENARIOS, REFERENCE))}"
                        " (default: all; 'no change' and 'add listing' also run 'cold')")
    parser.add_argument("--pairs", type=int, default=3, metavar="N",
                        help="measure the full build and lunr.js N times each, alternated, and take the medians "
                        "(default: 3)")
    parser.add_argument("--json", type=Path, help="also write the raw figures to this file")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    return parser


if __name__ == "__main__":
    main()
