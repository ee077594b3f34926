"""Abstracts rendered faithfully and safely: Markdown emphasis, LaTeX math and text commands, links.

An abstract is untrusted text. It is read into a flat list of tokens (text, math, links, emphasis
delimiters, the ends of styled groups) by a small inline parser: there is no block syntax, so a
line starting with "#", "1." or ">" stays text. The tokens are then written out twice: as HTML,
where every piece of text is escaped, math becomes MathML rebuilt from an allowlist and nh3 cleans
the whole once more (unless it is only escaped text in paragraphs, which nh3 would return as it is);
and as plain text for search, snippets and first sentences.

The steps, one module each: tokens (what the text is read into) -> reader (one paragraph read;
emphasis pairs its delimiters) -> plain (plain text) and fragment (HTML; mathml its math) ->
render (the two entry points).
"""

from .render import RenderedAbstract, plain_text, render_abstract
from .tokens import MAX_CHARS

__all__ = ["MAX_CHARS", "RenderedAbstract", "plain_text", "render_abstract"]
