"""Whole builds: the bundled catalog, golden files, determinism and atomic, all-or-nothing output."""

from __future__ import annotations

import difflib
import json
import os
from html.parser import HTMLParser

import pytest

from papercat.errors import CatalogError, ContentError, StrictWarnings
from papercat.pipeline import Paths, build
from papercat.output.writer import MARKER
from tests.conftest import ABSTRACT_A, BUNDLED, ROOT, tree

GOLDEN = ROOT / "tests" / "golden" / "site"
GOLDEN_URL = "https://example.org/catalog/"  # so the golden site has its feeds and sitemap too
REFRESH = f"make golden (python build.py build --out tests/golden/site --base-url {GOLDEN_URL})"


def test_bundled_catalog_has_57_papers_in_two_venues(tmp_path):
    result = build(Paths(content=BUNDLED, out=tmp_path / "site"))
    catalog = result.catalog
    assert len(catalog.papers) == 57
    assert {v.label: len(catalog.by_venue[v.slug]) for v in catalog.venues} == {"ICML 2025": 38, "ICLR 2025": 19}
    site = tmp_path / "site"
    assert len(list((site / "papers").glob("*.html"))) == 57
    assert {p.name for p in (site / "venues").glob("*.html")} == {"index.html", "icml-2025.html", "iclr-2025.html"}
    assert len(list((site / "topics").glob("*.html"))) == len(catalog.topics) + 1
    assert result.warnings == ()


def test_bundled_site_matches_the_golden_files(tmp_path):
    build(Paths(content=BUNDLED, out=tmp_path / "site"), base_url=GOLDEN_URL)
    built, golden = tree(tmp_path / "site"), tree(GOLDEN)
    assert sorted(built) == sorted(golden), f"files differ from tests/golden/site; refresh with: {REFRESH}"
    for name in sorted(built):
        if built[name] != golden[name]:
            diff = difflib.unified_diff(golden[name].decode().splitlines(), built[name].decode().splitlines(),
                                        f"golden/{name}", f"built/{name}", lineterm="", n=1)
            pytest.fail(f"{name} differs from the golden copy (refresh with: {REFRESH}):\n"
                        + "\n".join(list(diff)[:40]))


def test_two_builds_are_byte_identical(tmp_path):
    build(Paths(content=BUNDLED, out=tmp_path / "one"), base_url=GOLDEN_URL)
    build(Paths(content=BUNDLED, out=tmp_path / "two"), base_url=GOLDEN_URL)
    assert tree(tmp_path / "one") == tree(tmp_path / "two")


def test_build_does_not_depend_on_listing_file_names(make_content, tmp_path):
    listings = {f"renamed-{i}.txt": p.read_text(encoding="utf-8")
                for i, p in enumerate(sorted((BUNDLED / "listings").glob("*.txt")))}
    content = make_content(listings)
    build(Paths(content=content, out=tmp_path / "site"))
    ours = json.loads((tmp_path / "site" / "papers.json").read_text())["papers"]
    golden = json.loads((GOLDEN / "papers.json").read_text())["papers"]
    assert [(p["id"], p["title"], p["url"]) for p in ours] == [(p["id"], p["title"], p["url"]) for p in golden]


def test_papers_json_holds_every_paper(tmp_path):
    build(Paths(content=BUNDLED, out=tmp_path / "site"))
    papers = json.loads((tmp_path / "site" / "papers.json").read_text(encoding="utf-8"))["papers"]
    assert len(papers) == 57 and len({p["id"] for p in papers}) == 57
    for paper in papers:
        assert {"id", "title", "venue", "year", "topics", "url", "abstract"} <= paper.keys()
        assert (tmp_path / "site" / paper["url"]).is_file()


