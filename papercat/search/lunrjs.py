"""lunr.js 2.3.9's text pipeline ported to Python, so the index built here matches queries in the browser.

lunr.py tokenizes and stems differently from lunr.js ("key" -> "kei", "59.24%" keeps its "%"), and a
term the browser computes differently from the one indexed here can never match. So the index is
built with this port of static/vendor/lunr/lunr.js: its tokenizer separator, trimmer, stop words
and Porter stemmer, rule for rule. tests/test_search_index.py runs lunr.js in Node on the same
inputs and compares.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Iterator

from lunr.pipeline import Pipeline
from lunr.token import Token

from ..memo import Memo
from ..wordlists import read_list

__all__ = [
    "LUNR_VERSION",
    "STOP_WORDS",
    "build_pipeline",
    "index_term",
    "index_terms",
    "pipeline_terms",
    "search_pipeline",
    "stem",
    "tokenize",
    "trim",
]

LUNR_VERSION = "2.3.9"

# lunr.tokenizer.separator is /[\s\-]+/; JavaScript's \s is this exact set (ECMAScript WhiteSpace and
# LineTerminator), which differs from Python's \s (no \x1c-\x1f or \x85 here; \ufeff is in).
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_SEPARATOR = re.compile(f"[{_JS_SPACE}\\-]+")

# lunr.trimmer uses /^\W+/ and /\W+$/: JavaScript's \W is ASCII-only, so "über" loses its "ü".
_TRIM = re.compile(r"^\W+|\W+\Z", re.ASCII)
_WORD_CHARACTERS = frozenset(string.ascii_letters + string.digits + "_")  # JavaScript's \w

# lunr.stopWordFilter's list, in its order.
STOP_WORDS = frozenset(read_list(__package__, "lunr_stop_words.txt"))


# Python's white space (str.split) is JavaScript's but for these, and "-" and "\ufeff" (which JavaScript's
# separator has and Python's has not) can be made spaces first: a text without these splits as lunr's does.
_PYTHON_ONLY_SPACES = ("\x1c", "\x1d", "\x1e", "\x1f", "\x85")


def tokenize(text: str) -> list[str]:
    """Split ``text`` as lunr.tokenizer does: lower-case, then cut at white space and hyphens."""
    text = text.lower()
    if any(map(text.__contains__, _PYTHON_ONLY_SPACES)):
        return [t for t in _SEPARATOR.split(text) if t]
    return text.replace("-", " ").replace("\ufeff", " ").split()  # much quicker than the pattern


def trim(token: str) -> str:
    """Strip leading and trailing non-word characters as lunr.trimmer does (ASCII \\W)."""
    return _TRIM.sub("", token)


# The Porter stemmer of lunr.js (from tartarus.org), regex for regex. JavaScript regexes see UTF-16
# code units, so stem() hands them a string of code units (see _utf16_units).
_STEP2 = {"ational": "ate", "tional": "tion", "enci": "ence", "anci": "ance", "izer": "ize", "bli": "ble",
          "alli": "al", "entli": "ent", "eli": "e", "ousli": "ous", "ization": "ize", "ation": "ate",
          "ator": "ate", "alism": "al", "iveness": "ive", "fulness": "ful", "ousness": "ous",
          "aliti": "al", "iviti": "ive", "biliti": "ble", "logi": "log"}
_STEP3 = {"icate": "ic", "ative": "", "alize": "al", "iciti": "ic", "ical": "ic", "ful": "", "ness": ""}
_DOT = "[^\n\r\u2028\u2029]"  # JavaScript's "." (no s flag): anything but a line terminator
_c = "[^aeiou]"  # consonant
_v = "[aeiouy]"  # vowel
_C = _c + "[^aeiouy]*"  # consonant sequence
_V = _v + "[aeiou]*"  # vowel sequence
# JavaScript's $ (no m flag) matches only at the very end: Python's \Z, not $.
_MGR0 = re.compile("^(" + _C + ")?" + _V + _C)  # [C]VC... is m>0
_MEQ1 = re.compile("^(" + _C + ")?" + _V + _C + "(" + _V + r")?\Z")  # [C]VC[V] is m=1
_MGR1 = re.compile("^(" + _C + ")?" + _V + _C + _V + _C)  # [C]VCVC... is m>1
_S_V = re.compile("^(" + _C + ")?" + _v)  # vowel in stem
_RE_1A = re.compile(r"^(" + _DOT + r"+?)(ss|i)es\Z")
_RE2_1A = re.compile(r"^(" + _DOT + r"+?)([^s])s\Z")
_RE_1B = re.compile(r"^(" + _DOT + r"+?)eed\Z")
_RE2_1B = re.compile(r"^(" + _DOT + r"+?)(ed|ing)\Z")
_RE2_1B_2 = re.compile(r"(at|bl|iz)\Z")
_RE3_1B_2 = re.compile(r"([^aeiouylsz])\1\Z")
_RE4_1B_2 = re.compile("^" + _C + _v + r"[^aeiouwxy]\Z")
_RE_1C = re.compile(r"^(" + _DOT + r"+?[^aeiou])y\Z")
_RE_2 = re.compile(r"^(" + _DOT + r"+?)(ational|tional|enci|anci|izer|bli|alli|entli|eli|ousli|ization|ation"
                   r"|ator|alism"
                   r"|iveness|fulness|ousness|aliti|iviti|biliti|logi)\Z")
_RE_3 = re.compile(r"^(" + _DOT + r"+?)(icate|ative|alize|iciti|ical|ful|ness)\Z")
_RE_4 = re.compile(r"^(" + _DOT + r"+?)(al|ance|ence|er|ic|able|ible|ant|ement|ment|ent|ou|ism|ate|iti"
                   r"|ous|ive|ize)\Z")
_RE2_4 = re.compile(r"^(" + _DOT + r"+?)(s|t)(ion)\Z")
_RE_5 = re.compile(r"^(" + _DOT + r"+?)e\Z")
_RE3_5 = re.compile("^" + _C + _v + r"[^aeiouwxy]\Z")
_STEP2_ENDINGS = tuple(_STEP2)
_STEP3_ENDINGS = tuple(_STEP3)
_STEP4_ENDINGS = ("al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ou", "ism",
                  "ate", "iti", "ous", "ive", "ize")


# Complexity over 10 on purpose: the Porter stemmer, step for step as lunr.js writes it, so the two
# can be compared rule by rule.
def _porter(w: str) -> str:
    """Stem ``w`` (a string of UTF-16 code units) exactly as lunr.js's porterStemmer does."""
    if len(w) < 3:
        return w
    firstch = w[0]
    if firstch == "y":
        w = "Y" + w[1:]
    # Each step's pattern ends in its suffixes: a word without one is left as it is, unmatched.
    # Step 1a
    m = (_RE_1A.match(w) or _RE2_1A.match(w)) if w.endswith("s") else None
    if m:
        w = m.group(1) + m.group(2)
    # Step 1b
    m = _RE_1B.match(w) if w.endswith("eed") else None
    if m:
        if _MGR0.search(m.group(1)):
            w = w[:-1]
    elif w.endswith(("ed", "ing")):
        m = _RE2_1B.match(w)
        if m and _S_V.search(m.group(1)):
            w = m.group(1)
            if _RE2_1B_2.search(w):
                w += "e"
            elif _RE3_1B_2.search(w):
                w = w[:-1]
            elif _RE4_1B_2.search(w):
                w += "e"
    # Step 1c: a final y after a consonant that is not the first letter becomes i
    m = _RE_1C.match(w) if w.endswith("y") else None
    if m:
        w = m.group(1) + "i"
    # Step 2
    m = _RE_2.match(w) if w.endswith(_STEP2_ENDINGS) else None
    if m and _MGR0.search(m.group(1)):
        w = m.group(1) + _STEP2[m.group(2)]
    # Step 3
    m = _RE_3.match(w) if w.endswith(_STEP3_ENDINGS) else None
    if m and _MGR0.search(m.group(1)):
        w = m.group(1) + _STEP3[m.group(2)]
    # Step 4
    m = _RE_4.match(w) if w.endswith(_STEP4_ENDINGS) else None
    if m:
        if _MGR1.search(m.group(1)):
            w = m.group(1)
    elif w.endswith("ion"):
        m = _RE2_4.match(w)
        if m and _MGR1.search(m.group(1) + m.group(2)):
            w = m.group(1) + m.group(2)
    # Step 5
    m = _RE_5.match(w) if w.endswith("e") else None
    if m:
        stem_ = m.group(1)
        if _MGR1.search(stem_) or (_MEQ1.search(stem_) and not _RE3_5.search(stem_)):
            w = stem_
    if w.endswith("ll") and _MGR1.search(w):
        w = w[:-1]
    if firstch == "y":
        w = "y" + w[1:]
    return w


