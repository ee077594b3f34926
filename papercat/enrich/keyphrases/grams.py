"""The 1-3 word n-grams of runs, and a paper's counted words and n-grams (what related papers compare)."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import chain, pairwise

from papercat.text import counted

from .runs import _plain_runs
from .words import _CODED, _Key, _Token

# How often a paper uses each word, as (key, display form, times) in order of first use, and each
# 1-3 word n-gram of word keys, in order of first use: the terms related.py compares papers by.
TermCounts = tuple[tuple[tuple[str, str, int], ...], dict[_Key, int]]


def count_terms(title: str, abstract: str) -> TermCounts:
    """Return the words and n-grams of the runs of a paper's title and abstract (see ``term_runs``)."""
    runs = _plain_runs(title) + _plain_runs(abstract)
    return _term_counts(runs, [_run_grams(runs)])


def _run_grams(runs: list[list[_Token]]) -> list[_Key]:
    """Return the 1-3 word n-grams of runs, run by run."""
    found: list[_Key] = []
    for run in runs:
        _add_grams(found, run)
    return found


def _term_counts(runs: list[list[_Token]], grams: list[list[_Key]]) -> TermCounts:
    """Return the counts of the words of runs and of their n-grams, given in lists to be joined in order."""
    return _term_words(counted(chain.from_iterable(runs)).items()), counted(chain.from_iterable(grams))


def _term_words(counted: Iterable[tuple[_Token, int]]) -> tuple[tuple[str, str, int], ...]:
    """Return (key, display form, times) for counted words, each distinct word given once, in order."""
    words: dict[tuple[str, str], int] = {}
    for (key, _, singular, flags), times in counted:
        word = key, singular if flags & _CODED else singular.lower()  # _term_word, inline: once a word
        words[word] = words.get(word, 0) + times
    return tuple((key, name, times) for (key, name), times in words.items())


def _add_grams(found: list[_Key], run: list[_Token]) -> None:
    """Append the 1-3 word n-grams of a run's word keys: its words, then its pairs, then its triples."""
    if len(run) == 1:  # four runs in five are one word: one n-gram
        found.append((run[0][0],))
        return
    words = [t[0] for t in run]
    found.extend(zip(words))  # zip makes the tuples in C: this is the hot loop of the module
    found.extend(pairwise(words))
    found.extend(zip(words, words[1:], words[2:]))
