"""The build benchmark runs end to end at a tiny size, and its memory sampler sees what a process holds.

No wall-clock time is asserted: only that every figure is there and has a sensible sign.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from memory import PeakSampler, descendants, run_sampled

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
def test_build_benchmark_prints_every_figure(tmp_path: Path) -> None:
    raw = tmp_path / "figures.json"
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "build.py"), "--sizes", "60", "--json", str(raw)],
                          check=False, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    out = done.stdout

    times = rows_of(out, "| papers | full | cold cache |")
    assert len(times) == 1
    papers, full, cold, no_change, touched, add, lunr, vs_lunr, per_paper = times[0][:9]
    assert papers == "60"
    assert seconds(full) > 0
    for cell in (cold, no_change, touched, add):
        assert re.match(rf"{NUMBER} s \({NUMBER}%\)", cell), cell
    assert "(+3)" in add  # 5 % of 60 papers
    assert seconds(lunr) > 0 or float(json.loads(raw.read_text())[0]["lunr.js"]["seconds"]) > 0
    assert re.fullmatch(rf"{NUMBER}×", vs_lunr) and float(vs_lunr[:-1]) > 0
    wall_ms, cpu_ms = re.fullmatch(rf"({NUMBER}) \(CPU ({NUMBER})\)", per_paper).groups()
    assert float(wall_ms) > 0 and float(cpu_ms) > 0
    assert "fields title^10, names^5, abstract^1" in out

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
    assert "1.5× lunr.js" in targets[0][0] and re.search(rf"= {NUMBER}×", targets[0][1])

    figures = json.loads(raw.read_text())
    assert figures[0]["papers"] == 60
    assert figures[0]["full"]["peak_pss_mb"] > 0 and figures[0]["lunr.js"]["seconds"] > 0


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
