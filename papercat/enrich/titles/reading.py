"""The abstract as a title reads it (plain text, sentences, the acronyms it defines, the names it
coins), and phrases cut to fit a title."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from papercat.text import collapse_spaces, may_hold_web_address, spell_out_ligatures

from papercat.enrich.keyphrases.words import is_adjective

from .formulas import plain_math
from .patterns import (
    _ACCENT_MARKS,
    _ACRONYM_DEF,
    _AND_OR,
    _ARTICLE_END,
    _AROUND_GAP,
    _ASIDE,
    _BOUNDARY,
    _BRACKETED_CITATION,
    _BREAK,
    _CITATION_KEY,
    _CLAUSE_END,
    _COMMON,
    _CONSONANT_Y,
    _DOMAIN,
    _DOUBLED_ARTICLE,
    _DOUBLED_HINTS,
    _DROP,
    _EITHER,
    _EMPHASIS,
    _EQUATION,
    _FUNCTION_WORDS,
    _GAP,
    _IS_A,
    _LATEX_ARG,
    _LATEX_QUOTE,
    _LATEX_WORD,
    _LEFT_SCRIPT,
    _LINK,
    _MARKUP,
    _MATH_SPAN,
    _PHRASE_PARTS,
    _SCRIPTED,
    _SENTENCE_END,
    _SIBILANT_END,
    _SPACE,
    _SPACED_SLASH,
    _STOP,
    _SYMBOLS,
    _TEXT_ACCENT,
    _TIE,
    _VERSION,
    _WELL_KNOWN,
    _WORD_END,
    _WORD_START,
    _YEAR_KEY,
    _article,
)

_LONGEST = 6000  # abstracts run to about 2,000 characters; a longer paste must not cost seconds


def _clean(text: str) -> str:
    """Return the abstract as plain text: no URLs, LaTeX, Markdown emphasis or backslash escapes, simple
    math as text ("ℓ1", "O(√T)") and any other formula as _GAP, where a title stops."""
    text = spell_out_ligatures(text)
    text = _without_addresses(_LINK.sub(r"\1", text) if "](" in text else text)
    if "[" in text:  # a reference a phrase needs ("the results in [7] to") ends it, others go
        text = _BRACKETED_CITATION.sub(lambda m: m[1] + _GAP if m[1] else "", text)
    if "$" in text or "\\(" in text or "\\[" in text:
        text = _MATH_SPAN.sub(_math_span, text)
    if "_" in text or "^" in text or "=" in text:  # few abstracts have math outside dollars
        text = _without_bare_math(text)
    if "\\" in text:
        text = _without_latex(text)
    text = text.replace("``", '"').replace("''", '"')
    if "`" in text:
        text = _LATEX_QUOTE.sub(r"‘\1’", text)
    if "$" in text or "*" in text or "{" in text or "}" in text or "\\" in text or "`" in text:
        text = _MARKUP.sub("", text)  # few abstracts have markup
    text = text.replace("---", " — ").replace("--", " — ")
    text = _TIE.sub(" ", text) if "~" in text else text
    if any(hint in text for hint in _DOUBLED_HINTS):
        text = _DOUBLED_ARTICLE.sub(r"\1", text)
    return collapse_spaces(_SPACED_SLASH.sub("/", text) if " / " in text else text)


def _math_span(match: re.Match[str]) -> str:
    """Return the formula between dollars as plain text, or _GAP where a title cannot hold it."""
    source = next(group for group in match.groups() if group is not None)
    if match[0].startswith("$") and source[0].isdigit() and source[-1].isspace():  # "$5 and $10": prices
        return match[0]
    return plain_math(source) or _GAP


def _without_bare_math(text: str) -> str:
    """Return text without bibtex keys and Markdown emphasis, its math without dollars as plain text or
    _GAP: "O(n^{2/3})" -> "O(n²⁄³)", "y = Mx + ε" -> _GAP."""
    text = _EMPHASIS.sub(r"\2", _CITATION_KEY.sub("", text) if _YEAR_KEY.search(text) else text)
    text = _SCRIPTED.sub(lambda m: (plain_math(m[1]) or _GAP) + m[2], text)
    if "=" in text:
        text = _EQUATION.sub(_GAP, text)
    if "_" in text or "^" in text:
        text = _LEFT_SCRIPT.sub(_GAP, text)
    return _AROUND_GAP.sub(_GAP, text) if _GAP in text else text


def _without_addresses(text: str) -> str:
    """Return text without URLs, \\url{...}, \\href{...}, footnotes and web addresses."""
    if "\\" in text or "http" in text or "www." in text:  # each pattern runs only where it can match
        text = _DROP.sub("", text)
    if may_hold_web_address(text):  # the domain pattern is slow, so run it only when it can match
        text = _DOMAIN.sub("", text)
    return text


def _without_latex(text: str) -> str:
    """Return text with LaTeX commands unwrapped to their arguments, symbols and accents as characters."""
    accented = _TEXT_ACCENT.sub(lambda m: (m[2] or m[3]) + _ACCENT_MARKS[m[1]], text)
    if accented != text:
        text = unicodedata.normalize("NFC", accented)
    previous = None
    while previous != text:  # one pass unwraps only the innermost of \texttt{\textbf{X}}
        previous, text = text, _LATEX_ARG.sub(r"\1", text)
    return _LATEX_WORD.sub(lambda m: _SYMBOLS.get(m[1], "" if m[1].isalpha() else m[1]), text)


def _sentences(text: str) -> list[tuple[int, str]]:
    """Split text into (offset, sentence) pairs, not breaking after common abbreviations."""
    found, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        found.append((start, text[start:m.start() + 1]))
        start = m.end()
    return found + [(start, text[start:])]


def _is_subsequence(letters: str, text: str) -> bool:
    """Return whether the letters occur in text in order."""
    rest = iter(text)
    return all(c in rest for c in letters)


def _expansion(words: list[str], acronym: str) -> str | None:
    """Return the shortest phrase ending words that the acronym abbreviates, like "Just Run Twice"."""
    letters = "".join(c for c in acronym.lower() if c.isalpha())
    for k in range(1, min(len(words), 9) + 1):
        phrase = words[-k:]
        if phrase[0] in ("—", "-") or any(w[-1] in ",;:" or _GAP in w for w in phrase):
            return None
        if phrase[0] not in _FUNCTION_WORDS and _abbreviates(acronym, letters, phrase):
            return " ".join(phrase)
    return None


def _abbreviates(acronym: str, letters: str, phrase: list[str]) -> bool:
    """Return whether an acronym (its ``letters``, lowercase) abbreviates the words of ``phrase``."""
    flat = " ".join(phrase).lower()
    return flat[0] == letters[0] and (_is_subsequence(letters[1:], flat[1:])
                                      or len(phrase) == sum(c.isupper() for c in acronym))


def _is_distinctive(token: str) -> bool:
    """Return whether a token looks like a coined name rather than a word or a common acronym."""
    parts = [p for p in token.split("-") if p]
    if token.islower() or not parts or parts[0].rstrip("s") in _COMMON or parts[0] in _COMMON:
        return False
    return _is_coined(parts) or _is_versioned(parts) and sum(c.isalpha() for c in token) >= 3


def _is_versioned(parts: list[str]) -> bool:
    """Return whether a part of a hyphenated word has a letter beside a digit: "GPT-4o", "v2"."""
    return any(_VERSION.search(p) for p in parts)


def _is_coined(parts: list[str]) -> bool:
    """Return whether a part of a hyphenated word has two capitals and is no common acronym: "GuardAgent"."""
    return any(sum(c.isupper() for c in p) >= 2 and p.rstrip("s") not in _COMMON for p in parts)


def _is_new(term: str, before: str, flags: int = 0) -> bool:
    """Return whether term, or its plural, is absent from the text before it.

    A pattern made per term would be compiled per paper; a plain search for the term, with its
    ends checked by the two patterns above, finds the same occurrences.
    """
    if flags & re.IGNORECASE:
        if not (term.isascii() and before.isascii()):  # Unicode case folding is re's to do
            return not re.search(r"(?<![\w-])" + re.escape(term) + r"s?(?![\w-])", before, flags)
        term, before = term.lower(), before.lower()
    at = before.find(term)
    while at >= 0:
        if _WORD_START.match(before, at) and _WORD_END.match(before, at + len(term)):
            return False
        at = before.find(term, at + 1)
    return True


def _is_a(name: str, text: str) -> re.Match[str] | None:
    """Return the first "Name is a ..." of the text, its group 1 what the name is; a word starts the name."""
    at = text.find(name + " is a")
    while at >= 0:
        said = _BOUNDARY.match(text, at) and _IS_A.match(text, at + len(name))
        if said:
            return said
        at = text.find(name + " is a", at + 1)
    return None


def _clip(text: str) -> str:
    """Return the first clause of text, without asides and list markers."""
    text = _ASIDE.sub(" ", text[:1000])  # no title is 1,000 characters long
    first = _CLAUSE_END.search(text)
    if first and first[0] == "," and _ends_on_modifier(text[:first.start()].rsplit(" ", 1)[-1]):
        # "a multi-scale, normalizing flow architecture": a comma between the adjectives of one noun
        second = _CLAUSE_END.search(text, first.end())
        return _tidy(text[:second.start()] if second else text)
    return _tidy(text[:first.start()] if first else text)


def _tidy(text: str) -> str:
    """Drop trailing stopwords, punctuation and unbalanced brackets or quotes, and what a formula ends."""
    if _GAP in text:  # a title stops before a formula, or starts after one
        text = text.strip(_GAP + " ").partition(_GAP)[0]
    words = text.split()
    while words:
        last = words[-1].rstrip(",;:—–-/(“")
        if not last or last.lower() in _STOP or _ends_on_modifier(last):
            words.pop()
            continue
        text = " ".join(words[:-1] + [last]).lstrip(",;:—–-/.)] ")
        if text.count("(") > text.count(")"):
            words = text[:text.rfind("(")].split()
        elif text.count('"') % 2 or text.count("“") > text.count("”"):
            words = text[:max(text.rfind('"'), text.rfind("“"))].split()
        else:
            return text
    return ""


def _ends_on_modifier(word: str) -> bool:
    """Return whether a title's last word waits for a noun: an adjective or participle ("A class of
    stochastic", "a black box learner introduced"), which real titles end on once in a hundred."""
    return word.islower() and not word.endswith("s") and is_adjective(word)  # "semi-bandits" is a noun


