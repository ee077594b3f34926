"""The build benchmark's report: Markdown tables of times, memory, steps and the targets, per catalog.

A row is one catalog size of one catalog text (``row["text"]``: "synthetic" or "real"), as
build.py measures it; the report renders rows only, so a saved ``--json`` file renders again.
"""

from __future__ import annotations

import math
import os
import platform
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from catalogs import DESCRIPTIONS, TEXTS

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ("full", "cold", "no change", "touched", "add listing")
REFERENCE = "lunr.js"
LUNR_SCRIPT = ROOT / "benchmarks" / "lunrjs_reference.js"
# The targets: time ratios to the full build, at TARGET_PAPERS papers.
TARGET_PAPERS = 20_000
LUNR_RATIO, NO_CHANGE_SHARE, ADD_SHARE, PEAK_MB, MUST_BUILD = 2.0, 0.05, 0.25, 1500, 50_000
LINEAR_SLACK = 1.25  # "about linear": ms per paper at the largest size at most this times that at 10,000


def lower_median(values: list, key: Callable | None = None) -> Any:
    """Return the median of ``values`` (the lower of the two middle ones for an even count)."""
    return sorted(values, key=key)[(len(values) - 1) // 2]


def ok(b: dict | None) -> bool:
    return b is not None and "error" not in b


def pair_ratios(row: dict) -> list[float]:
    """Return full build ÷ lunr.js of each alternated pair measured, if all of them succeeded."""
    runs = list(zip(row.get("full runs", []), row.get(f"{REFERENCE} runs", [])))
    if not runs or not all(ok(a) and ok(b) for a, b in runs):
        return []
    return [a["seconds"] / b["seconds"] for a, b in runs]


def lunr_ratio(row: dict) -> float | None:
    """Return the median of the pairs' full build ÷ lunr.js (the lower middle one for an even count)."""
    ratios = pair_ratios(row)
    return lower_median(ratios) if ratios else None


def report(rows: list[dict]) -> str:
    """Return the figures as Markdown: the machine, then each catalog's tables, then the vocabularies."""
    out = [(f"Machine: {os.cpu_count()} cores, {_ram_gb():.0f} GB RAM, Python {platform.python_version()}, "
            f"Node {_node_version()}; MB = 10^6 bytes.")]
    for text in TEXTS:
        mine = [r for r in rows if r.get("text", "synthetic") == text]
        if mine:
            out += ["", f"## The {text} catalog", "", f"Made by {DESCRIPTIONS[text]}.", "", catalog_report(mine)]
    out += ["", "## Vocabulary", "", vocabulary_table(rows)]
    return "\n".join(out)


def catalog_report(rows: list[dict]) -> str:
    """Return one catalog's tables: times, memory and files, steps, then the targets."""
    out = times_table(rows) + _reference_notes(rows) + builds_table(rows) + _builds_notes() + steps_table(rows)
    out += ["", "| target | measured | status |", "| --- | --- | --- |"]
    out += [f"| {t} | {m} | {s} |" for t, m, s in targets(rows)]
    return "\n".join(out)


def times_table(rows: list[dict]) -> list[str]:
    """Return the table of each size's build times, its lunr.js reference and sizes on disk."""
    out = [("| papers | full | cold cache | no change | touched | add listing (+5 %) | lunr.js reference "
            "| full ÷ lunr.js | ms per paper, full (CPU) | cache size | site size |"),
           "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        lunr = r.get(REFERENCE)
        lunr_cell = ("–" if lunr is None else "failed" if "error" in lunr else f"{lunr['seconds']:.1f} s")
        ratio = lunr_ratio(r)
        vs = f"{ratio:.2f}×" if ratio is not None else "–"
        per = (f"{1000 * r['full']['seconds'] / r['papers']:.2f} (CPU {1000 * r['full']['cpu_s'] / r['papers']:.2f})"
               if ok(r.get("full")) else "–")
        out.append(f"| {r['papers']:,} | {_cell(r, 'full')} | {_cell(r, 'cold')} | {_cell(r, 'no change')} "
                   f"| {_cell(r, 'touched')} | {_cell(r, 'add listing')} (+{r['extra_papers']:,}) | {lunr_cell} | {vs} "
                   f"| {per} | {_mb(r.get('cache_mb'))} | {_mb(r.get('site_mb'))} |")
    return out


def _reference_notes(rows: list[dict]) -> list[str]:
    out = []
    lunrs = [r[REFERENCE] for r in rows if ok(r.get(REFERENCE))]
    if lunrs:
        out += ["", f"lunr.js reference: {LUNR_SCRIPT.relative_to(ROOT)}, lunr.js 2.3.9 in Node, one index with "
                f"ref id and fields {', '.join(lunrs[0]['fields'])} (title: the abstract's first sentence; names: its "
                "coined mixed-case words), build + JSON.stringify, file reading excluded. Abstract field alone: "
                + ", ".join(f"{r['papers']:,} papers {r[REFERENCE]['abstract_only_seconds']:.1f} s"
                            for r in rows if ok(r.get(REFERENCE))) + "."]
    paired = [(r["papers"], ratios) for r in rows if len(ratios := pair_ratios(r)) > 1]
    if paired:
        out += ["", ("full ÷ lunr.js is the median of the quotients of alternated pairs (a full build, then "
                "lunr.js); full and lunr.js above are each one's median run. The pairs: "
                + "; ".join(f"{papers:,} papers " + ", ".join(f"{x:.2f}×" for x in ratios) for papers, ratios in paired)
                + ".")]
    return out


def builds_table(rows: list[dict]) -> list[str]:
    """Return the table of every build's time, CPU, load, memory and files."""
    out = ["", ("| papers | build | papers built | time | ÷ full | whole process | CPU time | load at start "
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
            built = b["docs"] if name == REFERENCE else b["papers"]
            own = "– | –" if name == REFERENCE else f"{_mb(b.get('hwm_mb'))} / {_mb(b['maxrss_mb'])} | {_files(b)}"
            out.append(f"| {r['papers']:,} | {name} | {built:,} | {b['seconds']:.1f} s "
                       f"| {'–' if ratio is None else f'{ratio:.0%}'} | {b['process_seconds']:.1f} s "
                       f"| {b['cpu_s']:.1f} s | {b['load']:.1f} "
                       f"| {_mb(b['peak_pss_mb'])} "
                       f"| {_mb(b['peak_rss_sum_mb'])} | {b['processes']} | {own} |")
    return out


def _builds_notes() -> list[str]:
    return ["", ("Time is wall-clock (what the targets are about), as the build measures it; whole process adds "
            "starting Python and importing papercat and its libraries, as `build.py` would. CPU time is user + system time, less sensitive to "
            "other work on the machine: of the build process's whole life (Python start and imports too) and its "
            "workers, for a build; of the build and serialisation alone, for lunr.js. Load is the 1-minute load "
            "average when the process started (2 cores)."),
            "", ("Peak memory is sampled from the benchmark process: the process tree and the sum of its resident "
            "sizes every 50 ms, the summed PSS (shared pages counted once) as often as 10 % of one core allows "
            "(reading smaps_rollup costs about 20 ms per GB resident): every 50 ms for small builds, less often for "
            "big ones, sooner when the RSS sum reaches a new high.")]


def steps_table(rows: list[dict]) -> list[str]:
    """Return the table of each build's steps, as the build times them."""
    builds = [(r, name) for r in rows for name in SCENARIOS if ok(r.get(name))]
    steps = list(dict.fromkeys(step for r, name in builds for step in r[name]["steps"]))
    out = ["", f"| papers | build | {' | '.join(steps)} | total |",
           "| ---: | --- |" + " ---: |" * (len(steps) + 1)]
    for r, name in builds:
        b = r[name]
        out.append(f"| {r['papers']:,} | {name} | "
                   + " | ".join(f"{b['steps'][s]:.2f} s" if s in b["steps"] else "–" for s in steps)
                   + f" | {b['seconds']:.2f} s |")
    return out


def vocabulary_table(rows: list[dict]) -> str:
    """Return the distinct terms of each catalog measured, and of real-dev itself, with their growth."""
    out = ["| catalog | papers | distinct terms | growth exponent from the size before |", "| --- | ---: | ---: | ---: |"]
    real_dev = next((r["real_dev"] for r in rows if r.get("real_dev")), None)
    if real_dev:
        out.append(f"| real-dev (the real abstracts) | {real_dev['papers']:,} | {real_dev['distinct_terms']:,} "
                   f"| {real_dev['heaps_beta']:.2f} (within real-dev) |")
    for text in TEXTS:
        before = None
        for r in (r for r in rows if r.get("text", "synthetic") == text and r.get("distinct_terms")):
            growth = ("–" if before is None else
                      f"{math.log(r['distinct_terms'] / before[1]) / math.log(r['papers'] / before[0]):.2f}")
            out.append(f"| {text} | {r['papers']:,} | {r['distinct_terms']:,} | {growth} |")
            before = (r["papers"], r["distinct_terms"])
    return "\n".join(out + ["", ("Distinct terms: the abstracts' words lower-cased and split as lunr.js splits "
                                 "them (at spaces and hyphens), punctuation trimmed, before stemming; the "
                                 "growth exponent is Heaps' law's β between two sizes.")])


def targets(rows: list[dict]) -> list[tuple[str, str, str]]:
    """Return (target, measured value, met / not met / not measured) for each target of the issue."""
    return [_lunr_target(rows), *_share_targets(rows), _peak_target(rows), _must_build_target(rows),
            _linear_target(rows)]


def _at_target(rows: list[dict], need: Callable[[dict], bool]) -> tuple[dict | None, str]:
    """The row at TARGET_PAPERS if it has what ``need`` wants; else the largest that does, with a note."""
    by_size = {r["papers"]: r for r in rows}
    if TARGET_PAPERS in by_size and need(by_size[TARGET_PAPERS]):
        return by_size[TARGET_PAPERS], ""
    usable = [r for r in rows if need(r)]
    return (usable[-1], f" (at {usable[-1]['papers']:,} papers)") if usable else (None, "")


def _status(met: bool, note: str) -> str:
    word = "met" if met else "**not met**"
    return f"not measured at {TARGET_PAPERS:,}; {word} at the size shown" if note else word


def _lunr_target(rows: list[dict]) -> tuple[str, str, str]:
    row, note = _at_target(rows, lambda r: lunr_ratio(r) is not None)
    target = f"full build of {TARGET_PAPERS:,} papers ≤ {LUNR_RATIO}× lunr.js over the same abstracts"
    if not row:
        return target, "–", "not measured"
    ratios = pair_ratios(row)
    ratio = lower_median(ratios)
    pairs = ("" if len(ratios) == 1 else f" (the median of {len(ratios)} alternated pairs: "
             + ", ".join(f"{x:.2f}×" for x in ratios) + "; the times are each side's median)")
    return (target, (f"{row['full']['seconds']:.1f} s ÷ {row[REFERENCE]['seconds']:.1f} s; "
                     f"{ratio:.2f}×{pairs}{note}{_cpu_ratio(row['full'], row[REFERENCE], '.2f', '×')}"),
            _status(ratio <= LUNR_RATIO, note))


def _share_targets(rows: list[dict]) -> list[tuple[str, str, str]]:
    found = []
    for name, share, what in (("no change", NO_CHANGE_SHARE, "no-change rebuild"),
                              ("touched", NO_CHANGE_SHARE, "no-change rebuild with the site's files touched"),
                              ("add listing", ADD_SHARE, "adding a listing of 5 % more papers (1,000 at 20,000)")):
        row, note = _at_target(rows, lambda r, name=name: _ratio(r, name) is not None)
        target = f"{what} ≤ {share:.0%} of the full build ({TARGET_PAPERS:,} papers)"
        if not row:
            found.append((target, "–", "not measured"))
            continue
        ratio = _ratio(row, name)
        found.append((target, (f"{row[name]['seconds']:.1f} s ÷ {row['full']['seconds']:.1f} s = {ratio:.1%}"
                      f"{' (+' + format(row['extra_papers'], ',') + ' papers)' if name == 'add listing' else ''}"
                      f"{note}{_cpu_ratio(row[name], row['full'], '.1%', '')}"), _status(ratio <= share, note)))
    return found


def _builds(r: dict) -> list[tuple[str, dict]]:
    """Every build measured of a row, each full build of the pairs too."""
    return [(name, b) for name in SCENARIOS for b in r.get(f"{name} runs", [r[name]] if name in r else []) if ok(b)]


def _peak_target(rows: list[dict]) -> tuple[str, str, str]:
    peak = lambda r: max((b["peak_pss_mb"] for _, b in _builds(r)), default=None)
    row, note = _at_target(rows, lambda r: peak(r) is not None)
    target = f"peak memory of any build of {TARGET_PAPERS:,} papers < {PEAK_MB / 1000} GB (PSS, workers included)"
    if not row:
        return target, "–", "not measured"
    worst = max(_builds(row), key=lambda found: found[1]["peak_pss_mb"])[0]
    return target, f"{peak(row):,.0f} MB ({worst}){note}", _status(peak(row) < PEAK_MB, note)


def _must_build_target(rows: list[dict]) -> tuple[str, str, str]:
    big = {r["papers"]: r for r in rows}.get(MUST_BUILD)
    target = f"{MUST_BUILD:,} papers build"
    if big is None or "full" not in big:
        return target, "–", "not measured"
    if ok(big["full"]):
        return target, f"full build {big['full']['seconds']:.0f} s, peak {big['full']['peak_pss_mb']:,.0f} MB", "met"
    return target, "full build failed", "**not met**"


def _linear_target(rows: list[dict]) -> tuple[str, str, str]:
    per = [(r["papers"], 1000 * r["full"]["seconds"] / r["papers"]) for r in rows if ok(r.get("full"))]
    target = (f"cost grows about linearly: ms per paper (full build) at the largest size ≤ {LINEAR_SLACK}× "
              "that at 10,000 papers (or the smallest size)")
    if len(per) < 2:
        return target, "–", "not measured (needs two sizes)"
    base = next((p for p in per if p[0] >= 10_000 and p != per[-1]), per[0])
    growth = per[-1][1] / base[1]
    cpu = {r["papers"]: 1000 * r["full"]["cpu_s"] / r["papers"] for r in rows if ok(r.get("full"))}
    return (target, ", ".join(f"{s:,}: {ms:.2f}" for s, ms in per)
            + f" ms/paper; {per[-1][0]:,} ÷ {base[0]:,} = {growth:.2f}×; CPU time "
            + ", ".join(f"{s:,}: {ms:.2f}" for s, ms in cpu.items())
            + f" ms/paper, {cpu[per[-1][0]] / cpu[base[0]]:.2f}×",
            "met" if growth <= LINEAR_SLACK else "**not met**")


def _ratio(row: dict, name: str) -> float | None:
    """Return a scenario's time over the full build's, if both were measured."""
    if ok(row.get(name)) and ok(row.get("full")):
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
