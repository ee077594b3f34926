"""A short plain-text title for a paper, derived from its abstract."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from functools import partial
from itertools import islice

from .naming import _named_title, _plain_desc
from .patterns import _ANAPHORA, _CLAIM, _CUES, _DETERMINERS, _FILLER, _INFINITIVE, _OURS, _STOP, _WORD, _gerund
from .readable import object_phrase, reads_well, subject_phrase, trimmed
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


# What a paper makes says more than what it studies, and both more than what it shows: "we show that
# X" reads as a sentence.
_RANK = {"strong": 0, "weak": 0, "claim": 1}
_CONTENT = re.compile(r"[a-z][a-z0-9-]+")
_BLAND = _STOP | _FILLER


def _described_title(sentences: list[tuple[int, str]], cues: list[tuple], acronyms: dict[str, str],
                     max_chars: int) -> str:
    """Return a noun phrase or a claim that describes the main contribution; "" if no cue states one."""
    stated = [(_RANK[kind], at, p) for _, at, kind, base, rest, noun_use in cues
              if not noun_use and (p := _phrasings(kind, base, rest))]
    phrases = min(stated)[2] if stated else None
    if not phrases:
        return ""
    for phrase in phrases:
        spelt = _expand(phrase, acronyms)
        shortened = _fit(spelt, max_chars, mid_phrase=False)  # dropping a trailing phrase may be worth it
        for option in (spelt, shortened if len(shortened) >= 0.7 * len(spelt) else "", phrase):
            if option and len(option) <= max_chars:
                return option
    return _expand(phrases[0], acronyms)


def _says_little(named: str) -> bool:
    """Return whether a named title is the name alone or the name and a word ("AFLITE: approach")."""
    head, _, desc = named.partition(": ")
    return len(_WORD.findall(desc.lower())) < 2


def _joined(named: str, described: str) -> str:
    """Return "Name: what the abstract says it does", unless that repeats the name."""
    head = named.partition(": ")[0]
    if head in described:
        return described
    cased = any(c.isupper() for c in described.split(" ", 1)[0][1:])  # "GPT-4 ..." stays as written
    return f"{head}: {described if cased else described[:1].lower() + described[1:]}"


def _named_options(named: str, described: str, sentences: list[tuple[int, str]]) -> Iterator[str]:
    """Yield the candidate titles that hold the name of the paper's contribution, best first."""
    if not _says_little(named):
        yield from (named, trimmed(named))
    for desc in (described, trimmed(described), object_phrase(sentences)):
        if desc:
            yield _joined(named, desc)
    yield trimmed(named)


def _described_options(described: str, sentences: list[tuple[int, str]], cues: list[tuple],
                       acronyms: dict[str, str]) -> Iterator[str]:
    """Yield the candidate titles that describe the contribution: the first cue's, what "we" do something
    to, and every other cue's phrasing but claims (which read as sentences)."""
    if described:
        yield from (described, trimmed(described))
    yield _expand(object_phrase(sentences), acronyms)
    for _, _, kind, base, rest, noun_use in cues:
        if not noun_use and kind != "claim":
            yield from (_expand(p, acronyms) for p in _phrasings(kind, base, rest))


def _salience(title: str, rank: int, counts: Counter[str]) -> float:
    """Return how much of what the abstract keeps coming back to a title holds, per word, less a little
    for each better-placed option before it: real titles are made of an abstract's recurring words."""
    words = {w for w in _CONTENT.findall(title.lower()) if w not in _BLAND}
    return sum(min(counts[w], 4) - 1 for w in words) / (len(title.split()) + 4) - 0.03 * rank


_QUOTED = re.compile(r"[\"“]([A-Za-z][\w -]{2,40}?)[\"”]")
_QUOTED_WEIGHT = 3


def _chosen(options: list[str], text: str) -> str | None:
    """Return the option that reads as a title and holds most of the abstract's recurring words, or None."""
    readable = [(o, rank) for rank, o in enumerate(options) if reads_well(o)]
    if not readable:
        return None
    counts = Counter(w for w in _CONTENT.findall(text.lower()) if w not in _BLAND)
    # A term the authors put in quotes ("spurious forgetting") is one they coin: it weighs as if recurring.
    for quoted in _QUOTED.findall(text):
        counts.update({w: max(0, _QUOTED_WEIGHT - counts[w]) for w in _CONTENT.findall(quoted.lower())
                       if w not in _BLAND})
    return max(readable, key=lambda o: _salience(o[0], o[1], counts))[0]


def derive_title(abstract: str, max_chars: int = 100) -> str:
    """Return a short plain-text title for the paper an abstract describes: the first option with the
    paper's name that reads as a title; without a name, of the options that describe its contribution,
    the one most made of the abstract's recurring words; else the subject or first clause of the abstract."""
    text = _clean(abstract[:_LONGEST])
    if not text:
        return ""
    sentences, acronyms = _sentences(text), _acronyms(text)
    cues = list(islice(_cues(sentences), 50))  # real abstracts have a dozen; a pasted paper must stay fast
    named = _named_title(text, sentences, cues, acronyms, max_chars, abstract)
    described = _described_title(sentences, cues, acronyms, max_chars)
    fit = partial(_fit, max_chars=max_chars)
    if named:
        options = [fit(o) for o in _named_options(named, described, sentences)]
        title = next((o for o in options if reads_well(o)), options[-1])
    else:
        title = _chosen([o for o in map(fit, _described_options(described, sentences, cues, acronyms)) if o],
                        text) or next((o for o in map(fit, (subject_phrase(sentences[0][1]),)) if reads_well(o)),
                                      fit(trimmed(_clip(sentences[0][1]))))
    cased = any(c.isupper() for c in title.split(" ", 1)[0][1:])  # keep "iPhone" or "GuardAgent" as written
    return title if cased else title[:1].upper() + title[1:]
