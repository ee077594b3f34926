"""Tokens written as an HTML fragment, then sanitised by nh3."""

from __future__ import annotations

import html

import nh3

from .mathml import _MATHML_ATTRS, _MATHML_TAGS, _math_html
from .tokens import _Close, _Math, _Open, _Text, _Token, _Url

_TAGS = {"p", "em", "strong", "a", "code"} | _MATHML_TAGS
_ATTRIBUTES = {"a": {"href"}, **{tag: set(_MATHML_ATTRS) for tag in _MATHML_TAGS}}
_REL = "noopener noreferrer nofollow"


def _html(tokens: list[_Token], warnings: list[str]) -> str:
    """Write tokens as an HTML fragment (before nh3): text escaped, math as MathML."""
    out = []
    for token in tokens:
        if isinstance(token, _Text):
            out.append(html.escape(token.text, quote=False))
        elif isinstance(token, _Math):
            mathml, warning = _math_html(token.source)
            out.append(mathml)
            if warning:
                warnings.append(warning)
        elif isinstance(token, _Url):
            out.append(f'<a href="{html.escape(token.url)}">{html.escape(token.url, quote=False)}</a>')
        elif isinstance(token, _Open):
            out.append(_open_tag(token))
        elif isinstance(token, _Close):
            out.append(_close_tag(token))
        else:
            out.extend(f"</{tag}>" for tag in token.closes)
            out.append(token.char * token.count)
            out.extend(f"<{tag}>" for tag in token.opens)
    return "".join(out)


def _open_tag(token: _Open) -> str:
    if token.tag == "a":
        return f'<a href="{html.escape(token.url)}">'
    if token.tag == "(":
        return " ("
    return f"<{token.tag}>" if token.tag else ""


def _close_tag(token: _Close) -> str:
    if token.tag == "(":
        return ")"
    return f"</{token.tag}>" if token.tag else ""


def _fragment(paragraphs: list[list[_Token]], warnings: list[str]) -> str:
    """Write the paragraphs' tokens as one HTML fragment (before nh3), each paragraph in a <p>."""
    return "".join(f"<p>{_html(tokens, warnings)}</p>" for tokens in paragraphs)


def _clean(fragment: str, paragraphs: int) -> str:
    """Sanitise with nh3: the allowlist, http(s) links only, rel set on every link.

    Text is escaped, so every "<" starts a tag we wrote. A fragment whose only tags are the <p> and
    </p> of its ``paragraphs``, and whose characters are all printable, is one nh3 returns as it is:
    html5ever reads the escaped text back, and writes it escaping only & < > and U+00A0 again. What
    it would change (U+00A0, CR, NUL, other controls) is unprintable. Such a fragment skips nh3.
    """
    if fragment.count("<") == 2 * paragraphs and fragment.isprintable():
        return fragment
    return nh3.clean(fragment, tags=_TAGS, attributes=_ATTRIBUTES, url_schemes={"http", "https"},
                     link_rel=_REL, strip_comments=True)
