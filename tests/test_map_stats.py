"""The map of the papers (map/index.html) and the statistics page (stats/index.html)."""

from __future__ import annotations

import json
import posixpath
import re
from html.parser import HTMLParser
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from scipy import sparse

from papercat.enrich.related import terms
from papercat.enrich.related.matrix import _matrix
from papercat.enrich.paper_map import SIZE, layout, places, principal_components, short
from papercat.pipeline import Paths, build
from papercat.site.stats import SHADES, shade
from tests.conftest import BUNDLED

MAP = "map/index.html"
STATS = "stats/index.html"

GRAPHS = [
    ("We study graph neural networks for node classification and show that message passing over graph "
     "edges with attention improves accuracy on citation graphs."),
    ("Graph neural networks struggle with long-range dependencies; we propose graph rewiring that adds "
     "edges between distant nodes and improves message passing on molecular graphs."),
    ("We analyse the expressive power of message passing graph neural networks and prove that node "
     "features with positional encodings distinguish more graphs than the Weisfeiler-Leman test."),
]
ASTRONOMY = [
    ("We detect exoplanets in telescope light curves of distant stars with a convolutional network "
     "trained on transit signals from the Kepler survey of stars."),
    ("Galaxy morphology from telescope images: we classify spiral and elliptical galaxies in a sky "
     "survey and estimate the redshift of each galaxy from its photometry."),
    ("We estimate the masses of stars and galaxies from spectra recorded by a telescope survey, and "
     "find distant galaxies whose stars formed early."),
]


