"""Math written as MathML rebuilt from an allowlist, or shown as its source with a reason."""

from __future__ import annotations

import html
import re
from xml.etree.ElementTree import Element

from latex2mathml.converter import convert_to_element

from papercat.wordlists import read_list

from .tokens import MAX_DEPTH, MAX_MATH_CHARS

# Every element latex2mathml emits; semantics and annotation it does not.
_MATHML_TAGS = frozenset(read_list(__package__, "mathml_tags.txt"))
# Presentation attributes only: no colours (white on white hides text), no href, no style, no xmlns.
_MATHML_ATTRS = frozenset(read_list(__package__, "mathml_attributes.txt"))
_LENGTH_ATTRS = frozenset(["lspace", "rspace", "minsize", "maxsize", "linethickness", "width", "height",
                           "depth", "voffset", "mathsize"])
_ATTR_VALUE = re.compile(r"[A-Za-z0-9 .+-]{1,40}")  # words and numbers: no url(), no quotes
# Lengths stay small: \hspace{9999em} must not push the page apart.
_LENGTH = re.compile(r"[-+]?(\d{1,2}(\.\d*)?|\.\d+)(em|ex|px|pt|mu|%)?")
_LEFT_COMMAND = re.compile(r"\\[A-Za-z]+")
# Commands that define macros, load files or reach into HTML: never handed to the converter.
_SUSPICIOUS = re.compile(r"\\(html\w*|class|cssId|style|data\w*|require|unicode|def|gdef|edef|xdef|let|"
                         r"newcommand|renewcommand|providecommand|newenvironment|DeclareMathOperator|catcode|"
                         r"input|include|write|immediate|csname|expandafter)(?![A-Za-z])")
_HTML_TAG = re.compile(r"</?[A-Za-z!?][^<>]*>")
_ESCAPED_BRACE = re.compile(r"\\[{}\\]")  # \{ and \\ do not open or close a group


class _NotConverted(Exception):
    """Math that is shown as its source, and why."""


def _math_problem(source: str) -> str | None:
    """Return why math ``source`` is not handed to latex2mathml, or None when it may be."""
    if len(source) > MAX_MATH_CHARS:
        return f"it is {len(source):,} characters long (the limit is {MAX_MATH_CHARS})"
    depth = deepest = 0
    for char in _ESCAPED_BRACE.sub("", source):
        if char in "{}":
            depth += 1 if char == "{" else -1
            if depth < 0:
                break
            deepest = max(deepest, depth)
    if deepest > MAX_DEPTH:
        return f"its braces are nested {deepest} deep (the limit is {MAX_DEPTH})"
    if depth:
        return "its braces are not balanced"
    suspicious = _SUSPICIOUS.search(source)
    if suspicious:
        return f"it uses {suspicious.group()}"
    if _HTML_TAG.search(source):
        return "it looks like HTML"
    return None


def _math_html(source: str) -> tuple[str, str | None]:
    """Return math as MathML, or as its source in <code> with a warning."""
    problem = _math_problem(source)
    if problem is None:
        try:
            return _mathml(convert_to_element(source)), None
        except _NotConverted as exc:
            problem = str(exc)
        except Exception:  # noqa: BLE001 - latex2mathml's parse errors, and anything else it trips on
            problem = "latex2mathml could not read it"
    shown = source if len(source) <= 40 else source[:40] + "…"
    warning = f"the math ${shown}$ is shown as source: {problem}"
    return f"<code>{html.escape('$' + source + '$', quote=False)}</code>", warning


def _mathml(element: Element) -> str:
    """Rebuild latex2mathml's tree from the allowlist; an element outside it means no MathML at all."""
    out: list[str] = []
    _write_element(element, out)
    return "".join(out)


def _write_element(element: Element, out: list[str]) -> None:
    tag = element.tag
    if tag not in _MATHML_TAGS:  # nh3 would drop it and the text inside
        raise _NotConverted(f"latex2mathml made a <{tag}> element")
    attributes = "".join(f' {name}="{value}"' for name, value in element.attrib.items()
                         if name in _MATHML_ATTRS and _ATTR_VALUE.fullmatch(value)
                         and (name not in _LENGTH_ATTRS or _LENGTH.fullmatch(value)))
    out.append(f"<{tag}{attributes}>")
    out.append(_mathml_text(element.text))
    for child in element:
        _write_element(child, out)
        out.append(_mathml_text(child.tail))
    out.append(f"</{tag}>")


def _mathml_text(text: str | None) -> str:
    # latex2mathml stores characters as "&#x003B1;" strings, and \text{...} raw: unescape, then escape.
    text = html.unescape(text or "")
    command = _LEFT_COMMAND.search(text)
    if command:
        raise _NotConverted(f"latex2mathml does not know {command.group()}")
    return html.escape(text, quote=False)
