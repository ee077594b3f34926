"""The build benchmark runs end to end at a tiny size for both catalogs, its real-text generator makes
abstracts shaped like real ones, and its memory sampler sees what a process holds.

No wall-clock time is asserted: only that every figure is there and has a sensible sign.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import realtext
from memory import PeakSampler, descendants, run_sampled
from papercat.content.listing import parse_listing

NUMBER = r"[\d,]+(?:\.\d+)?"

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="the lunr.js reference needs Node")


def rows_of(table_text: str, header_start: str) -> list[list[str]]:
    """Return the cells of the Markdown table whose header starts with ``header_start``."""
    lines = table_text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def seconds(cell: str) -> float:
    match = re.match(rf"({NUMBER}) s\b", cell)
    assert match, cell
    return float(match.group(1).replace(",", ""))


def megabytes(cell: str) -> float:
    match = re.match(rf"({NUMBER}) MB\b", cell)
    assert match, cell
    return float(match.group(1).replace(",", ""))


@needs_node
def test_build_benchmark_prints_every_figure_for_both_catalogs(tmp_path: Path, source_folder: Path) -> None:
    raw = tmp_path / "figures.json"
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "build.py"), "--sizes", "60",
                           "--pairs", "2", "--real-dev", str(source_folder), "--json", str(raw)],
                          check=False, capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("Machine: ")
    headings = [line for line in out.splitlines() if line.startswith("## ")]
    assert headings == ["## The synthetic catalog", "## The real catalog", "## Vocabulary"]
    synthetic, real = out.split("## The real catalog")
    figures = json.loads(raw.read_text())
    assert [(f["text"], f["papers"]) for f in figures] == [("synthetic", 60), ("real", 60)]
    check_catalog_report(synthetic.split("## The synthetic catalog")[1], figures[0])
    check_catalog_report(real.split("## Vocabulary")[0], figures[1])

    vocabulary = rows_of(out, "| catalog | papers | distinct terms |")
    assert [row[:2] for row in vocabulary] == [["real-dev (the real abstracts)", "57"], ["synthetic", "60"],
                                               ["real", "60"]]
    assert all(int(row[2].replace(",", "")) > 500 for row in vocabulary)


def check_catalog_report(out: str, figures: dict) -> None:
    """Check one catalog's section of the report at 60 papers and its raw figures."""
    times = rows_of(out, "| papers | full | cold cache |")
    assert len(times) == 1
    papers, full, cold, no_change, touched, add, lunr, vs_lunr, per_paper = times[0][:9]
    assert papers == "60"
    assert seconds(full) > 0
    for cell in (cold, no_change, touched, add):
        assert re.match(rf"{NUMBER} s \({NUMBER}%\)", cell), cell
    assert "(+3)" in add  # 5 % of 60 papers
    assert seconds(lunr) > 0 or float(figures["lunr.js"]["seconds"]) > 0
    assert re.fullmatch(rf"{NUMBER}×", vs_lunr) and float(vs_lunr[:-1]) > 0
    wall_ms, cpu_ms = re.fullmatch(rf"({NUMBER}) \(CPU ({NUMBER})\)", per_paper).groups()
    assert float(wall_ms) > 0 and float(cpu_ms) > 0
    assert "fields title^10, names^5, abstract^1" in out
    assert re.search(rf"The pairs: 60 papers {NUMBER}×, {NUMBER}×\.", out)

    builds = rows_of(out, "| papers | build | papers built |")
    assert [row[1] for row in builds] == ["full", "cold", "no change", "touched", "add listing", "lunr.js"]
    for row in builds:
        assert seconds(row[3]) >= 0 and seconds(row[6]) >= 0, row  # wall and CPU time
        assert seconds(row[5]) >= seconds(row[3]), row  # the whole process includes the build
        assert megabytes(row[8]) > 0, row  # peak PSS of the build and its workers
        assert megabytes(row[9]) >= megabytes(row[8]) * 0.9, row  # the RSS sum counts shared pages in full
        assert int(row[10]) >= 1
    assert [row[2] for row in builds] == ["60", "60", "60", "60", "63", "60"]
    for row in builds[2:4]:  # no change, touched: nothing changed, nothing rewritten
        written, unchanged, removed = (int(n.replace(",", "")) for n in row[12].split(" / "))
        assert written == 0 and unchanged > 0 and removed == 0, row

    stage_header = next(line for line in out.splitlines()
                        if line.startswith("| papers | build |") and "papers built" not in line)
    steps = rows_of(out, stage_header)
    assert [row[1] for row in steps] == ["full", "cold", "no change", "touched", "add listing"]
    assert "check" in stage_header, "the no-change build only checks that the site is up to date"
    for row in steps:
        assert all(seconds(cell) >= 0 for cell in row[2:] if cell != "–")

    targets = rows_of(out, "| target | measured | status |")
    assert len(targets) == 7
    assert all(row[2] for row in targets)
    assert "2.0× lunr.js" in targets[0][0] and re.search(rf"= {NUMBER}×", targets[0][1])
    assert "≤ 25% of the full build" in targets[3][0]

    assert figures["papers"] == 60 and figures["distinct_terms"] > 0
    assert figures["full"]["peak_pss_mb"] > 0 and figures["lunr.js"]["seconds"] > 0


