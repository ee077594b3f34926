"""papers.yaml: a paper's real title, authors, year, links and topics; one message per mistake."""

from __future__ import annotations

from pathlib import Path

import pytest

from papercat.content.config import load_taxonomy
from papercat.content.listing import read_listings
from papercat.content.overrides import Override, link_label, load_overrides, unknown_ids
from papercat.text import paper_id
from tests.conftest import BUNDLED, ROOT

SLUGS = {"training", "safety", "graphs"}
PID = "4576ae661917"


def overrides(tmp_path: Path, text: str, slugs: set[str] = SLUGS):
    path = tmp_path / "papers.yaml"
    path.write_text(text, encoding="utf-8")
    return load_overrides(path, "papers.yaml", slugs)


def entry(body: str, pid: str = PID) -> str:
    """Return a papers.yaml with one paper whose fields are body (indented four spaces)."""
    return f"papers:\n  {pid}:\n" + "".join(f"    {line}\n" for line in body.splitlines())


def messages(problems) -> list[str]:
    return [str(p) for p in problems]


VALID = """\
# Real titles for papers whose derived title is off.
papers:
  4576ae661917:
    title: "Spurious Forgetting in Continual Learning of Language Models"
    authors: [Junhao Zheng, Xidi Cai, Shengjie Qiu, Qianli Ma]
    year: 2025
    links:
      - {label: Paper, url: "https://openreview.net/forum?id=ScI7IlKGdI"}
      - https://github.com/zzz47zzz/spurious-forgetting     # a bare URL is fine too
      - https://www.example.org/talk
    topics: [training, safety, training]
  0123456789ab:
    authors:
      - Ada   Lovelace
  abcdefabcdef: {}
"""


def test_a_valid_file_is_read_whole(tmp_path):
    found, problems = overrides(tmp_path, VALID)
    assert problems == []
    assert found == {
        PID: Override(
            title="Spurious Forgetting in Continual Learning of Language Models",
            authors=("Junhao Zheng", "Xidi Cai", "Shengjie Qiu", "Qianli Ma"),
            year=2025,
            links=(("Paper", "https://openreview.net/forum?id=ScI7IlKGdI"),
                   ("Code", "https://github.com/zzz47zzz/spurious-forgetting"),
                   ("example.org", "https://www.example.org/talk")),
            topics=("training", "safety"),
        ),
        "0123456789ab": Override(authors=("Ada Lovelace",)),
        "abcdefabcdef": Override(),
    }
    assert [o.line for o in found.values()] == [3, 12, 15]


def test_missing_file_means_no_overrides(tmp_path):
    assert load_overrides(tmp_path / "papers.yaml", "papers.yaml", SLUGS) == ({}, [])


@pytest.mark.parametrize("text", ["", "# only a comment\n", "papers:\n", "papers:\n  # 4576ae661917:\n"])
def test_an_empty_file_or_list_means_no_overrides(tmp_path, text):
    assert overrides(tmp_path, text) == ({}, [])


def test_a_folded_title_is_one_line(tmp_path):
    found, problems = overrides(tmp_path, entry("title: >\n  Spurious Forgetting\n  in Continual Learning"))
    assert problems == [] and found[PID].title == "Spurious Forgetting in Continual Learning"


def test_the_bundled_example_is_valid_and_names_a_bundled_paper():
    taxonomy, _ = load_taxonomy(BUNDLED / "topics.yaml", "topics.yaml")
    found, problems = load_overrides(ROOT / "docs" / "papers.example.yaml", "papers.example.yaml",
                                     {t.slug for t in taxonomy})
    assert problems == [] and len(found) == 1
    listings, _ = read_listings(BUNDLED, ROOT)
    ids = {paper_id(e.text) for listing in listings for e in listing.entries}
    assert unknown_ids(found, ids, "papers.example.yaml") == []