def _acronyms(text: str) -> dict[str, str]:
    """Map the acronyms an abstract defines, like "reward model (RM)", to their phrases."""
    found = {}
    for m in _ACRONYM_DEF.finditer(text):
        if sum(c.isupper() for c in m[1]) >= 2 and m[1].rstrip("s") not in _WELL_KNOWN:
            phrase = _expansion(text[max(0, m.start() - 120):m.start()].split(), m[1])
            if phrase:
                title_case = all(p[0].isupper() for p in _PHRASE_PARTS.split(phrase) if len(p) > 3)
                found.setdefault(m[1], phrase if title_case else phrase[0].lower() + phrase[1:])
    return found


def _expand(text: str, acronyms: dict[str, str]) -> str:
    """Spell out the abstract's own acronyms so the title stands alone."""
    for acronym, phrase in acronyms.items():
        if acronym in text:  # a plain search is cheaper than the pattern, which most options do not need
            text = _acronym_pattern(acronym).sub(lambda m, phrase=phrase: _spelt_out(m, phrase), text)
    return text


@lru_cache(maxsize=4096)
def _acronym_pattern(acronym: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:([Aa]n?) )?" + re.escape(acronym) + r"(s?)\b")


def _spelt_out(m: re.Match[str], phrase: str) -> str:
    """Return an acronym's match spelt out, its article read by the phrase's sound: "an SGD variant" ->
    "a Stochastic Gradient Descent variant"."""
    spelt = _plural(phrase) if m[2] else phrase
    if not m[1]:
        return spelt
    article = _article(spelt)
    return f"{article.capitalize() if m[1][0] == 'A' else article} {spelt}"