ALLOCATE = """
import os, sys, time
held = bytearray(b"x") * (200 << 20)  # 200 MiB, every page touched
sys.stdout.write("ready\\n"); sys.stdout.flush()
time.sleep(1.0)
"""

FORK = """
import os, time
shared = bytearray(b"x") * (100 << 20)  # 100 MiB, then shared with a forked child: counted once
pid = os.fork()
if pid == 0:
    own = bytearray(b"y") * (100 << 20)  # the child's own 100 MiB
    time.sleep(1.0)
    os._exit(0)
time.sleep(1.0)
os.waitpid(pid, 0)
"""


def test_sampler_sees_a_process_allocating_200_mb() -> None:
    _, figures = run_sampled([sys.executable, "-c", ALLOCATE])
    assert figures["peak_pss_mb"] >= 180, figures
    assert figures["peak_rss_sum_mb"] >= 180, figures
    assert figures["samples"] >= 5 and figures["pss_samples"] >= 1


def test_sampler_counts_forked_workers_once() -> None:
    _, figures = run_sampled([sys.executable, "-c", FORK])
    assert figures["processes"] == 2, figures
    mib = figures["peak_pss_mb"] * 1e6 / (1 << 20)
    assert 195 <= mib < 290, figures  # 100 shared + 100 own, plus two interpreters; not 300


def test_descendants_finds_grandchildren() -> None:
    code = "import subprocess, sys, time; p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(5)']); " \
           "print(p.pid, flush=True); time.sleep(5)"
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        grandchild = int(parent.stdout.readline())
        found = descendants(parent.pid)
        assert parent.pid in found and grandchild in found
        sampler = PeakSampler(parent.pid)
        figures = sampler.stop()
        assert figures["processes"] == 2 and figures["peak_pss_mb"] > 0
    finally:
        parent.kill()
        parent.wait()
        try:
            os.kill(grandchild, signal.SIGKILL)
        except ProcessLookupError:
            pass


# ---------------------------------------------------------------------------------------------
# The real-text catalog (realtext.py), made here from the bundled listings' abstracts so that the
# tests need no real-dev folder; one test also reads real-dev itself when it is there.

@pytest.fixture(scope="module")
def source_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder shaped like real-dev, holding the bundled catalog's abstracts."""
    folder = tmp_path_factory.mktemp("real-dev")
    shutil.copytree(ROOT / "content" / "listings", folder / "listings")
    return folder


@pytest.fixture(scope="module")
def source(source_folder: Path) -> realtext.Source:
    return realtext.load_source(source_folder)


def test_real_text_is_deterministic_for_a_seed(source_folder: Path) -> None:
    first = realtext.make_abstracts(120, source_folder)
    assert first == realtext.make_abstracts(120, source_folder)
    assert first != realtext.make_abstracts(120, source_folder, seed=7)
    assert len(set(first)) == 120


def test_real_text_keeps_the_sources_lengths(source_folder: Path) -> None:
    real = realtext.read_abstracts(source_folder)
    made = realtext.make_abstracts(600, source_folder)
    counts = lambda texts: sorted(len(realtext.split_sentences(t)) for t in texts)
    assert statistics.median(counts(made)) == pytest.approx(statistics.median(counts(real)), abs=1)
    for made_q, real_q in zip(realtext.length_quartiles(made), realtext.length_quartiles(real)):
        assert made_q == pytest.approx(real_q, rel=0.15), (made_q, real_q)


