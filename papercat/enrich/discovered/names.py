"""Name a discovered group by the keyphrases its papers share, spelt as its abstracts spell them."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from papercat.enrich.keyphrases.words import GENERIC_PHRASES, is_telling
from papercat.text import slugify

SHARED = 0.5  # a phrase names a group only if at least half its papers use it
SECOND = 0.6  # a second phrase joins the name if it scores at least this share of the first one's
LONGER = 0.6  # a longer phrase holding a shorter one ("normalizing flow", "flow") stands for it if
#               at least this share of the shorter one's papers use it too
PICKED = 2  # papers of a group that picked a word as a keyphrase, for the word to name the group
EVERY = 4  # ... or the least group whose papers all use it
WORD_BONUS = 0.5  # a phrase's score grows by this share for each word past its first
DESCRIBED = 3  # phrases the description quotes


@dataclass(frozen=True)
class Phrase:
    """A keyphrase column of the group's papers: how many use it and pick it, and its score."""

    column: int
    key: tuple[str, ...]  # its words' keys
    spelling: str  # as the catalog's keyphrases spell it
    papers: int  # the group's papers that use it
    picked: int  # the group's papers that picked it as one of their keyphrases
    score: float  # its mean weight in the group's rows, raised by the share that picked it and its words


def ranked_phrases(rows: sparse.csr_matrix, picked: Sequence[Sequence[int]], keys: Sequence[tuple[str, ...]],
                   spellings: Sequence[str], phrase: Sequence[bool]) -> list[Phrase]:
    """Return the keyphrases the group's papers picked (``picked``: each paper's keyphrase columns) that at
    least SHARED of them use (``rows``: their TF-IDF rows; ``phrase``: whether a column is a keyphrase's),
    best first, each word said once."""
    size = rows.shape[0]
    used = np.diff(rows.tocsc().indptr)  # papers per column (rows hold no explicit zeros)
    weight = np.asarray(rows.sum(axis=0)).ravel() / size
    times = Counter(column for own in picked for column in set(own))
    need = max(2, math.ceil(SHARED * size))
    found = [Phrase(c, keys[c], spellings[c], int(used[c]), n, _score(float(weight[c]), n / size, len(keys[c])))
             for c, n in sorted(times.items()) if used[c] >= need and keys[c]]
    threes = [(keys[c], int(used[c])) for c in np.flatnonzero(used >= need).tolist()
              if phrase[c] and len(keys[c]) == 3]
    found = [p for p in found if not _is_piece(p, threes)]
    found.sort(key=lambda p: (-p.score, p.key))
    return _longest(found)


def _score(weight: float, picked: float, words: int) -> float:
    """Return a phrase's score from its mean weight in the group, the share of the group that picked it and
    its length: a reader learns more from "molecular dynamics simulations" than from "simulations"."""
    return weight * (1.0 + picked) * (1.0 + WORD_BONUS * (words - 1))


def _is_piece(phrase: Phrase, threes: list[tuple[tuple[str, ...], int]]) -> bool:
    """Return whether a three-word phrase overlaps another keyphrase of three (``threes``: key, papers) by
    two words, in nearly as many papers: both are pieces of a longer term ("markov chain monte",
    "chain monte carlo"), longer than a keyphrase may be."""
    key = phrase.key
    return len(key) == 3 and any((other[:2] == key[1:] or other[1:] == key[:2])
                                 and min(papers, phrase.papers) >= LONGER * max(papers, phrase.papers)
                                 for other, papers in threes)


def _holds(long: tuple[str, ...], short: tuple[str, ...]) -> bool:
    """Return whether the words ``short`` occur in ``long``, in a row."""
    n = len(short)
    return any(long[i:i + n] == short for i in range(len(long) - n + 1))


def _longest(ranked: list[Phrase]) -> list[Phrase]:
    """Return the ranked phrases, each replaced by the best longer one that holds it, that nearly all of
    its papers use and PICKED picked; and those held by one kept left out."""
    kept: list[Phrase] = []
    for phrase in ranked:
        longer = [p for p in ranked if len(p.key) > len(phrase.key) and _holds(p.key, phrase.key)
                  and p.papers >= LONGER * phrase.papers and p.picked >= PICKED]
        chosen = longer[0] if longer else phrase
        if not any(_holds(k.key, chosen.key) for k in kept):
            kept.append(chosen)
    return kept


def _abbreviates(short: Phrase, long: Phrase) -> bool:
    """Return whether a word of one phrase spelt with capitals is an acronym of the other ("GP", "gaussian
    process"; "GAN models", "generative adversarial network"; "MCMC", "monte carlo")."""
    initials = "".join(word[0] for word in long.key if word)
    return len(initials) >= 2 and any(sum(c.isupper() for c in word) >= 2 and initials in word.lower()
                                      for word in _WORDS.split(short.spelling))


def _apart(first: Phrase, other: Phrase) -> bool:
    """Return whether two phrases say different things: no word in common, neither an acronym of the other."""
    return (not set(first.key) & set(other.key) and not _abbreviates(first, other)
            and not _abbreviates(other, first))


def name_parts(ranked: list[Phrase], papers: int) -> list[Phrase]:
    """Return the phrases of the name of a group of ``papers``: its best phrase that may name it (or what
    that abbreviates, if ranked), and the next one that says something else if it scores nearly as well;
    none if no phrase may name it."""
    chosen = [p for p in ranked if _names(p, papers)]
    if not chosen:
        return []
    best = chosen[0]
    first = next((p for p in ranked if p is not best and _abbreviates(best, p)), best)
    for other in chosen[1:]:
        if other.score < SECOND * best.score:
            break
        if _apart(first, other) and _apart(best, other):
            return [first, other]
    return [first]