def _plural(phrase: str) -> str:
    """Return the plural of a phrase that ends on a noun: "Markov Equivalence Class" -> "... Classes"."""
    if _SIBILANT_END.search(phrase):
        return phrase + "es"
    if phrase.endswith("s"):  # already plural: "Gradient Boosted Normalizing Flows"
        return phrase
    return phrase[:-1] + "ies" if _CONSONANT_Y.search(phrase) else phrase + "s"


def _fit(title: str, max_chars: int, mid_phrase: bool = True) -> str:
    """Shorten title to max_chars at a phrase boundary, else (if mid_phrase) at a word boundary."""
    title = _tidy(title)
    if len(title) <= max_chars:
        return title
    shortest = 0.4 * max_chars if mid_phrase else 0  # a much shorter phrase loses more than a cut phrase
    piece = _cut_at_phrase(title, max_chars, shortest)
    if piece is not None:
        return piece
    word_cuts = [m.start() for m in _SPACE.finditer(title, 0, max_chars + 1)] if mid_phrase else []
    return next((p for cut in reversed(word_cuts) if (p := _tidy(title[:cut]))), "")


def _cut_at_phrase(title: str, max_chars: int, shortest: float) -> str | None:
    """Return the longest whole phrase title starts with, of ``shortest`` to max_chars characters, or None."""
    for m in reversed([m for m in _BREAK.finditer(title) if shortest <= m.start() <= max_chars]):
        piece, rest = _tidy(title[:m.start()]), title[m.start():]
        dangling = _EITHER.search(piece) or (
            _AND_OR.match(rest) and _ARTICLE_END.search(piece))  # "a lightweight"
        if piece and not dangling:
            return piece
    return None