def _utf16_units(text: str) -> str:
    """Return ``text`` with each character above U+FFFF split into its two surrogate code units."""
    data = text.encode("utf-16-le", "surrogatepass")
    return "".join(chr(int.from_bytes(data[i:i + 2], "little")) for i in range(0, len(data), 2))


def stem(token: str) -> str:
    """Return lunr.stemmer's stem of ``token`` (e.g. "deploy" -> "deploy", "agents" -> "agent")."""
    if token.isascii() or max(token) < "\U00010000":
        return _porter(token)
    # JavaScript counts and matches code units: "𝑥at" is four units long, and a regex class such as
    # [^aeiouwxy] matches one unit of a surrogate pair. Stem the units, then join the pairs again.
    stemmed = _porter(_utf16_units(token))
    return stemmed.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def pipeline_terms(text: str) -> list[str]:
    """Return what lunr.js's tokenizer, trimmer, stopWordFilter and stemmer make of ``text``.

    Like lunr.js this keeps the empty string for a token of punctuation alone ("—"); the index
    leaves those out (see index_term).
    """
    out = []
    for token in tokenize(text):
        trimmed = trim(token)
        if trimmed not in STOP_WORDS:
            out.append(stem(trimmed))
    return out


def _index_term(token: str) -> str | None:
    """Return ``index_term(token)``, worked out."""
    # Most tokens (six in ten at 20,000 papers) begin and end with a word character: trim would
    # leave them as they are, and the pattern costs more than this test.
    trimmed = token if token[:1] in _WORD_CHARACTERS and token[-1:] in _WORD_CHARACTERS else trim(token)
    # lunr.js would index "—" as the empty term, which no query can reach; it is dropped here.
    return None if not trimmed or trimmed in STOP_WORDS else _STEMS[trimmed]


