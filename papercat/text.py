"""Text cleaning shared by the reader and the enrichers: Unicode, whitespace, URLs; token counts."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import _count_elements  # type: ignore[attr-defined]
from collections.abc import Hashable, Iterable
from typing import TypeVar

H = TypeVar("H", bound=Hashable)

# Characters that change nothing a reader sees but break matching and ids are removed; control
# characters (Unicode's category Cc, exactly) become spaces. One str.translate does both.
_INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e\u200e\u200f\u202a\u202b\u202c\u202d\u202e" \
             "\u2066\u2067\u2068\u2069"
_CONTROL = [*range(0x20), *range(0x7f, 0xa0)]
_CLEAN = {**dict.fromkeys(_CONTROL, " "), **dict.fromkeys(map(ord, _INVISIBLE), None)}
# Punctuation that ends a sentence rather than the URL it follows.
_URL_TRAILER = ".,;:!?'\"*_"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")  # the space after a sentence's end
# How the web addresses that abstracts write without a scheme end ("gorilla.cs.berkeley.edu",
# "anonymous.4open.science/r/..."): titles and keyphrases leave such addresses out.
WEB_ENDINGS = ("com", "org", "net", "edu", "io", "ai", "science", "html", "htm")
_WEB_ENDING = re.compile("|".join(rf"\.{ending}" for ending in WEB_ENDINGS))


def clean_line(line: str) -> str:
    """Return ``line`` in NFC with control and zero-width characters removed."""
    line = unicodedata.normalize("NFC", line)
    # Every character _CLEAN maps is unprintable: a printable line has none of them, and checking that
    # is several times faster than translating (a third of the time of reading 20,000 abstracts).
    return line if line.isprintable() else line.translate(_CLEAN)


# Text copied from a PDF keeps its ligatures ("ﬁltering"): a reader sees the letters, and so must search,
# titles and keyphrases. Only these: NFKC would also fold "x²" and "ℓ".
_LIGATURES = str.maketrans({"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
                            "\ufb05": "st", "\ufb06": "st"})


def spell_out_ligatures(text: str) -> str:
    """Return ``text`` with its Latin ligatures ("ﬁ", "ﬂ") written as their letters."""
    return text if text.isascii() else text.translate(_LIGATURES)


def collapse_spaces(text: str) -> str:
    """Return ``text`` with runs of white space folded to one space and the ends trimmed.

    White space is what ``str.isspace`` says it is, as for the regular expression ``\\s``.
    """
    # Every white space character but " " is unprintable: a printable text without "  " or a space
    # at either end has nothing to fold, and checking that is faster than splitting and joining.
    if text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " ":
        return text
    return " ".join(text.split())


def folded(text: str) -> str:
    """Return ``text`` with white space and case folded: how abstracts are told apart (ids, copies)."""
    return collapse_spaces(text).casefold()


def join_wrapped(lines: list[str]) -> str:
    """Join the hard-wrapped lines of one paragraph into a single line."""
    out = ""
    for line in (collapse_spaces(x) for x in lines):
        if not line:
            continue
        # "multi-" at a line end followed by "modal": the writer's hyphen, not a space.
        if out.endswith("-") and len(out) > 1 and out[-2].isalpha() and line[:1].isalpha():
            out += line
        else:
            out = f"{out} {line}" if out else line
    return out


def paper_id(abstract: str) -> str:
    """Return the stable id of an abstract: a hash of its case-folded, space-folded text."""
    return hashlib.sha256(folded(unicodedata.normalize("NFC", abstract)).encode("utf-8")).hexdigest()[:12]


def trim_url(url: str) -> str:
    """Return ``url`` without trailing sentence punctuation or an unbalanced closing bracket."""
    while url and url[-1] in _URL_TRAILER:
        url = url[:-1]
    while url.endswith(")") and url.count(")") > url.count("("):
        url = url[:-1]
        while url and url[-1] in _URL_TRAILER:
            url = url[:-1]
    return url


def first_sentence(text: str, limit: int = 240) -> str:
    """Return the first sentence of ``text``, cut at a word boundary within ``limit`` characters."""
    match = _SENTENCE_END.search(text)
    sentence = text[: match.start()] if match else text
    if len(sentence) <= limit:
        return sentence
    cut = sentence[:limit].rsplit(" ", 1)[0].rstrip(",;:-")
    return cut + "…"


def slugify(text: str) -> str:
    """Return a lowercase ASCII slug: letters and digits joined by hyphens."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


def may_hold_web_address(text: str) -> bool:
    """Return whether ``text`` holds one of WEB_ENDINGS after a dot, in any case: a quick test, so that
    the slow patterns that find such addresses run only on the few texts that may hold one."""
    return _WEB_ENDING.search(text.lower()) is not None


def counted(items: Iterable[H]) -> dict[H, int]:
    """Return how often each item occurs, in order of first occurrence, as ``collections.Counter`` counts them.

    A plain dict filled by Counter's own counting function (``Counter.update``'s, in C): a Counter's
    Python set-up alone costs about 2 µs, and the keyphrases and the search index count tokens
    five and three times a paper.
    """
    counts: dict[H, int] = {}
    _count_elements(counts, items)
    return counts
