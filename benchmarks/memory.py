"""Peak memory of a process and all its descendants (worker processes too), sampled from outside.

``PeakSampler(pid)`` starts a thread that, every ``interval`` seconds, sums the proportional set
size (Pss of /proc/<pid>/smaps_rollup) of the process and of every process below it, and keeps
the largest sum. PSS divides each page shared by several processes (a forked worker's copy-on-write
pages) among them, so the sum counts every page once: what the build costs the machine, unlike the
sum of resident sizes. A peak shorter than the interval can be missed. Linux only.
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
    try:
        with open(PROC / str(pid) / "smaps_rollup", encoding="ascii") as f:
            for line in f:
                if line.startswith("Pss:"):
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
    """Sample the summed PSS of a process tree from a thread until ``stop()``; keep the peak."""

    def __init__(self, pid: int, interval: float = 0.05) -> None:
        self.pid = pid
        self.interval = interval
        self.peak_kb = 0
        self.max_processes = 0
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def sample(self) -> int:
        """Take one sample now; return the summed PSS in KB."""
        sizes = [kb for kb in map(pss_kb, descendants(self.pid)) if kb is not None]
        total = sum(sizes)
        if sizes:
            self.samples += 1
            self.peak_kb = max(self.peak_kb, total)
            self.max_processes = max(self.max_processes, len(sizes))
        return total

    def _run(self) -> None:
        while True:
            self.sample()
            if self._stop.wait(self.interval):
                return

    def stop(self) -> dict:
        """Stop sampling; return the peak in MB (10**6 bytes), the most processes seen, the samples."""
        self._stop.set()
        self._thread.join()
        return {"peak_pss_mb": self.peak_kb * 1024 / 1e6, "processes": self.max_processes, "samples": self.samples}


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