# One entry per distinct token: a catalog of 50,000 abstracts repeats a few hundred thousand distinct
# tokens millions of times, and the stemmer's dozen regexes are the build's slowest step.
_TERMS: Memo[str, str | None] = Memo(_index_term)
# Distinct tokens trim to fewer distinct words ("agents", "agents," and "(agents" are one): at 20,000
# papers 133,000 tokens are 93,000 words, each stemmed once.
_STEMS: Memo[str, str] = Memo(stem)


def index_term(token: str) -> str | None:
    """Return the index term of a tokenized word, or None for a stop word or a word of punctuation."""
    return _TERMS[token]


def index_terms(tokens: Iterable[str]) -> Iterator[str | None]:
    """Return ``index_term`` of each token, in order (quicker than calling it token by token)."""
    return map(_TERMS.__getitem__, tokens)


def _index_pipeline(token: Token, i: int, tokens: list[Token]) -> Token | None:
    """lunr.py pipeline function: trimmer, stopWordFilter and stemmer of lunr.js in one memoised step."""
    term = index_term(token.string)
    if term is None:
        return None
    token.string = term
    return token


def _search_stemmer(token: Token, i: int, tokens: list[Token]) -> Token:
    """lunr.py pipeline function: lunr.js's stemmer (what the serialized search pipeline names)."""
    token.string = stem(token.string)
    return token


Pipeline.register_function(_index_pipeline, "papercat-lunrjs-index")
# Not registered: the label "stemmer" belongs to lunr.py's own stemmer, and overwriting the global
# registry would change lunr.py for everyone in the process. The label is all serialization keeps,
# and lunr.js reads "stemmer" as its own stemmer, which is what this function ports.
_search_stemmer.label = "stemmer"  # type: ignore[attr-defined]


def build_pipeline() -> Pipeline:
    """Return the lunr.py pipeline that turns tokens into index terms as lunr.js would."""
    pipeline = Pipeline()
    pipeline.add(_index_pipeline)
    return pipeline


def search_pipeline() -> Pipeline:
    """Return the search pipeline to serialize: ["stemmer"], which lunr.js resolves to its stemmer."""
    pipeline = Pipeline()
    pipeline.add(_search_stemmer)
    return pipeline

