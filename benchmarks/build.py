"""Benchmark whole builds against the performance targets, on synthetic catalogs of 1,000 to 50,000 papers.

    .venv/bin/python benchmarks/build.py                    # 1k, 10k, 20k and 50k papers
    .venv/bin/python benchmarks/build.py --sizes 1000 10000 --json figures.json
    .venv/bin/python benchmarks/build.py --sizes 20000 --scenarios full lunr.js

The catalogs are search_index.py's (Zipf-distributed words over a growing vocabulary, a coined
method name per paper, five venues), plus one more listing of a sixth venue holding another 5 %
of the papers (1,000 papers at 20,000). Every build is ``papercat.pipeline.build`` in a fresh
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
  site already what the content makes: uptodate.py);
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
MB are 10**6 bytes. Tests never assert times; the figures are for docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from memory import run_sampled

# search_index (the synthetic listings, run_sizes) imports papercat's whole build: the benchmark imports it,
# and the child process that measures a build does not, so that its "whole process" is what build.py's is.

BASE_URL = "https://example.org/catalog/"
EXTRA_SHARE = 0.05  # the added listing holds this share of the catalog's papers: 1,000 at 20,000
EXTRA_HEADER = "COLM 2025 Papers"
SCENARIOS = ("full", "cold", "no change", "touched", "add listing")
REFERENCE = "lunr.js"
LUNR_SCRIPT = ROOT / "benchmarks" / "lunrjs_reference.js"
MB = 1e6
# The targets: time ratios to the full build, at TARGET_PAPERS papers.
TARGET_PAPERS = 20_000
LUNR_RATIO, NO_CHANGE_SHARE, ADD_SHARE, PEAK_MB, MUST_BUILD = 1.5, 0.05, 0.15, 1500, 50_000
LINEAR_SLACK = 1.25  # "about linear": ms per paper at the largest size at most this times that at 10,000


def make_contents(papers: int, work: Path) -> tuple[Path, str]:
    """Write a catalog of ``papers`` papers; return its content folder and the text of the extra listing."""
    from search_index import VENUES, make_listings

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


def bench_with(scenarios: tuple[str, ...], pairs: int = 1):
    """Return the per-size function run_sizes calls, measuring the chosen scenarios (the full build and
    lunr.js ``pairs`` times each, alternated)."""

    def bench(papers: int, work: Path) -> dict:
        """Measure the builds of one catalog size; its folders stay until run_sizes removes ``work``."""
        log = lambda text: print(f"# {papers:,} papers: {text}", file=sys.stderr, flush=True)
        log(f"{free_gb(work):.0f} GB free in {work.parent}")
        row: dict = {"papers": papers, "extra_papers": max(1, round(papers * EXTRA_SHARE))}
        content, extra = make_contents(papers, work)
        full, cache, site = work / f"full-{papers}", work / f"cache-{papers}", work / f"site-{papers}"
        if "full" in scenarios:
            shutil.copytree(content, full / "content")
            log(f"waited {settle():.0f} s for files replaced earlier to be a minute old")
        # The full build and lunr.js in alternated pairs, each full build into a folder of its own (a site
        # already there would leave it nothing to write): the machine's drift within the hour moves one
        # measurement of either by a third, less so a pair measured back to back.
        for n in range(pairs):
            if "full" in scenarios:
                row.setdefault("full runs", []).append(run_build(full / "content", full / f"site-{n}", None))
                log(_said(f"full ({n + 1} of {pairs})", row["full runs"][-1]))
            if REFERENCE in scenarios:
                row.setdefault(f"{REFERENCE} runs", []).append(run_lunrjs(content))
                log(_said(f"{REFERENCE} ({n + 1} of {pairs})", row[f"{REFERENCE} runs"][-1]))
        for name in ("full", REFERENCE):
            if f"{name} runs" in row:
                row[name] = _median_run(row[f"{name} runs"])
        if "full" in scenarios:
            row["site_mb"] = _size(full / "site-0") / MB if (full / "site-0").exists() else None
        if {"cold", "no change", "touched", "add listing"} & set(scenarios):  # the later ones need its cache
            row["cold"] = run_build(content, site, cache)
            log(_said("cold", row["cold"]))
        if "no change" in scenarios and "error" not in row["cold"]:
            row["no change"] = run_build(content, site, cache)
            log(_said("no change", row["no change"]))
        if "touched" in scenarios and "error" not in row["cold"]:
            for path in site.rglob("*"):
                os.utime(path, ns=(1_000_000_000, 1_000_000_000))
            row["touched"] = run_build(content, site, cache)
            log(_said("touched", row["touched"]))
        if "add listing" in scenarios and "error" not in row["cold"]:
            (content / "listings" / "extra.txt").write_text(extra, encoding="utf-8")
            row["add listing"] = run_build(content, site, cache)
            log(_said("add listing", row["add listing"]))
        if cache.exists():
            row["cache_mb"] = _size(cache) / MB
        if "add listing" in row:  # its write replaced files
            _replaced[0] = time.monotonic()
        log(f"{free_gb(work):.0f} GB free")
        return row

    return bench


def _lower_median(values: list, key: Callable | None = None) -> Any:
    """Return the median of ``values`` (the lower of the two middle ones for an even count)."""
    return sorted(values, key=key)[(len(values) - 1) // 2]


def _median_run(runs: list[dict]) -> dict:
    """Return the run of median time; a failed one if any failed."""
    failed = [b for b in runs if "error" in b]
    return failed[0] if failed else _lower_median(runs, key=lambda b: b["seconds"])


def pair_ratios(row: dict) -> list[float]:
    """Return full build ÷ lunr.js of each alternated pair measured, if all of them succeeded."""
    runs = list(zip(row.get("full runs", []), row.get(f"{REFERENCE} runs", [])))
    if not runs or not all(_ok(a) and _ok(b) for a, b in runs):
        return []
    return [a["seconds"] / b["seconds"] for a, b in runs]


def lunr_ratio(row: dict) -> float | None:
    """Return the median of the pairs' full build ÷ lunr.js (the lower middle one for an even count)."""
    ratios = pair_ratios(row)
    return _lower_median(ratios) if ratios else None


