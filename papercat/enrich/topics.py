"""Assign each paper one to three topics of the taxonomy by weighted keyword matching."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache

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


def normalize(text: str) -> str:
    """Lowercase text with Markdown and LaTeX markup removed and words separated by single spaces."""
    text = _LATEX_COMMAND.sub("", text)
    text = _GLUE.sub("", text)
    return _SEPARATOR.sub(" ", text.casefold()).strip()


def _forms(phrase: str) -> tuple[str, ...]:
    # Only the last word is pluralised: "reward models", not "rewards model".
    last = phrase.rsplit(" ", 1)[-1]
    if len(last) > 1 and last.endswith("y") and last[-2] not in "aeiou":
        return (phrase, phrase + "s", phrase[:-1] + "ies")
    return (phrase, phrase + "s", phrase + "es")


def _trie_pattern(forms: Sequence[str]) -> str:
    # A prefix tree instead of a flat alternation: Python's re tries alternatives one by one,
    # and the tree makes the matcher several times faster on 40 keywords. Optional tails are
    # greedy, so the longest form wins and backtracks to a shorter one at a word's end.
    trie: dict = {}
    for form in forms:
        node = trie
        for char in form:
            node = node.setdefault(char, {})
        node[""] = {}

    def build(node: dict) -> str:
        branches = [re.escape(char) + build(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return build(trie)


# Per topic: its regex (None without keywords), matched form -> keyword, keyword -> weight.
_Matcher = tuple[re.Pattern[str] | None, dict[str, str], dict[str, float]]


@lru_cache(maxsize=16)
def _matchers(taxonomy: tuple[Topic, ...]) -> tuple[_Matcher, ...]:
    """Compile, once per taxonomy, each topic's regex, its form-to-keyword map and its weights."""
    compiled = []
    for topic in taxonomy:
        weights: dict[str, float] = {}
        for phrase, weight in topic.keywords:
            key = normalize(phrase)
            if key and key not in weights:
                weights[key] = float(weight)
        canonical: dict[str, str] = {}
        for phrase in weights:
            for form in _forms(phrase):
                canonical.setdefault(form, phrase)
        # Matched on " text " with the leading space consumed: a literal first character lets
        # re skip straight to word starts, and the lookahead leaves the space for the next match.
        pattern = re.compile(" " + _trie_pattern(list(canonical)) + "(?= )") if canonical else None
        compiled.append((pattern, canonical, weights))
    return tuple(compiled)


def _score(
    text: str, pattern: re.Pattern[str], canonical: dict[str, str], weights: dict[str, float]
) -> tuple[float, tuple[str, ...]]:
    counts: dict[str, int] = {}
    for m in pattern.finditer(text):
        phrase = canonical[m.group()[1:]]
        counts[phrase] = counts.get(phrase, 0) + 1
    # A phrase repeated n times is stronger evidence than one mention, but not n times stronger.
    contributions = {p: weights[p] * (1.0 + math.log(n)) for p, n in counts.items()}
    ranked = sorted(contributions.items(), key=lambda kv: (-kv[1], kv[0]))
    return sum(contributions.values()), tuple(p for p, c in ranked if c > 0)


def assign_topics(text: str, taxonomy: Sequence[Topic], max_topics: int = 3) -> tuple[TopicMatch, ...]:
    """Return the paper's best 1 to ``max_topics`` topics, or the single Other match when none fits."""
    taxonomy = tuple(taxonomy)
    padded = f" {normalize(text)} "
    scored = []
    for position, (topic, (pattern, canonical, weights)) in enumerate(zip(taxonomy, _matchers(taxonomy))):
        if pattern is None:
            continue
        score, matched = _score(padded, pattern, canonical, weights)
        score = round(score, DECIMALS)
        if score > 0:
            scored.append((score, position, topic.slug, matched))
    if not scored:
        return (TopicMatch(OTHER.slug, 0.0, ()),)
    best = max(s[0] for s in scored)
    kept = [s for s in scored if s[0] >= MIN_SCORE and s[0] >= MIN_SHARE * best]
    if not kept:
        return (TopicMatch(OTHER.slug, 0.0, ()),)
    kept.sort(key=lambda s: (-s[0], s[1]))
    return tuple(TopicMatch(slug, score, matched) for score, _, slug, matched in kept[: max(1, max_topics)])
