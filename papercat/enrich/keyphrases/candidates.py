"""A paper's candidate phrases: its n-grams weighed by where they occur, acronyms merged with their
spellings, pieces of names and filler dropped."""

from __future__ import annotations

from collections.abc import Sequence
from operator import mul

from papercat.text import counted

from .grams import _add_grams
from .words import GENERIC_PHRASES, _ADJECTIVE, _BROAD, _FILLER_ALONE, _GENERIC_WORD, _Key, _Token

MAX_WORDS = 3
LEAD_WEIGHTS = (1.25, 1.1)  # an occurrence in the first sentences, which state the topic


def _part_weight(part: int) -> float:
    """Return an occurrence's weight in a part: 1 in the title, a little more in the first sentences."""
    return LEAD_WEIGHTS[part - 1] if 0 < part <= len(LEAD_WEIGHTS) else 1.0


# A candidate phrase of one paper: [weight, count, literal count, in title]. The weight sums its
# occurrences by where they are; the count includes an acronym's occurrences, the literal count
# only the phrase as written.
_WEIGHT, _COUNT, _LITERAL, _IN_TITLE = range(4)


def _ngrams(parts: list[list[list[_Token]]]) -> list[list[_Key]]:
    """Return a paper's 1-3 word n-grams per part (title, 1st, 2nd, later sentences), given its runs by part."""
    grams: list[list[_Key]] = [[] for _ in range(len(LEAD_WEIGHTS) + 2)]
    last = len(grams) - 1
    for part, runs in enumerate(parts):
        found = grams[part if part < last else last]  # noqa: FURB136 - min() costs more, per part
        for run in runs:
            if len(run) == 1:  # four runs in five are one word: one n-gram, without a call
                found.append((run[0][0],))
            else:
                _add_grams(found, run)
    return grams


_LEAD_PART_WEIGHTS = tuple(map(_part_weight, range(len(LEAD_WEIGHTS) + 1)))  # the title's and lead sentences'
_LATER_WEIGHT = _part_weight(len(LEAD_WEIGHTS) + 1)


def _candidates(numbers: list[int], table: Sequence[_Token], grams: list[list[_Key]], counts: dict[_Key, int],
                flags: dict[str, int], defined: dict) -> dict[_Key, list]:
    """Return a paper's candidate phrases by key, given its packed runs and words (see ``_spellings``), its
    ``_ngrams`` and their counts all parts together."""
    # Each phrase as if all its occurrences were in the later sentences, as most are ...
    # (_is_filler's one-word test inline: most n-grams are one word.)
    phrases = {key: [float(n), n, n, False] for key, n in counts.items()
               if not (flags[key[0]] & _FILLER_ALONE if len(key) == 1 else _is_filler(key, flags))}
    _weigh_lead(phrases, grams)
    _drop_name_pieces(phrases, defined)
    _merge_aliases(phrases, _short_spellings(defined), numbers, table)
    return phrases


def _weigh_lead(phrases: dict[_Key, list], grams: list[list[_Key]]) -> None:
    """Weigh again, part by part, the phrases in the title or the lead sentences (``grams`` but the last)."""
    # In order: a part a phrase is not in adds 0.0, so each weight is the very float of a sum over the
    # parts it is in.
    lead = [counted(part) for part in grams[:-1]]
    for key in set().union(*lead):
        phrase = phrases.get(key)
        if phrase is not None:
            times = [counter.get(key, 0) for counter in lead]
            n = phrase[_COUNT]
            weight = sum(map(mul, _LEAD_PART_WEIGHTS, times))
            phrase[:] = [weight + (n - sum(times)) * _LATER_WEIGHT, n - times[0], n - times[0], times[0] > 0]


