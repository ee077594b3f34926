"""A rebuild with nothing changed does nothing; any change to an input or to the site makes a whole build."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from papercat.pipeline import PROJECT_ROOT, Paths, build

from .conftest import ABSTRACT_A, ABSTRACT_B, ABSTRACT_C, tree

BASE_URL = "https://example.org/catalog/"
DUPLICATE = f"NeurIPS 2025 Papers\n\n{ABSTRACT_A}\n\n{ABSTRACT_A}\n"  # a warning: the same abstract twice


@pytest.fixture
def project(small_content, tmp_path):
    """A content folder (with a warning in it) and copies of the templates and static files."""
    (small_content / "listings" / "c.txt").write_text(DUPLICATE, encoding="utf-8")
    templates, static = tmp_path / "templates", tmp_path / "static"
    shutil.copytree(PROJECT_ROOT / "templates", templates)
    shutil.copytree(PROJECT_ROOT / "static", static)
    return Paths(small_content, tmp_path / "site", templates, static, tmp_path / "cache")


def test_a_rebuild_with_no_change_reuses_the_summary_and_writes_nothing(project):
    first = build(project, base_url=BASE_URL)
    before = tree(project.out)
    again = build(project, base_url=BASE_URL)
    assert again.catalog is None, "nothing was built"
    assert list(again.steps) == ["check"]
    assert again.changes is not None and again.changes.written == () and again.changes.removed == ()
    assert again.changes.unchanged == first.files == again.files
    assert (again.papers, again.venues, again.topics) == (first.papers, first.venues, first.topics) == (
        3, 3, len(first.catalog.topics))
    assert again.warnings == first.warnings and len(first.warnings) == 1, "the warning is reported again"
    assert tree(project.out) == before


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def _same_size_edit(path: Path) -> None:
    data = path.read_bytes()
    assert b"<html" in data
    path.write_bytes(data.replace(b"<html", b"<HTML", 1))


def _touch(folder: Path, ns: int = 1_000_000_000) -> None:
    for path in folder.rglob("*"):
        os.utime(path, ns=(ns, ns))


CHANGES: dict[str, Callable[[Paths], None]] = {
    "a listing edited": lambda p: _append(p.content / "listings" / "b.txt", f"\n{ABSTRACT_B} Twice.\n"),
    "a listing added": lambda p: (p.content / "listings" / "d.txt").write_text(
        f"COLM 2025 Papers\n\n{ABSTRACT_C} Again.\n", encoding="utf-8"),
    "a listing removed": lambda p: (p.content / "listings" / "b.txt").unlink(),
    "site.yaml written": lambda p: (p.content / "site.yaml").write_text("title: Other\n", encoding="utf-8"),
    "a template edited": lambda p: _append(p.templates / "paper.html", "{# a comment #}\n"),
    "a static file edited": lambda p: _append(p.static / "style.css", "\n/* more */\n"),
    "a page edited by hand": lambda p: _append(p.out / "index.html", "<!-- hand edit -->"),
    "a page edited by hand, same size": lambda p: _same_size_edit(p.out / "index.html"),
    "a page deleted": lambda p: (p.out / "venues" / "index.html").unlink(),
    "a stray file in the site": lambda p: (p.out / "stray.html").write_text("x", encoding="utf-8"),
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_any_change_makes_a_whole_build_that_puts_the_site_right(project, tmp_path, change):
    build(project, base_url=BASE_URL)
    CHANGES[change](project)
    changed = build(project, base_url=BASE_URL)
    assert changed.catalog is not None, f"{change}: the build must run"
    # The site is then exactly what a build from scratch makes of the inputs as they are now.
    fresh = build(Paths(project.content, tmp_path / "fresh", project.templates, project.static, None),
                  base_url=BASE_URL, record_history=False)
    assert tree(project.out) == tree(tmp_path / "fresh"), change
    assert fresh.papers == changed.papers
    assert build(project, base_url=BASE_URL).catalog is None, f"{change}: and the build after it has nothing to do"


@pytest.mark.parametrize("setting", ["base_url", "strict", "record_history", "SOURCE_DATE_EPOCH", "out"])
def test_a_changed_setting_makes_a_whole_build(small_content, tmp_path, monkeypatch, setting):
    paths = Paths(small_content, tmp_path / "site", cache=tmp_path / "cache")
    build(paths)
    assert build(paths).catalog is None
    options = {}
    if setting == "base_url":
        options["base_url"] = BASE_URL
    elif setting == "strict":
        options["strict"] = True
    elif setting == "record_history":
        options["record_history"] = False
    elif setting == "SOURCE_DATE_EPOCH":
        monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    else:
        shutil.copytree(paths.out, tmp_path / "other")
        paths = Paths(small_content, tmp_path / "other", cache=tmp_path / "cache")
    assert build(paths, **options).catalog is not None, setting


def test_a_new_listing_is_recorded_and_the_next_build_has_nothing_to_do(small_content, tmp_path):
    paths = Paths(small_content, tmp_path / "site", cache=tmp_path / "cache")
    build(paths)
    (small_content / "listings" / "d.txt").write_text(f"COLM 2025 Papers\n\n{ABSTRACT_C} New.\n",
                                                      encoding="utf-8")
    history = (small_content / "history.yaml").read_text(encoding="utf-8")
    assert build(paths).catalog is not None
    assert (small_content / "history.yaml").read_text(encoding="utf-8") != history, "the arrival is recorded"
    assert build(paths).catalog is None, "history.yaml as written by the build counts as unchanged"


def test_without_a_cache_or_when_checking_every_build_runs(small_content, tmp_path):
    paths = Paths(small_content, tmp_path / "site", cache=None)
    build(paths)
    assert build(paths).catalog is not None
    cached = Paths(small_content, tmp_path / "site", cache=tmp_path / "cache")
    build(cached)
    checked = build(cached, write=False)
    assert checked.catalog is not None and checked.changes is None


def test_touched_files_with_the_same_bytes_are_up_to_date(project):
    first = build(project, base_url=BASE_URL)
    before = tree(project.out)
    _touch(project.out)
    again = build(project, base_url=BASE_URL)
    assert again.catalog is None and list(again.steps) == ["check"], "compared by content: nothing to build"
    assert again.files == first.files and again.warnings == first.warnings
    assert tree(project.out) == before
    assert all(p.stat().st_mtime_ns == 1_000_000_000 for p in project.out.rglob("*") if p.is_file()), \
        "nothing was written"
    assert build(project, base_url=BASE_URL).catalog is None, "the new times were recorded"


def test_a_touched_file_compared_by_content_is_read_only_once(project, monkeypatch):
    from papercat.incremental import manifest as uptodate

    build(project, base_url=BASE_URL)
    _touch(project.out / "papers")
    read = []
    original = uptodate._sha256
    monkeypatch.setattr(uptodate, "_sha256", lambda path, size: read.append(Path(path)) or original(path, size))
    assert build(project, base_url=BASE_URL).catalog is None
    assert read and all(p.parent == project.out / "papers" for p in read), "only the touched files are read"
    read.clear()
    assert build(project, base_url=BASE_URL).catalog is None
    assert read == [], "and the next check compares times only"


def test_a_touched_file_with_other_bytes_makes_a_whole_build(project, tmp_path):
    build(project, base_url=BASE_URL)
    page = project.out / "index.html"
    _same_size_edit(page)
    _touch(project.out, 2_000_000_000)
    assert build(project, base_url=BASE_URL).catalog is not None
    fresh = tmp_path / "fresh"
    build(Paths(project.content, fresh, project.templates, project.static, None), base_url=BASE_URL,
          record_history=False)
    assert tree(project.out) == tree(fresh)


@pytest.mark.parametrize("listed", [0, 9_000, 10_000, 11_000])
def test_a_file_is_hashed_whole_whatever_size_it_was_listed_with(tmp_path, listed):
    """The check reads a touched file in one call of the size it was listed with; one that grew or shrank
    since is hashed whole all the same (and then differs from the record)."""
    from papercat.incremental import manifest as uptodate

    data = os.urandom(10_000)
    (tmp_path / "page.html").write_bytes(data)
    assert uptodate._sha256(str(tmp_path / "page.html"), listed) == hashlib.sha256(data).digest()


# What a whole build imports and a build with nothing to do need not: numpy and scipy (related papers, the
# map, the search index), the abstract's sanitiser and math (nh3, latex2mathml).
HEAVY = ("numpy", "scipy", "nh3", "latex2mathml")
_IMPORTED = ("import sys\nfrom papercat import cli\n"
             "try:\n    cli.main(sys.argv[1:])\nexcept SystemExit as exc:\n    assert not exc.code, exc.code\n"
             f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))\n")


def test_a_build_with_nothing_to_do_starts_without_the_heavy_libraries(small_content, tmp_path):
    """`build.py build` on an up-to-date site is a check: Python's start and imports are most of it."""
    command = [sys.executable, "-c", _IMPORTED, "build", "-q", "--content", str(small_content),
               "--out", str(tmp_path / "site"), "--cache", str(tmp_path / "cache")]
    first = subprocess.run(command, capture_output=True, text=True, check=True, cwd=tmp_path)
    assert first.stdout.split() == list(HEAVY), "a whole build imports them all (the check can see them)"
    again = subprocess.run(command, capture_output=True, text=True, check=True, cwd=tmp_path)
    assert again.stdout.split() == [], f"imported with nothing to build: {again.stdout.strip()}"
