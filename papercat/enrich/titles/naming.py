"""A title of the form "Name: what it is", when the abstract names its contribution."""

from __future__ import annotations

import re

from .patterns import (
    _ACRONYM_DEF,
    _APPOSITIVE,
    _BOAST,
    _CITATION,
    _FILLER,
    _FOLLOW,
    _GENERIC,
    _LEADING_HYPE,
    _LINKED,
    _NAME_TAIL,
    _NAMING_END,
    _NOT_LOWER,
    _PLAIN_NAME,
    _SHORT_FOR,
    _SPELT,
    _STAGE,
    _TOKEN,
    _TOPIC,
    _WHICH,
    _WINDOW_END,
    _article,
    _gerund,
)
from .owned import own_name, singular, used_before, weigh
from .reading import _clip, _expand, _expansion, _fit, _is_a, _is_distinctive, _is_new, _is_subsequence, _tidy


_CUED = 2  # a name after a cue that the abstract then compares with or runs on is not its own


def _find_name(window: str, after: str, before: str) -> tuple[int, str, str, int] | None:
    """Return (start, name, expansion, end) of a name introduced in the window after a cue."""
    found = _spelt_acronyms(window, before) + _coined_names(window, before) + _plain_names(window, before)
    start, name, phrase, end = min(found, default=(0, "", "", 0))
    rest = window[end:] + after
    if not name or _CITATION.match(rest):  # a name cited from other work is not ours
        return None
    spelt = _SPELT.match(rest)  # "M-STaR (Multimodal Self-evolving ...)"
    if not phrase and spelt and spelt[1][0].lower() == name[0].lower() \
            and _is_subsequence(_NOT_LOWER.sub("", name.lower()), spelt[1].lower()):
        phrase, end = spelt[1], end + spelt.end()
    return start, name, phrase, end


def _spelt_acronyms(window: str, before: str) -> list[tuple[int, str, str, int]]:
    """Return (start, acronym, its spelling, end) of each new acronym the window spells out: "Just Run
    Twice (JuICE)"."""
    found = []
    for m in _ACRONYM_DEF.finditer(window):
        phrase = _expansion(window[:m.start()].split(), m[1])
        if (phrase and _is_distinctive(m[1]) and _is_new(m[1], before) and _is_new(phrase, before, re.IGNORECASE)
                and not _CITATION.match(window, m.end())):
            found.append((m.start() - len(phrase) - 1, m[1], phrase, m.end()))
    return found


def _coined_names(window: str, before: str) -> list[tuple[int, str, str, int]]:
    """Return (start, name, "", end) of the first new coined name in the window: "GuardAgent", "two
    algorithms C-SquareCB and C-FastCB"."""
    for m in _TOKEN.finditer(window):
        in_parens = window[m.start() - 1:m.start()] == "(" and window[m.end():m.end() + 1] == ")"
        if (_is_distinctive(m[0]) and not in_parens and (len(m[0]) > 2 or not m[0].isupper())
                and _is_new(m[0].rstrip("s"), before)):
            tail = _NAME_TAIL.match(window, m.end())
            return [(m.start(), m[0] + tail[0], "", tail.end())]
    return []


def _plain_names(window: str, before: str) -> list[tuple[int, str, str, int]]:
    """Return (start, name, "", end) of a new plain word the window names: "Liger, short for ...",
    "Paprika, a ..."."""
    plain = _PLAIN_NAME.match(window)
    if plain and _is_new(plain[1].split()[0], before):
        return [(plain.start(1), plain[1], "", plain.end(1))]
    return []


def _plain_desc(desc: str) -> str:
    """Turn "the first X" or "a novel X" into "a X", with "an" where X sounds like a vowel ("an RL")."""
    return _LEADING_HYPE.sub(lambda m: _article(m[1]) + " ", desc)


def _is_informative(desc: str) -> bool:
    """Return whether a description says more than "a novel framework that achieves gains"."""
    head, _, clause = desc.partition(" that ")
    if len(clause.split()) >= 3 and not _BOAST.match(clause) or _LINKED.search(head):
        return True
    return any(w not in _FILLER | _GENERIC and not _STAGE.fullmatch(w)
               for w in head.lower().split())


