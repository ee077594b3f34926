"""A build's progress on stderr: a bar per stage on a terminal, one plain line per stage elsewhere.

The build names its stages (``with progress.stage("rendering", total=n) as bar:``) and reports
work done (``bar.advance()``); the ``Progress`` it is given decides what, if anything, is shown.
``Progress`` itself shows nothing (tests, ``serve``, ``--quiet``). ``terminal_progress`` picks
``BarProgress`` on an interactive terminal and ``LineProgress`` everywhere else (CI logs, pipes,
``TERM=dumb``, ``NO_COLOR``), which writes no carriage returns and no escape sequences.

``advance`` may be called once per paper or per page, 100,000 times in a build, so it only adds
to a counter: a bar is redrawn by a ticker thread at most ``REDRAWS_PER_SECOND`` times a second,
which also keeps the elapsed time moving during a stage that reports no counts.
"""

from __future__ import annotations

import logging
import os
import shutil
import threading
import time
from collections.abc import Callable
from typing import TextIO

REDRAWS_PER_SECOND = 10
BAR_WIDTH = 20
NAME_WIDTH = 10  # the longest stage name, "enriching", and a space
SPINNER = "|/-\\"


class Stage:
    """One named stage of a build: counts the items done; this base class shows nothing."""

    def __init__(self, name: str, total: int | None = None, unit: str = "items") -> None:
        self.name = name
        self.total = total
        self.unit = unit
        self.done = 0
        self.text = ""  # the latest note

    def __enter__(self) -> Stage:  # noqa: PYI034 - subclasses return themselves as a Stage
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        pass

    def advance(self, n: int = 1) -> None:
        """Count ``n`` more items done."""
        self.done += n

    def set_total(self, total: int) -> None:
        """Set the number of items, once it is known."""
        self.total = total

    def note(self, text: str) -> None:
        """Say what is being done now, e.g. "keyphrases" during "enriching"."""
        self.text = text

    def restart(self, text: str) -> None:
        """Count from 0 again, for the next pass over the same items, named ``text`` ("titles")."""
        self.done = 0
        self.note(text)


class Progress:
    """Reports a build's progress; this base class reports nothing (used for tests, serve, --quiet)."""

    def stage(self, name: str, total: int | None = None, unit: str = "items") -> Stage:
        """Return a context manager for the stage ``name`` of ``total`` items (None: not known yet)."""
        return Stage(name, total, unit)

    def echo(self, text: str) -> None:
        """Write a line of text (a log record) where it does not garble a bar; here, nowhere."""


NO_PROGRESS = Progress()


def count(stage: Stage) -> str:
    """Return "20,052 pages" for a stage that counted items, else ""."""
    return f"{stage.done:,} {stage.unit}" if stage.done or stage.total else ""


