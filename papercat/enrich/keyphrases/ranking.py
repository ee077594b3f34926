"""Each paper's keyphrases: its candidates scored against the catalog's statistics, ranked, and the
best picked without overlaps."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from itertools import chain
from operator import itemgetter

import numpy as np

from papercat import workers

from .analysis import PaperPhrases, analyse
from .candidates import _COUNT, _IN_TITLE, _LITERAL, _WEIGHT
from .statistics import Statistics, statistics
from .words import _TAIL_FILLER, _is_coded, _Key

TITLE_BOOST = 1.5  # a phrase of the title
# "ordinal feedback" says more than "feedback", as C-value's log(length) has it.
LENGTH_FACTORS = (1.0, 1.6, 1.9)
ONCE_LENGTH_FACTORS = (0.5, 0.6, 0.65)  # a phrase written once is more often a turn of phrase than a term
TAIL_FILLER_FACTOR = 0.6
MIN_SHARE = 0.2  # past k_min, a phrase must score this share of the paper's best
DISTINCT_OUTSIDE = 2  # a contained phrase stays when it occurs this often outside the longer ones picked


def _nested_weights(phrases: dict[_Key, list]) -> list[float]:
    """Return each phrase's weight less the mean weight of the longer candidates that contain it (C-value),
    in the order of ``phrases``.

    Only longer phrases said twice count: "frame data mixing" said once does not make "data mixing" a part.
    """
    total: dict[_Key, float] = {}
    count: dict[_Key, int] = {}
    for key, phrase in phrases.items():
        n = len(key)
        if n == 1 or phrase[_LITERAL] + phrase[_IN_TITLE] < 2:
            continue
        for size in range(1, n):
            for i in range(n - size + 1):
                inner = key[i:i + size]
                total[inner] = total.get(inner, 0.0) + phrase[_WEIGHT]
                count[inner] = count.get(inner, 0) + 1
    if not total:  # most papers: no phrase said twice inside a longer one
        return list(map(itemgetter(_WEIGHT), phrases.values()))
    return [p[_WEIGHT] - total[key] / count[key] if key in total else p[_WEIGHT] for key, p in phrases.items()]


def _rank(phrases: dict[_Key, list], idf: Iterable[float]) -> list[tuple[float, _Key]]:
    """Return (-score, key) for a paper's possible keyphrases, best first, ties in alphabetical order.

    The score is negated so that the tuples sort as they are, in C, without a key function per phrase.
    ``idf`` gives the phrases' inverse document frequencies in their order (only as many are read).
    """
    ranked = []
    # phrases first: zip stops at their end without reading one more idf
    for (key, phrase), weight, key_idf in zip(phrases.items(), _nested_weights(phrases), idf):
        if weight <= 0:
            continue
        # Sublinear in the count: a word said ten times ("agent") is not ten times as telling.
        score = (1.0 + math.log(weight) if weight > 1.0 else weight) * key_idf
        once = phrase[_COUNT] + phrase[_IN_TITLE] <= 1
        score *= (ONCE_LENGTH_FACTORS if once else LENGTH_FACTORS)[len(key) - 1]
        if phrase[_IN_TITLE]:
            score *= TITLE_BOOST
        if key[-1] in _TAIL_FILLER:
            score *= TAIL_FILLER_FACTOR
        ranked.append((-round(score, 9), key))
    ranked.sort()
    return ranked


def _contains(long: _Key, short: _Key) -> bool:
    """Return whether the words of short occur together inside long."""
    n = len(short)
    # A phrase has at most MAX_WORDS = 3 words: a shorter one inside it is a word, or two words that
    # start or end it.
    return len(long) > n and (short[0] in long if n == 1 else long[:n] == short or long[-n:] == short)


def _is_covered(key: _Key, picked: list[_Key], phrases: dict[_Key, list]) -> bool:
    """Return whether a phrase occurs too rarely outside the longer picked phrases that contain it."""
    longer = [p for p in picked if _contains(p, key)]
    if not longer:
        return False
    literal = phrases[key][_LITERAL]
    outside = literal - sum(phrases[p][_LITERAL] for p in longer)
    return outside < DISTINCT_OUTSIDE or outside < literal / 2


def _is_shifted(key: _Key, picked: list[_Key], phrases: dict[_Key, list]) -> bool:
    """Return whether a phrase is a picked one moved by a word ("calling leaderboard") and never apart."""
    return len(key) > 1 and any(len(p) == len(key) and (p[1:] == key[:-1] or p[:-1] == key[1:])
               and phrases[key][_LITERAL] <= phrases[p][_LITERAL] for p in picked)


def _select(ranked: list[tuple[float, _Key]], phrases: dict[_Key, list], k_min: int,
            k_max: int) -> list[_Key]:
    """Pick the best phrases, skipping one that overlaps better picks unless it also stands on its own.

    ``ranked`` is ``_rank``'s: (-score, key), best first.
    """
    picked: list[tuple[float, _Key]] = []
    for negated, key in ranked:
        score = -negated
        if len(picked) >= k_max or len(picked) >= k_min and score < MIN_SHARE * picked[0][0]:
            break
        keys = [k for _, k in picked]
        if _is_covered(key, keys, phrases) or _is_shifted(key, keys, phrases):
            continue
        picked.insert(_replace_shorter(picked, key, keys, phrases), (score, key))
    return [key for _, key in picked]


def _replace_shorter(picked: list[tuple[float, _Key]], key: _Key, keys: list[_Key], phrases: dict[_Key, list]) -> int:
    """Drop the picks (``keys``) inside ``key`` that rarely occur without it, and return where ``key`` goes:
    "ordinal feedback" replaces "feedback" when the paper's feedback is mostly ordinal."""
    at = len(picked)
    for i in reversed(range(len(picked))):
        shorter = picked[i][1]
        if _contains(key, shorter) and _is_covered(shorter, [k for k in keys if k != shorter] + [key], phrases):
            del picked[i]
            at = i
    return at


