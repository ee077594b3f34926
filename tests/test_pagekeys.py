"""Pages kept unrendered: a paper's page is rendered again only when what it is made of changed."""

from __future__ import annotations

import functools
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from markupsafe import Markup

from papercat.site import files as site_files
from papercat.incremental.pagekeys import Keys
from papercat.pipeline import PROJECT_ROOT, Paths, build
from papercat.search import files as search

from .conftest import tree
from .test_incremental import GRAPHS, STARS, listing

BASE_URL = "https://example.org/catalog/"


@pytest.fixture
def rendered(monkeypatch) -> list[str]:
    """The paths of the pages the builds render, in this process (one job: no worker renders them)."""
    monkeypatch.setenv("PAPERCAT_JOBS", "1")
    paths: list[str] = []
    real = site_files.render_page

    def render_page(env, page, shared, own=None):
        paths.append(page.path)
        return real(env, page, shared, own)

    monkeypatch.setattr(site_files, "render_page", render_page)
    return paths


@pytest.fixture
def project(make_content, tmp_path) -> Paths:
    """Four papers of one venue, with copies of the templates, a cache and a site folder."""
    content = make_content({"graphs.txt": listing("ICML 2025 Papers", GRAPHS)})
    templates = tmp_path / "templates"
    shutil.copytree(PROJECT_ROOT / "templates", templates)
    return Paths(content, tmp_path / "site", templates, PROJECT_ROOT / "static", tmp_path / "cache")


def paper_pages(paths: list[str]) -> set[str]:
    return {p for p in paths if p.startswith("papers/")}


def fresh(project: Paths, tmp_path: Path) -> dict[str, bytes]:
    """Return the site a build from scratch (no cache, no earlier site) makes of the project now."""
    out = tmp_path / "fresh"
    shutil.rmtree(out, ignore_errors=True)
    build(Paths(project.content, out, project.templates, project.static, None), base_url=BASE_URL,
          record_history=False)
    return tree(out)


def test_adding_a_listing_renders_only_the_new_papers_pages(project, rendered, tmp_path):
    first = build(project, base_url=BASE_URL)
    assert paper_pages(rendered) == {f"papers/{p.id}.html" for p in first.catalog.papers}
    rendered.clear()
    (project.content / "listings" / "stars.txt").write_text(listing("NeurIPS 2025 Papers", STARS), encoding="utf-8")
    after = build(project, base_url=BASE_URL)
    new = {p.id for p in after.catalog.papers} - {p.id for p in first.catalog.papers}
    assert len(new) == 2
    # The two catalogs share no word: no earlier paper's related papers change, nor its page.
    assert paper_pages(rendered) == {f"papers/{i}.html" for i in new}
    assert "index.html" in rendered, "pages without keys are rendered every time"
    assert tree(project.out) == fresh(project, tmp_path)


def test_without_a_cache_every_page_is_rendered(project, rendered):
    paths = Paths(project.content, project.out, project.templates, project.static, None)
    build(paths, base_url=BASE_URL)
    rendered.clear()
    (project.content / "listings" / "stars.txt").write_text(listing("NeurIPS 2025 Papers", STARS), encoding="utf-8")
    after = build(paths, base_url=BASE_URL)
    assert paper_pages(rendered) == {f"papers/{p.id}.html" for p in after.catalog.papers}


def _first_paper(project: Paths) -> dict:
    return json.loads((project.out / "papers.json").read_text(encoding="utf-8"))["papers"][0]


def _give_title(project: Paths) -> None:
    """Give the first paper a title in papers.yaml: its page and those linking to it change."""
    pid = _first_paper(project)["id"]
    (project.content / "papers.yaml").write_text(f"papers:\n  {pid}:\n    title: A Given Title\n", encoding="utf-8")


def _rename_topic(project: Paths) -> None:
    """Rename a topic the papers are in: every page showing its chip changes."""
    slug = _first_paper(project)["topics"][0]
    path = project.content / "topics.yaml"
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    n = next(i for i, line in enumerate(lines) if line.strip() == f"slug: {slug}")
    assert lines[n - 1].lstrip().startswith("- name:")
    lines[n - 1] = lines[n - 1].split(":")[0] + ": Renamed Topic\n"
    path.write_text("".join(lines), encoding="utf-8")


