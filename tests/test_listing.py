"""The listing reader: headers, messy text, and one clear error per kind of bad file."""

from __future__ import annotations

import pytest

from papercat.content.listing import parse_header, parse_listing, read_listings
from tests.conftest import ABSTRACT_A, ABSTRACT_B


def parse(text: str | bytes, path: str = "l.txt"):
    data = text if isinstance(text, bytes) else text.encode("utf-8")
    return parse_listing(data, path)


def texts(listing) -> list[str]:
    return [e.text for e in listing.entries]


@pytest.mark.parametrize("header, venue, year", [
    ("ICML 2025 Papers", "ICML", 2025),
    ("ICML 2025 论文列表", "ICML", 2025),
    ("ICLR 2025 Papers", "ICLR", 2025),
    ("NeurIPS 2024 Accepted Papers", "NeurIPS", 2024),
    ("neurips 2024", "NeurIPS", 2024),
    ("NIPS 2017 Papers", "NeurIPS", 2017),
    ("ACL 2024 Long Papers", "ACL", 2024),
    ("CVPR 2025 论文", "CVPR", 2025),
    ("Learning on Graphs 2024 Papers", "Learning on Graphs", 2024),
    ("  icml   2025 papers  ", "ICML", 2025),
])
def test_header_names_venue_and_year(header, venue, year):
    assert parse_header(header) == (venue, year)


@pytest.mark.parametrize("line", [
    "We propose a new method for learning in 2025 and beyond with many more words than a header has.",
    "Papers of ICML",
    "2025",
    "",
])
def test_lines_that_are_not_headers(line):
    assert parse_header(line) is None


def test_two_spellings_of_one_venue_are_one_venue():
    first, _ = parse(f"ICML 2025 Papers\n\n{ABSTRACT_A}\n")
    second, _ = parse(f"icml 2025 论文列表\n\n{ABSTRACT_B}\n")
    assert first.venue == second.venue
    assert first.venue.slug == "icml-2025" and first.venue.label == "ICML 2025"


def test_abstracts_are_split_on_blank_lines_with_their_line_numbers():
    listing, problems = parse(f"ICML 2025 Papers\n\n{ABSTRACT_A}\n\n\n{ABSTRACT_B}\n")
    assert problems == []
    assert texts(listing) == [ABSTRACT_A, ABSTRACT_B]
    assert [e.line for e in listing.entries] == [3, 6]


def test_utf8_bom_is_ignored():
    listing, problems = parse(b"\xef\xbb\xbf" + f"ICML 2025 Papers\n\n{ABSTRACT_A}\n".encode())
    assert problems == [] and listing.venue.name == "ICML"


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_crlf_and_cr_line_ends(newline):
    text = f"ICML 2025 Papers{newline}{newline}{ABSTRACT_A}{newline}{newline}{ABSTRACT_B}{newline}"
    listing, problems = parse(text)
    assert problems == [] and texts(listing) == [ABSTRACT_A, ABSTRACT_B]
    assert [e.line for e in listing.entries] == [3, 5]


def test_whitespace_only_lines_separate_abstracts_and_trailing_spaces_go():
    listing, _ = parse(f"ICML 2025 Papers   \n \t \n{ABSTRACT_A}   \n   \t\n{ABSTRACT_B}\t\n")
    assert texts(listing) == [ABSTRACT_A, ABSTRACT_B]


def test_hard_wrapped_abstract_is_joined():
    wrapped = "We propose GuardAgent, a guardrail\nagent that checks whether   the actions\n  of multi-\nmodal agents are safe."
    listing, _ = parse(f"ICML 2025 Papers\n\n{wrapped}\n")
    assert texts(listing) == ["We propose GuardAgent, a guardrail agent that checks whether the actions "
                              "of multi-modal agents are safe."]


def test_control_and_zero_width_characters_are_removed():
    dirty = "We pro\u200bpose Guard\u200dAgent,\x07 a guard\u00adrail\x00 agent\u2060 for\x1b safe agents."
    listing, _ = parse(f"ICML 2025 Papers\n\n{dirty}\n")
    assert texts(listing) == ["We propose GuardAgent, a guardrail agent for safe agents."]


