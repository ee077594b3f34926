"""What picking needs of one paper, worked out from its title and abstract alone."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain, count, repeat
from operator import itemgetter

import numpy as np

from papercat.text import counted

from .candidates import _candidates, _ngrams, _spellings
from .grams import TermCounts, _run_grams, _term_counts, _term_words, count_terms
from .runs import (
    _BREAK,
    _CHUNK_PIECES,
    _SENTENCE_END,
    _aliases,
    _paper_runs,
    _plain_runs,
    _without_domains,
    _word_aliases,
)
from .words import _ING, _Key, _Token


@dataclass(frozen=True)
class PaperPhrases:
    """What picking needs of one paper, worked out from its title and abstract alone (so it can be cached).

    ``runs`` packs the paper's runs as int32 numbers: -1 - part opens a run, any other number is a
    position in ``tokens``, the paper's distinct words in order of appearance.
    """

    tokens: tuple[_Token, ...]
    runs: bytes
    phrases: dict[_Key, list]  # the candidate phrases: [weight, count, literal count, in title]; read only
    proper: frozenset[str]  # keys of words capitalised mid-sentence, not at a sentence start or in a name

    def spellings(self, keys: list[_Key]) -> dict[_Key, dict[_Key, int]]:
        """Return how often each of the paper's phrases ``keys`` is spelt each way, its last word singular."""
        return _spellings(keys, np.frombuffer(self.runs, dtype=np.int32).tolist(), self.tokens)


def analyse(title: str, abstract: str) -> PaperPhrases:
    """Return a paper's words, runs, candidate phrases and proper-noun evidence: all that needs no catalog."""
    return _analyse(title, abstract)[0]


def analyse_and_count_terms(title: str, abstract: str) -> tuple[PaperPhrases, TermCounts]:
    """Return ``analyse(title, abstract)`` and ``count_terms(title, abstract)``.

    The runs and n-grams of the abstract are worked out once for both when no web address is cut
    from it and it spells out no one-word alias; those of the title too when it reads alike.
    """
    analysed, parts, words, grams, counts, adapted = _analyse(title, abstract)
    if adapted:
        return analysed, count_terms(title, abstract)
    if _title_reads_alike(title):
        return analysed, (_term_words(words.items()), counts)  # counts: read only by the candidates
    title_runs = _plain_runs(title)
    return analysed, _term_counts(title_runs + list(chain.from_iterable(parts[1:])),
                                  [_run_grams(title_runs), *grams[1:]])


def _analyse(title: str, abstract: str) -> tuple[PaperPhrases, list[list[list[_Token]]], dict[_Token, int],
                                                 list[list[_Key]], dict[_Key, int], bool]:
    """Return ``analyse(title, abstract)``, the paper's runs by part, how often it uses each word, its
    ``_ngrams`` lists and their counts all together, and whether the abstract was adapted (web addresses
    cut, one-word aliases put in): then its runs are not ``_plain_runs``'s."""
    proper: set[str] = set()
    plain = _without_domains(abstract)
    defined = _aliases(plain)  # read only, by the runs and the candidates alike
    aliases = _word_aliases(defined)
    parts = _paper_runs(title, plain, aliases, proper)
    words = list(chain.from_iterable(chain.from_iterable(parts)))
    used = counted(words)  # the paper's distinct words in order of first use, and their counts
    numbers = dict(zip(used, count()))
    # Each run's part marker (-1 - part), then its words, part after part: made in C, not run by run.
    marked = list(chain.from_iterable(chain.from_iterable(
        chain.from_iterable(zip(repeat((-1 - part,)), runs)) for part, runs in enumerate(parts))))
    packed = list(map(numbers.get, marked, marked))  # a word's number; a marker is not in numbers: itself
    grams = _ngrams(parts)
    counts = counted(chain.from_iterable(grams))
    flags = dict(zip(map(itemgetter(0), words), map(itemgetter(3), words)))  # where each word occurs last
    table = tuple(numbers)
    phrases = _candidates(packed, table, grams, counts, flags, defined)
    packed_runs = np.array(packed, dtype=np.int32).tobytes()
    analysed = PaperPhrases(table, packed_runs, phrases, frozenset(proper))
    return analysed, parts, used, grams, counts, plain != abstract or bool(aliases)


def _title_reads_alike(title: str) -> bool:
    """Return whether a title's runs are ``_plain_runs``'s: it is one sentence whose first piece is no
    -ing word, the only word ``_runs``'s title rule may take for a verb where a sentence's would not."""
    first = next(chain.from_iterable(map(_CHUNK_PIECES.__getitem__, title.split())), _BREAK)[1]
    return (first is None or not first[3] & _ING) and _SENTENCE_END.search(title) is None