def _edit_page(project: Paths) -> None:
    page = project.out / _first_paper(project)["url"]
    page.write_bytes(page.read_bytes().replace(b"<html", b"<HTML", 1))  # the same size, a new mtime


def _listing_added_showing_counts(project: Paths) -> None:
    """A paper page that shows the catalog's counts: a new listing changes every paper's page."""
    path = project.templates / "paper.html"
    path.write_text(path.read_text(encoding="utf-8").replace(
        "{% set main %}", "{% set main %}<p>{{ counts.papers }} papers</p>", 1), encoding="utf-8")
    build(project, base_url=BASE_URL)
    _add_stars(project)


def _listing_added_showing_all_venues(project: Paths) -> None:
    """A paper page that lists every venue: a new venue changes every paper's page."""
    path = project.templates / "paper.html"
    path.write_text(path.read_text(encoding="utf-8").replace(
        "{% set main %}", "{% set main %}<p>{% for slug, v in venues_by_slug|dictsort %}{{ v.label }} {% endfor %}</p>",
        1), encoding="utf-8")
    build(project, base_url=BASE_URL)
    _add_stars(project)


def _listing_added_reading_another_venue(project: Paths) -> None:
    """A paper page that looks up a venue by a slug of its own making: reads are noted by slug."""
    path = project.templates / "paper.html"
    path.write_text(path.read_text(encoding="utf-8").replace(
        "{% set main %}", "{% set main %}<p>{{ venues_by_slug.get('neurips-2025', 'none') }}</p>", 1),
        encoding="utf-8")
    build(project, base_url=BASE_URL)
    _add_stars(project)


def _add_stars(project: Paths) -> None:
    (project.content / "listings" / "stars.txt").write_text(listing("NeurIPS 2025 Papers", STARS), encoding="utf-8")


def _rename_venue(project: Paths) -> None:
    path = project.content / "listings" / "graphs.txt"
    path.write_text(path.read_text(encoding="utf-8").replace("ICML 2025", "ICML 2024", 1), encoding="utf-8")


