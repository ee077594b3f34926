"""A text split into runs: the sequences of words, between stop words and punctuation, that may
form a keyphrase; and the acronyms and names it spells out."""

from __future__ import annotations

import re
from itertools import chain

from papercat.memo import Memo
from papercat.text import WEB_ENDINGS, may_hold_web_address

from .words import _CODED, _CUES, _ING, _MODALS, _OBJECT_STARTS, _PLURAL, _is_coded, _singular, _Token, _word

_TO = frozenset(["to", "To"])  # "to induce a", "To handle the": an infinitive
MAX_NAME_WORDS = 6  # "Layerwise Rotated Sparse Activation (LaRoSA)": its pieces are not phrases of their own

# A word, or punctuation that ends a phrase (brackets, commas, full stops, dashes but a word's hyphen).
_PIECE = re.compile(r"([^\W_][\w'’]*(?:-[^\W_][\w'’]*)*)|([^\w\s'’-]|--)")
# The lookbehinds come after the stop, so they run only at full stops ("e.g. The" is no sentence end).
_SENTENCE_END = re.compile(r"[.!?](?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bal\.)(?<!\bvs\.)\s+(?=[\"“(]?[A-Z0-9])")
_ACRONYM_DEF = re.compile(r"\(\s*([A-Za-z][A-Za-z0-9]*[A-Z][A-Za-z0-9-]*?)(s?)\s*\)")  # "reward model (RM)"
_NAME_DEF = re.compile(r"\b([A-Za-z][\w-]*[A-Z][\w-]*)\s+\(([^()\d]{5,100})\)")  # "LaRoSA (Layerwise ...)"
_DOMAIN = re.compile(rf"\S+\.(?:{'|'.join(WEB_ENDINGS)})\b\S*", re.IGNORECASE)  # "gorilla.cs.berkeley.edu"


# What a piece of text between spaces holds: (word, its token or None for a stopword); a break is ("", None).
_Piece = tuple[str, _Token | None]
_BREAK: _Piece = ("", None)


def _pieces(chunk: str) -> tuple[_Piece, ...]:
    """Return the words and breaks of a chunk of text between spaces: "(LLMs)," -> break, LLMs, break."""
    if chunk.isalpha():  # most chunks are one plain word
        return ((chunk, _word(chunk)),)
    if not chunk.strip("-–—"):
        return (_BREAK,)  # a dash between spaces
    return tuple(_BREAK if mark else (word, _word(word)) for word, mark in _PIECE.findall(chunk))


# Each chunk's pieces: most chunks recur. At most 2**18 chunks held.
_CHUNK_PIECES = Memo(_pieces, 1 << 18)


def _sentences(text: str) -> list[str]:
    """Split an abstract into sentences at full stops followed by a capital or a digit."""
    if "." not in text and "!" not in text and "?" not in text:  # a title or a keyphrase, mostly
        return [text] if text.strip() else []
    parts, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        parts.append(text[start:m.start() + 1])
        start = m.end()
    parts.append(text[start:])
    return [p for p in parts if p.strip()]