def _names(phrase: Phrase, papers: int) -> bool:
    """Return whether a phrase may name a group of ``papers``: many single words that half a small group
    uses say nothing of it ("unknown", "formulation"), so a word must be one that PICKED of them picked,
    or one that every paper of a group of EVERY or more uses."""
    if _is_broad(phrase.key):
        return False
    return len(phrase.key) > 1 or phrase.picked >= PICKED or phrase.papers == papers >= EVERY


def _is_broad(key: tuple[str, ...]) -> bool:
    """Return whether a phrase says only what every paper of the field does: "machine learning models",
    "deep neural network" (a phrase every other abstract uses, and words that tell no paper apart)."""
    rest = list(key)
    for generic in sorted(GENERIC_PHRASES, key=len, reverse=True):
        n = len(generic)
        at = next((i for i in range(len(rest) - n + 1) if tuple(rest[i:i + n]) == generic), None)
        if at is not None:
            del rest[at:at + n]
    return len(rest) < len(key) and not any(map(is_telling, rest))


def described(ranked: list[Phrase]) -> list[Phrase]:
    """Return the phrases a group's description quotes: its best ones that say different things."""
    quoted: list[Phrase] = []
    for phrase in ranked:
        if all(_apart(q, phrase) for q in quoted):
            quoted.append(phrase)
    return quoted[:DESCRIBED]


_WORDS = re.compile(r"[\s\-]+")


def _pattern(spelling: str) -> re.Pattern[str]:
    """Return a pattern of the phrase's words as a text may write them: with spaces or hyphens or neither
    between them, the last one in the singular or plural."""
    parts = [re.escape(p) for p in _WORDS.split(spelling) if p]
    last = parts[-1]
    parts[-1] = f"{last[:-1]}(?:y|ies)" if last.endswith("y") and len(last) > 2 else f"{last}(?:s|es)?"
    return re.compile(r"(?<![\w-])" + r"[\s\-]?".join(parts) + r"(?![\w-])", re.IGNORECASE)


def spellings(phrases: Sequence[Phrase], texts: Sequence[str]) -> dict[int, str]:
    """Return each phrase (by column) as the group's abstracts write it most often inside a sentence
    ("Gaussian processes" for "gaussian process"), else as the keyphrases spell it.

    A form with every word capitalised ("Ordinary Differential Equations (ODEs)", spelling an acronym
    out) counts only where the abstracts have no other.
    """
    return {p.column: _spelt(p, texts) for p in phrases}


def _spelt(phrase: Phrase, texts: Sequence[str]) -> str:
    pattern = _pattern(phrase.spelling)
    forms: Counter[str] = Counter()
    titled: Counter[str] = Counter()
    for text in texts:
        for found in pattern.finditer(text):
            if not _opens_sentence(text, found.start()):  # at a sentence's start, any word has a capital
                form = " ".join(found.group().split())
                words = _WORDS.split(form)
                (titled if len(words) > 1 and all(w[:1].isupper() for w in words) else forms)[form] += 1
    forms = forms or titled
    if not forms:
        return phrase.spelling
    # A plural counts twice: a topic is named for the things it is about ("Gaussian processes"), and
    # abstracts write the singular where the phrase qualifies another word ("Gaussian process regression").
    plural = {form: _is_plural(form, phrase.spelling) for form in forms}
    return min(forms, key=lambda form: (-forms[form] * (2 if plural[form] else 1), not plural[form], form))


def _is_plural(form: str, spelling: str) -> bool:
    """Return whether a form of a phrase (as ``_pattern`` of its ``spelling`` finds it) ends in a plural."""
    letters, base = "".join(_WORDS.split(form.lower())), "".join(_WORDS.split(spelling.lower()))
    return letters.endswith("s") and letters != base and len(letters) > len(base.removesuffix("y"))


def _opens_sentence(text: str, start: int) -> bool:
    """Return whether the text's word at ``start`` opens a sentence."""
    i = start - 1
    while i >= 0 and text[i].isspace():
        i -= 1
    return i < 0 or text[i] in ".!?:"


def capitalised(text: str) -> str:
    """Return ``text`` with a capital first letter if its first word is all lowercase ("fMRI" stays)."""
    first = text.split(" ", 1)[0]
    return text[:1].upper() + text[1:] if first == first.lower() else text


def unique_name(parts: list[str], ranked: list[str], taken: Collection[str]) -> str:
    """Return the name made of ``parts`` ("A & b"), or if another topic has it (``taken``: casefolded), the
    first part with another of the ``ranked`` phrases, or else the name numbered."""
    options = [" & ".join(parts)] + [f"{parts[0]} & {other}" for other in ranked if other not in parts]
    for option in options:
        name = capitalised(option)
        if name.casefold() not in taken:
            return name
    base = capitalised(options[0])
    number = 2
    while f"{base} ({number})".casefold() in taken:
        number += 1
    return f"{base} ({number})"


def unique_slug(name: str, taken: Collection[str]) -> str:
    """Return the slug of a name, numbered if another topic has it (``taken``)."""
    slug = slugify(name) or "topic"
    if slug not in taken:
        return slug
    number = 2
    while f"{slug}-{number}" in taken:
        number += 1
    return f"{slug}-{number}"
