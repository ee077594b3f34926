"""BibTeX entries: keys, proceedings names, and escaping no title or name can break out of."""

from __future__ import annotations

import re

import pytest

from papercat.site.bibtex import BOOKTITLES, bibtex_entry, booktitle, citation_key

AUTHORS = ["Junhao Zheng", "Xidi Cai", "Shengjie Qiu", "Qianli Ma"]
TITLE = "Spurious Forgetting in Continual Learning of Language Models"


def fields(entry: str) -> dict[str, str]:
    """Read an entry the way BibTeX does: each value runs to the brace that balances its first one."""
    head, _, body = entry.partition(",\n")
    assert re.fullmatch(r"@inproceedings\{[a-z0-9]+", head), head
    found, at = {}, 0
    while (m := re.compile(r"\s*([a-z]+)\s*=\s*\{").match(body, at)):
        depth, i = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(body[i], 0)
            i += 1
        found[m[1]] = body[m.end():i - 1]
        assert body[i] == ",", body[i:]
        at = i + 1
    assert body[at:] == "\n}", body[at:]
    return found


def test_a_full_entry():
    url = "https://openreview.net/forum?id=ScI7IlKGdI"
    entry = bibtex_entry("6dc37b9f5746", TITLE, AUTHORS, 2025, "ICLR", url)
    assert entry == """\
@inproceedings{zheng2025spurious,
  title     = {Spurious Forgetting in Continual Learning of Language Models},
  author    = {Junhao Zheng and Xidi Cai and Shengjie Qiu and Qianli Ma},
  booktitle = {International Conference on Learning Representations ({ICLR})},
  year      = {2025},
  url       = {https://openreview.net/forum?id=ScI7IlKGdI},
}"""
    assert fields(entry)["year"] == "2025"


def test_without_authors_or_url_those_fields_are_left_out_and_the_hint_keys_the_entry():
    entry = bibtex_entry("6dc37b9f5746", "GuardAgent: a guardrail agent", [], 2025, "ICML", None)
    assert entry.startswith("@inproceedings{6dc37b9f57462025guardagent,\n")
    assert set(fields(entry)) == {"title", "booktitle", "year"}


@pytest.mark.parametrize("venue", sorted(BOOKTITLES))
def test_well_known_venues_get_their_proceedings_name(venue):
    assert booktitle(venue) == BOOKTITLES[venue] and booktitle(venue.lower()) == BOOKTITLES[venue]
    assert BOOKTITLES[venue].endswith(f"({venue})")


def test_booktitles_read_as_expected():
    assert booktitle("ICML") == "Proceedings of the International Conference on Machine Learning (ICML)"
    assert booktitle("NIPS") == booktitle("NeurIPS") == (
        "Advances in Neural Information Processing Systems (NeurIPS)")
    assert booktitle("  Workshop on  Foo ") == "Workshop on Foo"


def test_other_venues_are_cited_by_name_escaped():
    entry = bibtex_entry("x", "A title", ["A B"], 2024, "R&D Workshop #3", None)
    assert fields(entry)["booktitle"] == r"R\&D Workshop \#3"


@pytest.mark.parametrize("authors, title, key", [
    (AUTHORS, TITLE, "zheng2025spurious"),
    (["Jörg Müller"], TITLE, "muller2025spurious"),
    (["Łukasz Kaiser"], TITLE, "kaiser2025spurious"),
    (["José García-Pérez"], TITLE, "garciaperez2025spurious"),
    (["Zoë Straße"], TITLE, "strasse2025spurious"),
    (["Zheng, Junhao"], TITLE, "zheng2025spurious"),
    (["Ludwig van Beethoven"], TITLE, "beethoven2025spurious"),
    (["张三"], TITLE, "hint2025spurious"),  # nothing ASCII to key by: the hint stands in
    (AUTHORS, "On the Role of Attention in Transformers", "zheng2025role"),
    (AUTHORS, "GuardAgent: a guardrail agent", "zheng2025guardagent"),
    (AUTHORS, "Self-Evolving Agents", "zheng2025selfevolving"),
    (AUTHORS, "Ça marche: naïve Bayes", "zheng2025ca"),
    (AUTHORS, "Are We There Yet?", "zheng2025there"),
    (AUTHORS, "∑ ∫", "zheng2025"),
])
def test_keys_are_surname_year_and_first_significant_title_word(authors, title, key):
    assert citation_key("hint", title, authors, 2025) == key
    assert bibtex_entry("hint", title, authors, 2025, "ICML", None).startswith(f"@inproceedings{{{key},\n")


def test_a_key_with_no_authors_or_hint_is_anon():
    assert citation_key("", TITLE, [], 2025) == "anon2025spurious"


