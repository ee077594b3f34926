"""Math written as MathML rebuilt from an allowlist, or shown as its source with a reason."""

from __future__ import annotations

import html
import re
from xml.etree.ElementTree import Element

from latex2mathml.converter import convert_to_element

from papercat.errors import Problem
from papercat.wordlists import read_list

from .macros import MacroError, expand_macros, repair_braces
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
# A tag, not an inner product: <b>, </i>, <img src=x>, <!--, but not <x, y>.
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]*(\s+[A-Za-z-]+\s*=[^<>]*)?\s*/?>|<[!?]")
_ESCAPED_BRACE = re.compile(r"\\[{}\\]")  # \{ and \\ do not open or close a group
_SHOWN_AS_SOURCE = " is shown as source: "
# \x is {\mathbf{x}}: expanded math is longer, but within reach of what latex2mathml reads quickly.
_MAX_EXPANDED = 4 * MAX_MATH_CHARS


class _NotConverted(Exception):
    """Math that is shown as its source, and why."""


def _math_problem(source: str) -> str | None:
    """Return why math ``source`` is not read at all, or None when it may be."""
    if len(source) > MAX_MATH_CHARS:
        return f"it is {len(source):,} characters long (the limit is {MAX_MATH_CHARS})"
    suspicious = _SUSPICIOUS.search(source)
    if suspicious:
        return f"it uses {suspicious.group()}"
    if _HTML_TAG.search(source):
        return "it looks like HTML"
    return None


def _deepest(source: str) -> int:
    """Return how deep the braces of ``source`` (balanced) nest."""
    depth = deepest = 0
    for char in _ESCAPED_BRACE.sub("", source):
        if char in "{}":
            depth += 1 if char == "{" else -1
            deepest = max(deepest, depth)
    return deepest


def _readable(source: str) -> str:
    """Return math ``source`` as latex2mathml is given it (braces repaired, macros expanded), or raise
    _NotConverted with the reason it is not given at all."""
    problem = _math_problem(source)
    if problem is not None:
        raise _NotConverted(problem)
    repaired = repair_braces(source)
    if repaired is None:
        raise _NotConverted("its braces are not balanced")
    deepest = _deepest(repaired)
    if deepest > MAX_DEPTH:
        raise _NotConverted(f"its braces are nested {deepest} deep (the limit is {MAX_DEPTH})")
    try:
        expanded = expand_macros(repaired)
    except MacroError as exc:
        raise _NotConverted(str(exc)) from None
    if len(expanded) > _MAX_EXPANDED:
        raise _NotConverted(f"with its macros expanded it is {len(expanded):,} characters long "
                            f"(the limit is {_MAX_EXPANDED:,})")
    return expanded


def _math_html(source: str) -> tuple[str, str | None]:
    """Return math as MathML, or as its source in <code> with a warning."""
    try:
        readable = _readable(source)
        if not readable.strip():  # $\label{eq:1}$ and nothing else
            return "", None
        return _mathml(convert_to_element(readable)), None
    except _NotConverted as exc:
        problem = str(exc)
    except Exception:  # noqa: BLE001 - latex2mathml's parse errors, and anything else it trips on
        problem = "latex2mathml could not read it"
    shown = source if len(source) <= 40 else source[:40] + "…"
    warning = f"the math ${shown}${_SHOWN_AS_SOURCE}{problem}"
    return f"<code>{html.escape('$' + source + '$', quote=False)}</code>", warning


def summarise_math_warnings(problems: list[Problem]) -> list[Problem]:
    """Return ``problems`` with the warnings of math shown as source summed up in one, at the first.

    A listing of thousands of abstracts copied from papers holds dozens of macros that no rule here
    knows; a line for each would bury the other warnings.
    """
    math = [p for p in problems if _SHOWN_AS_SOURCE in p.message]
    if len(math) < 2:
        return problems
    first = math[0]
    shown, reason = first.message.removeprefix("the math ").split(_SHOWN_AS_SOURCE, 1)
    papers = list(dict.fromkeys(f"{p.path}:{p.line}" for p in math))
    then = f"; then {', '.join(papers[1:4])}{', …' if len(papers) > 4 else ''}" if len(papers) > 1 else ""
    summary = (f"{len(math)} math expressions in {len(papers)} paper{'s' if len(papers) != 1 else ''} are "
               f"shown as source; the first here, {shown}, because {reason}{then}")
    return [*(p for p in problems if _SHOWN_AS_SOURCE not in p.message),
            Problem(first.path, first.line, summary, warning=True)]


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
