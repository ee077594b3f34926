"""Merging listings into the catalog: one paper per abstract, stable ids, venues and order."""

from __future__ import annotations

from papercat.catalog import make_catalog
from papercat.content.listing import parse_listing
from papercat.model import Link, TopicMatch
from papercat.content.overrides import Override
from papercat.text import paper_id
from tests.conftest import ABSTRACT_A, ABSTRACT_B, ABSTRACT_C


def listing(text: str, path: str = "l.txt"):
    parsed, problems = parse_listing(text.encode("utf-8"), path)
    assert [p for p in problems if not p.warning] == []
    return parsed


def catalog_of(*texts: str):
    listings = [listing(t, f"listings/{i}.txt") for i, t in enumerate(texts)]
    return make_catalog(listings, ())


def test_id_depends_on_the_normalised_abstract_only():
    assert paper_id(ABSTRACT_A) == paper_id("  " + ABSTRACT_A.upper().replace(" ", "   ") + " ")
    assert paper_id(ABSTRACT_A) != paper_id(ABSTRACT_B)
    assert len(paper_id(ABSTRACT_A)) == 12


def test_ids_do_not_change_when_listings_are_reordered_or_renamed_or_added_to():
    first, _ = catalog_of(f"ICML 2025 Papers\n\n{ABSTRACT_A}\n\n{ABSTRACT_B}\n")
    second, _ = catalog_of(f"ICLR 2025 Papers\n\n{ABSTRACT_C}\n",
                           f"ICML 2025 Papers\n\n{ABSTRACT_B}\n\n{ABSTRACT_A}\n")
    ids = lambda c: {p.abstract: p.id for p in c.papers}
    assert ids(first) == {a: i for a, i in ids(second).items() if a != ABSTRACT_C}


def test_same_abstract_twice_in_one_listing_is_one_paper_with_a_warning():
    catalog, problems = catalog_of(f"ICML 2025 Papers\n\n{ABSTRACT_A}\n\n{ABSTRACT_B}\n\n{ABSTRACT_A}\n")
    assert len(catalog.papers) == 2
    assert [str(p) for p in problems] == [
        "listings/0.txt:7: warning: the same abstract as listings/0.txt:3 in ICML 2025; listed once"]


def test_two_listings_of_one_venue_make_one_venue_with_both_papers():
    catalog, problems = catalog_of(f"ICML 2025 Papers\n\n{ABSTRACT_A}\n", f"ICML 2025 论文列表\n\n{ABSTRACT_B}\n")
    assert problems == []
    assert [v.label for v in catalog.venues] == ["ICML 2025"]
    assert [p.abstract for p in catalog.by_venue["icml-2025"]] == [ABSTRACT_A, ABSTRACT_B]


def test_duplicate_in_another_venue_is_one_paper_listed_under_both():
    catalog, problems = catalog_of(f"ICML 2025 Papers\n\n{ABSTRACT_A}\n", f"ICLR 2025 Papers\n\n{ABSTRACT_A}\n")
    assert problems == [] and len(catalog.papers) == 1
    paper = catalog.papers[0]
    assert paper.venues == ("icml-2025", "iclr-2025")
    assert [str(s) for s in paper.sources] == ["listings/0.txt:3", "listings/1.txt:3"]
    assert catalog.by_venue["iclr-2025"] == (paper,) and catalog.by_venue["icml-2025"] == (paper,)


def test_venues_newest_first_then_by_name_and_papers_in_listing_order():
    catalog, _ = catalog_of(f"NeurIPS 2024 Papers\n\n{ABSTRACT_C}\n",
                            f"ICML 2025 Papers\n\n{ABSTRACT_B}\n\n{ABSTRACT_A}\n",
                            f"ICLR 2025 Papers\n\n{ABSTRACT_C}\n")
    assert [v.slug for v in catalog.venues] == ["iclr-2025", "icml-2025", "neurips-2024"]
    assert [p.abstract for p in catalog.papers] == [ABSTRACT_B, ABSTRACT_A, ABSTRACT_C]


def test_every_paper_has_a_title_topics_and_its_links():
    text = ABSTRACT_A + " Code: https://github.com/x/guard."
    catalog, _ = catalog_of(f"ICML 2025 Papers\n\n{text}\n")
    paper = catalog.papers[0]
    assert paper.title and len(paper.title) <= 100
    assert paper.links == (Link("https://github.com/x/guard", "code", "Code"),)
    assert paper.topic_slugs == ("other",)  # no taxonomy given
    assert [t.slug for t in catalog.topics] == ["other"]
    assert catalog.by_topic["other"] == (paper,)


def test_two_abstracts_with_one_id_is_an_error(monkeypatch):
    monkeypatch.setattr("papercat.content.listing.paper_id", lambda text: "000000000000")
    _, problems = catalog_of(f"ICML 2025 Papers\n\n{ABSTRACT_A}\n\n{ABSTRACT_B}\n")
    assert [str(p) for p in problems] == [
        "listings/0.txt:5: two different abstracts have the id 000000000000; expected distinct ids "
        "(report this as a bug)"]


def test_papers_yaml_gives_title_authors_year_links_and_topics():
    text = f"{ABSTRACT_A} See https://github.com/x/guard."
    pid = paper_id(text)
    given = Override(title="GuardAgent: Safeguard LLM Agents", authors=("Zhen Xiang", "Bo Li"), year=2024,
                     links=(("Paper", "https://arxiv.org/abs/2406.09187"),), topics=("graphs",))
    listing_ = listing(f"ICML 2025 Papers\n\n{text}\n", "listings/0.txt")
    catalog, _ = make_catalog([listing_], (), {pid: given})
    paper = catalog.papers[0]
    assert paper.title == "GuardAgent: Safeguard LLM Agents" and paper.title_given
    assert paper.authors == ("Zhen Xiang", "Bo Li") and paper.year == 2024
    assert [link.label for link in paper.links] == ["Paper", "Code"]
    assert paper.topics == (TopicMatch("graphs", 0.0),)  # replaces "Other"


def test_duplicate_derived_titles_are_made_distinct():
    first = "We propose a new method for graph learning that improves accuracy on molecules and proteins."
    second = "We propose a new method for graph learning that improves accuracy on citation networks."
    catalog, _ = catalog_of(f"ICML 2025 Papers\n\n{first}\n\n{second}\n")
    titles = [p.title for p in catalog.papers]
    assert len(set(titles)) == 2


def test_abstract_is_rendered_and_its_warnings_name_the_listing_line():
    hostile = "We show <script>alert(1)</script> that $x^2$ and *this* hold for every graph we tried."
    catalog, problems = catalog_of(f"ICML 2025 Papers\n\n{ABSTRACT_B}\n\n{hostile}\n")
    paper = catalog.papers[1]
    assert "<math" in paper.html and "<em>this</em>" in paper.html and "<script" not in paper.html
    assert "*" not in paper.text and "$" not in paper.text
    long = "We study " + "very " * 5000 + "long abstracts."
    _, problems = catalog_of(f"ICML 2025 Papers\n\n{long}\n")
    assert [p.line for p in problems] == [3] and problems[0].warning
