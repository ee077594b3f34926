"""Text cleaning keeps its definitions (regular expressions) while running as single str methods."""

from __future__ import annotations

import random
import re
import unicodedata

from papercat.text import clean_line, collapse_spaces, folded

INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
# Every white space and control character, the invisible ones, letters that NFC composes, and words.
ALPHABET = ([chr(c) for c in range(0x3001) if chr(c).isspace() or unicodedata.category(chr(c)) == "Cc"]
            + list(INVISIBLE) + ["e\u0301", "A", "b", "ß", "é", "数", "-", ".", " ", "word"])


def samples(n: int = 3000) -> list[str]:
    rng = random.Random(7)
    return ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 40))) for _ in range(n)]


def test_collapse_spaces_folds_what_the_regex_s_matches():
    for text in samples():
        assert collapse_spaces(text) == re.sub(r"\s+", " ", text).strip(), repr(text)


def test_folded_is_the_words_case_folded_and_joined_by_one_space():
    for text in samples():
        assert folded(text) == " ".join(text.casefold().split()), repr(text)


def test_clean_line_drops_invisible_characters_and_blanks_control_characters():
    for text in samples():
        expected = re.sub("[\x00-\x1f\x7f-\x9f]", " ",
                          re.sub(f"[{INVISIBLE}]", "", unicodedata.normalize("NFC", text)))
        assert clean_line(text) == expected, repr(text)
    assert clean_line("a\u200bb\tc\x85d e\u0301") == "ab c d \u00e9"
    assert all(clean_line(f"an abstract{c}.") == "an abstract." for c in INVISIBLE)  # alone in a line