class Page(HTMLParser):
    """The parts of a page these tests read: links, ids, the map's dots and the heat-map cells."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.view_box = ""
        self.dots: list[dict[str, str]] = []  # href, title, cx, cy, class of each dot
        self.cells: list[tuple[str, str, str]] = []  # (class, href or "", text) of each heat-map <td>
        self._in_svg = False
        self._dot: dict[str, str] | None = None
        self._title = False
        self._heat = False
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and "href" in a:
            self.links.append(a["href"])
        if tag == "svg" and "map-svg" in a.get("class", ""):
            self._in_svg, self.view_box = True, a["viewbox"]
        elif self._in_svg and tag == "a":
            self._dot = {"href": a["href"], "title": ""}
        elif self._dot is not None and tag == "title":
            self._title = True
        elif self._dot is not None and tag == "circle":
            self._dot.update(cx=a["cx"], cy=a["cy"], cls=a["class"])
        if tag == "table" and "heat" in a.get("class", "").split():
            self._heat = True
        elif self._heat and tag == "td":
            self._cell = [a.get("class", ""), "", ""]
        elif self._cell is not None and tag == "a":
            self._cell[1] = a["href"]

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg":
            self._in_svg = False
        elif tag == "title":
            self._title = False
        elif tag == "a" and self._dot is not None:
            self.dots.append(self._dot)
            self._dot = None
        elif tag == "table":
            self._heat = False
        elif tag == "td" and self._cell is not None:
            self.cells.append((self._cell[0], self._cell[1], self._cell[2].strip()))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._title and self._dot is not None:
            self._dot["title"] += data
        if self._cell is not None:
            self._cell[2] += data


def parse(site: Path, path: str) -> Page:
    page = Page()
    page.feed((site / path).read_text(encoding="utf-8"))
    return page


def resolve(page_path: str, href: str) -> tuple[str, str]:
    """Return the site-relative file and the fragment a relative link on ``page_path`` points at."""
    target, _, fragment = href.partition("#")
    if not target:
        return page_path, fragment
    return posixpath.normpath(posixpath.join(posixpath.dirname(page_path), target)), fragment


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("map") / "site"
    build(Paths(content=BUNDLED, out=out))
    return out


@pytest.fixture(scope="module")
def papers(site: Path) -> list[dict]:
    return json.loads((site / "papers.json").read_text(encoding="utf-8"))["papers"]


def test_the_map_has_one_dot_per_paper_each_named_by_title_and_topic(site, papers):
    page = parse(site, MAP)
    by_url = {p["url"]: p for p in papers}
    assert len(page.dots) == len(papers)
    linked = [resolve(MAP, dot["href"])[0] for dot in page.dots]
    assert sorted(linked) == sorted(by_url)
    topics = {slug: name for slug, name in re.findall(r'href="\.\./topics/([a-z0-9-]+)\.html">'
                                                       r'<span class="map-key m\d+"></span>([^<]+?) <',
                                                       (site / MAP).read_text(encoding="utf-8"))}
    for dot, url in zip(page.dots, linked):
        paper = by_url[url]
        name = topics[paper["topics"][0]].replace("&amp;", "&")
        assert dot["title"] == f"{paper['title']} ({name})"


def test_every_map_link_resolves_and_every_dot_is_inside_the_view_box(site):
    page = parse(site, MAP)
    assert page.view_box == f"0 0 {SIZE} {SIZE}"
    for href in page.links:
        target, _ = resolve(MAP, href)
        assert (site / target).is_file(), href
    for dot in page.dots:
        assert 0 <= int(dot["cx"]) <= SIZE and 0 <= int(dot["cy"]) <= SIZE, dot


def test_the_pages_keep_to_the_content_security_policy(site):
    for path in (MAP, STATS):
        html = (site / path).read_text(encoding="utf-8")
        assert " style=" not in html and "<style" not in html and "<script>" not in html, path


def test_the_home_page_links_to_the_map_and_the_statistics(site):
    links = {resolve("index.html", href)[0] for href in parse(site, "index.html").links}
    assert {MAP, STATS} <= links


def test_two_builds_give_the_same_map_and_statistics(site, tmp_path):
    build(Paths(content=BUNDLED, out=tmp_path / "again"))
    for path in (MAP, STATS):
        assert (tmp_path / "again" / path).read_bytes() == (site / path).read_bytes(), path


def _dots_by_group(make_content, tmp_path, astronomy_first: bool) -> dict[str, list[np.ndarray]]:
    abstracts = ASTRONOMY + GRAPHS if astronomy_first else GRAPHS + ASTRONOMY
    content = make_content({"a.txt": "ICML 2025 Papers\n\n" + "\n\n".join(abstracts) + "\n"},
                           name=f"content-{astronomy_first}")
    out = tmp_path / f"site-{astronomy_first}"
    build(Paths(content=content, out=out))
    records = json.loads((out / "papers.json").read_text(encoding="utf-8"))["papers"]
    group = {r["url"]: "graphs" if r["text"] in GRAPHS else "astronomy" for r in records}
    groups: dict[str, list[np.ndarray]] = {"graphs": [], "astronomy": []}
    for dot in parse(out, MAP).dots:
        groups[group[resolve(MAP, dot["href"])[0]]].append(np.array([int(dot["cx"]), int(dot["cy"])]))
    return groups


@pytest.mark.parametrize("astronomy_first", [False, True])
def test_similar_papers_sit_closer_than_dissimilar_ones(make_content, tmp_path, astronomy_first):
    groups = _dots_by_group(make_content, tmp_path, astronomy_first)
    assert [len(g) for g in groups.values()] == [3, 3]
    within = [np.linalg.norm(a - b) for g in groups.values() for a, b in combinations(g, 2)]
    between = [np.linalg.norm(a - b) for a in groups["graphs"] for b in groups["astronomy"]]
    assert np.mean(within) < np.mean(between) / 2, (within, between)


def test_layout_functions_are_deterministic_and_in_range():
    def matrix(texts: list[str]) -> sparse.csr_matrix:
        return _matrix([terms("", text) for text in texts], [()] * len(texts))[0]

    points = places(matrix(GRAPHS + ASTRONOMY))
    assert places(matrix(GRAPHS + ASTRONOMY)) == points
    assert all(0 <= c <= SIZE for point in points for c in point)
    assert places(matrix(GRAPHS[:1])) == [(SIZE // 2, SIZE // 2)]
    assert places(matrix([])) == []
    assert principal_components(matrix([])).shape == (0, 2)


def test_a_catalog_past_its_reference_is_placed_on_the_reference_papers_axes():
    """The reference papers (the first rows) are laid out as a map of them alone would lay them out, and
    later papers are projected onto their axes: a layout found before later papers came places them as
    one found after, and a paper added later moves no reference paper but by the map's scaling."""
    rng = np.random.default_rng(5)
    texts = [" ".join(rng.choice(WORDS, size=30)) for _ in range(60)]
    whole = _matrix([terms("", text) for text in texts], [()] * len(texts))[0]
    reference = 40
    found = layout(whole, reference)
    assert np.allclose(found.points, principal_components(whole[:reference][:, found.columns]))
    projected = whole[:reference][:, found.columns] @ found.axes - found.mean @ found.axes
    assert np.allclose(projected, found.points), "the reference's own rows project onto their places"
    earlier = layout(whole[:reference + 5], reference)  # before the last 15 papers came
    assert earlier.places(whole) == found.places(whole) == layout(whole, reference).places(whole)
    assert len(found.places(whole)) == 60 and found.places(whole)[:reference] != places(whole)[:reference]
    assert layout(whole, 60).places(whole) == places(whole), "a catalog that is its own reference: as a whole"


