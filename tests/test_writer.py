"""The writer: one file per path, and output folders it may and may not replace."""

from __future__ import annotations

import os
import stat
import threading

import pytest

from papercat.errors import CatalogError
from papercat.writer import MARKER, OutputFiles, write_site


def test_a_path_written_twice_names_both_sources():
    files = OutputFiles()
    files.add("papers/a.html", b"1", "listings/x.txt:3")
    with pytest.raises(CatalogError, match=r"^listings/y.txt:9 and listings/x.txt:3 would both write "
                                           r"papers/a.html; expected each output path once$"):
        files.add("papers/a.html", b"2", "listings/y.txt:9")


def test_output_path_that_is_a_file_is_refused(tmp_path):
    target = tmp_path / "site"
    target.write_text("not a folder")
    with pytest.raises(CatalogError, match="is a file; expected a folder for the site"):
        write_site(OutputFiles(), target)
    assert target.read_text() == "not a folder"


def test_an_earlier_site_is_replaced_whole(tmp_path):
    first = OutputFiles()
    first.add("index.html", b"old", "t")
    first.add("papers/gone.html", b"gone", "t")
    write_site(first, tmp_path / "site")
    second = OutputFiles()
    second.add("index.html", b"new", "t")
    write_site(second, tmp_path / "site")
    assert sorted(p.name for p in (tmp_path / "site").rglob("*")) == sorted([MARKER, "index.html"])
    assert (tmp_path / "site" / "index.html").read_bytes() == b"new"
    assert [p.name for p in tmp_path.iterdir()] == ["site"]


def test_an_empty_folder_may_be_used(tmp_path):
    (tmp_path / "out").mkdir()
    files = OutputFiles()
    files.add("index.html", b"x", "t")
    write_site(files, tmp_path / "out")
    assert (tmp_path / "out" / "index.html").read_bytes() == b"x"


def _site(tmp_path, files: dict[str, bytes]):
    out = OutputFiles()
    for path, data in files.items():
        out.add(path, data, "t")
    return write_site(out, tmp_path / "site")


def _mtimes(folder):
    return {p.relative_to(folder).as_posix(): p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}


def test_unchanged_files_are_not_rewritten(tmp_path):
    site = tmp_path / "site"
    _site(tmp_path, {"index.html": b"home", "papers/a.html": b"a", "papers/b.html": b"b"})
    for file in site.rglob("*"):  # an old mtime, so a rewrite would show even on a coarse clock
        os.utime(file, ns=(1_000_000_000, 1_000_000_000))
    before = _mtimes(site)
    report = _site(tmp_path, {"index.html": b"home 2", "papers/a.html": b"a", "papers/b.html": b"b"})
    after = _mtimes(site)
    assert {p for p in after if after[p] != before[p]} == {"index.html"}
    assert (report.written, report.unchanged, report.removed) == (("index.html",), 2, ())
    assert (site / "index.html").read_bytes() == b"home 2"


def test_a_no_change_rewrite_touches_nothing(tmp_path):
    site = tmp_path / "site"
    files = {"index.html": b"home", "papers/a.html": b"a"}
    _site(tmp_path, files)
    for file in [*site.rglob("*"), site]:
        os.utime(file, ns=(1_000_000_000, 1_000_000_000))
    before = _mtimes(site)
    report = _site(tmp_path, files)
    assert _mtimes(site) == before
    assert report.written == () and report.removed == ()
    assert site.stat().st_mtime_ns == 1_000_000_000
    assert [p.name for p in tmp_path.iterdir()] == ["site"]  # no staging folder left behind


def test_files_that_disappeared_are_removed_with_their_empty_folders(tmp_path):
    site = tmp_path / "site"
    _site(tmp_path, {"index.html": b"home", "papers/a.html": b"a", "old/x/y.html": b"y"})
    report = _site(tmp_path, {"index.html": b"home", "papers/b.html": b"b"})
    assert sorted(p.relative_to(site).as_posix() for p in site.rglob("*")) == \
        sorted([MARKER, "index.html", "papers", "papers/b.html"])
    assert report.removed == ("old/x/y.html", "papers/a.html")


def test_a_folder_may_become_a_file_and_back(tmp_path):
    site = tmp_path / "site"
    _site(tmp_path, {"a/b.html": b"1"})
    _site(tmp_path, {"a": b"2"})
    assert (site / "a").read_bytes() == b"2"
    _site(tmp_path, {"a/b.html": b"3"})
    assert (site / "a" / "b.html").read_bytes() == b"3"


def test_rewritten_files_are_world_readable(tmp_path):
    site = tmp_path / "site"
    _site(tmp_path, {"index.html": b"1", "papers/a.html": b"a"})
    (site / "papers" / "a.html").chmod(0o600)
    _site(tmp_path, {"index.html": b"2", "papers/a.html": b"a", "feeds/new.xml": b"x"})
    modes = {p.relative_to(site).as_posix(): stat.S_IMODE(p.stat().st_mode) for p in [site, *site.rglob("*")]}
    assert modes == {".": 0o755, MARKER: 0o644, "index.html": 0o644, "papers": 0o755, "papers/a.html": 0o644,
                     "feeds": 0o755, "feeds/new.xml": 0o644}


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002, 0o000])
def test_files_and_folders_are_world_readable_whatever_the_umask(tmp_path, umask):
    site = tmp_path / "site"
    old = os.umask(umask)
    try:
        _site(tmp_path, {"index.html": b"1", "papers/a/index.html": b"a"})  # a new folder
        first = {p.relative_to(site).as_posix(): stat.S_IMODE(p.stat().st_mode) for p in [site, *site.rglob("*")]}
        _site(tmp_path, {"index.html": b"2", "papers/a/index.html": b"a", "papers/b/index.html": b"b"})
    finally:
        os.umask(old)
    modes = {p.relative_to(site).as_posix(): stat.S_IMODE(p.stat().st_mode) for p in [site, *site.rglob("*")]}
    assert first == {".": 0o755, MARKER: 0o644, "index.html": 0o644, "papers": 0o755, "papers/a": 0o755,
                     "papers/a/index.html": 0o644}
    assert modes == {**first, "papers/b": 0o755, "papers/b/index.html": 0o644}


def test_many_files_are_written_by_threads_that_have_all_ended_on_return(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERCAT_JOBS", "2")
    first = {f"papers/{n}.html": b"%d" % n for n in range(3000)}
    _site(tmp_path, {**first, "index.html": b"home"})
    second = {**first, **{f"papers/{n}.html": b"new %d" % n for n in range(0, 3000, 3)}, "a/b/c.html": b"c"}
    report = _site(tmp_path, second)
    assert [t.name for t in threading.enumerate() if t.name.startswith("papercat-writer")] == []
    assert len(report.written) == 1001 and report.unchanged == 2000 and report.removed == ("index.html",)
    site = tmp_path / "site"
    assert {p.relative_to(site).as_posix(): p.read_bytes() for p in site.rglob("*") if p.is_file()} == \
        {**second, MARKER: b""}