@pytest.mark.parametrize("text, message", [
    ("- 4576ae661917\n", "papers.yaml:1: papers.yaml is a list; expected a mapping of keys to values"),
    ("paper:\n  4576ae661917: {}\n",
     'papers.yaml:1: unknown key "paper" in papers.yaml; expected one of: papers'),
    ("4576ae661917:\n  year: 2025\n",
     "papers.yaml:1: unknown key \"4576ae661917\" in papers.yaml (paper ids go under 'papers:'); "
     "expected one of: papers"),
    ("papers: [4576ae661917]\n", 'papers.yaml:1: "papers" is a list; expected a mapping of keys to values'),
    ("papers:\n  4576AE661917: {}\n",
     'papers.yaml:2: paper id "4576AE661917" is not 12 lowercase hexadecimal characters; expected an id like '
     '"4576ae661917", as in papers.json or a paper page\'s address'),
    ("papers:\n  4576ae66191: {}\n",
     'papers.yaml:2: paper id "4576ae66191" is not 12 lowercase hexadecimal characters; expected an id like '
     '"4576ae661917", as in papers.json or a paper page\'s address'),
    ("papers:\n  4576ae661917: {}\n  4576ae661917: {}\n",
     'papers.yaml:3: key "4576ae661917" appears twice in "papers"; expected each key once'),
    ("papers:\n  4576ae661917:\n",
     "papers.yaml:2: paper 4576ae661917 is empty; expected a mapping of keys to values"),
    (entry("titel: X"), 'papers.yaml:3: unknown key "titel" in paper 4576ae661917; '
                        "expected one of: title, authors, year, links, topics"),
    (entry("title: 42"), 'papers.yaml:3: "title" of paper 4576ae661917 is 42; expected text'),
    (entry('title: ""'), 'papers.yaml:3: "title" of paper 4576ae661917 is empty; expected text'),
    (entry("title: [a, b]"), 'papers.yaml:3: "title" of paper 4576ae661917 is a list; expected text'),
    (entry("authors: Junhao Zheng"),
     'papers.yaml:3: "authors" of paper 4576ae661917 is the text "Junhao Zheng"; expected a list of names, '
     "like [Ada Lovelace, Alan Turing]"),
    (entry("authors: []"),
     'papers.yaml:3: "authors" of paper 4576ae661917 is empty; expected a list of names, '
     "like [Ada Lovelace, Alan Turing]"),
    (entry("authors: [Ada Lovelace, '']"),
     'papers.yaml:3: author 2 of paper 4576ae661917 is empty; expected text'),
    (entry("authors: [Ada Lovelace, [Alan, Turing]]"),
     'papers.yaml:3: author 2 of paper 4576ae661917 is a list; expected text'),
    (entry("year: 1899"),
     'papers.yaml:3: "year" of paper 4576ae661917 is 1899; expected a year from 1900 to 2100'),
    (entry("year: 2101"),
     'papers.yaml:3: "year" of paper 4576ae661917 is 2101; expected a year from 1900 to 2100'),
    (entry('year: "2025"'),
     'papers.yaml:3: "year" of paper 4576ae661917 is the text "2025"; expected a year from 1900 to 2100'),
    (entry("year: 2025.5"),
     'papers.yaml:3: "year" of paper 4576ae661917 is 2025.5; expected a year from 1900 to 2100'),
    (entry("links: https://example.org"),
     'papers.yaml:3: "links" of paper 4576ae661917 is the text "https://example.org"; expected a list of '
     "URLs or {label: ..., url: ...} pairs"),
    (entry("links: ['javascript:alert(1)']"),
     'papers.yaml:3: the URL of link 1 of paper 4576ae661917 is "javascript:alert(1)"; expected an http:// '
     "or https:// address without spaces or quotes"),
    (entry("links: [{label: Paper, url: 'JavaScript:alert(document.cookie)'}]"),
     'papers.yaml:3: the URL of link 1 of paper 4576ae661917 is "JavaScript:alert(document.cookie)"; '
     "expected an http:// or https:// address without spaces or quotes"),
    (entry("links: ['https://example.org/ok', 'ftp://example.org/file']"),
     'papers.yaml:3: the URL of link 2 of paper 4576ae661917 is "ftp://example.org/file"; expected an '
     "http:// or https:// address without spaces or quotes"),
    (entry("links: ['https://']"),
     'papers.yaml:3: the URL of link 1 of paper 4576ae661917 is "https://"; expected an http:// or https:// '
     "address without spaces or quotes"),
    (entry("links: ['https://example.org/a b']"),
     'papers.yaml:3: the URL of link 1 of paper 4576ae661917 is "https://example.org/a b"; expected an '
     "http:// or https:// address without spaces or quotes"),
    (entry("links: ['https://example.org/\"><script>']"),
     'papers.yaml:3: the URL of link 1 of paper 4576ae661917 is "https://example.org/"><script>"; '
     "expected an http:// or https:// address without spaces or quotes"),
    (entry("links: [{label: Paper}]"),
     'papers.yaml:3: link 1 of paper 4576ae661917 has no "url"; expected a url and, if you like, a label'),
    (entry("links: [{label: '', url: 'https://example.org'}]"),
     "papers.yaml:3: the label of link 1 of paper 4576ae661917 is empty; expected text"),
    (entry("links: [[https://example.org]]"),
     "papers.yaml:3: link 1 of paper 4576ae661917 is a list; "
     "expected a URL or a {label: ..., url: ...} pair"),
    (entry("links: [42]"),
     "papers.yaml:3: link 1 of paper 4576ae661917 is 42; expected a URL or a {label: ..., url: ...} pair"),
    (entry("topics: training"),
     'papers.yaml:3: "topics" of paper 4576ae661917 is the text "training"; expected a list of topic slugs, '
     "like [training]"),
    (entry("topics: [training, trainings]"),
     'papers.yaml:3: unknown topic "trainings" in paper 4576ae661917; expected a slug from topics.yaml: '
     "graphs, safety, training"),
    (entry("topics: [3]"), "papers.yaml:3: topic 1 of paper 4576ae661917 is 3; expected text"),
    ("papers:\n  4576ae661917: {title: [unclosed\n",
     "papers.yaml:3: not valid YAML (expected ',' or ']', but got '<stream end>')"),
    ("papers:\n  4576ae661917:\n    title: GuardAgent: a guardrail agent\n",
     "papers.yaml:3: not valid YAML (mapping values are not allowed here)"),
])
def test_overrides_errors(tmp_path, text, message):
    _, problems = overrides(tmp_path, text)
    assert messages(problems) == [message]


