"""The writer: one file per path, and output folders it may and may not replace."""

from __future__ import annotations

import hashlib
import os
import stat
import threading

import pytest

from papercat.errors import CatalogError
from papercat.output.writer import MARKER, Staging, WriteReport


def _write(files: dict[str, bytes], out) -> WriteReport:
    """Stage ``files`` and bring ``out`` to them, as a build does."""
    with Staging(out) as staging:
        return staging.finish([staging.add(path, data, "t") for path, data in files.items()])


def test_a_path_written_twice_names_both_sources(tmp_path):
    with Staging(tmp_path / "site") as staging:
        staging.add("papers/a.html", b"1", "listings/x.txt:3")
        with pytest.raises(CatalogError, match=r"^listings/y.txt:9 and listings/x.txt:3 would both write "
                                               r"papers/a.html; expected each output path once$"):
            staging.add("papers/a.html", b"2", "listings/y.txt:9")


def test_output_path_that_is_a_file_is_refused(tmp_path):
    target = tmp_path / "site"
    target.write_text("not a folder")
    with pytest.raises(CatalogError, match="is a file; expected a folder for the site"), Staging(target):
        pass
    assert target.read_text() == "not a folder"
    assert [p.name for p in tmp_path.iterdir()] == ["site"]


def test_a_folder_papercat_did_not_write_is_refused_before_anything_is_staged(tmp_path):
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work")
    with pytest.raises(CatalogError, match=f"holds files that papercat did not write \\(no {MARKER} in it\\)"):
        _write({"index.html": b"x"}, precious)
    assert [p.name for p in tmp_path.iterdir()] == ["precious"]
    assert [p.name for p in precious.iterdir()] == ["thesis.tex"]


def test_an_earlier_site_is_replaced_whole(tmp_path):
    _write({"index.html": b"old", "papers/gone.html": b"gone"}, tmp_path / "site")
    _write({"index.html": b"new"}, tmp_path / "site")
    assert sorted(p.name for p in (tmp_path / "site").rglob("*")) == sorted([MARKER, "index.html"])
    assert (tmp_path / "site" / "index.html").read_bytes() == b"new"
    assert [p.name for p in tmp_path.iterdir()] == ["site"]


def test_an_empty_folder_may_be_used(tmp_path):
    (tmp_path / "out").mkdir()
    _write({"index.html": b"x"}, tmp_path / "out")
    assert (tmp_path / "out" / "index.html").read_bytes() == b"x"


def _site(tmp_path, files: dict[str, bytes]):
    return _write(files, tmp_path / "site")


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


def test_a_staging_left_unfinished_is_removed_and_the_earlier_site_kept(tmp_path):
    site = tmp_path / "site"
    _site(tmp_path, {"index.html": b"home", "papers/a.html": b"a"})
    before = _mtimes(site)
    with pytest.raises(KeyboardInterrupt), Staging(site) as staging:
        staging.add("index.html", b"home 2", "t")
        staging.add("new/deep/b.html", b"b", "t")
        assert len([p for p in tmp_path.iterdir() if p.name.startswith(".site.new-")]) == 1
        raise KeyboardInterrupt  # Ctrl-C, a template error, --strict: all leave the same way
    assert _mtimes(site) == before and (site / "index.html").read_bytes() == b"home"
    assert [p.name for p in tmp_path.iterdir()] == ["site"]


def test_the_folders_made_for_a_new_site_go_when_it_fails(tmp_path):
    with pytest.raises(ValueError), Staging(tmp_path / "a" / "b" / "site") as staging:
        staging.add("index.html", b"x", "t")
        raise ValueError("a failed build")
    assert list(tmp_path.iterdir()) == []


def test_a_check_stages_nothing_but_still_finds_paths_claimed_twice(tmp_path):
    with Staging(tmp_path / "a" / "site", write=False, digests=True) as staging:
        staged = staging.add("index.html", b"x", "t")
        with pytest.raises(CatalogError, match="would both write index.html"):
            staging.add("index.html", b"y", "u")
    assert staged.path == "index.html" and staged.digest == hashlib.sha256(b"x").digest()
    assert list(tmp_path.iterdir()) == []


def test_staged_files_say_whether_they_were_kept_and_carry_their_digest(tmp_path):
    site = tmp_path / "site"
    _site(tmp_path, {"index.html": b"home", "papers/a.html": b"a"})
    (site / "papers" / "a.html").chmod(0o600)
    with Staging(site, digests=True) as staging:
        staged = [staging.add("index.html", b"home 2", "t"), staging.add("papers/a.html", b"a", "t")]
        report = staging.finish(staged)
    assert [(s.path, s.kept_mode, s.digest) for s in staged] == [
        ("index.html", None, hashlib.sha256(b"home 2").digest()),
        ("papers/a.html", 0o600, hashlib.sha256(b"a").digest())]
    assert (report.written, report.unchanged) == (("index.html",), 1)
    assert stat.S_IMODE((site / "papers" / "a.html").stat().st_mode) == 0o644


def test_what_a_stopped_build_left_beside_the_site_is_removed_by_the_next(tmp_path):
    site = tmp_path / "site"
    _site(tmp_path, {"index.html": b"home"})
    for left in [tmp_path / ".site.new-abc123" / "papers", tmp_path / ".site.old" / "papers"]:
        left.mkdir(parents=True)
        (left / "a.html").write_bytes(b"half")
    _site(tmp_path, {"index.html": b"home 2"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]
    assert (site / "index.html").read_bytes() == b"home 2"


def test_an_earlier_site_left_aside_by_a_swap_cut_short_is_put_back_first(tmp_path):
    site = tmp_path / "site"
    _site(tmp_path, {"index.html": b"home", "papers/a.html": b"a"})
    os.utime(site / "papers" / "a.html", ns=(1_000_000_000, 1_000_000_000))
    site.rename(tmp_path / ".site.old")  # killed between the two renames of a swap without the exchange
    report = _site(tmp_path, {"index.html": b"home 2", "papers/a.html": b"a"})
    assert (report.written, report.unchanged) == (("index.html",), 1)
    assert (site / "papers" / "a.html").stat().st_mtime_ns == 1_000_000_000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_without_an_exchange_of_folders_the_site_is_swapped_in_two_renames(tmp_path, monkeypatch):
    from papercat.output import swap

    monkeypatch.setattr(swap, "exchange", lambda first, second: False)
    site = tmp_path / "site"
    _site(tmp_path, {"index.html": b"home", "papers/a.html": b"a"})
    inode = (site / "papers" / "a.html").stat().st_ino
    report = _site(tmp_path, {"index.html": b"home 2", "papers/a.html": b"a"})
    assert (report.written, report.unchanged) == (("index.html",), 1)
    assert (site / "papers" / "a.html").stat().st_ino == inode
    assert (site / "index.html").read_bytes() == b"home 2"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_a_site_reached_by_a_symbolic_link_is_swapped_where_it_is(tmp_path):
    (tmp_path / "real").mkdir()
    link = tmp_path / "site"
    link.symlink_to(tmp_path / "real" / "site", target_is_directory=True)
    _write({"index.html": b"home"}, link)
    _write({"index.html": b"home 2"}, link)
    assert link.is_symlink() and (tmp_path / "real" / "site" / "index.html").read_bytes() == b"home 2"
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["site"]
