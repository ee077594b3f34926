"""The two entry points: an abstract as sanitised HTML and plain text, or as plain text alone."""

from __future__ import annotations

from dataclasses import dataclass

from papercat.model import Link

from .fragment import _clean, _fragment
from .plain import _text
from .reader import _Reader
from .tokens import _cap, _normalise, _Token


@dataclass(frozen=True)
class RenderedAbstract:
    """An abstract as a safe HTML fragment, as plain text, and the links and problems found in it."""

    html: str  # one <p> per paragraph; sanitised, safe to mark as Markup
    text: str  # no markup: for search, snippets, first sentences and keyphrases
    links: tuple[Link, ...]  # in order, without repeats
    warnings: tuple[str, ...]


def _parse(abstract: str, links: list[Link], warnings: list[str]) -> list[list[_Token]]:
    paragraphs = _cap(_normalise(abstract), warnings)
    return [_Reader(links, warnings).read(p) for p in paragraphs]


def render_abstract(abstract: str) -> RenderedAbstract:
    """Return the abstract as sanitised HTML, as plain text, with its links and warnings."""
    links: list[Link] = []
    warnings: list[str] = []
    paragraphs = _parse(abstract, links, warnings)
    fragment = _fragment(paragraphs, warnings)
    text = " ".join(_text(tokens) for tokens in paragraphs).strip()
    return RenderedAbstract(html=_clean(fragment, len(paragraphs)), text=text, links=tuple(links),
                            warnings=tuple(dict.fromkeys(warnings)))


def plain_text(abstract: str) -> str:
    """Return the abstract's plain text, as render_abstract gives it, without the HTML and MathML work."""
    return " ".join(_text(tokens) for tokens in _parse(abstract, [], [])).strip()
