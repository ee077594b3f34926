"""Tokens written as plain text: for search, snippets and first sentences."""

from __future__ import annotations

import re

from papercat.text import collapse_spaces
from papercat.wordlists import read_list

from .tokens import (
    _SPACES,
    _SPACING,
    _WORDS,
    MAX_DEPTH,
    _Close,
    _Delim,
    _Math,
    _Open,
    _symbol,
    _Text,
    _Token,
    _Url,
)

# Addresses, colours, spaces and environment names are not words.
_MATH_DROP = re.compile(r"\\(?:url|href|label|ref|eqref|cite[pt]?|color|textcolor|colorbox|[hv]space|kern|"
                        r"hskip|begin|end)\s*\{[^{}]*\}(?:\{[lcr|]*\})?")
_MATH_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_MATH_SQRT = re.compile(r"\\sqrt\s*\{([^{}]*)\}")
_MATH_ARG = re.compile(r"\\[A-Za-z]+\*?\s*\{([^{}]*)\}")  # \mathcal{L} -> L, innermost first
_MATH_MARKUP = re.compile(r"(?<!\\)[{}]")
_MATH_ALIGN = re.compile(r"(?<!\\)[&~]")
_MATH_ESCAPE = re.compile(r"\\([^A-Za-z])")
_MATH_WORD = re.compile(r"\\([A-Za-z]+)")
# Commands that size, space or style what follows: "\big(\sqrt{KL}" must read "(√KL", not "big(KL".
_SILENT = frozenset(read_list(__package__, "silent_commands.txt"))


def _math_word(match: re.Match[str]) -> str:
    name = match.group(1)
    if name in _SILENT:
        return ""
    return _WORDS.get(name) or _symbol(name) or name


def _math_text(source: str) -> str:
    """Return math as readable text: $O(T^{2})$ -> O(T^2), $\\alpha$ -> α, \\frac{a}{b} -> a/b."""
    text = _MATH_DROP.sub(" ", source)
    for _ in range(MAX_DEPTH):  # innermost commands first: \tilde{\mathcal{O}} needs two rounds
        stripped = _MATH_ARG.sub(r"\1", _MATH_SQRT.sub("√\\1", _MATH_FRAC.sub(r"\1/\2", text)))
        if stripped == text:
            break
        text = stripped
    text = text.replace("\\\\", " ")
    text = _MATH_ALIGN.sub(" ", _MATH_MARKUP.sub("", text))
    text = _MATH_ESCAPE.sub(lambda m: _SPACING.get(m.group(1), m.group(1)), text)
    return _SPACES.sub(" ", _MATH_WORD.sub(_math_word, text)).strip()


# Where URLs were left out (spaces already folded): "(URL)" goes whole, "at: URL." becomes "at.",
# "page: URL" at the end becomes "page:", and elsewhere the URLs leave a space.
_URL_RUN = re.compile(r"\x00(?: ?\x00)*")
_EMPTY_BRACKETS = re.compile(r"\( ?\x00 ?\)")
_URL_GAP = re.compile(r":? ?\x00 ?(?=[.,;!?)\]])| ?\x00 ?$")


def _token_text(token: _Token) -> str:
    """Return a token as plain text: nothing for markup, NUL for a URL left out."""
    if isinstance(token, _Text):
        return token.text
    if isinstance(token, _Math):
        return _math_text(token.source)
    if isinstance(token, _Url):
        return "\x00"  # a removed URL: its space goes before closing punctuation
    if isinstance(token, _Delim):
        return token.char * token.count
    if isinstance(token, _Open) and token.tag == "(":
        return " ("
    if isinstance(token, _Close) and token.tag == "(":
        return ")"
    return ""


def _text(tokens: list[_Token]) -> str:
    """Write tokens as plain text: no markup, URLs left out, math as readable text."""
    text = "".join(map(_token_text, tokens))
    if "\x00" not in text:  # no URL was left out
        return collapse_spaces(text)
    text = _URL_RUN.sub("\x00", _SPACES.sub(" ", text))
    text = _URL_GAP.sub("", _EMPTY_BRACKETS.sub("", text)).replace("\x00", " ")
    return _SPACES.sub(" ", text).strip()
