"""Build progress: plain lines off a terminal, bars on one, and cheap advances."""

from __future__ import annotations

import io
import threading

import pytest

from papercat.pipeline import Paths, build
from papercat.progress import NO_PROGRESS, BarProgress, LineProgress, Progress, terminal_progress, wants_bars
from papercat.serve import Builder

STAGES = ["reading", "enriching", "rendering", "indexing", "writing"]


class FakeClock:
    """A clock that moves only when told to, and counts how often it is read."""

    def __init__(self) -> None:
        self.now = 100.0
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        return self.now


class FakeTerminal(io.StringIO):
    """A stream that says it is a terminal and counts its writes."""

    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.writes += 1
        return super().write(text)


def stage_names(lines: list[str]) -> list[str]:
    return [line.split(":")[0] for line in lines if line.split(":")[0] in STAGES]


# --- the Progress classes on their own -----------------------------------------------------------

def test_the_base_progress_reports_nothing_and_still_counts():
    with NO_PROGRESS.stage("rendering", total=3) as bar:
        bar.advance()
        bar.advance(2)
        bar.set_total(4)
        bar.note("feeds")
    assert (bar.done, bar.total, bar.text) == (3, 4, "feeds")
    assert isinstance(NO_PROGRESS, Progress)


def test_plain_lines_are_one_per_finished_stage_with_count_and_time():
    stream, clock = io.StringIO(), FakeClock()
    progress = LineProgress(stream, clock=clock)
    with progress.stage("reading") as bar:
        clock.now += 0.25
    with progress.stage("rendering", total=20052, unit="pages") as bar:
        bar.note("papers")  # notes are for --verbose
        bar.advance(20052)
        clock.now += 6.4
    assert stream.getvalue() == "reading: done in 0.25s\nrendering: 20,052 pages in 6.40s\n"


def test_verbose_plain_lines_show_starts_notes_and_rates():
    stream, clock = io.StringIO(), FakeClock()
    with LineProgress(stream, verbose=True, clock=clock).stage("enriching", unit="papers") as bar:
        bar.note("keyphrases")
        bar.note("keyphrases")  # the same note again is not repeated
        bar.note("related papers")
        bar.advance(100)
        clock.now += 2
    assert stream.getvalue().splitlines() == [
        "enriching: started", "enriching: keyphrases", "enriching: related papers",
        "enriching: 100 papers in 2.00s (50 papers/s)"]


def test_a_bar_is_redrawn_in_place_and_finalised_as_a_line():
    stream, clock = FakeTerminal(), FakeClock()
    progress = BarProgress(stream, clock=clock, width=100, ticker=False)
    with progress.stage("rendering", unit="pages") as bar:
        bar.set_total(20052)
        bar.advance(9812)
        clock.now += 3.1
        bar.tick()
        bar.advance(20052 - 9812)
        clock.now += 3.3
    out = stream.getvalue()
    assert "\rrendering  [#########...........]  9,812/20,052  3.1s" in out
    assert out.endswith("\rrendering  20,052 pages  6.4s\n")
    assert "\x1b" not in out


def test_a_bar_without_a_total_shows_a_spinner_the_note_and_the_time():
    stream, clock = FakeTerminal(), FakeClock()
    with BarProgress(stream, clock=clock, width=100, ticker=False).stage("enriching") as bar:
        bar.note("keyphrases")
        clock.now += 1.5
        bar.tick()
    assert "\renriching  -  1.5s  keyphrases" in stream.getvalue()
    assert stream.getvalue().endswith("\renriching  1.5s\n")


def test_a_bar_never_reaches_the_last_column():
    stream = FakeTerminal()
    with BarProgress(stream, clock=FakeClock(), width=30, ticker=False).stage("rendering", total=10**6) as bar:
        bar.tick()
    assert all(len(part.rstrip("\n")) <= 29 for part in stream.getvalue().split("\r"))


def test_a_failed_stage_blanks_its_bar_for_the_error_message():
    stream = FakeTerminal()
    progress = BarProgress(stream, clock=FakeClock(), width=100, ticker=False)
    with pytest.raises(RuntimeError), progress.stage("rendering", total=5):
        raise RuntimeError("template broke")
    last = stream.getvalue().split("\r")[-1]
    assert last == "" and "\n" not in stream.getvalue()


def test_a_log_line_goes_above_the_bar_and_the_bar_comes_back():
    stream = FakeTerminal()
    progress = BarProgress(stream, clock=FakeClock(), width=100, ticker=False)
    with progress.stage("rendering", total=5):
        progress.echo("cache file x cannot be read")
    bar = "rendering  [....................]  0/5  0.0s"
    assert stream.getvalue().startswith(f"\r{bar}\r{' ' * len(bar)}\rcache file x cannot be read\n\r{bar}\r")


def test_100000_advances_read_no_clock_and_redraw_nothing():
    stream, clock = FakeTerminal(), FakeClock()
    with BarProgress(stream, clock=clock, width=100, ticker=False).stage("rendering", total=100_000) as bar:
        reads, writes = clock.reads, stream.writes
        for _ in range(100_000):
            clock.now += 1e-5
            bar.advance()
        assert (clock.reads, stream.writes) == (reads, writes)  # the ticker redraws, not advance
    assert stream.writes <= 6  # the first frame and the final line


def test_the_ticker_redraws_a_running_stage_until_it_ends():
    stream = FakeTerminal()
    drawn = threading.Event()

    class Watched(FakeTerminal):
        def write(self, text: str) -> int:
            if "[##########..........]  5/10" in text:
                drawn.set()
            return stream.write(text)

    with BarProgress(Watched(), width=100).stage("rendering", total=10) as bar:
        bar.advance(5)
        assert drawn.wait(30), "the ticker never redrew the bar"
    assert "\rrendering  5 items  " in stream.getvalue() and stream.getvalue().endswith("s\n")


def test_bars_only_on_a_terminal_that_takes_them(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert wants_bars(FakeTerminal()) and not wants_bars(io.StringIO())
    assert isinstance(terminal_progress(FakeTerminal(), verbose=False), BarProgress)
    assert isinstance(terminal_progress(io.StringIO(), verbose=False), LineProgress)
    monkeypatch.setenv("TERM", "dumb")
    assert isinstance(terminal_progress(FakeTerminal(), verbose=False), LineProgress)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("NO_COLOR", "1")
    assert isinstance(terminal_progress(FakeTerminal(), verbose=True), LineProgress)


# --- the build and the command line --------------------------------------------------------------

def test_the_build_reports_its_five_stages_and_times_each(small_content, tmp_path):
    stream = io.StringIO()
    result = build(Paths(content=small_content, out=tmp_path / "site", cache=tmp_path / "cache"),
                   progress=LineProgress(stream))
    assert stage_names(stream.getvalue().splitlines()) == STAGES
    assert list(result.steps) == ["read", "enrich", "render", "index", "write"]
    assert "rendering: 28 pages in " in stream.getvalue()


def test_a_build_without_progress_prints_nothing(small_content, tmp_path, capfd):
    build(Paths(content=small_content, out=tmp_path / "site"))
    Builder(Paths(content=small_content, out=tmp_path / "unused"), tmp_path / "preview", "http://127.0.0.1:1/",
            strict=False).build()  # serve's builds
    assert capfd.readouterr() == ("", "")