def _display(spellings: dict[tuple[str, ...], int], proper: frozenset[str]) -> str:
    """Write a phrase as the paper writes it most often, in lowercase but for names: "MoE quantization"."""
    # The most frequent spelling; on a tie the lowercase one ("oversensitivity" over "OverSenSitivity").
    best = next(iter(spellings)) if len(spellings) == 1 else min(
        spellings.items(), key=lambda kv: (-kv[1], not " ".join(kv[0]).islower(), kv[0]))[0]
    # A lowercase word is written as it is whatever the rule says (most words: no other test).
    return " ".join(w if w.islower() or _is_coded(w) or w.lower().replace("-", "") in proper else w.lower()
                    for w in best)


_PICK_BATCH = 256  # papers whose keyphrases a worker picks at once: their phrases looked up together


def pick(papers: Sequence[PaperPhrases], k_min: int = 5, k_max: int = 8,
         stats: Statistics | None = None) -> list[tuple[str, ...]]:
    """Return each paper's ``k_min``-``k_max`` keyphrases, best first, scored against ``stats`` (by
    default, those of ``papers`` themselves)."""
    stats = stats or statistics(papers)
    vocabulary, counts, size = stats.vocabulary, stats.counts, stats.size

    def pick_batch(start: int) -> list[tuple[str, ...]]:
        batch = papers[start:start + _PICK_BATCH]
        # The inverse document frequencies of the batch's candidates, paper after paper.
        found = counts.lookup(vocabulary.codes(list(chain.from_iterable(paper.phrases for paper in batch))))
        idf = iter((np.log(size / (found + 1)) + 1.0).tolist())
        picked = []
        for paper in batch:
            phrases = paper.phrases
            keys = _select(_rank(phrases, idf), phrases, k_min, k_max)
            spellings = paper.spellings(keys)
            proper = stats.proper_of(paper)
            picked.append(tuple(dict.fromkeys(_display(spellings[key], proper) for key in keys)))
        return picked

    # Each batch of papers alone, once the catalog's counts are known.
    batches = workers.map(pick_batch, range(0, len(papers), _PICK_BATCH), min_items=2)
    return [picked for batch in batches for picked in batch]


def extract_keyphrases(docs: Sequence[tuple[str, str]], k_min: int = 5,
                       k_max: int = 8) -> list[tuple[str, ...]]:
    """Return each paper's ``k_min``-``k_max`` keyphrases, best first, from (title, plain abstract) pairs."""
    return pick([analyse(title, abstract) for title, abstract in docs], k_min, k_max)