def test_papers_json_is_written_as_json_dumps_would_write_it():
    import random

    from papercat.model import Catalog, Link, Paper, RelatedPaper, Source, TopicMatch, Venue
    from papercat.site.pages import papers_json
    rng = random.Random(7)
    texts = ["", "plain", "é ü ✓ 🎉", 'quote " back\\slash', "new\nline\ttab", "\u2028\u2029\x00\x1f", "</script>"]

    def some() -> tuple[str, ...]:
        return tuple(rng.choice(texts) for _ in range(rng.randrange(4)))

    venues = (Venue("v-2025", "V", 2025), Venue("w-2024", 'W "<x>"', 2024))
    papers = tuple(Paper(
        id=f"{rng.choice(texts)}{n}", title=rng.choice(texts), abstract=rng.choice(texts),
        venues=rng.choice([("v-2025",), ("w-2024", "v-2025")]), year=rng.choice([0, 2025, 10**20]),
        sources=tuple(Source(rng.choice(texts), rng.randrange(1, 99)) for _ in range(rng.randrange(1, 3))),
        topics=tuple(TopicMatch(slug, 1.0) for slug in some()), links=tuple(Link(url, "code", "Code") for url in some()),
        text=rng.choice(texts), keyphrases=some(), related=tuple(RelatedPaper(i, 0.5, ()) for i in some()),
        authors=some()) for n in range(300))
    labels = {v.slug: v.label for v in venues}
    records = [{"id": p.id, "title": p.title, "venue": labels[p.venue], "venue_slug": p.venue, "venues": list(p.venues),
                "year": p.year, "topics": list(p.topic_slugs), "url": f"papers/{p.id}.html",
                "links": [link.url for link in p.links], "authors": list(p.authors), "keyphrases": list(p.keyphrases),
                "related": [r.id for r in p.related], "sources": [f"{s.path}:{s.line}" for s in p.sources],
                "abstract": p.abstract, "text": p.text} for p in papers]
    expected = json.dumps({"papers": records}, ensure_ascii=False, sort_keys=True, indent=1) + "\n"
    assert papers_json(Catalog(papers, venues, ())).decode() == expected
    empty = Catalog.assemble([], [], [], {}, {})
    assert papers_json(empty).decode() == json.dumps({"papers": []}, indent=1) + "\n"


def test_failed_build_leaves_the_previous_site_untouched(make_content, tmp_path):
    content = make_content({"a.txt": f"ICML 2025 Papers\n\n{ABSTRACT_A}\n"})
    out = tmp_path / "site"
    build(Paths(content=content, out=out))
    before = tree(out)
    mtimes = {p: p.stat().st_mtime_ns for p in out.rglob("*")}
    (content / "listings" / "b.txt").write_bytes(b"ICLR 2025 Papers\n\n\xff\xfe broken\n")
    (content / "listings" / "c.txt").write_text("", encoding="utf-8")
    with pytest.raises(ContentError) as caught:
        build(Paths(content=content, out=out))
    assert len(caught.value.problems) == 2  # both files reported together
    assert tree(out) == before
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*")} == mtimes
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_a_template_error_is_reported_and_nothing_is_written(small_content, tmp_path):
    templates = tmp_path / "templates"
    templates.mkdir()
    for t in (ROOT / "templates").glob("*.html"):
        (templates / t.name).write_text(t.read_text())
    (templates / "paper.html").write_text("{% extends 'base.html' %}\n{% block main %}{{ paper.nope }}{% endblock %}\n")
    with pytest.raises(CatalogError, match=r"templates/paper.html: UndefinedError: .*nope.* while rendering papers/"):
        build(Paths(content=small_content, out=tmp_path / "site", templates=templates))
    assert not (tmp_path / "site").exists()


def test_strict_turns_warnings_into_a_failure(make_content, tmp_path):
    content = make_content({"a.txt": f"ICML 2025 Papers\n\n{ABSTRACT_A}\n\nPage 2\n"})
    assert len(build(Paths(content=content, out=tmp_path / "lenient")).warnings) == 1
    with pytest.raises(StrictWarnings, match="1 warning with --strict; nothing was written"):
        build(Paths(content=content, out=tmp_path / "strict"), strict=True)
    assert not (tmp_path / "strict").exists()


def test_refuses_to_replace_a_folder_papercat_did_not_write(small_content, tmp_path):
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work")
    with pytest.raises(CatalogError, match=f"holds files that papercat did not write \\(no {MARKER} in it\\)"):
        build(Paths(content=small_content, out=precious))
    assert (precious / "thesis.tex").read_text() == "years of work"


def test_output_files_are_world_readable(small_content, tmp_path):
    build(Paths(content=small_content, out=tmp_path / "site"))
    for path in (tmp_path / "site").rglob("*"):
        assert os.stat(path).st_mode & 0o004, path


HOSTILE = ("We propose <script>alert(1)</script> and <img src=x onerror=alert(2)> with "
           "<a href=\"javascript:alert(3)\">a link</a>, $\\text{<img src=y onerror=alert(4)>}$, "
           "$\\href{javascript:alert(5)}{x}$ and [click](javascript:alert(6)) plus data:text/html,evil here.")