def test_a_misspelt_url_key_says_both_what_is_unknown_and_what_is_missing(tmp_path):
    _, problems = overrides(tmp_path, entry("links: [{label: Paper, href: 'https://example.org'}]"))
    assert messages(problems) == [
        'papers.yaml:3: unknown key "href" in link 1 of paper 4576ae661917; expected one of: label, url',
        'papers.yaml:3: link 1 of paper 4576ae661917 has no "url"; expected a url and, if you like, a label']


def test_an_unknown_topic_without_a_taxonomy_says_there_are_none(tmp_path):
    _, problems = overrides(tmp_path, entry("topics: [training]"), slugs=set())
    assert messages(problems) == [
        'papers.yaml:3: unknown topic "training" in paper 4576ae661917; expected a slug from topics.yaml: '
        "none: topics.yaml defines no topics"]


def test_bytes_that_are_not_utf8_are_reported(tmp_path):
    path = tmp_path / "papers.yaml"
    path.write_bytes(b"papers:\n  4576ae661917:\n    title: Caf\xe9\n")
    assert messages(load_overrides(path, "papers.yaml", SLUGS)[1]) == [
        "papers.yaml: byte offset 38 is not UTF-8; expected UTF-8 text"]


def test_every_problem_is_reported_at_once_and_good_fields_are_kept(tmp_path):
    found, problems = overrides(tmp_path, entry(
        "title: Real title\nyear: 3000\nlinks: ['javascript:x', 'https://arxiv.org/abs/1']\ncolour: red"))
    assert sorted(p.line for p in problems) == [4, 5, 6]
    assert found[PID].title == "Real title" and found[PID].links == (("arXiv", "https://arxiv.org/abs/1"),)


def test_ids_that_match_no_paper_are_warnings_at_their_line(tmp_path):
    found, _ = overrides(tmp_path, VALID)
    problems = unknown_ids(found, {PID, "abcdefabcdef"}, "papers.yaml")
    assert messages(problems) == [
        "papers.yaml:12: warning: no paper has the id 0123456789ab; expected an id from papers.json"]
    assert all(p.warning for p in problems)


@pytest.mark.parametrize("url, label", [
    ("https://arxiv.org/abs/2501.00001", "arXiv"),
    ("https://openreview.net/forum?id=x", "OpenReview"),
    ("https://GitHub.com/a/b", "Code"),
    ("http://www.cs.example.edu/~me/paper.pdf", "cs.example.edu"),
])
def test_a_bare_url_is_labelled_by_its_site(url, label):
    assert link_label(url) == label
