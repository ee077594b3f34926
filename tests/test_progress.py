"""Build progress: plain lines off a terminal, bars on one, --quiet, --verbose, and cheap advances."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from papercat.cli import main
from papercat.pipeline import Paths, build
from papercat.progress import NO_PROGRESS, BarProgress, LineProgress, Progress, terminal_progress, wants_bars
from papercat.serve import Builder
from papercat.output.writer import MARKER
from tests.conftest import ABSTRACT_A

ROOT = Path(__file__).resolve().parent.parent
STAGES = ["reading", "enriching", "indexing", "rendering", "writing"]


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


def run(*args: str):
    return CliRunner().invoke(main, list(args))


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
    assert "\rrendering  [....................]  0/20,052  0.0s" in out  # at once when the total is set
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
    assert list(result.steps) == ["read", "enrich", "index", "render", "write"]
    assert "rendering: 20 files in " in stream.getvalue()


def test_a_build_without_progress_prints_nothing(small_content, tmp_path, capfd):
    build(Paths(content=small_content, out=tmp_path / "site"))
    Builder(Paths(content=small_content, out=tmp_path / "unused"), tmp_path / "preview", "http://127.0.0.1:1/",
            strict=False).build()  # serve's builds
    assert capfd.readouterr() == ("", "")


def test_without_a_terminal_progress_is_plain_lines_on_stderr(small_content, tmp_path):
    result = run("build", "--content", str(small_content), "--out", str(tmp_path / "site"))
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert stage_names(lines) == STAGES and len(lines) == 5
    assert "\r" not in result.stderr and "\x1b" not in result.stderr
    assert result.stdout.startswith("3 papers, 2 venues, ") and result.stdout.count("\n") == 1
    assert "(read " in result.stdout and ", index " in result.stdout and ", write " in result.stdout


def test_check_reports_every_stage_but_writing(small_content, tmp_path):
    result = run("check", "--content", str(small_content))
    assert result.exit_code == 0, result.output
    assert stage_names(result.stderr.splitlines()) == STAGES[:4]


def test_on_a_terminal_each_stage_is_a_bar_redrawn_in_place(small_content, tmp_path):
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env.update(TERM="xterm", COLUMNS="100", PYTHONPATH=str(ROOT))
    read: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: every writer closed the terminal
                return
            if not data:
                return
            read.append(data)

    reader = threading.Thread(target=drain)
    reader.start()
    try:
        proc = subprocess.run([sys.executable, str(ROOT / "build.py"), "--content", str(small_content),
                               "--out", str(tmp_path / "site")], check=False, stdout=subprocess.PIPE,
                              stderr=slave, env=env, cwd=tmp_path, timeout=120)
    finally:
        os.close(slave)
        reader.join(30)
        os.close(master)
    shown = b"".join(read).decode()
    assert proc.returncode == 0, shown
    assert proc.stdout.decode().startswith("3 papers, 2 venues, ")
    assert "\r" in shown and "\x1b" not in shown
    finished = [line.split("\r")[-1] for line in shown.replace("\r\n", "\n").split("\n")]
    assert [line.split()[0] for line in finished if line.strip()] == STAGES, repr(shown)
    assert "\rrendering  [....................]  0/20  " in shown  # drawn once the total is known
    assert "\rrendering  20 files  " in shown


def test_quiet_prints_only_warnings(make_content, tmp_path):
    content = make_content({"a.txt": f"ICML 2025 Papers\n\n{ABSTRACT_A}\n\nPage 2\n"})
    result = run("build", "-q", "--content", str(content), "--out", str(tmp_path / "site"))
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr.splitlines() == [line for line in result.stderr.splitlines() if "warning: " in line] != []
    assert (tmp_path / "site" / "index.html").is_file()
    checked = run("check", "--quiet", "--content", str(content))
    assert checked.exit_code == 0 and checked.stdout == "" and "warning: skipped" in checked.stderr


def test_quiet_keeps_errors_and_exit_codes(make_content, tmp_path):
    content = make_content({"a.txt": ""})
    result = run("build", "--quiet", "--content", str(content), "--out", str(tmp_path / "site"))
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith("Error: ") and "the file is empty" in result.stderr
    strict = make_content({"a.txt": f"ICML 2025 Papers\n\n{ABSTRACT_A}\n\nPage 2\n"}, name="strict")
    result = run("build", "-q", "--strict", "--content", str(strict), "--out", str(tmp_path / "site"))
    assert result.exit_code == 1 and "warning: skipped" in result.stderr and "with --strict" in result.stderr


def test_verbose_shows_stage_lines_info_records_and_the_files_written(small_content, tmp_path):
    result = run("build", "-v", "--content", str(small_content), "--out", str(tmp_path / "site"))
    assert result.exit_code == 0, result.output
    assert "INFO papercat.pipeline: read 2 listings from " in result.stderr
    assert "rendering: started" in result.stderr.splitlines()
    assert "rendering: 20 files in " in result.stderr
    assert stage_names([line for line in result.stderr.splitlines() if " in " in line]) == STAGES
    summary, *listed = result.stdout.splitlines()
    files = sorted(p.relative_to(tmp_path / "site").as_posix() for p in (tmp_path / "site").rglob("*")
                   if p.is_file() and p.name != MARKER)
    assert f"wrote {len(files)} of {len(files)} files" in summary
    assert listed == [f"  wrote {f}" for f in files]


def test_verbose_counts_the_files_when_there_are_many(small_content, tmp_path, monkeypatch):
    monkeypatch.setattr("papercat.cli.LISTED_FILES", 10)
    result = run("build", "-v", "--content", str(small_content), "--out", str(tmp_path / "site"))
    files = [p for p in (tmp_path / "site").rglob("*") if p.is_file() and p.name != MARKER]
    assert len(files) > 10
    assert result.stdout.splitlines()[1:] == [f"{len(files)} files written and 0 removed; more than 10, so not listed"]


def test_verbose_lists_a_few_files_written_and_removed(small_content, tmp_path):
    site = tmp_path / "site"
    assert run("build", "--content", str(small_content), "--out", str(site)).exit_code == 0
    (site / "index.html").write_text("edited", encoding="utf-8")
    (site / "stale.html").write_text("old", encoding="utf-8")
    result = run("build", "--verbose", "--content", str(small_content), "--out", str(site))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[1:] == ["  wrote index.html", "  removed stale.html"]


def test_quiet_and_verbose_together_are_a_usage_error(small_content, tmp_path):
    for command in ("build", "check"):
        result = run(command, "-q", "-v", "--content", str(small_content))
        assert result.exit_code == 2
        assert "--quiet and --verbose contradict each other" in result.stderr
    assert not (tmp_path / "site").exists()


def test_help_describes_quiet_and_verbose():
    for command in ("build", "check"):
        shown = run(command, "--help").output
        assert "-q, --quiet" in shown and "-v, --verbose" in shown


def test_log_warnings_reach_stderr_once_in_every_mode(small_content, tmp_path):
    cache = tmp_path / "cache"
    args = ["--content", str(small_content), "--out", str(tmp_path / "site"), "--cache", str(cache)]
    assert run("build", *args).exit_code == 0
    for mode in ("--quiet", "--verbose", "--strict", "--quiet"):  # each run removes its log handler
        for file in cache.glob("*.bin"):
            file.write_bytes(b"not a cache file")
        result = run("build", mode, *args)
        assert result.exit_code == 0, result.output
        warned = [line for line in result.stderr.splitlines() if "ignored, it will be written again" in line]
        assert warned and len(warned) == len(set(warned)) == len(list(cache.glob("*.bin"))), (mode, result.stderr)
