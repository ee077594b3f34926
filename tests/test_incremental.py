"""Rebuilding after a listing lands: only what must change is written, and paper URLs never move."""

from __future__ import annotations

import html
import itertools
import json
import os
import re
import shutil
from pathlib import Path

from papercat.site import pages
from papercat.content.history import HISTORY_FILE, load_history
from papercat.pipeline import Paths, build
from tests.conftest import tree

BASE_URL = "https://example.org/catalog/"

# Two catalogs with no word in common: papers of one never become related to papers of the other,
# so adding the second must leave every page of the first alone. Four old papers and two new ones
# keep IDF's reference size (the next power of two) at 8, as in a large catalog where one more
# listing rarely doubles it.
GRAPHS = [
    ("We propose MolGraph, a graph neural network for molecular property prediction that passes "
    "messages along chemical bonds and pools atoms into functional groups."),
    ("Message passing graph networks oversmooth on deep stacks; we add residual gating between layers "
    "and recover accuracy on citation graphs and molecular benchmarks."),
    ("We study positional encodings for graph transformers, comparing Laplacian eigenvectors and random "
    "walk features on molecular graphs and protein contact maps."),
    ("Graph contrastive pretraining on unlabeled molecules learns representations that transfer to "
    "toxicity and solubility prediction with few labelled molecules."),
]
STARS = [
    ("Telescope surveys catalogue faint galaxies; we calibrate photometric redshifts of distant galaxies "
    "with spectroscopic anchors from a southern sky survey."),
    ("Exoplanet transits in stellar light curves are detected by a periodogram search that rejects "
    "eclipsing binaries and stellar flares."),
]


def listing(header: str, abstracts: list[str]) -> str:
    return header + "\n\n" + "\n\n".join(abstracts) + "\n"


def age(site: Path) -> None:
    """Give every file an old mtime, so that a rewrite shows even on a coarse clock."""
    for path in site.rglob("*"):
        os.utime(path, ns=(1_000_000_000, 1_000_000_000))


def touched(site: Path) -> set[str]:
    return {p.relative_to(site).as_posix() for p in site.rglob("*")
            if p.is_file() and p.stat().st_mtime_ns != 1_000_000_000}


def paper_urls(site: Path) -> dict[str, str]:
    """Return each paper's URL by the first words of its abstract."""
    papers = json.loads((site / "papers.json").read_text(encoding="utf-8"))["papers"]
    return {" ".join(p["abstract"].split()[:6]): p["url"] for p in papers}


def test_adding_a_listing_rewrites_only_what_must_change(make_content, tmp_path):
    content = make_content({"graphs.txt": listing("ICML 2025 Papers", GRAPHS)})
    site = tmp_path / "site"
    before = build(Paths(content, site), base_url=BASE_URL)
    old_files = tree(site)
    age(site)

    (content / "listings" / "stars.txt").write_text(listing("NeurIPS 2025 Papers", STARS), encoding="utf-8")
    after = build(Paths(content, site), base_url=BASE_URL)
    new_files = tree(site)

    new_ids = {p.id for p in after.catalog.papers} - {p.id for p in before.catalog.papers}
    assert len(new_ids) == 2
    differ = {path for path in new_files if old_files.get(path) != new_files[path]}
    assert set(after.changes.written) == differ == touched(site), "written exactly the files whose bytes changed"
    assert after.changes.removed == ()

    new_topics = {slug for p in after.catalog.papers if p.id in new_ids for slug in p.topic_slugs}
    expected = (
        {f"papers/{pid}.html" for pid in new_ids}
        | {"venues/neurips-2025.html", "feeds/venues/neurips-2025.xml", "index.html", "venues/index.html",
           "topics/index.html", "new/index.html", "feeds/all.xml", "papers.json", "sitemap.xml",
           "map/index.html", "stats/index.html"}
        | {f"topics/{slug}.html" for slug in new_topics} | {f"feeds/topics/{slug}.xml" for slug in new_topics}
    )
    search = {path for path in differ if path.startswith("search/")}
    assert search, "the search files change"
    assert differ - search == expected
    assert not any(path.startswith("papers/") for path in differ - {f"papers/{pid}.html" for pid in new_ids}), \
        "no page of an earlier paper changes"


def test_a_rebuild_with_no_change_writes_nothing(make_content, tmp_path):
    content = make_content({"graphs.txt": listing("ICML 2025 Papers", GRAPHS),
                            "stars.txt": listing("NeurIPS 2025 Papers", STARS)})
    site = tmp_path / "site"
    build(Paths(content, site), base_url=BASE_URL)
    age(site)
    age(content)
    result = build(Paths(content, site), base_url=BASE_URL)
    assert result.changes.written == () and result.changes.removed == ()
    assert result.changes.unchanged == result.files
    assert touched(site) == set()
    assert touched(content) == set(), "history.yaml is not rewritten either"


def topic_pages(site: Path) -> list[str]:
    """Return the slugs of the topics the site has a page for."""
    return [p.stem for p in (site / "topics").glob("*.html") if p.name != "index.html"]