def _size(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def _said(name: str, b: dict) -> str:
    if "error" in b:
        return f"{name} FAILED: {b['error'][-300:]}"
    return f"{name} {b['seconds']:.1f} s, peak {b['peak_pss_mb']:,.0f} MB"


# ---------------------------------------------------------------------------------------------
# The report

def _ok(b: dict | None) -> bool:
    return b is not None and "error" not in b


def _ratio(row: dict, name: str) -> float | None:
    """Return a scenario's time over the full build's, if both were measured."""
    if _ok(row.get(name)) and _ok(row.get("full")):
        return row[name]["seconds"] / row["full"]["seconds"]
    return None


def _cell(row: dict, name: str) -> str:
    b = row.get(name)
    if b is None:
        return "–"
    if "error" in b:
        return "failed"
    ratio = _ratio(row, name)
    return f"{b['seconds']:.1f} s" + (f" ({ratio:.0%})" if ratio is not None and name != "full" else "")


def _mb(value: float | None) -> str:
    return "–" if value is None else f"{value:,.0f} MB"


def _files(b: dict) -> str:
    if b.get("written") is None:
        return f"{b['files']:,} files"
    return f"{b['written']:,} / {b['unchanged']:,} / {b['removed']:,}"


def report(rows: list[dict]) -> str:
    """Return the figures as Markdown tables: times, memory and files, steps, then the targets."""
    out = [(f"Machine: {os.cpu_count()} cores, {_ram_gb():.0f} GB RAM, Python {platform.python_version()}, "
           f"Node {_node_version()}; MB = 10^6 bytes."), ""]
    out += [("| papers | full | cold cache | no change | touched | add listing (+5 %) | lunr.js reference "
            "| full ÷ lunr.js | ms per paper, full (CPU) | cache size | site size |"),
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        lunr = r.get(REFERENCE)
        lunr_cell = ("–" if lunr is None else "failed" if "error" in lunr else f"{lunr['seconds']:.1f} s")
        ratio = lunr_ratio(r)
        vs = f"{ratio:.2f}×" if ratio is not None else "–"
        per = (f"{1000 * r['full']['seconds'] / r['papers']:.2f} (CPU {1000 * r['full']['cpu_s'] / r['papers']:.2f})"
               if _ok(r.get("full")) else "–")
        cache = f"{r['cache_mb']:,.0f} MB" if r.get("cache_mb") is not None else "–"
        site = f"{r['site_mb']:,.0f} MB" if r.get("site_mb") is not None else "–"
        out.append(f"| {r['papers']:,} | {_cell(r, 'full')} | {_cell(r, 'cold')} | {_cell(r, 'no change')} "
                   f"| {_cell(r, 'touched')} | {_cell(r, 'add listing')} (+{r['extra_papers']:,}) | {lunr_cell} | {vs} | {per} "
                   f"| {cache} | {site} |")
    lunrs = [r[REFERENCE] for r in rows if _ok(r.get(REFERENCE))]
    if lunrs:
        out += ["", f"lunr.js reference: {LUNR_SCRIPT.relative_to(ROOT)}, lunr.js 2.3.9 in Node, one index with "
                f"ref id and fields {', '.join(lunrs[0]['fields'])} (title: the abstract's first sentence; names: its "
                "coined mixed-case words), build + JSON.stringify, file reading excluded. Abstract field alone: "
                + ", ".join(f"{r['papers']:,} papers {r[REFERENCE]['abstract_only_seconds']:.1f} s"
                            for r in rows if _ok(r.get(REFERENCE))) + "."]
    paired = [(r["papers"], ratios) for r in rows if len(ratios := pair_ratios(r)) > 1]
    if paired:
        out += ["", ("full ÷ lunr.js is the median of the quotients of alternated pairs (a full build, then "
                "lunr.js); full and lunr.js above are each one's median run. The pairs: "
                + "; ".join(f"{papers:,} papers " + ", ".join(f"{x:.2f}×" for x in ratios) for papers, ratios in paired)
                + ".")]

    out += ["", ("| papers | build | papers built | time | ÷ full | whole process | CPU time | load at start "
            "| peak memory, PSS of all processes | peak RSS sum | processes "
            "| build process peak RSS (VmHWM) / ru_maxrss | files written / unchanged / removed |"),
            "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        for name in (*SCENARIOS, REFERENCE):
            b = r.get(name)
            if b is None:
                continue
            if "error" in b:
                out.append(f"| {r['papers']:,} | {name} | failed | – | – | – | – | – | {_mb(b['peak_pss_mb'])} "
                           f"| {_mb(b['peak_rss_sum_mb'])} | {b['processes']} | – | – |")
                continue
            ratio = _ratio(r, name)
            if name == REFERENCE:
                out.append(f"| {r['papers']:,} | {name} | {b['docs']:,} | {b['seconds']:.1f} s "
                           f"| {'–' if ratio is None else f'{ratio:.0%}'} | {b['process_seconds']:.1f} s "
                           f"| {b['cpu_s']:.1f} s | {b['load']:.1f} "
                           f"| {_mb(b['peak_pss_mb'])} "
                           f"| {_mb(b['peak_rss_sum_mb'])} | {b['processes']} | – | – |")
                continue
            out.append(f"| {r['papers']:,} | {name} | {b['papers']:,} | {b['seconds']:.1f} s "
                       f"| {'–' if ratio is None else f'{ratio:.0%}'} | {b['process_seconds']:.1f} s "
                       f"| {b['cpu_s']:.1f} s | {b['load']:.1f} "
                       f"| {_mb(b['peak_pss_mb'])} "
                       f"| {_mb(b['peak_rss_sum_mb'])} | {b['processes']} | {_mb(b.get('hwm_mb'))} / {_mb(b['maxrss_mb'])} | {_files(b)} |")

    out += ["", ("Time is wall-clock (what the targets are about), as the build measures it; whole process adds "
            "starting Python and importing papercat and its libraries, as `build.py` would. CPU time is user + system time, less sensitive to "
            "other work on the machine: of the build process's whole life (Python start and imports too) and its "
            "workers, for a build; of the build and serialisation alone, for lunr.js. Load is the 1-minute load "
            "average when the process started (2 cores)."),
            "", ("Peak memory is sampled from the benchmark process: the process tree and the sum of its resident "
            "sizes every 50 ms, the summed PSS (shared pages counted once) as often as 10 % of one core allows "
            "(reading smaps_rollup costs about 20 ms per GB resident): every 50 ms for small builds, less often for "
            "big ones, sooner when the RSS sum reaches a new high.")]

    builds = [(r, name) for r in rows for name in SCENARIOS if _ok(r.get(name))]
    steps = list(dict.fromkeys(step for r, name in builds for step in r[name]["steps"]))
    out += ["", f"| papers | build | {' | '.join(steps)} | total |",
            "| ---: | --- |" + " ---: |" * (len(steps) + 1)]
    for r, name in builds:
        b = r[name]
        out.append(f"| {r['papers']:,} | {name} | "
                   + " | ".join(f"{b['steps'][s]:.2f} s" if s in b["steps"] else "–" for s in steps)
                   + f" | {b['seconds']:.2f} s |")

    out += ["", "| target | measured | status |", "| --- | --- | --- |"]
    out += [f"| {t} | {m} | {s} |" for t, m, s in targets(rows)]
    return "\n".join(out)


def targets(rows: list[dict]) -> list[tuple[str, str, str]]:
    """Return (target, measured value, met / not met / not measured) for each target of the issue."""
    by_size = {r["papers"]: r for r in rows}
    found = []

    def at_target(need) -> tuple[dict | None, str]:
        """The row at TARGET_PAPERS if it has what ``need`` wants; else the largest that does, with a note."""
        if TARGET_PAPERS in by_size and need(by_size[TARGET_PAPERS]):
            return by_size[TARGET_PAPERS], ""
        usable = [r for r in rows if need(r)]
        return (usable[-1], f" (at {usable[-1]['papers']:,} papers)") if usable else (None, "")

    def status(met: bool, note: str) -> str:
        word = "met" if met else "**not met**"
        return f"not measured at {TARGET_PAPERS:,}; {word} at the size shown" if note else word

    n = f"{TARGET_PAPERS:,}"
    row, note = at_target(lambda r: lunr_ratio(r) is not None)
    target = f"full build of {n} papers ≤ {LUNR_RATIO}× lunr.js over the same abstracts"
    if row:
        ratios = pair_ratios(row)
        ratio = _lower_median(ratios)
        pairs = ("" if len(ratios) == 1 else f" (the median of {len(ratios)} alternated pairs: "
                 + ", ".join(f"{x:.2f}×" for x in ratios) + "; the times are each side's median)")
        found.append((target, (f"{row['full']['seconds']:.1f} s ÷ {row[REFERENCE]['seconds']:.1f} s; "
                      f"{ratio:.2f}×{pairs}{note}{_cpu_ratio(row['full'], row[REFERENCE], '.2f', '×')}"),
                      status(ratio <= LUNR_RATIO, note)))
    else:
        found.append((target, "–", "not measured"))
    for name, share, what in (("no change", NO_CHANGE_SHARE, "no-change rebuild"),
                              ("touched", NO_CHANGE_SHARE, "no-change rebuild with the site's files touched"),
                              ("add listing", ADD_SHARE, "adding a listing of 5 % more papers (1,000 at 20,000)")):
        row, note = at_target(lambda r, name=name: _ratio(r, name) is not None)
        target = f"{what} ≤ {share:.0%} of the full build ({n} papers)"
        if row:
            ratio = _ratio(row, name)
            found.append((target, (f"{row[name]['seconds']:.1f} s ÷ {row['full']['seconds']:.1f} s = {ratio:.1%}"
                          f"{' (+' + format(row['extra_papers'], ',') + ' papers)' if name == 'add listing' else ''}"
                          f"{note}{_cpu_ratio(row[name], row['full'], '.1%', '')}"), status(ratio <= share, note)))
        else:
            found.append((target, "–", "not measured"))
    def builds(r: dict) -> list[tuple[str, dict]]:  # every build measured, each full build of the pairs too
        return [(name, b) for name in SCENARIOS for b in r.get(f"{name} runs", [r[name]] if name in r else [])
                if _ok(b)]

    peak = lambda r: max((b["peak_pss_mb"] for _, b in builds(r)), default=None)
    row, note = at_target(lambda r: peak(r) is not None)
    target = f"peak memory of any build of {n} papers < {PEAK_MB / 1000} GB (PSS, workers included)"
    if row:
        worst = max(builds(row), key=lambda found: found[1]["peak_pss_mb"])[0]
        found.append((target, f"{peak(row):,.0f} MB ({worst}){note}", status(peak(row) < PEAK_MB, note)))
    else:
        found.append((target, "–", "not measured"))
    big = by_size.get(MUST_BUILD)
    target = f"{MUST_BUILD:,} papers build"
    if big is None or "full" not in big:
        found.append((target, "–", "not measured"))
    elif _ok(big["full"]):
        found.append((target, f"full build {big['full']['seconds']:.0f} s, peak {big['full']['peak_pss_mb']:,.0f} MB",
                      "met"))
    else:
        found.append((target, "full build failed", "**not met**"))
    per = [(r["papers"], 1000 * r["full"]["seconds"] / r["papers"]) for r in rows if _ok(r.get("full"))]
    target = (f"cost grows about linearly: ms per paper (full build) at the largest size ≤ {LINEAR_SLACK}× "
              "that at 10,000 papers (or the smallest size)")
    if len(per) >= 2:
        base = next((p for p in per if p[0] >= 10_000 and p != per[-1]), per[0])
        growth = per[-1][1] / base[1]
        cpu = {r["papers"]: 1000 * r["full"]["cpu_s"] / r["papers"] for r in rows if _ok(r.get("full"))}
        found.append((target, ", ".join(f"{s:,}: {ms:.2f}" for s, ms in per)
                      + f" ms/paper; {per[-1][0]:,} ÷ {base[0]:,} = {growth:.2f}×; CPU time "
                      + ", ".join(f"{s:,}: {ms:.2f}" for s, ms in cpu.items())
                      + f" ms/paper, {cpu[per[-1][0]] / cpu[base[0]]:.2f}×",
                      "met" if growth <= LINEAR_SLACK else "**not met**"))
    else:
        found.append((target, "–", "not measured (needs two sizes)"))
    return found


def _cpu_ratio(a: dict, b: dict, spec: str, unit: str) -> str:
    """Return "; CPU time a ÷ b = ratio", the same comparison less disturbed by other work on the machine."""
    if "cpu_s" not in a or "cpu_s" not in b:
        return ""
    return f"; CPU time {a['cpu_s']:.1f} s ÷ {b['cpu_s']:.1f} s = {format(a['cpu_s'] / b['cpu_s'], spec)}{unit}"


def _ram_gb() -> float:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1e9


def _node_version() -> str:
    try:
        return subprocess.run(["node", "--version"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "not found"


def main() -> None:
    """Parse the options, run the sizes, print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 20000, 50000],
                        help="catalog sizes in papers, before the extra listing (default: 1000 10000 20000 50000)")
    parser.add_argument("--scenarios", nargs="+", choices=(*SCENARIOS, REFERENCE), default=[*SCENARIOS, REFERENCE],
                        metavar="NAME", help=f"what to measure, of: {', '.join(repr(s) for s in (*SCENARIOS, REFERENCE))}"
                        " (default: all; 'no change' and 'add listing' also run 'cold')")
    parser.add_argument("--pairs", type=int, default=3, metavar="N",
                        help="measure the full build and lunr.js N times each, alternated, and take the medians "
                        "(default: 3)")
    parser.add_argument("--json", type=Path, help="also write the raw figures to this file")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:  # a child process measuring one build
        content, out, cache = args.child
        print(json.dumps(measure(Path(content), Path(out), Path(cache) if cache else None)))
        return
    from search_index import run_sizes

    started = time.perf_counter()
    run_sizes(sorted(args.sizes), bench_with(tuple(args.scenarios), max(1, args.pairs)), report, args.json)
    print(f"# all measured in {time.perf_counter() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
