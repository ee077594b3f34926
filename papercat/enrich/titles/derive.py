"""A short plain-text title for a paper, derived from its abstract."""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import islice

from .naming import _named_title, _plain_desc
from .patterns import _ANAPHORA, _CLAIM, _CUES, _DETERMINERS, _INFINITIVE, _OURS, _WORD, _gerund
from .reading import _LONGEST, _acronyms, _clean, _clip, _expand, _fit, _sentences


def _cues(sentences: list[tuple[int, str]]) -> Iterator[tuple]:
    """Yield (sentence, offset, kind, base verb, text after, is-a-noun) for cues in our own statements."""
    for index, (offset, sentence) in enumerate(sentences):
        ours = _OURS.search(sentence)
        if not ours:
            continue
        after = ours.start() if ours[0] == "is proposed" else ours.end()
        for m, noun_use in _cue_words(sentence, after):
            yield (index, offset + m.end(), *_CUES[m[0]], sentence[m.end():].lstrip(), noun_use)


def _cue_words(sentence: str, after: int) -> Iterator[tuple[re.Match[str], bool]]:
    """Yield each cue word of a sentence from ``after`` on but those a noun phrase holds ("an empirical
    study"), and whether a determiner comes right before it."""
    if _CUES.keys().isdisjoint(_WORD.findall(sentence, after)):  # most of our statements hold no cue
        return
    for m in _WORD.finditer(sentence, after):
        if m[0] not in _CUES:
            continue
        previous = [w.lower() for w in sentence[max(0, m.start() - 40):m.start()].split()[-2:]]
        noun_use = bool(previous) and previous[-1] in _DETERMINERS
        after_article = len(previous) == 2 and previous[0] in ("a", "an", "the")  # "an empirical study"
        if (not noun_use or m[0] == "proposed") and not after_article:
            yield m, noun_use


def _phrasings(kind: str, base: str, rest: str) -> list[str]:
    """Return ways to title what one cue states, best first; none if it makes no title."""
    if kind != "claim" and (kind == "naming" or rest.startswith("that ")):  # "we propose that X" is a hypothesis
        return []
    core, phrases = _stated(kind, base, rest)
    return [] if len(core.split()) < 3 or _ANAPHORA.search(core) else phrases


def _stated(kind: str, base: str, rest: str) -> tuple[str, list[str]]:
    """Return what a cue states (its core) and the ways to title it, best first."""
    if kind == "claim":
        claim = _CLAIM.match(rest)
        core = _clip(claim[1]) if claim else ""
        return core, [core]
    if infinitive := _INFINITIVE.match(rest):
        core = _clip(infinitive[2])
        return core, [_gerund(infinitive[1]) + " " + core]
    core = _plain_desc(_clip(rest))
    phrases = [_gerund(base) + " " + core, core] if kind == "weak" else [core]
    return core, phrases + [p.split(" to provide ", 1)[1] for p in phrases if " to provide " in p]


def _described_title(sentences: list[tuple[int, str]], cues: list[tuple], acronyms: dict[str, str],
                     max_chars: int) -> str:
    """Return a noun phrase or a claim that describes the main contribution."""
    phrases = next((p for _, _, kind, base, rest, noun_use in cues
                    if not noun_use and (p := _phrasings(kind, base, rest))), None)
    if not phrases:
        return _clip(sentences[0][1])
    for phrase in phrases:
        spelt = _expand(phrase, acronyms)
        shortened = _fit(spelt, max_chars, mid_phrase=False)  # dropping a trailing phrase may be worth it
        for option in (spelt, shortened if len(shortened) >= 0.7 * len(spelt) else "", phrase):
            if option and len(option) <= max_chars:
                return option
    return _expand(phrases[0], acronyms)


def derive_title(abstract: str, max_chars: int = 100) -> str:
    """Return a short plain-text title for the paper an abstract describes."""
    text = _clean(abstract[:_LONGEST])
    if not text:
        return ""
    sentences, acronyms = _sentences(text), _acronyms(text)
    cues = list(islice(_cues(sentences), 50))  # real abstracts have a dozen; a pasted paper must stay fast
    title = _fit(_named_title(text, sentences, cues, acronyms, max_chars)
                 or _described_title(sentences, cues, acronyms, max_chars), max_chars)
    cased = any(c.isupper() for c in title.split(" ", 1)[0][1:])  # keep "iPhone" or "GuardAgent" as written
    return title if cased else title[:1].upper() + title[1:]
