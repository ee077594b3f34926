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


@dataclass(frozen=True)
class Candidate:
    """A title to try for a paper: what it is made of, and the function that makes it."""

    parts: tuple[str, ...]
    make: Callable[[], str]


# How candidate titles are made: given them, return what each one's function returns, in order (a
# memo between builds may know some already, and worker processes may make the rest: see catalog.py).
Make = Callable[[Sequence[Candidate]], list[str]]


def _made_now(candidates: Sequence[Candidate]) -> list[str]:
    return [candidate.make() for candidate in candidates]


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
    # Sorted, so the result does not depend on where each paper was listed.
    ordered = {key: sorted(groups[key], key=lambda i: (abstracts[i], titles[i])) for key in sorted(groups)}
    retitling.tell_apart([_Group(key, members, [i for i in members if i not in keep])
                          for key, members in ordered.items()])
    return retitling.out


def _shared_words(abstracts: list[str]) -> str:
    """Return the words more than one of the abstracts has, those that tell none of them apart: sorted,
    a line each."""
    frequency = Counter(w for abstract in abstracts for w in _words_of(abstract))
    return "\n".join(sorted(w for w, n in frequency.items() if n > 1))


@dataclass(frozen=True)
class _Group:
    """Papers that share a title: its key, the papers, and those whose title may change."""

    key: str
    members: list[int]
    pending: list[int]  # the members whose title is not a person's (papers.yaml)


@dataclass
class _Retitling:
    """Titles being made distinct: the titles so far (``out``), and the key of every title taken."""

    titles: Sequence[str]
    abstracts: Sequence[str]
    keep: Collection[int]
    out: list[str]
    taken: set[str]
    made: Make

    def tell_apart(self, groups: list[_Group]) -> None:
        """Give the papers of each group titles of their own: a longer title, else one with a phrase
        of its abstract that the others lack, else a number.

        The candidates are made in batches, before the groups are gone through in order: every
        longer title, then the phrases of the papers whose longer title cannot be their own whatever
        the other groups take. A phrase found wanting only as the groups are gone through is made then.
        """
        longer = self._made(_longer_title, [(i, set(), "") for group in groups for i in group.pending])
        words = self._shared(groups)
        phrases = self._made(_title_with_phrase, [(i, *words[group.key]) for group in groups
                                                  for i in _hopeless(group, longer)])
        for group in groups:
            left = self._retitle(group.key, group.pending, longer)
            phrases.update(self._made(_title_with_phrase, [(i, *words[group.key]) for i in left if i not in phrases]))
            left = self._retitle(group.key, left, phrases)
            # The first one left keeps the plain title, unless a given title has it.
            self._number(left[1:] if len(group.pending) == len(group.members) else left)

    def _shared(self, groups: list[_Group]) -> dict[str, tuple[set[str], str]]:
        """Return the words that tell none of each group's abstracts apart, as a set and as one string."""
        found = [[self.abstracts[i] for i in group.members] for group in groups]
        lines = self.made([Candidate(("_shared_words", *abstracts), partial(_shared_words, abstracts))
                           for abstracts in found])
        return {group.key: (set(words.split("\n")) if words else set(), words) for group, words in zip(groups, lines)}

    def _made(self, make: Callable[[str, str, set[str]], str], items: list[tuple[int, set[str], str]]) -> dict[int, str]:
        """Return the title ``make`` makes for each paper of ``items`` (its position, the words of its
        group's abstracts that tell none apart, and those words as one string), by position."""
        # What a candidate is made of: the other members' words matter only to a phrase.
        candidates = [Candidate((make.__name__, self.titles[i], self.abstracts[i], context),
                                partial(make, self.titles[i], self.abstracts[i], shared))
                      for i, shared, context in items]
        return dict(zip([i for i, _, _ in items], self.made(candidates) if candidates else []))

    def _retitle(self, key: str, pending: list[int], candidates: dict[int, str]) -> list[int]:
        """Give each pending paper its candidate title, where it is new and no other's; return those
        still titled as ``key``."""
        for i in _telling(key, pending, candidates):
            new = _title_key(candidates[i])
            if new not in self.taken:
                self.out[i] = candidates[i]
                self.taken.add(new)
        return [i for i in pending if _title_key(self.out[i]) == key]

    def _number(self, pending: list[int]) -> None:
        """Number the papers still without a title of their own: "title (2)", "title (3)"."""
        for number, i in enumerate(pending, start=2):
            while _title_key(numbered := _numbered(self.titles[i], number)) in self.taken:
                number += 1
            self.out[i] = numbered
            self.taken.add(_title_key(numbered))


def _hopeless(group: _Group, candidates: dict[int, str]) -> list[int]:
    """Return the group's pending papers whose candidate cannot be a title of their own."""
    telling = set(_telling(group.key, group.pending, candidates))
    return [i for i in group.pending if i not in telling]


def _telling(key: str, pending: list[int], candidates: dict[int, str]) -> list[int]:
    """Return the pending papers whose candidate tells them apart, unless another title has taken it:
    short enough, not ``key`` and no other pending paper's."""
    seen = Counter(_title_key(candidates[i]) for i in pending)
    return [i for i in pending if candidates[i] and len(candidates[i]) <= _UNIQUE_MAX
            and (new := _title_key(candidates[i])) != key and seen[new] == 1]