CHANGES: dict[str, Callable[[Paths], None]] = {
    "a title given in papers.yaml": _give_title,
    "a topic renamed": _rename_topic,
    "a venue's year changed": _rename_venue,
    "site.yaml's title": lambda p: (p.content / "site.yaml").write_text("title: Other Catalog\n", encoding="utf-8"),
    "the paper template edited": lambda p: (p.templates / "paper.html").write_text(
        (p.templates / "paper.html").read_text(encoding="utf-8").replace("Abstract</h2>", "Summary</h2>"),
        encoding="utf-8"),
    "the base template edited": lambda p: (p.templates / "base.html").write_text(
        (p.templates / "base.html").read_text(encoding="utf-8").replace("Built with papercat.", "Made by hand."),
        encoding="utf-8"),
    "a paper's page edited by hand": _edit_page,
    "a paper's page deleted": lambda p: (p.out / _first_paper(p)["url"]).unlink(),
    "a listing added, the page showing counts": _listing_added_showing_counts,
    "a listing added, the page listing all venues": _listing_added_showing_all_venues,
    "a listing added, the page reading a venue by slug": _listing_added_reading_another_venue,
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_a_kept_page_is_what_rendering_would_make(project, tmp_path, change):
    build(project, base_url=BASE_URL)
    CHANGES[change](project)
    build(project, base_url=BASE_URL)
    assert tree(project.out) == fresh(project, tmp_path), change


def test_a_page_given_back_its_size_and_time_is_trusted(project, rendered):
    """The record trusts a file's size and modification time, as the up-to-date check does."""
    build(project, base_url=BASE_URL)
    page = project.out / _first_paper(project)["url"]
    held = page.stat()
    page.write_bytes(page.read_bytes().replace(b"<html", b"<HTML", 1))
    os.utime(page, ns=(held.st_atime_ns, held.st_mtime_ns))
    _add_stars(project)
    rendered.clear()
    build(project, base_url=BASE_URL)
    assert page.relative_to(project.out).as_posix() not in rendered


@dataclass(frozen=True)
class _Met:  # a class no other test keys: its first key is made while the pickle meets it
    title: str


@dataclass(frozen=True)
class _Twin:  # _Met's fields under another name
    title: str


def test_a_context_digest_is_the_same_the_first_time_its_classes_are_met():
    first = Keys.context({"paper": _Met("A"), "abstract": Markup("<p>A</p>")})
    assert Keys.context({"paper": _Met("A"), "abstract": Markup("<p>A</p>")}) == first


@pytest.mark.parametrize("other", [{"paper": _Twin("A")}, {"paper": ("A",)}, {"paper": _Met("B")},
                                   {"paper": [_Met("A")]}, {"paper": _Met("A"), "more": None}])
def test_a_context_digest_tells_classes_and_values_apart(other):
    assert Keys.context({"paper": _Met("A")}) != Keys.context(other)


def test_a_context_digest_tells_markup_from_text():
    assert Keys.context({"abstract": Markup("<p>A</p>")}) != Keys.context({"abstract": "<p>A</p>"})


@pytest.fixture
def shards_made(monkeypatch) -> list[int]:
    """The numbers of the doc shards the builds make, one paper a shard, in this process (one job)."""
    monkeypatch.setenv("PAPERCAT_JOBS", "1")
    made: list[int] = []
    real = search._doc_shard

    def doc_shard(docs, n):
        made.append(n)
        return real(docs, n)

    monkeypatch.setattr(search, "DOC_SHARD_SIZE", 1)
    monkeypatch.setattr(search, "_doc_shard", doc_shard)
    return made


def test_adding_a_listing_makes_only_the_new_doc_shards(project, shards_made, tmp_path):
    build(project, base_url=BASE_URL)
    assert sorted(shards_made) == [0, 1, 2, 3]
    shards_made.clear()
    _add_stars(project)
    build(project, base_url=BASE_URL)
    # The new listing's papers come last, in shards of their own; the earlier shards' papers are as they were.
    assert sorted(shards_made) == [4, 5]
    assert tree(project.out) == fresh(project, tmp_path)


# The shards each change makes again: the titled paper's (the first), every one (the venue's slug is in
# each), none (a page is not a shard).
SHARD_CHANGES = {"a title given in papers.yaml": [0], "a venue's year changed": [0, 1, 2, 3],
                 "a paper's page edited by hand": []}


@pytest.mark.parametrize("change", list(SHARD_CHANGES))
def test_a_kept_doc_shard_is_what_making_it_would_make(project, shards_made, tmp_path, change):
    build(project, base_url=BASE_URL)
    CHANGES[change](project)
    shards_made.clear()
    build(project, base_url=BASE_URL)
    assert sorted(shards_made) == SHARD_CHANGES[change], change
    assert tree(project.out) == fresh(project, tmp_path), change


def test_a_doc_shard_edited_by_hand_is_made_again(project, shards_made, tmp_path):
    build(project, base_url=BASE_URL)
    shard = project.out / "search" / "docs" / "2.json"
    shard.write_bytes(shard.read_bytes().replace(b'"id"', b'"Id"', 1))  # the same size, a new mtime
    _add_stars(project)
    shards_made.clear()
    build(project, base_url=BASE_URL)
    assert sorted(shards_made) == [2, 4, 5]
    assert tree(project.out) == fresh(project, tmp_path)


@dataclass(frozen=True)
class _Asked:  # a record with a property worked out once and kept in its __dict__
    title: str

    @functools.cached_property
    def words(self) -> tuple[str, ...]:
        return tuple(self.title.split())


def test_a_context_digest_is_of_fields_not_of_properties_asked_for():
    record = _Asked("A title")
    first = Keys.context({"paper": record})
    assert record.words == ("A", "title")
    assert Keys.context({"paper": record}) == first


@pytest.mark.parametrize("one, other", [
    ({"x": ("a",)}, {"x": ["a"]}),  # a template shows a tuple and a list apart
    ({"x": 1}, {"x": True}), ({"x": 1}, {"x": 1.0}), ({"x": "1"}, {"x": 1}), ({"x": None}, {"x": "None"}),
    ({"x": {"a": 1, "b": 2}}, {"x": {"b": 2, "a": 1}}),  # a template may show a dict's items in order
    ({"x": ("a", "b")}, {"x": ("a,b",)}), ({"x": ["tuple"]}, {"x": ()}),
])
def test_a_context_digest_tells_plain_values_apart(one, other):
    assert Keys.context(one) != Keys.context(other)


@pytest.mark.parametrize("value", [{"a", "b"}, object(), bytearray(b"x")])
def test_a_context_of_other_than_plain_data_is_not_keyed(value):
    # a set's order differs between processes; other objects are not known to be plain data
    assert Keys.context({"x": value}) is None
