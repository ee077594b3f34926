"""Assign each paper one to three topics of the taxonomy by weighted keyword matching."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache
from itertools import compress, count

from papercat.model import Topic, TopicMatch

OTHER = Topic(slug="other", name="Other", description="Papers that match no topic of the taxonomy.")

# A topic must reach MIN_SCORE (one distinctive phrase, or a few generic words) and
# MIN_SHARE of the best topic's score: a paper about quantization that mentions "benchmarks"
# twice should not be filed under evaluation as well.
MIN_SCORE = 3.0
MIN_SHARE = 0.3
DECIMALS = 3

_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+")
# Emphasis markers, braces and math delimiters are deleted rather than spaced so that
# "**M**ultimodal" and "\textbf{Rea}soning" become whole words again.
_GLUE = re.compile(r"[*{}$]")
# Everything that is not a letter or digit separates words; "_" too, which \W keeps.
_SEPARATOR = re.compile(r"[\W_]+")


_WORD = re.compile(r"[^\W_]+")  # what the separators leave
# In ASCII text, what the separators leave are its letters and digits: a bytes.translate that blanks
# every other character, then a split, finds the same words much faster than the pattern. In other
# text the same translate of its UTF-8 (which leaves the bytes of other characters alone) splits it
# into runs that no word crosses, and only the runs with other characters need the pattern.
_ASCII_SEPARATORS = bytes(c if c >= 128 or chr(c).isalnum() else 32 for c in range(256))


def _unmarked(text: str) -> str:
    """Return text lowercased, without Markdown and LaTeX markup."""
    if "\\" in text:
        text = _LATEX_COMMAND.sub("", text)
    if "*" in text or "{" in text or "}" in text or "$" in text:
        text = _GLUE.sub("", text)
    return text.casefold()


def _words(text: str) -> list[str]:
    """Return the words of ``text``, as _WORD finds them."""
    if text.isascii():
        return text.encode("ascii").translate(_ASCII_SEPARATORS).decode("ascii").split()
    words: list[str] = []
    for run in text.encode("utf-8", "surrogatepass").translate(_ASCII_SEPARATORS).decode(
            "utf-8", "surrogatepass").split():
        if run.isascii():
            words.append(run)
        else:
            words += _WORD.findall(run)
    return words


def normalize(text: str) -> str:
    """Lowercase text with Markdown and LaTeX markup removed and words separated by single spaces."""
    return _SEPARATOR.sub(" ", _unmarked(text)).strip()


def _forms(phrase: str) -> tuple[str, ...]:
    # Only the last word is pluralised: "reward models", not "rewards model".
    last = phrase.rsplit(" ", 1)[-1]
    if len(last) > 1 and last.endswith("y") and last[-2] not in "aeiou":
        return (phrase, phrase + "s", phrase[:-1] + "ies")
    return (phrase, phrase + "s", phrase + "es")


# Every topic's keyword forms at once: form -> ((topic position, keyword, words in the form), ...), and
# for each first word of a form its one-word form's hits, the second words of its longer forms and
# their lengths in words, longest first.
_Hits = tuple[tuple[int, str, int], ...]
_Forms = tuple[dict[str, _Hits], dict[str, tuple[_Hits, frozenset[str], tuple[int, ...]]]]


def _keyword_weights(topic: Topic) -> dict[str, float]:
    """Map each of the topic's normalised keywords to its weight; the first mention of a keyword wins."""
    weights: dict[str, float] = {}
    for phrase, weight in topic.keywords:
        key = normalize(phrase)
        if key and key not in weights:
            weights[key] = float(weight)
    return weights


def _canonical_forms(weights: dict[str, float]) -> dict[str, str]:
    """Map each form of the keywords to the first keyword that has it."""
    canonical: dict[str, str] = {}
    for phrase in weights:
        for form in _forms(phrase):
            canonical.setdefault(form, phrase)
    return canonical


@lru_cache(maxsize=16)
def _forms_of(taxonomy: tuple[Topic, ...]) -> tuple[_Forms, tuple[dict[str, float], ...]]:
    """Return, once per taxonomy, the keyword forms of all topics and each topic's keyword weights."""
    forms: dict[str, list[tuple[int, str, int]]] = {}
    lengths: dict[str, set[int]] = {}
    seconds: dict[str, set[str]] = {}
    all_weights = []
    for position, topic in enumerate(taxonomy):
        weights = _keyword_weights(topic)
        for form, phrase in _canonical_forms(weights).items():
            words = form.split(" ")
            forms.setdefault(form, []).append((position, phrase, len(words)))
            lengths.setdefault(words[0], set()).add(len(words))
            seconds.setdefault(words[0], set()).update(words[1:2])
        all_weights.append(weights)
    by_form = {form: tuple(hits) for form, hits in forms.items()}
    return (by_form, _starts(by_form, lengths, seconds)), tuple(all_weights)