WORDS = [f"{stem}{end}" for stem in ("graph", "star", "galaxy", "node", "network", "telescope", "proof", "lemma")
         for end in ("", "s", "ing", "ed")]


def test_short_labels_cut_at_a_word():
    assert short("A short title", 60) == "A short title"
    assert short("Graph neural networks for everything under the sun", 20) == "Graph neural…"


def test_shades_grow_with_the_count():
    assert shade(0, 7) == 0
    assert [shade(n, 8) for n in range(1, 9)] == sorted(shade(n, 8) for n in range(1, 9))
    assert shade(1, 8) == 1 and shade(8, 8) == SHADES - 1


def test_statistics_match_papers_json(site, papers):
    html = (site / STATS).read_text(encoding="utf-8")
    per_venue = {slug: sum(slug in p["venues"] for p in papers) for p in papers for slug in p["venues"]}
    for slug, n in per_venue.items():
        assert re.search(rf'href="\.\./venues/{slug}\.html">[^<]+</a></th><td>{n}</td>', html), slug
    per_topic = {slug: sum(slug in p["topics"] for p in papers) for p in papers for slug in p["topics"]}
    for slug, n in per_topic.items():
        assert re.search(rf'href="\.\./topics/{slug}\.html">[^<]+</a></th><td>{n}</td>', html), slug
    cells = parse(site, STATS).cells
    linked = [(resolve(STATS, href), int(text)) for _, href, text in cells if href]
    expected = {}
    for p in papers:
        for venue in p["venues"]:
            key = (f"venues/{venue}.html", f"topic-{p['topics'][0]}")
            expected[key] = expected.get(key, 0) + 1
    assert dict(linked) == expected
    assert len(linked) == len(expected)
    assert all(cls == "h0" and text == "0" for cls, href, text in cells if not href and "total" not in cls)


def test_every_statistics_link_resolves_to_a_page_and_its_fragment(site):
    page = parse(site, STATS)
    assert page.links
    for href in page.links:
        target, fragment = resolve(STATS, href)
        assert (site / target).is_file(), href
        if fragment:
            assert fragment in parse(site, target).ids, href


def test_the_statistics_tables_are_labelled(site):
    html = (site / STATS).read_text(encoding="utf-8")
    assert html.count("<caption") == html.count("<table") == 3
    assert '<th scope="col">' in html and '<th scope="row">' in html