def test_text_is_normalised_to_nfc():
    decomposed = "We study the Caf\u0065\u0301 dataset of re\u0301sume\u0301s across many languages."
    listing, _ = parse(f"ICML 2025 Papers\n\n{decomposed}\n")
    assert texts(listing) == ["We study the Caf\u00e9 dataset of r\u00e9sum\u00e9s across many languages."]


def test_short_stray_line_is_skipped_with_a_warning():
    listing, problems = parse(f"ICML 2025 Papers\n\n{ABSTRACT_A}\n\nPage 2\n")
    assert texts(listing) == [ABSTRACT_A]
    assert [str(p) for p in problems] == [
        'l.txt:5: warning: skipped "Page 2": 2 words is too short for an abstract; expected at least 5'
    ]


def test_an_abstract_of_four_words_is_skipped_and_one_of_five_kept():
    listing, problems = parse("ICML 2025 Papers\n\nOne two three four\n\nOne two three four five\n")
    assert texts(listing) == ["One two three four five"]
    assert [str(p) for p in problems] == [('l.txt:3: warning: skipped "One two three four": 4 words is too '
                                           'short for an abstract; expected at least 5')]


def test_empty_file_is_an_error():
    listing, problems = parse("")
    assert listing is None
    assert [str(p) for p in problems] == [
        'l.txt:1: the file is empty; expected a header line like "ICML 2025 Papers", '
        "then abstracts separated by blank lines"
    ]


def test_whitespace_only_file_is_empty():
    _, problems = parse(" \n\t\n\u200b\n")
    assert "the file is empty" in str(problems[0])


def test_header_without_abstracts_is_an_error():
    listing, problems = parse("ICML 2025 Papers\n\n\n")
    assert listing is None
    assert [str(p) for p in problems] == [
        'l.txt:1: the header "ICML 2025 Papers" is followed by no abstracts; '
        "expected abstracts separated by blank lines after it"
    ]


def test_missing_header_is_an_error_naming_the_line():
    listing, problems = parse(f"\n\n{ABSTRACT_A}\n")
    assert listing is None
    assert [str(p) for p in problems] == [
        f'l.txt:3: no venue header: found "{ABSTRACT_A[:57]}..."; expected a first line naming '
        'the venue and year, like "ICML 2025 Papers"'
    ]


def test_bytes_that_are_not_utf8_give_line_and_byte_offset():
    data = f"ICML 2025 Papers\n\n{ABSTRACT_A}\n\n".encode() + b"Caf\xe9 au lait and more words here.\n"
    listing, problems = parse(data)
    offset = data.index(b"\xe9")
    assert listing is None
    assert [str(p) for p in problems] == [
        f"l.txt:5: byte 0xe9 at byte offset {offset} is not UTF-8; "
        "expected UTF-8 text: save the file again as UTF-8"
    ]


def test_utf16_file_is_named_as_such():
    _, problems = parse("ICML 2025 Papers\n".encode("utf-16"))
    assert "the file is UTF-16" in str(problems[0]) and str(problems[0]).startswith("l.txt:1:")


def test_no_listing_files_is_an_error(tmp_path):
    (tmp_path / "content" / "listings").mkdir(parents=True)
    listings, problems = read_listings(tmp_path / "content", tmp_path)
    assert listings == []
    assert [str(p) for p in problems] == [
        'content/listings: no listing files; expected one or more *.txt files, each starting with '
        'a header like "ICML 2025 Papers"'
    ]


def test_listing_paths_on_pages_are_relative_to_the_content_folder(make_content, tmp_path):
    content = make_content({"sub/x.txt": f"ICML 2025 Papers\n\n{ABSTRACT_A}\n"})
    listings, problems = read_listings(content, tmp_path / "elsewhere")
    assert problems == [] and listings[0].path == "listings/sub/x.txt"


def test_clean_line_blanks_exactly_the_control_characters():
    import sys
    import unicodedata

    from papercat.text import clean_line

    controls = "".join(chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cc")
    assert clean_line(f"a{controls}b") == "a" + " " * len(controls) + "b"
    kept = "é – “x” 論文 \u2028"  # letters, punctuation, CJK and a line separator (Zl, not Cc) stay
    assert clean_line(kept) == kept