def test_real_text_draws_each_abstract_from_many_real_ones(source: realtext.Source) -> None:
    made = realtext.Generator(source).abstract()
    sentences = realtext.split_sentences(made)
    assert len(sentences) >= 3
    real = realtext.read_abstracts(ROOT / "content")
    assert not any(made[:60] in text and made[-60:] in text for text in real)


def test_real_text_keeps_real_devs_lengths() -> None:
    try:
        folder = realtext.find_real_dev()
    except realtext.RealDevMissing as missing:
        pytest.skip(str(missing))
    real = realtext.read_abstracts(folder)
    made = realtext.make_abstracts(1000, folder)
    for made_q, real_q in zip(realtext.length_quartiles(made), realtext.length_quartiles(real)):
        assert made_q == pytest.approx(real_q, rel=0.08)


def test_real_text_vocabulary_grows_with_the_catalog(source: realtext.Source) -> None:
    generator, seen, distinct = realtext.Generator(source), set(), {}
    for size in (source.abstracts, 4 * source.abstracts, 16 * source.abstracts):
        while generator.papers < size:
            seen |= realtext.term_set(generator.abstract())
        distinct[size] = len(seen)
    sizes = sorted(distinct)
    assert distinct[sizes[0]] < distinct[sizes[1]] < distinct[sizes[2]], distinct
    beta = math.log(distinct[sizes[2]] / distinct[sizes[1]]) / math.log(4)
    assert beta > 0.3, distinct  # Heaps' law: sentences drawn again would saturate (beta near 0)


def test_every_real_text_abstract_is_a_listing_entry(tmp_path: Path, source_folder: Path) -> None:
    realtext.make_listings(tmp_path, 203, source_folder)
    entries = 0
    for path in sorted((tmp_path / "listings").glob("*.txt")):
        listing, problems = parse_listing(path.read_bytes(), path.name)
        assert problems == [] and listing is not None, problems
        assert listing.header == f"{listing.venue.name} {listing.venue.year} Papers"
        entries += len(listing.entries)
    assert entries == 203
    assert sorted(p.name for p in (tmp_path / "listings").glob("*.txt")) == sorted(
        f"{v.replace(' ', '_')}.txt" for v in realtext.VENUES)
    assert (tmp_path / "topics.yaml").is_file()


def test_every_real_text_paper_has_a_new_coined_name(source: realtext.Source) -> None:
    generator = realtext.Generator(source)
    made = [generator.abstract() for _ in range(150)]
    assert len(generator.names) == 150
    real = realtext.read_abstracts(ROOT / "content")
    real_words = {word for text in real for word in realtext.WORD.findall(text)}
    assert not generator.names & real_words
    for text in made:
        assert any(name in text for name in generator.names), text
    assert all(realtext.NAME.search(name) or name.isupper() for name in generator.names)


def test_a_missing_real_dev_folder_says_where_it_looked(tmp_path: Path) -> None:
    with pytest.raises(realtext.RealDevMissing) as missing:
        realtext.find_real_dev(tmp_path / "nowhere")
    assert str(tmp_path / "nowhere") in str(missing.value) and "--real-dev" in str(missing.value)


def test_build_benchmark_stops_at_once_without_real_dev(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "build.py"), "--sizes", "60",
                           "--real-dev", str(tmp_path / "nowhere")],
                          check=False, capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode != 0 and done.stdout == ""
    assert "real-dev abstracts not found" in done.stderr and "Traceback" not in done.stderr


def test_report_shows_only_the_catalogs_measured() -> None:
    from build_report import report

    row = {"text": "real", "papers": 60, "extra_papers": 3, "distinct_terms": 2000,
           "real_dev": {"papers": 57, "distinct_terms": 1900, "heaps_beta": 0.6}}
    out = report([row])
    assert [line for line in out.splitlines() if line.startswith("## ")] == ["## The real catalog", "## Vocabulary"]
    assert all(status.startswith("not measured") for _, _, status in rows_of(out, "| target | measured |"))
    assert rows_of(out, "| catalog | papers | distinct terms |")[1] == ["real", "60", "2,000", "–"]
