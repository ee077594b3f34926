"""Peak memory of a process and all its descendants (worker processes too), sampled from outside.

``PeakSampler(pid)`` starts a thread that sums the proportional set size (Pss of
/proc/<pid>/smaps_rollup) of the process and of every process below it, and keeps the largest sum;
it also sums their resident sizes every ``interval`` seconds (PeakSampler says how often it reads
PSS). PSS divides each page shared by several processes (a forked worker's copy-on-write pages)
among them, so the sum counts every page once: what the build costs the machine, unlike the sum of
resident sizes. A peak shorter than the time between two samples can be missed. Linux only.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path

PROC = Path("/proc")


def pss_kb(pid: int) -> int | None:
    """Return a process's proportional set size in KB, or None if it is gone (or is a zombie)."""
    return _field_kb(pid, "smaps_rollup", "Pss:")


def rss_kb(pid: int) -> int | None:
    """Return a process's resident size (VmRSS) in KB, or None if it is gone (or is a zombie)."""
    return _field_kb(pid, "status", "VmRSS:")


def _field_kb(pid: int, file: str, field: str) -> int | None:
    """Return the number after ``field`` in /proc/<pid>/<file>, or None."""
    try:
        with open(PROC / str(pid) / file, encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def descendants(pid: int) -> list[int]:
    """Return ``pid`` and every process below it (children, grandchildren, ...), from /proc/*/stat."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir(PROC):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"{entry.path}/stat", encoding="utf-8", errors="replace") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2:].split(maxsplit=2)[1])  # the command may hold spaces and ")"
        children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo += children.get(p, [])
    return found


class PeakSampler:
    """Sample the memory of a process tree from a thread until ``stop()``; keep the peaks.

    Every ``interval`` seconds it finds the tree's processes and sums their resident sizes (VmRSS,
    cheap to read). The summed PSS is the figure that counts shared pages once, but the kernel walks
    every page to make smaps_rollup: about 20 ms per GB resident, which every 50 ms would take a
    third of a core from the build at 1.5 GB. So PSS is read as often as ``pss_share`` of one core
    allows (every tick for a small tree), and sooner, within twice that, when the RSS sum has grown
    2 % past the largest one PSS was read at: the peak is where memory grows.
    """

    def __init__(self, pid: int, interval: float = 0.05, pss_share: float = 0.1) -> None:
        self.pid = pid
        self.interval = interval
        self.pss_share = pss_share
        self.peak_kb = 0  # summed PSS
        self.peak_rss_kb = 0  # summed VmRSS
        self.max_processes = 0
        self.samples = self.pss_samples = 0
        self.pss_seconds = 0.0  # time spent reading smaps_rollup
        self.cpu_seconds = 0.0  # the sampler thread's CPU time
        self._rss_at_pss = 0
        self._start = time.perf_counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def sample(self, pss: bool | None = True) -> None:
        """Take one sample now: the RSS sum, and the PSS sum if ``pss`` (None: if the budget allows)."""
        pids = descendants(self.pid)
        rss = [kb for kb in map(rss_kb, pids) if kb is not None]
        if not rss:
            return
        self.samples += 1
        self.peak_rss_kb = max(self.peak_rss_kb, sum(rss))
        self.max_processes = max(self.max_processes, len(rss))
        if pss or (pss is None and self._due(sum(rss))):
            started = time.perf_counter()
            sizes = [kb for kb in map(pss_kb, pids) if kb is not None]
            self.pss_seconds += time.perf_counter() - started
            if sizes:
                self.pss_samples += 1
                self.peak_kb = max(self.peak_kb, sum(sizes))
                self._rss_at_pss = max(self._rss_at_pss, sum(rss))

    def _due(self, rss: int) -> bool:
        """Whether reading PSS now keeps within the budget (or twice it, when the RSS sum is at a new high)."""
        budget = self.pss_share * (time.perf_counter() - self._start)
        return self.pss_seconds <= budget or (self.pss_seconds <= 2 * budget and rss > 1.02 * self._rss_at_pss)

    def _run(self) -> None:
        cpu = time.thread_time()
        while True:
            self.sample(pss=None)
            if self._stop.wait(self.interval):
                self.cpu_seconds = time.thread_time() - cpu
                return

    def stop(self) -> dict:
        """Stop sampling; return the peaks in MB (10**6 bytes) and how the sampling went."""
        self._stop.set()
        self._thread.join()
        return {"peak_pss_mb": self.peak_kb * 1024 / 1e6, "peak_rss_sum_mb": self.peak_rss_kb * 1024 / 1e6,
                "processes": self.max_processes, "samples": self.samples, "pss_samples": self.pss_samples,
                "sampler_cpu_s": self.cpu_seconds}


def run_sampled(command: list[str], interval: float = 0.05, **kwargs) -> tuple[subprocess.CompletedProcess, dict]:
    """Run ``command`` (stdout and stderr captured as text) while sampling its tree's PSS.

    Returns the completed process (not checked) and the sampler's figures plus "seconds" of wall time.
    """
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)
    sampler = PeakSampler(process.pid, interval)
    try:
        stdout, stderr = process.communicate()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        figures = sampler.stop()
    figures["seconds"] = time.perf_counter() - started
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr), figures