@pytest.mark.parametrize("raw, escaped", [
    ("50% & more", r"50\% \& more"),
    ("$x$ costs #1", r"\$x\$ costs \#1"),
    ("snake_case", r"snake\_case"),
    ("a~b^c", r"a\textasciitilde{}b\textasciicircum{}c"),
    (r"\input{/etc/passwd}", r"\textbackslash{}input\textbraceleft{}/etc/passwd\textbraceright{}"),
    ("line\nbreak\t and  spaces", "line break and spaces"),
])
def test_latex_specials_are_escaped(raw, escaped):
    assert fields(bibtex_entry("x", raw, ["A B"], 2024, "ICML", None))["title"] == escaped


@pytest.mark.parametrize("title, protected", [
    ("GuardAgent: a guardrail agent", "{GuardAgent}: a guardrail agent"),
    ("Aligning LLMs with GPT-4 feedback", "Aligning {LLMs} with {GPT-4} feedback"),
    ("M-STaR and C-SquareCB", "{M-STaR} and {C-SquareCB}"),
    ("iPhone apps in 3D with L2 loss", "{iPhone} apps in {3D} with {L2} loss"),
    ("A Self-Evolving Model for X-ray Images", "A Self-Evolving Model for X-ray Images"),
    ("ÜberNet for NLP_tasks", "{ÜberNet} for {NLP}\\_tasks"),
])
def test_cased_words_in_titles_are_brace_protected(title, protected):
    assert fields(bibtex_entry("x", title, ["A B"], 2024, "Foo", None))["title"] == protected


@pytest.mark.parametrize("hostile", [
    "}, author = {Mallory",
    "}}}}",
    "{{{{",
    "\\",
    "\\}",
    "@misc{evil, title={x}}",
    "%}\n@comment{",
    "\"quoted\" {unbalanced",
])
def test_hostile_text_stays_inside_its_field(hostile):
    entry = bibtex_entry("x", hostile, [hostile, "Bob"], 2024, hostile, "https://example.org/" + hostile)
    found = fields(entry)  # fails if any value closes early or leaves a brace open
    assert set(found) == {"title", "author", "booktitle", "year", "url"}
    assert entry.count("\n") == 6  # no value starts a line of its own
    assert found["author"].endswith(" and Bob") and found["author"].count(" and ") == 1


@pytest.mark.parametrize("authors, field", [
    (["Jörg Müller", "Zoë Ça"], "Jörg Müller and Zoë Ça"),  # UTF-8 stays: biber and bibtex8 read it
    (["Tom and Jerry", "Alice"], "Tom {and} Jerry and Alice"),  # one author, not two
    (["Tom AND Jerry"], "Tom {AND} Jerry"),
    (["others"], "{others}"),  # "others" alone would print "et al."
    (["Zheng, Junhao", "Ma, Jr., Qianli"], "Zheng, Junhao and Ma, Jr., Qianli"),
    (["a, b, c, d"], "{a, b, c, d}"),  # BibTeX stops at more than two commas
    (["  Ada \n Lovelace ", "", " "], "Ada Lovelace"),
    (["O'Brien & Sons_Ltd"], r"O'Brien \& Sons\_Ltd"),
])
def test_authors_are_joined_with_and_and_each_stays_one_author(authors, field):
    assert fields(bibtex_entry("x", "T", authors, 2024, "ICML", None))["author"] == field


@pytest.mark.parametrize("url, field", [
    ("https://example.org/a?b=1&c=%20#frag", "https://example.org/a?b=1&c=%20#frag"),
    ("https://example.org/a b{c}\\d\"e", "https://example.org/a%20b%7Bc%7D%5Cd%22e"),
    ("https://example.org/naïve", "https://example.org/na%C3%AFve"),
    ("HTTP://EXAMPLE.ORG/x_y~z", "HTTP://EXAMPLE.ORG/x_y~z"),
])
def test_urls_are_kept_or_percent_encoded(url, field):
    assert fields(bibtex_entry("x", "T", ["A B"], 2024, "ICML", url))["url"] == field


@pytest.mark.parametrize("url", ["javascript:alert(1)", "data:text/html,x", "ftp://example.org/x", "", "   "])
def test_only_web_urls_are_cited(url):
    assert "url" not in fields(bibtex_entry("x", "T", ["A B"], 2024, "ICML", url))


def test_entries_are_deterministic():
    args = ("6dc37b9f5746", "GuardAgent: 50% & $x$", ["Jörg Müller", "Tom and Jerry"], 2025, "NeurIPS",
            "https://example.org/a b")
    assert len({bibtex_entry(*args) for _ in range(5)}) == 1
