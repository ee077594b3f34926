"""The words a keyphrase may hold, and what each word is: its key, its singular, its flags."""

from __future__ import annotations

import re
from functools import lru_cache

from papercat.wordlists import read_list

# Function words: a phrase never starts or ends with one, and they split candidate phrases.
_FUNCTION = read_list(__package__, "function_words.txt")
_NUMBERS = read_list(__package__, "number_words.txt")
# Verbs abstracts use to talk about their work: never part of a keyphrase, in any inflection.
_VERBS = read_list(__package__, "talk_verbs.txt")
# Verbs whose -ing form names a thing ("learning", "steering vector"): only their other forms stop.
_VERBS_NOUN_ING = read_list(__package__, "noun_ing_verbs.txt")
_IRREGULAR = read_list(__package__, "irregular_forms.txt")
# Words that make a phrase vaguer, not more specific: "novel", "existing", "state-of-the-art".
_WEAK = read_list(__package__, "weak_words.txt")
# Research-talk nouns: a phrase made only of these ("model performance") names no topic.
_GENERIC = frozenset(read_list(__package__, "generic_nouns.txt"))
# Words of the field too broad to be a keyphrase alone, though fine in one: "attention head", "reward model".
_BLAND = frozenset(read_list(__package__, "bland_words.txt"))
# Adjectives: a keyphrase does not end in one ("linear recurrent", "discriminative").
_ADJECTIVES = frozenset(word.replace("-", "") for word in read_list(__package__, "adjectives.txt"))
_ADJECTIVE_ENDINGS = ("al", "ive", "ous", "able", "ible", "ic", "ful", "less", "wise")
_HYPHEN_ADJECTIVE_ENDINGS = tuple(read_list(__package__, "hyphen_adjective_endings.txt"))
# "multi-agent" and "inter-LM" describe a noun; "pre-training" and "non-linearity" are nouns.
_PREFIXES = ("inter", "intra", "multi", "non", "cross", "anti", "semi")
_NOUN_ENDINGS = ("ing", "tion", "ity", "ness", "ment", "ance", "ence", "sion")
_NOT_ADJECTIVES = frozenset(read_list(__package__, "not_adjectives.txt"))
# A phrase ending in one of these ("quantization framework") says less than its other words.
_TAIL_FILLER = frozenset(read_list(__package__, "tail_filler.txt"))
_KEEP_S = frozenset(read_list(__package__, "keep_s.txt"))
_IRREGULAR_PLURALS = dict(map(str.split, read_list(__package__, "irregular_plurals.txt")))
_NOT_ADVERBS = frozenset(read_list(__package__, "not_adverbs.txt"))


def _inflections(verb: str) -> set[str]:
    """Return a verb's base, -s, -ed and -ing forms: "propose" -> proposes, proposed, proposing."""
    if verb.endswith("e"):
        return {verb, verb + "s", verb + "d", verb[:-1] + "ing"}
    if verb.endswith("y") and verb[-2:-1] not in ("a", "e", "i", "o", "u"):
        return {verb, verb[:-1] + "ies", verb[:-1] + "ied", verb + "ing"}
    if verb.endswith(("s", "sh", "ch", "x", "z")):
        return {verb, verb + "es", verb + "ed", verb + "ing"}
    forms = {verb, verb + "s", verb + "ed", verb + "ing"}
    if len(verb) > 2 and verb[-1] not in "aeiouwxy" and verb[-2] in "aeiou" and verb[-3] not in "aeiou":
        forms |= {verb + verb[-1] + "ed", verb + verb[-1] + "ing"}  # "occurred", "referring"
    return forms


_STOP = frozenset(_FUNCTION + _NUMBERS + _IRREGULAR + _WEAK
                  + [form for verb in _VERBS for form in _inflections(verb)]
                  + [form for verb in _VERBS_NOUN_ING for form in _inflections(verb)
                     if not form.endswith("ing")])
# Verbs, not nouns, when a determiner follows: "Exploring the", "Training a language model".
_OBJECT_STARTS = frozenset(read_list(__package__, "object_starts.txt"))
# "can surface"
_MODALS = frozenset(["can", "cannot", "could", "may", "might", "must", "shall", "should", "will", "would"])
_RELATIVES = frozenset(["that", "which", "who"])  # "a benchmark that challenges agents"
_CUES = frozenset(w for word in _MODALS | _RELATIVES for w in (word, word.capitalize()))

# Phrases every other abstract uses, whatever it is about.
GENERIC_PHRASES = frozenset([("language", "model"), ("neural", "network"), ("deep", "learning"),
                              ("machine", "learning"), ("deep", "neural", "network"), ("natural", "language"),
                              ("natural", "language", "processing")])
# A capital past the first letter of a part of a word, or a digit: "GuardAgent", "k-WL", "v1".
_CODED_PART = re.compile(r".+[A-Z]|.*\d")
_POSSESSIVE = re.compile(r"['’]s?$")

# Flags of a word, worked out once per distinct word.
_ING, _CODED, _PLURAL, _ADJECTIVE, _BLAND_WORD, _GENERIC_WORD = 1, 2, 4, 8, 16, 32
_BROAD = _BLAND_WORD | _GENERIC_WORD  # a broad word of the field or research talk
_FILLER_ALONE = _ADJECTIVE | _BROAD  # no keyphrase alone