def _is_name_part(pieces: list[_Piece], i: int) -> bool:
    """Return whether the word of pieces[i] sits next to another capitalised word, as in "Dynamic
    Layerwise Pruning"."""
    for j in (i - 2, i - 1, i + 1, i + 2):
        word = pieces[j][0] if 0 <= j < len(pieces) else ""
        if (word[:1].isupper() and not _is_coded(word)
                and (abs(j - i) == 1 or len(pieces[(i + j) // 2][0]) <= 3)):
            return True
    return False


def _is_verb(token: _Token, previous: str, following: str, opens_title: bool) -> bool:
    """Return whether a word is a verb by its neighbours: "Exploring the", "can surface", "that shows",
    "to induce a"."""
    flags = token[3]
    if flags & _ING:
        return following.lower() in _OBJECT_STARTS or opens_title  # a derived title starts with what we did
    if flags & _CODED:
        return False
    if previous in _TO:
        return following.lower() in _OBJECT_STARTS
    if previous not in _CUES:
        return False
    return previous.lower() in _MODALS or token[1].endswith("s")


# Complexity over 10 on purpose: this loop runs for every word of every abstract, and a helper
# per test would cost a call per word.
def _runs(sentence: str, is_title: bool = False, aliases: dict[str, tuple[str, str]] | None = None,
          proper: set[str] | None = None) -> list[list[_Token]]:
    """Split a sentence into runs of words that may form a keyphrase; stopwords and punctuation end a run.

    ``aliases`` maps a word's key to the (key, surface) it stands for, like "tom" to theory-of-mind's;
    ``proper`` collects the keys of capitalised words that are not at a sentence start or in a name.
    """
    runs: list[list[_Token]] = []
    current: list[_Token] = []
    # A break after the end closes the last run; it is also before the start (pieces[-1]).
    pieces = [*chain.from_iterable(map(_CHUNK_PIECES.__getitem__, sentence.split())), _BREAK]  # in C, mostly
    for i, (text, token) in enumerate(pieces):
        # After a plural a lowercase word is a verb: nouns pile up before the plural ("LLMs process").
        if token is None or current and current[-1][3] & _PLURAL and token[1].islower() or (
                token[3] & _ING or pieces[i - 1][0] in _CUES or pieces[i - 1][0] in _TO) and _is_verb(
                    token, pieces[i - 1][0], pieces[i + 1][0], is_title and i == 0):
            if current:
                runs.append(current)
                current = []
            continue
        if (proper is not None and i and not is_title and text[0].isupper() and not token[3] & _CODED
                and not _is_name_part(pieces, i)):
            proper.add(token[0])
        possessive = token[1] != text  # _word strips "'s"
        if aliases and token[0] in aliases:
            key, surface = aliases[token[0]]
            token = (key, surface, surface, token[3] & ~_PLURAL)
        current.append(token)
        if possessive:  # a possessive ends the phrase: "MoE's sparse" is not "MoE sparse"
            runs.append(current)
            current = []
    return runs


def _plain_runs(text: str) -> list[list[_Token]]:
    """Return the runs of the sentences of a text, each read alone: no aliases, no title rule."""
    return [run for sentence in _sentences(text) for run in _runs(sentence)]


def _term_word(token: _Token) -> tuple[str, str]:
    """Return a word's key and display form: lowercase but for names, its plural folded."""
    return token[0], token[2] if token[3] & _CODED else token[2].lower()


def term_runs(text: str) -> list[list[tuple[str, str]]]:
    """Return the runs of (key, display form) of the words in text that may belong to a keyphrase."""
    return [[_term_word(t) for t in run] for run in _plain_runs(text)]


def word_keys(text: str) -> tuple[str, ...]:
    """Return the keys of ``term_runs(text)``'s words, run after run: a keyphrase's key."""
    return tuple(token[0] for run in _plain_runs(text) for token in run)


def _initials_match(acronym: str, words: list[str]) -> bool:
    """Return whether an acronym abbreviates the words: "RM" for reward model, "IWN" for Invariant Graph..."""
    letters = [c for c in acronym.lower() if c.isalpha()]
    flat = " ".join(words).lower()
    if not letters or flat[:1] != letters[0]:
        return False
    if len(words) == sum(c.isupper() for c in acronym):
        return True
    rest = iter(flat[1:])
    return all(c in rest for c in letters[1:])


def _expansion(before: str, acronym: str) -> str | None:
    """Return the shortest ending of ``before`` that the acronym abbreviates: "Just Run Twice" for JuICE."""
    words = before.split()[-MAX_NAME_WORDS:]
    for n in range(1, len(words) + 1):
        if words[-n][-1:] in ",;:.!?)":  # the name does not run across punctuation
            return None
        if _initials_match(acronym, words[-n:]):
            return " ".join(words[-n:])
    return None


def _aliases(text: str) -> dict[str, list[list[_Token]]]:
    """Map each acronym or name the text spells out to the runs of its spelling.

    Both "reward model (RM)" and "LaRoSA (Layerwise Rotated Sparse Activation)" count. A spelling
    with stopwords ("Just Run Twice") gets an empty run at the end: its pieces are not the name.
    """
    found: dict[str, list[list[_Token]]] = {}
    if "(" not in text:
        return found
    spellings = [(m.group(1), _expansion(text[max(0, m.start() - 150):m.start()], m.group(1)))
                 for m in _ACRONYM_DEF.finditer(text)]
    spellings += [(_singular(m.group(1)), m.group(2)) for m in _NAME_DEF.finditer(text)
                  if _initials_match(_singular(m.group(1)), m.group(2).split())]
    for name, spelt in spellings:
        key = _singular(name).lower().replace("-", "")
        if spelt and key not in found:
            runs = _runs(spelt)
            if sum(map(len, runs)) < len(spelt.split()):
                runs.append([])
            found[key] = runs
    return found


def _word_aliases(defined: dict[str, list[list[_Token]]]) -> dict[str, tuple[str, str]]:
    """Map an acronym of one word to that word: ToM and theory-of-mind are one word of a phrase."""
    return {acronym: (runs[0][0][0], runs[0][0][2]) for acronym, runs in defined.items()
            if len(runs) == 1 and len(runs[0]) == 1 and runs[0][0][0] != acronym}


def _without_domains(text: str) -> str:
    """Return text without web addresses, whose pieces ("berkeley", "leaderboard") are no phrases."""
    return _DOMAIN.sub(" ", text) if may_hold_web_address(text) else text  # the pattern is slow


def _paper_runs(title: str, abstract: str, aliases: dict[str, tuple[str, str]],
                proper: set[str] | None = None) -> list[list[list[_Token]]]:
    """Return a paper's runs part by part: the title's (part 0), then each sentence's (part 1 + its position).

    ``abstract`` is without web addresses (_without_domains) and ``aliases`` are its _word_aliases.
    """
    parts = [title] + _sentences(abstract) if title.strip() else [""] + _sentences(abstract)
    return [_runs(text, part == 0, aliases, proper) for part, text in enumerate(parts)]
