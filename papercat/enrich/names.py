"""The names a paper coins (GuardAgent, RWKVQuant, Mind2Web-SC): what its search document boosts."""

from __future__ import annotations

import re
from collections.abc import Iterable

# A coined name: a capital inside the word (GuardAgent, RWKVQuant, M-STaR) or letters with digits
# (Mind2Web-SC, GPT-4o). Plain capitalised words and acronyms are left to the title and abstract.
_WORD = re.compile(r"[\w][\w.+-]*[\w+]|\w")
_CAMEL = re.compile(r"[a-z].*[A-Z]|[A-Z]{2,}[a-z]|[A-Z][a-z]+[A-Z]")
_DIGITS = re.compile(r"(?=.*[A-Za-z])(?=.*\d)")
_HEAD = re.compile(r"^([^:]{2,60}):\s")  # "Liger: Linearizing LLMs ..." names its method
# _WORD's matches never cross a character that is neither a word character nor ".+-". In ASCII text
# each run of those characters holds at most one match: the run less the ".+-" before its first word
# character and the ".-" after its last word character or "+". A bytes.translate that blanks every
# other character, then a split, finds the runs much faster than the pattern finds its matches.
_ASCII_RUNS = bytes(c if c < 128 and (chr(c).isalnum() or chr(c) in "_.+-") else 32 for c in range(256))


def method_names(title: str, abstract: str) -> list[str]:
    """Return the distinctive names a paper coins, in order: the title's head and mixed-case words."""
    found: dict[str, None] = {}
    head = _HEAD.match(title)
    if head and len(head.group(1).split()) <= 4:
        found[head.group(1)] = None
    for word in _candidates(f"{title} {abstract}"):
        if _CAMEL.search(word) or (len(word) >= 4 and _DIGITS.match(word)):
            found.setdefault(word, None)
    return list(found)


def _candidates(text: str) -> list[str]:
    """Return the matches of _WORD in ``text`` that may be coined names, in order of first use.

    A word of lowercase letters alone matches neither pattern, nor does one of two characters or fewer.
    Each distinct word comes once, but for ASCII text: there one word may come from two runs ("GPT-4"
    and "GPT-4."), later again.
    """
    if text.isascii():
        runs = dict.fromkeys(text.encode("ascii").translate(_ASCII_RUNS).decode("ascii").split())
        words: Iterable[str] = (run.lstrip(".+-").rstrip(".-") for run in runs
                                if not (run.islower() and run.isalpha()))
    else:
        words = dict.fromkeys(_WORD.findall(text))
    return [w for w in words if len(w) >= 3 and not (w.islower() and w.isalpha())]