# A word of a run: (key, surface, singular surface, flags). The key is lowercase, singular and
# without hyphens, so "Pre-trainings" and "pretraining" match.
_Token = tuple[str, str, str, int]
_Key = tuple[str, ...]


def fold_plural(word: str) -> str:
    """Return the singular of a lowercase noun: "strategies" -> "strategy", "analyses" -> "analysis"."""
    if "-" in word and "-of-" not in word:  # "mixture-of-experts" is a name, not a plural
        head, _, last = word.rpartition("-")
        return f"{head}-{fold_plural(last)}" if last else word  # "time-series": its noun is "series"
    if word in _IRREGULAR_PLURALS:
        return _IRREGULAR_PLURALS[word]
    if len(word) <= 3 or not word.endswith("s") or word in _KEEP_S or "-of-" in word:
        return word
    if word.endswith(("ss", "us", "is", "ous")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes", "zzes")):
        return word[:-2]
    return word[:-1]


@lru_cache(maxsize=1 << 16)
def _is_coded(token: str) -> bool:
    """Return whether a token's case is part of its name: "GuardAgent", "LLM", "MoE", "GPT-4", "k-WL"."""
    if token.isalpha() and token[1:].islower():
        return False  # most words: letters, no capital past the first
    return any(_CODED_PART.match(part) for part in token.split("-") if part)


def _singular(token: str) -> str:
    """Return a token with its plural folded and its case kept: "LLMs" -> "LLM", "Models" -> "Model"."""
    if _is_coded(token):  # only an acronym's lowercase "s" is a plural: LLMs, CCBs; SALS is a name
        return token[:-1] if len(token) > 2 and token[-1] == "s" and token[-2].isupper() else token
    lower = token.lower()
    folded = fold_plural(lower)
    return token[:len(folded)] if lower.startswith(folded) else token[:1] + folded[1:]


def _is_stop(lower: str) -> bool:
    """Return whether a lowercase token can never be part of a keyphrase."""
    if lower in _STOP or len(lower) < 2 or lower[0].isdigit() or "'" in lower or "’" in lower:
        return True  # a contraction ("don't") is a function word; possessives are stripped before this
    return _is_adverb(lower) or _is_counted(lower)


def _is_adverb(lower: str) -> bool:
    """Return whether a lowercase token is an adverb: "dynamically", "effectively"."""
    return lower.endswith("ly") and "-" not in lower and len(lower) > 4 and lower not in _NOT_ADVERBS


def _is_counted(lower: str) -> bool:
    """Return whether a lowercase token starts with a number: "two-stage", "1-layer"."""
    head = lower.split("-", 1)[0]
    return head != lower and (head in _NUMBERS or head[:1].isdigit())


def is_adjective(word: str) -> bool:
    """Return whether a lowercase word is an adjective, which ends no keyphrase: "in-context", "gated"."""
    first, _, last = word.rpartition("-")
    return _is_hyphen_adjective(first, last) or _is_adjective_key(word.replace("-", ""))


def _is_hyphen_adjective(first: str, last: str) -> bool:
    """Return whether a hyphenated word (its parts before and after the last hyphen) describes a noun:
    "retrieval-based", "zero-shot", "multi-agent"."""
    if first and (last in _HYPHEN_ADJECTIVE_ENDINGS or last in _ADJECTIVES):
        return True
    return first.split("-")[0] in _PREFIXES and not last.endswith(_NOUN_ENDINGS)


def _is_adjective_key(key: str) -> bool:
    """Return whether a word's key (lowercase, no hyphens) is an adjective by the lists or its ending."""
    if key in _NOT_ADJECTIVES:
        return False
    if key in _ADJECTIVES or key.endswith(_ADJECTIVE_ENDINGS) and len(key) > 4:
        return True
    return key.endswith("ed") and len(key) > 4 and not key.endswith("eed")


@lru_cache(maxsize=1 << 18)
def _word(token: str) -> _Token | None:
    """Return a word's (key, surface, singular surface, flags), or None when no keyphrase may hold it."""
    raw = _POSSESSIVE.sub("", token) if "'" in token or "’" in token else token
    lower = raw.lower()
    if not raw or _is_stop(lower) or not (raw.isalpha() or any(map(str.isalpha, raw))):
        return None
    singular = _singular(raw)
    key = singular.lower().replace("-", "")
    return key, raw, singular, _flags(raw, singular, key)


def _flags(raw: str, singular: str, key: str) -> int:
    """Return a word's flags, given as written (without a possessive), its singular and its key."""
    return ((_ING if raw.lower().endswith("ing") else 0) | (_CODED if _is_coded(raw) else 0)
            | (_PLURAL if singular != raw else 0) | (_ADJECTIVE if is_adjective(singular.lower()) else 0)
            | (_BLAND_WORD if key in _BLAND else 0) | (_GENERIC_WORD if key in _GENERIC else 0))


@lru_cache(maxsize=1 << 16)
def is_telling(word: str) -> bool:
    """Return whether a word tells papers apart: no research talk ("method"), broad word or adjective."""
    key = word.lower().replace("-", "")
    return not (key in _GENERIC or key in _BLAND or is_adjective(word.lower()))
