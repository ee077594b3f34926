"""Titles made distinct: a title two papers share gets more of each one's abstract."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from functools import partial

from papercat.wordlists import read_list

from .derive import derive_title
from .patterns import _DETERMINERS, _FILLER, _STOP
from .reading import _LONGEST, _clean, _fit

_UNIQUE_MAX = 120  # a distinguishing phrase may lengthen a title past derive_title's 100 characters
# Words that say nothing about what sets one paper apart from another with the same title.
_BLAND = _STOP | _FILLER | _DETERMINERS | frozenset(read_list(__package__, "bland_words.txt"))
# Words, and the runs of punctuation that end a phrase.
_CHUNK_WORD = re.compile(r"[A-Za-z0-9][\w'-]*|[^\w\s]+")


def _title_key(title: str) -> str:
    """Return what a reader compares titles by: case and spacing do not make two titles different."""
    return " ".join(title.split()).casefold()


def _words_of(abstract: str) -> set[str]:
    return {w.casefold() for w in _CHUNK_WORD.findall(_clean(abstract)) if w[0].isalnum()}


def _phrase_of(runs: list[list[str]], others: set[str], max_words: int) -> str:
    """Return the first of an abstract's content ``runs`` holding a word the others' abstracts lack."""
    fresh = [run for run in runs if any(w.casefold() not in others for w in run)]
    # A run of two or more words ("graph neural networks") says more than a lone word ("graphs").
    best = next((run for run in fresh if len(run) > 1), fresh[0] if fresh else [])
    if len(best) > max_words:  # keep the new word and the words right after it
        start = next(i for i, w in enumerate(best) if w.casefold() not in others)
        best = best[max(0, min(start, len(best) - max_words)):][:max_words]
    return _lowercase_start(" ".join(best))


def _lowercase_start(phrase: str) -> str:
    """Return a phrase with its first letter lowercase, unless its first word is cased as a name."""
    cased = any(c.isupper() for c in phrase.split(" ", 1)[0][1:])  # keep "GPT-4" or "iPhone" as written
    return phrase if cased or not phrase else phrase[:1].lower() + phrase[1:]


def _content_runs(abstract: str) -> list[list[str]]:
    """Return the runs of content words of an abstract: no bland words, adverbs or punctuation."""
    runs, run = [], []
    for token in _CHUNK_WORD.findall(_clean(abstract)[:_LONGEST]) + ["."]:
        folded = token.casefold()
        content = token[0].isalnum() and folded not in _BLAND and not folded.endswith("ly")  # no adverbs
        if content or token == "of" and run:  # "millions of sequences" is one phrase
            run.append(token)
            continue
        while run and run[-1] == "of":
            run.pop()
        if run:
            runs.append(run)
        run = []
    return runs


def _with_phrase(title: str, phrase: str) -> str:
    """Return "title (phrase)", shortening the title at a phrase boundary if the whole would be too long."""
    room = _UNIQUE_MAX - len(phrase) - 3
    # A title of one long word has no phrase boundary: cut it anyway.
    head = title if len(title) <= room else _fit(title, room) or title[:room].rstrip()
    return f"{head} ({phrase})" if head and phrase else ""


def _numbered(title: str, number: int) -> str:
    """Return "title (2)", the last resort when nothing in the abstract tells two papers apart."""
    return _with_phrase(title, str(number)) or f"({number})"  # a title of no words still gets a number


def _longer_title(title: str, abstract: str, others: set[str]) -> str:
    """Return the title derived with more room: a title cut short may differ further on."""
    return derive_title(abstract, max_chars=_UNIQUE_MAX)


def _title_with_phrase(title: str, abstract: str, others: set[str]) -> str:
    """Return the title followed by a phrase of its abstract that the other abstracts lack."""
    runs = _content_runs(abstract)
    for words in range(5, 0, -1):  # a shorter phrase before a shorter title: the title says more
        phrase = _phrase_of(runs, others, max_words=words)
        if len(title) + len(phrase) + 3 <= _UNIQUE_MAX:
            break
    return _with_phrase(title, phrase)


# How a candidate title is made: given what it is made of and the function that makes it, return what
# that function returns (a memo between builds may know it already: see catalog.py).
Make = Callable[[tuple[str, ...], Callable[[], str]], str]


def _made_now(parts: tuple[str, ...], make: Callable[[], str]) -> str:
    return make()


def unique_titles(titles: Sequence[str], abstracts: Sequence[str], keep: Collection[int] = (),
                  made: Make = _made_now) -> list[str]:
    """Return the titles, each repeated one made distinct with more of its own abstract."""
    # keep: positions of titles a person gave (papers.yaml); those are never changed, the others move.
    keys = [_title_key(t) for t in titles]
    counts = Counter(keys)
    groups: dict[str, list[int]] = {}
    for index, key in enumerate(keys):
        if counts[key] > 1:
            groups.setdefault(key, []).append(index)
    # A new title must not take the place of any title already in the catalog.
    retitling = _Retitling(titles, abstracts, keep, list(titles), set(counts), made)
    for key in sorted(groups):  # sorted, so the result does not depend on where each paper was listed
        retitling.tell_apart(key, sorted(groups[key], key=lambda i: (abstracts[i], titles[i])))
    return retitling.out


def _shared_words(abstracts: list[str]) -> set[str]:
    """Return the words more than one of the abstracts has: those that tell none of them apart."""
    frequency = Counter(w for abstract in abstracts for w in _words_of(abstract))
    return {w for w, n in frequency.items() if n > 1}


@dataclass
class _Retitling:
    """Titles being made distinct: the titles so far (``out``), and the key of every title taken."""

    titles: Sequence[str]
    abstracts: Sequence[str]
    keep: Collection[int]
    out: list[str]
    taken: set[str]
    made: Make

    def tell_apart(self, key: str, members: list[int]) -> None:
        """Give the papers that share the title of ``key`` titles of their own."""
        shared = _shared_words([self.abstracts[i] for i in members])
        pending = [i for i in members if i not in self.keep]
        plain_is_free = len(pending) == len(members)  # a given title keeps the plain one for itself
        for make in (_longer_title, _title_with_phrase):
            self._retitle(key, pending, make, shared)
            pending = [i for i in pending if _title_key(self.out[i]) == key]
        # The first one left keeps the plain title, unless a given title has it.
        self._number(pending[1:] if plain_is_free else pending)

    def _retitle(self, key: str, pending: list[int], make: Callable[[str, str, set[str]], str],
                 shared: set[str]) -> None:
        """Give each pending paper the title ``make`` makes, where it is new and no other's."""
        # What a candidate is made of: the other members' words matter only to a phrase.
        context = "\n".join(sorted(shared)) if make is _title_with_phrase else ""
        candidates = {i: self.made((make.__name__, self.titles[i], self.abstracts[i], context),
                                   partial(make, self.titles[i], self.abstracts[i], shared))
                      for i in pending}
        seen = Counter(_title_key(c) for c in candidates.values())
        for i, candidate in candidates.items():
            new = _title_key(candidate)
            # Two members reaching the same new title are no more distinct than before.
            if candidate and len(candidate) <= _UNIQUE_MAX and new != key and new not in self.taken \
                    and seen[new] == 1:
                self.out[i] = candidate
                self.taken.add(new)

    def _number(self, pending: list[int]) -> None:
        """Number the papers still without a title of their own: "title (2)", "title (3)"."""
        for number, i in enumerate(pending, start=2):
            while _title_key(numbered := _numbered(self.titles[i], number)) in self.taken:
                number += 1
            self.out[i] = numbered
            self.taken.add(_title_key(numbered))