class LineProgress(Progress):
    """Plain lines, one per finished stage (and, when verbose, one per start and per note)."""

    def __init__(self, stream: TextIO, verbose: bool = False,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.stream = stream
        self.verbose = verbose
        self.clock = clock

    def stage(self, name: str, total: int | None = None, unit: str = "items") -> Stage:
        return _LineStage(self, name, total, unit)

    def echo(self, text: str) -> None:
        self.stream.write(text + "\n")
        self.stream.flush()


class _LineStage(Stage):
    def __init__(self, progress: LineProgress, name: str, total: int | None, unit: str) -> None:
        super().__init__(name, total, unit)
        self.progress = progress
        self.started = 0.0

    def __enter__(self) -> Stage:
        self.started = self.progress.clock()
        if self.progress.verbose:
            of = f" ({self.total:,} {self.unit})" if self.total is not None else ""
            self.progress.echo(f"{self.name}: started{of}")
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if kind is not None:
            return  # the error itself is reported by the caller
        seconds = self.progress.clock() - self.started
        done = count(self)
        line = f"{self.name}: {done} in {seconds:.2f}s" if done else f"{self.name}: done in {seconds:.2f}s"
        if self.progress.verbose and done and seconds > 0:
            line += f" ({self.done / seconds:,.0f} {self.unit}/s)"
        self.progress.echo(line)

    def note(self, text: str) -> None:
        if self.progress.verbose and text != self.text:
            self.progress.echo(f"{self.name}: {text}")
        super().note(text)


class BarProgress(Progress):
    """A bar per stage, redrawn in place with carriage returns, finalised as a line when it ends.

    ``ticker=False`` leaves the redraws to whoever calls ``tick()`` (the tests, with a fake clock).
    """

    def __init__(self, stream: TextIO, verbose: bool = False, clock: Callable[[], float] = time.perf_counter,
                 width: int | None = None, ticker: bool = True) -> None:
        self.stream = stream
        self.verbose = verbose
        self.clock = clock
        self.width = width or _terminal_width(stream)
        self.ticker = ticker
        self.lock = threading.Lock()  # the ticker and the build both write
        self.current: _BarStage | None = None
        self.shown = 0  # the length of the bar now on screen, to blank it out

    def stage(self, name: str, total: int | None = None, unit: str = "items") -> Stage:
        return _BarStage(self, name, total, unit)

    def echo(self, text: str) -> None:
        with self.lock:
            self._clear()
            self.stream.write(text + "\n")
            if self.current is not None:
                self._show(self.current.line(self.clock()))
            self.stream.flush()

    def _show(self, line: str) -> None:
        """Replace the bar on screen with ``line`` (no newline); the lock is held."""
        line = line[: self.width - 1]  # a line as wide as the terminal would wrap, and \r not reach it
        self.stream.write("\r" + line + " " * max(0, self.shown - len(line)))
        if self.shown > len(line):
            self.stream.write("\r" + line)
        self.shown = len(line)

    def _clear(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * self.shown + "\r")
            self.shown = 0


class _BarStage(Stage):
    def __init__(self, progress: BarProgress, name: str, total: int | None, unit: str) -> None:
        super().__init__(name, total, unit)
        self.progress = progress
        self.started = 0.0
        self.frames = 0
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None

    def __enter__(self) -> Stage:
        self.started = self.progress.clock()
        self.progress.current = self
        self.tick()
        if self.progress.ticker:
            self.thread = threading.Thread(target=self._run, name=f"progress-{self.name}", daemon=True)
            self.thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if self.thread is not None:
            self.stop.set()
            self.thread.join()
        progress = self.progress
        with progress.lock:
            progress.current = None
            if kind is not None:
                progress._clear()  # leave the line to the error message
            else:
                progress._show(self.final(progress.clock()))
                progress.stream.write("\n")
                progress.shown = 0
            progress.stream.flush()

    def set_total(self, total: int) -> None:
        super().set_total(total)
        self.tick()  # from spinner to bar at once

    def note(self, text: str) -> None:
        changed = text != self.text
        super().note(text)
        if changed and self.progress.verbose:
            self.progress.echo(f"{self.name}: {text}")

    def _run(self) -> None:
        while not self.stop.wait(1 / REDRAWS_PER_SECOND):
            self.tick()

    def tick(self) -> None:
        """Redraw the bar now."""
        with self.progress.lock:
            if self.progress.current is self:
                self.frames += 1
                self.progress._show(self.line(self.progress.clock()))
                self.progress.stream.flush()

    def line(self, now: float) -> str:
        """Return the bar: ``rendering  [#########.........]  9,812/20,052  3.1s``."""
        seconds = f"{now - self.started:.1f}s"
        note = f"  {self.text}" if self.text else ""
        if self.total:
            filled = min(BAR_WIDTH, BAR_WIDTH * self.done // self.total)
            bar = "#" * filled + "." * (BAR_WIDTH - filled)
            return f"{self.name:<{NAME_WIDTH}} [{bar}]  {self.done:,}/{self.total:,}  {seconds}{note}"
        spin = SPINNER[self.frames % len(SPINNER)]
        done = f"  {count(self)}" if self.done else ""
        return f"{self.name:<{NAME_WIDTH}} {spin}{done}  {seconds}{note}"

    def final(self, now: float) -> str:
        """Return the finished stage: ``rendering  20,052 pages  6.4s`` (verbose: as LineProgress)."""
        seconds = now - self.started
        done = count(self)
        if self.progress.verbose:
            rate = f" ({self.done / seconds:,.0f} {self.unit}/s)" if done and seconds > 0 else ""
            return f"{self.name}: {done or 'done'} in {seconds:.2f}s{rate}"
        return f"{self.name:<{NAME_WIDTH}} {done + '  ' if done else ''}{seconds:.1f}s"


def _terminal_width(stream: TextIO) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).columns or 80
    except (AttributeError, ValueError, OSError):
        return shutil.get_terminal_size().columns


def wants_bars(stream: TextIO) -> bool:
    """Return whether ``stream`` is a terminal that can take bars redrawn in place."""
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        return False
    return tty and os.environ.get("TERM") != "dumb" and not os.environ.get("NO_COLOR")


def terminal_progress(stream: TextIO, verbose: bool) -> Progress:
    """Return bars on an interactive terminal, plain lines otherwise."""
    return BarProgress(stream, verbose) if wants_bars(stream) else LineProgress(stream, verbose)


class ProgressLogHandler(logging.Handler):
    """Writes log records through a ``Progress``, so a record never lands in the middle of a bar."""

    def __init__(self, progress: Progress, level: int = logging.NOTSET) -> None:
        super().__init__(level)
        self.progress = progress

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.progress.echo(self.format(record))
        except Exception:  # noqa: BLE001 - logging must never break the build
            self.handleError(record)
