"""The writer: one file per path, and output folders it may and may not replace."""

from __future__ import annotations

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