def test_paper_urls_never_change_when_listings_are_added_reordered_or_renamed(make_content, tmp_path):
    content = make_content({"graphs.txt": listing("ICML 2025 Papers", GRAPHS[:3])})
    site = tmp_path / "site"
    build(Paths(content, site))
    first = paper_urls(site)

    folder = content / "listings"
    (folder / "stars.txt").write_text(listing("NeurIPS 2025 Papers", STARS), encoding="utf-8")
    build(Paths(content, site))
    added = paper_urls(site)
    assert {k: added[k] for k in first} == first

    (folder / "graphs.txt").rename(folder / "0-icml.txt")  # renamed, and now read first
    (folder / "0-icml.txt").write_text(listing("ICML 2025 Papers", GRAPHS[:3][::-1]), encoding="utf-8")
    build(Paths(content, site))
    assert paper_urls(site) == added

    (folder / "0-icml.txt").unlink()
    topics_before = set(topic_pages(site))
    result = build(Paths(content, site))
    assert paper_urls(site) == {k: v for k, v in added.items() if k not in first}
    left = set(topic_pages(site))
    emptied = [f"topics/{slug}.html" for slug in topics_before - left]
    assert emptied, "the listing left had papers of topics no other paper is in"
    assert sorted(result.changes.removed) == sorted([*first.values(), "venues/icml-2025.html", *emptied]), \
        "the pages of papers, venues and topics that left are removed"


def test_the_history_records_arrivals_and_survives_a_rename(make_content, tmp_path, monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    content = make_content({"graphs.txt": listing("ICML 2025 Papers", GRAPHS)})
    site = tmp_path / "site"
    build(Paths(content, site))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764374400")  # 2025-11-29
    (content / "listings" / "stars.txt").write_text(listing("NeurIPS 2025 Papers", STARS), encoding="utf-8")
    build(Paths(content, site))
    history, problems = load_history(content / HISTORY_FILE, HISTORY_FILE)
    assert problems == []
    assert [(a.file, a.arrived, a.date, a.papers) for a in history.arrivals] == [
        ("listings/graphs.txt", 1, None, 4), ("listings/stars.txt", 2, "2025-11-29", 2)]

    whats_new = (site / "new" / "index.html").read_text(encoding="utf-8")
    assert whats_new.index("NeurIPS 2025") < whats_new.index("ICML 2025"), "the newest listing comes first"
    assert '<time datetime="2025-11-29">' in whats_new

    shutil.move(content / "listings" / "stars.txt", content / "listings" / "astro.txt")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1800000000")
    build(Paths(content, site))
    history, _ = load_history(content / HISTORY_FILE, HISTORY_FILE)
    assert [(a.file, a.arrived, a.date) for a in history.arrivals] == [
        ("listings/graphs.txt", 1, None), ("listings/astro.txt", 2, "2025-11-29")], "a rename keeps the arrival"


def test_the_feed_puts_the_newest_listing_first_with_its_date(make_content, tmp_path, monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    content = make_content({"graphs.txt": listing("ICML 2025 Papers", GRAPHS)})
    site = tmp_path / "site"
    build(Paths(content, site), base_url=BASE_URL)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1764374400")
    (content / "listings" / "stars.txt").write_text(listing("NeurIPS 2025 Papers", STARS), encoding="utf-8")
    build(Paths(content, site), base_url=BASE_URL)
    feed = (site / "feeds" / "all.xml").read_text(encoding="utf-8")
    assert feed.index("Telescope surveys") < feed.index("Exoplanet transits") < feed.index("MolGraph")
    assert "<updated>2025-11-29T00:00:00Z</updated>" in feed.split("<entry>")[0], "the feed's date is its newest"
    assert feed.split("<entry>")[-1].count("<updated>2025-01-01T00:00:00Z</updated>") == 1, \
        "an undated listing's papers carry 1 January of their year"


def test_a_newer_venue_leaves_the_earlier_search_shards_alone(make_content, tmp_path):
    """Search documents go oldest arrival first: a new listing's papers come after the full shards."""
    words = ["lattice", "quorum", "ferrite", "glacier", "harbor", "orchid", "prism", "tundra", "violet", "walnut"]
    old = [f"We measure the {a} {b} effect in sample {n} and report how {c} conditions change it."
           for n, (a, b, c) in enumerate(itertools.islice(itertools.product(words, words, words), 50))]
    content = make_content({"old.txt": listing("ICML 2025 Papers", old)})
    site = tmp_path / "site"
    build(Paths(content, site))
    shard = (site / "search" / "docs" / "0.json").read_bytes()
    assert len(json.loads(shard)) == 50

    (content / "listings" / "new.txt").write_text(listing("ICML 2026 Papers", STARS), encoding="utf-8")
    result = build(Paths(content, site))
    assert result.catalog.venues[0].label == "ICML 2026", "the new venue comes first in the catalog"
    assert (site / "search" / "docs" / "0.json").read_bytes() == shard
    assert "search/docs/0.json" not in result.changes.written
    assert [d["text"][:20] for d in json.loads((site / "search" / "docs" / "1.json").read_bytes())] == \
        [s[:20] for s in STARS]


def test_whats_new_shows_the_first_papers_of_a_large_listing(make_content, tmp_path, monkeypatch):
    monkeypatch.setattr(pages, "NEWS_PAPERS", 3)
    content = make_content({"graphs.txt": listing("ICML 2025 Papers", GRAPHS)})
    site = tmp_path / "site"
    build(Paths(content, site))
    titles = [p["title"] for p in json.loads((site / "papers.json").read_text(encoding="utf-8"))["papers"]]
    whats_new = (site / "new" / "index.html").read_text(encoding="utf-8")
    assert whats_new.count('<li class="card"') == 3
    shown = [whats_new.index(html.escape(title, quote=False)) for title in titles[:3]]
    assert shown == sorted(shown), "the listing's first papers, in its order"
    assert html.escape(titles[3], quote=False) not in whats_new
    assert '<span class="count">4 papers</span>' in whats_new, "the count is the listing's"
    assert re.search(r'Showing the first 3 of 4\. <a href="\.\./venues/icml-2025\.html">See every paper of ICML 2025</a>',
                     whats_new)