def _starts(
    by_form: dict[str, _Hits], lengths: dict[str, set[int]], seconds: dict[str, set[str]]
) -> dict[str, tuple[_Hits, frozenset[str], tuple[int, ...]]]:
    """Map each first word of a form to its one-word hits, its second words and its longer lengths."""
    return {word: (by_form.get(word, ()), frozenset(seconds[word]),
                   tuple(sorted((n for n in lengths[word] if n > 1), reverse=True)))
            for word in lengths}


_last: list = [None, None]  # the taxonomy last asked about, and its forms


def _taxonomy_forms(taxonomy: tuple[Topic, ...]) -> tuple[_Forms, tuple[dict[str, float], ...]]:
    """Return _forms_of(taxonomy); a build asks about one taxonomy object, which need not be hashed again."""
    if taxonomy is not _last[0]:
        _last[:] = [taxonomy, _forms_of(taxonomy)]
    return _last[1]


def _counts(words: list[str], forms: _Forms, topics: int) -> list[dict[str, int]]:
    """Count each topic's keywords in the words, in order of first match.

    As a regex search per topic would: at each word the topic's longest form that starts there,
    and no two matches of a topic overlap. One pass serves every topic, and only at words that
    start some form.
    """
    by_form, starts = forms
    counts: list[dict[str, int]] = [{} for _ in range(topics)]
    free = [0] * topics  # per topic, the first word a new match may start at
    last = len(words) - 1
    for i in compress(count(), map(starts.__contains__, words)):  # few words start a form
        hits, seconds, longer = starts[words[i]]
        # Where the next word is no second word of a longer form, only the one-word form can start here:
        # most such words are followed by another, and joining words for forms that are not there is slow.
        if i < last and words[i + 1] in seconds:
            hits = tuple(hit for n in longer if i + n <= len(words)
                         for hit in by_form.get(" ".join(words[i:i + n]), ())) + hits
        for topic, phrase, n in hits:
            if free[topic] <= i:  # a topic matched here by a longer form is not free here any more
                free[topic] = i + n
                counts[topic][phrase] = counts[topic].get(phrase, 0) + 1
    return counts


def _score(counts: dict[str, int], weights: dict[str, float]) -> tuple[float, tuple[str, ...]]:
    """Return a topic's score from its keyword counts, and the keywords that add to it, most first."""
    # A phrase repeated n times is stronger evidence than one mention, but not n times stronger.
    contributions = {p: weights[p] * (1.0 + math.log(n)) if n > 1 else weights[p] for p, n in counts.items()}
    if len(contributions) == 1:  # most topics a paper matches, it matches by one keyword
        ((p, c),) = contributions.items()
        return c, (p,) if c > 0 else ()
    ranked = sorted(contributions.items(), key=_rank)
    return sum(contributions.values()), tuple(p for p, c in ranked if c > 0)


def _rank(contribution: tuple[str, float]) -> tuple[float, str]:
    """Order keywords by contribution, most first, then by name."""
    return -contribution[1], contribution[0]


def _scored(
    text: str, taxonomy: Sequence[Topic], forms: _Forms, weights: tuple[dict[str, float], ...]
) -> list[tuple[float, int, str, tuple[str, ...]]]:
    """Score every topic the text matches: (score, position, slug, matched keywords), in taxonomy order."""
    scored = []
    for position, (topic, counts) in enumerate(zip(taxonomy, _counts(_words(_unmarked(text)), forms,
                                                                      len(taxonomy)))):
        if not counts:
            continue
        score, matched = _score(counts, weights[position])
        score = round(score, DECIMALS)
        if score > 0:
            scored.append((score, position, topic.slug, matched))
    return scored


def assign_topics(text: str, taxonomy: Sequence[Topic], max_topics: int = 3) -> tuple[TopicMatch, ...]:
    """Return the paper's best 1 to ``max_topics`` topics, or the single Other match when none fits."""
    forms, weights = _taxonomy_forms(tuple(taxonomy))
    scored = _scored(text, taxonomy, forms, weights)
    if not scored:
        return (TopicMatch(OTHER.slug, 0.0, ()),)
    best = max(s[0] for s in scored)
    kept = [s for s in scored if s[0] >= MIN_SCORE and s[0] >= MIN_SHARE * best]
    if not kept:
        return (TopicMatch(OTHER.slug, 0.0, ()),)
    kept.sort(key=lambda s: (-s[0], s[1]))
    return tuple(TopicMatch(slug, score, matched) for score, _, slug, matched in kept[: max(1, max_topics)])
