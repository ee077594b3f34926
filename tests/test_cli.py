"""The command line through click's CliRunner: commands, options, exit codes and messages."""

from __future__ import annotations

from click.testing import CliRunner

from papercat.cli import main
from tests.conftest import ABSTRACT_A


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_no_command_means_build(small_content, tmp_path):
    result = run("--content", str(small_content), "--out", str(tmp_path / "site"))
    assert result.exit_code == 0, result.output
    assert (tmp_path / "site" / "index.html").is_file()
    assert "3 papers, 2 venues" in result.output and "0 warnings; wrote" in result.output


def test_build_summary_names_counts_and_time(small_content, tmp_path):
    result = run("build", "--content", str(small_content), "--out", str(tmp_path / "site"))
    assert result.exit_code == 0
    assert result.stdout.startswith("3 papers, 2 venues, ")
    assert " topics, 0 warnings; wrote " in result.output and "s (read " in result.output


def test_the_summary_writes_large_counts_as_the_progress_lines_do(tmp_path, capsys):
    """Thousands separated, as the stages' lines write them ("enriching: 20,000 papers")."""
    from pathlib import Path

    from papercat.cli import _summarise
    from papercat.pipeline import Paths, Result
    from papercat.output.writer import WriteReport

    written = tuple(f"papers/{n}.html" for n in range(1_500))
    result = Result(None, (), 21_054, 17.1, True, {"read": 0.4}, WriteReport(written, 19_554, ("a", "b")),
                    20_000, 6, 16)
    _summarise(result, Paths(content=Path("content"), out=Path("site")))
    assert capsys.readouterr().out.startswith(
        "20,000 papers, 6 venues, 16 topics, 0 warnings; wrote 1,500 of 21,054 files to site "
        "(19,554 unchanged, 2 removed) in 17.10s (read 0.40s)")


def test_check_writes_nothing(small_content, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("check", "--content", str(small_content))
    assert result.exit_code == 0, result.output
    assert "checked; wrote nothing" in result.output
    assert not (tmp_path / "site").exists()


def test_content_errors_exit_1_with_every_problem(make_content, tmp_path, monkeypatch):
    content = make_content({"a.txt": "", "b.txt": "ICML 2025 Papers\n", "c.txt": f"no header here\n\n{ABSTRACT_A}\n"})
    monkeypatch.chdir(tmp_path)
    result = run("build")
    assert result.exit_code == 1
    progress, lines = result.output.strip().splitlines()[:2], result.output.strip().splitlines()[2:]
    assert [line.split(":")[0] for line in progress] == ["reading", "enriching"]  # the stages that ran
    assert lines == [
        "Error: content/listings/a.txt:1: the file is empty; expected a header line like "
        '"ICML 2025 Papers", then abstracts separated by blank lines',
        'content/listings/b.txt:1: the header "ICML 2025 Papers" is followed by no abstracts; '
        "expected abstracts separated by blank lines after it",
        'content/listings/c.txt:1: no venue header: found "no header here"; expected a first line '
        'naming the venue and year, like "ICML 2025 Papers"',
        "3 problems in the content; nothing was written.",
    ]
    assert not (tmp_path / "site").exists()
    assert content.is_dir()


def test_strict_fails_on_warnings_and_prints_them(make_content, tmp_path):
    content = make_content({"a.txt": f"ICML 2025 Papers\n\n{ABSTRACT_A}\n\nPage 2\n"})
    result = run("--strict", "--content", str(content), "--out", str(tmp_path / "site"))
    assert result.exit_code == 1
    assert "warning: skipped \"Page 2\"" in result.output
    assert "Error: 1 warning with --strict; nothing was written." in result.output


def test_warnings_are_printed_but_do_not_fail_without_strict(make_content, tmp_path):
    content = make_content({"a.txt": f"ICML 2025 Papers\n\n{ABSTRACT_A}\n\nPage 2\n"})
    result = run("--content", str(content), "--out", str(tmp_path / "site"))
    assert result.exit_code == 0 and "1 warning; wrote" in result.output


def test_missing_content_folder_exits_1(tmp_path):
    result = run("--content", str(tmp_path / "nope"), "--out", str(tmp_path / "site"))
    assert result.exit_code == 1
    assert "nope: no such folder; expected a content folder with listings/ in it" in result.output


def test_usage_errors_exit_2(tmp_path):
    assert run("--no-such-option").exit_code == 2
    assert run("frobnicate").exit_code == 2


def test_help_lists_the_commands_and_options():
    result = run("--help")
    assert result.exit_code == 0
    assert "build" in result.output and "check" in result.output
    build_help = run("build", "--help").output
    for option in ("--content", "--out", "--strict"):
        assert option in build_help