class _Tags(HTMLParser):
    """Collects every start tag with its attributes, as a browser would parse them."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))


SCRIPTS = {"static/search.js": ["defer", "src"], "static/venue.js": ["defer", "src"], "static/theme.js": ["src"]}


def test_hostile_abstract_never_reaches_a_page_as_markup(make_content, tmp_path):
    content = make_content({"a.txt": f"ICML 2025 Papers\n\n{HOSTILE}\n\n{ABSTRACT_A}\n"})
    build(Paths(content=content, out=tmp_path / "site"))
    pages = sorted((tmp_path / "site").rglob("*.html"))
    assert any("alert(1)" in p.read_text(encoding="utf-8") for p in pages)  # shown, as text
    for page in pages:
        parser = _Tags()
        parser.feed(page.read_text(encoding="utf-8"))
        for tag, attrs in parser.tags:
            # the map page's own inline SVG (template-made dots; titles escaped as text) is the one exception
            allowed = {"svg"} if page.relative_to(tmp_path / "site").as_posix() == "map/index.html" else set()
            assert tag not in {"img", "iframe", "object", "embed", "svg", "style"} - allowed, (page, tag)
            if tag == "script":  # only the site's own script files: deferred, but the tiny theme one
                src = dict(attrs).get("src") or ""
                expected = next((names for path, names in SCRIPTS.items() if src.endswith(path)), None)
                assert [name for name, _ in attrs] == expected, (page, src)
            for name, value in attrs:
                assert not name.startswith("on"), (page, tag, name)
                if name in {"href", "src", "action"}:
                    assert not (value or "").strip().lower().startswith(("javascript:", "data:")), (page, value)


def test_papers_yaml_warns_about_ids_that_match_no_paper(make_content, tmp_path):
    content = make_content({"a.txt": f"ICML 2025 Papers\n\n{ABSTRACT_A}\n"})
    (content / "papers.yaml").write_text("papers:\n  0123456789ab:\n    title: Nothing\n", encoding="utf-8")
    result = build(Paths(content=content, out=tmp_path / "site"))
    assert [str(w).split("content/")[-1] for w in result.warnings] == [
        "papers.yaml:2: warning: no paper has the id 0123456789ab; expected an id from papers.json"]


def test_papers_yaml_title_and_authors_reach_the_page_with_a_citation(make_content, tmp_path):
    from papercat.text import paper_id
    content = make_content({"a.txt": f"ICML 2025 Papers\n\n{ABSTRACT_A}\n"})
    (content / "papers.yaml").write_text(
        f"papers:\n  {paper_id(ABSTRACT_A)}:\n    title: 'GuardAgent: Safeguard LLM Agents'\n"
        "    authors: [Zhen Xiang, Bo Li]\n", encoding="utf-8")
    build(Paths(content=content, out=tmp_path / "site"))
    page = (tmp_path / "site" / "papers" / f"{paper_id(ABSTRACT_A)}.html").read_text(encoding="utf-8")
    assert "<h1>GuardAgent: Safeguard LLM Agents</h1>" in page
    assert "Zhen Xiang, Bo Li" in page and "@inproceedings{xiang2025guardagent," in page
    assert "The title was derived" not in page


def test_a_paper_in_two_venues_has_one_page_saying_also_in(make_content, tmp_path):
    from papercat.text import paper_id
    content = make_content({"a.txt": f"ICML 2025 Papers\n\n{ABSTRACT_A}\n",
                            "b.txt": f"ICLR 2025 Papers\n\n{ABSTRACT_A}\n"})
    build(Paths(content=content, out=tmp_path / "site"))
    assert [p.name for p in (tmp_path / "site" / "papers").iterdir()] == [f"{paper_id(ABSTRACT_A)}.html"]
    page = (tmp_path / "site" / "papers" / f"{paper_id(ABSTRACT_A)}.html").read_text(encoding="utf-8")
    assert 'also in: <a href="../venues/iclr-2025.html">ICLR 2025</a>' in page
    badges = ('<p class="card-meta"><a class="badge" href="../venues/icml-2025.html">ICML 2025</a> '
              '<a class="badge" href="../venues/iclr-2025.html">ICLR 2025</a></p>')
    assert badges in (tmp_path / "site" / "new" / "index.html").read_text(encoding="utf-8")


def test_related_papers_are_explained_by_shared_terms_and_lead_to_real_pages(tmp_path):
    result = build(Paths(content=BUNDLED, out=tmp_path / "site"))
    ids = {p.id for p in result.catalog.papers}
    assert sum(len(p.related) for p in result.catalog.papers) >= 57 * 3
    for paper in result.catalog.papers:
        assert len(paper.related) <= 5 and 5 <= len(paper.keyphrases) <= 8
        for link in paper.related:
            assert link.shared and link.id in ids and link.id != paper.id