def _short_spellings(defined: dict[str, list[list[_Token]]]) -> dict[str, _Key]:
    """Map each acronym spelt out in one run of 2 to MAX_WORDS words to that run's keys."""
    return {a: tuple(t[0] for t in spelt[0]) for a, spelt in defined.items()
            if len(spelt) == 1 and 1 < len(spelt[0]) <= MAX_WORDS}


def _spellings(keys: list[_Key], numbers: list[int], table: Sequence[_Token]) -> dict[_Key, dict[_Key, int]]:
    """Return how often each phrase is spelt each way, its last word singular.

    ``numbers`` are a paper's packed runs (see ``PaperPhrases``), ``table`` its words in number order.
    """
    # Each number's word key; a negative number (-1 - part) indexes one of the Nones appended.
    said = list(map(([t[0] for t in table] + [None] * -min(numbers, default=0)).__getitem__, numbers))
    found: dict[_Key, dict[tuple[str, ...], int]] = {}
    for key in keys:
        spelt = found[key] = {}
        n, at = len(key), -1
        for _ in range(said.count(key[0])):  # count and index find the places in C, not word by word
            at = said.index(key[0], at + 1)
            if tuple(said[at:at + n]) == key:
                surface = tuple([table[w][1] for w in numbers[at:at + n - 1]] + [table[numbers[at + n - 1]][2]])
                spelt[surface] = spelt.get(surface, 0) + 1
    return found


def _drop_name_pieces(phrases: dict[_Key, list], defined: dict[str, list[list[_Token]]]) -> None:
    """Drop pieces of a spelt-out name ("rotated sparse", "leaderboard") found nowhere else."""
    for acronym, runs in defined.items():
        if (acronym,) not in phrases:
            continue
        whole = len(runs) == 1 and len(runs[0]) <= MAX_WORDS  # a short spelling is merged, not dropped
        for run in runs:
            _drop_pieces(phrases, tuple(t[0] for t in run), whole)


def _drop_pieces(phrases: dict[_Key, list], keys: _Key, whole: bool) -> None:
    """Drop the phrases inside a run of a name's spelling (``keys``) said at most once; the whole run
    too unless ``whole``."""
    for size in range(1, min(len(keys), MAX_WORDS) + 1):
        for i in range(len(keys) - size + 1):
            piece = phrases.get(keys[i:i + size])
            if piece is not None and piece[_LITERAL] <= 1 and not (whole and size == len(keys)):
                del phrases[keys[i:i + size]]


def _merge_aliases(phrases: dict[_Key, list], aliases: dict[str, _Key], numbers: list[int],
                   table: Sequence[_Token]) -> None:
    """Count an acronym and its spelling as one phrase, named by the spelling unless the acronym is coined."""
    for acronym, expansion in aliases.items():
        short = (acronym,)
        if short not in phrases or expansion not in phrases:
            continue
        # "SimIE" and "MOSSBench" are names; "RM" or "DLP" only abbreviate their phrase.
        coined = any(c.islower() for spelling in _spellings([short], numbers, table)[short] for c in spelling[0])
        source, target = (expansion, short) if coined else (short, expansion)
        moved, kept = phrases.pop(source), phrases[target]
        kept[_WEIGHT] += moved[_WEIGHT]
        kept[_COUNT] += moved[_COUNT]
        kept[_IN_TITLE] |= moved[_IN_TITLE]


def _is_filler(key: _Key, flags: dict[str, int]) -> bool:
    """Return whether a phrase cannot be a keyphrase: "model performance", "LLM", "layer", "gated".

    That is one ending in an adjective, one every abstract uses, a broad word alone, or research
    talk after broad words ("model performance", "training data"). ``flags`` maps words to their flags.
    """
    last = flags[key[-1]]
    if len(key) == 1:  # most phrases: no word before, none of the phrases every abstract uses
        return bool(last & _FILLER_ALONE)
    if last & _ADJECTIVE or key in GENERIC_PHRASES:
        return True
    return bool(last & _GENERIC_WORD) and all(flags[w] & _BROAD for w in key[:-1])