def _named_title(text: str, sentences: list[tuple[int, str]], cues: list[tuple], acronyms: dict[str, str],
                 max_chars: int, abstract: str) -> str | None:
    """Return "Name: what it is" when the abstract names its contribution."""
    best = _best_name(text, sentences, cues, abstract)
    if best is None:
        return None
    _, lead, rest, start, name, phrase, end = best
    short_for = _SHORT_FOR.match(rest, end)
    phrase = _clip(short_for[1]) if short_for else phrase
    head = f"{name}: {phrase}" if phrase else name
    desc = _what_it_is(name, phrase, text, rest[:start], rest[end:])
    desc = _fit(desc, max_chars - len(head) - 2, mid_phrase=False)  # "X: Y, a lightweight" says nothing
    if not phrase and not _is_informative(desc):  # "two algorithms": say what they are for instead
        desc = _topic(lead, acronyms, desc)
    return _with_description(head, phrase, desc)


def _what_it_is(name: str, phrase: str, text: str, pre: str, post: str) -> str:
    """Return what the abstract says a name is, from the text around it (``pre``, ``post``) or from
    "Name is a ..." (without a spelt-out ``phrase``)."""
    is_a = not phrase and _is_a(name, text)
    return _describe(pre, post) or (_plain_desc(_clip(is_a[1])) if is_a else "")


def _with_description(head: str, phrase: str, desc: str) -> str:
    """Return "Name: desc", or "Name: phrase, desc" where the description says more than the phrase."""
    if desc and (not phrase or _is_informative(desc)):
        return f"{head}, {desc}" if phrase else f"{head}: {desc}"
    return head


def _best_name(text: str, sentences: list[tuple[int, str]], cues: list[tuple], abstract: str) -> tuple | None:
    """Return (weight, the sentence up to the name, the text from the window on, *``_find_name``'s) of the
    name the abstract gives its own work most surely, or None."""
    best = None
    for index, at, kind, base, rest, _ in cues:
        if kind in ("strong", "naming"):
            window = " ".join(_WINDOW_END.split(rest, 1)[0].split()[:14])
            found = _find_name(window, rest[len(window):], text[:at])
            if not found or used_before(window[:found[0]]):
                continue
            found = (found[0], singular(found[1]), *found[2:])
            # Papers "propose" their method but "introduce" side benchmarks; a spelt-out name is deliberate.
            weight, _ = weigh(found[1], text, 3 + (base in ("propose", "call")) + bool(found[2]))
            if weight >= _CUED and (best is None or weight > best[0] and found[1] != best[4]):
                best = (weight, text[sentences[index][0]:at], rest, *found)
    other = own_name(text, abstract)
    if other and (best is None or other.weight > best[0] and other.name not in best[4]):
        if other.start < 0:  # named only by its code's address
            return other.weight, "", "", 0, other.name, "", 0
        lead = text[next(o for o, _ in reversed(sentences) if o <= other.start):other.start]
        return other.weight, lead, text[other.start:], 0, other.name, other.phrase, other.end - other.start
    return best


def _topic(lead: str, acronyms: dict[str, str], otherwise: str) -> str:
    """Return what the sentence of the cue says the paper studies ("we study X"), else ``otherwise``."""
    topic = _TOPIC.search(lead)
    return _expand(_tidy(topic[1]), acronyms) if topic else otherwise


def _describe(pre: str, post: str) -> str:
    """Return what the abstract says a named contribution is, from the text around the name."""
    pre = _NAMING_END.sub("", pre).strip(" ,—")
    appositive = _APPOSITIVE.match(post)
    follow = _FOLLOW.match(post)
    which = _WHICH.match(post)
    if appositive:
        desc = appositive[1]
    elif pre:
        desc = pre + (" " + follow[1] if follow else "")
    else:
        desc = _gerund(which[1]) + which[2] if which else ""
    return _plain_desc(_clip(desc))
