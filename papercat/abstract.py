"""Abstracts rendered faithfully and safely: Markdown emphasis, LaTeX math and text commands, links.

An abstract is untrusted text. It is read into a flat list of tokens (text, math, links, emphasis
delimiters, the ends of styled groups) by a small inline parser: there is no block syntax, so a
line starting with "#", "1." or ">" stays text. The tokens are then written out twice: as HTML,
where every piece of text is escaped, math becomes MathML rebuilt from an allowlist and nh3 cleans
the whole once more (unless it is only escaped text in paragraphs, which nh3 would return as it is);
and as plain text for search, snippets and first sentences.
"""

from __future__ import annotations

import bisect
import html
import re
import unicodedata
from dataclasses import dataclass, field
from urllib.parse import urlsplit
from xml.etree.ElementTree import Element

import nh3
from latex2mathml.converter import convert_to_element
from latex2mathml.symbols_parser import convert_symbol

from .model import Link
from .text import collapse_spaces, trim_url

MAX_CHARS = 20_000  # longer abstracts are cut: no real abstract comes near, a pasted paper does
MAX_MATH_CHARS = 500  # a longer "$...$" is a stray dollar pairing, or an attempt to slow the build
MAX_DEPTH = 20  # braces nested deeper than this are shown as typed


@dataclass(frozen=True)
class RenderedAbstract:
    """An abstract as a safe HTML fragment, as plain text, and the links and problems found in it."""

    html: str  # one <p> per paragraph; sanitised, safe to mark as Markup
    text: str  # no markup: for search, snippets, first sentences and keyphrases
    links: tuple[Link, ...]  # in order, without repeats
    warnings: tuple[str, ...]


# ---------------------------------------------------------------------------------------------
# Tokens


@dataclass
class _Text:
    text: str


@dataclass
class _Math:
    source: str  # between the dollars


@dataclass
class _Url:
    url: str  # a bare URL or \url{...}: shown as itself, kept out of the plain text


@dataclass
class _Open:
    tag: str  # "strong", "em", "code", "a", "(" for a footnote, "" for a group that adds nothing
    url: str = ""


@dataclass
class _Close:
    tag: str


@dataclass(eq=False)
class _Delim:
    """A run of "*" or "_": emphasis where it pairs, literal characters where it does not."""

    char: str
    length: int
    can_open: bool
    can_close: bool
    count: int = 0  # characters not used by emphasis
    closes: list[str] = field(default_factory=list)  # innermost first
    opens: list[str] = field(default_factory=list)  # outermost first

    def __post_init__(self) -> None:
        self.count = self.length


_Token = _Text | _Math | _Url | _Open | _Close | _Delim


@dataclass
class _Group:
    """An open brace: a LaTeX command's argument, or a literal brace."""

    index: int  # of its _Open or literal _Text in the token list
    close: _Token  # what its "}" becomes
    source: str  # what it was typed as, shown if it is never closed
    delims: list[_Delim] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------
# Reading: normalise, cap, tokenise

_PARAGRAPH_BREAK = re.compile(r"\n[ \t\r\f\v]*\n\s*")
# Control characters (Unicode category Cc) become spaces; these invisible ones go.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]+")
_INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff\u00ad\u180e]")
_SPACES = re.compile(r"\s+")

_TOKEN = re.compile(
    r"(?:(?P<url>https?://[^\s<>\"'`{}|\\^]+)"
    r"|\\(?P<cmd>[A-Za-z]+)\*?"
    r"|\\(?P<esc>[^A-Za-z])"
    r"|(?P<dollar>\$)"
    r"|(?P<brace>[{}])"
    r"|(?P<delim>\*+|_+))",
    re.IGNORECASE,
)
# The characters a token starts with, found by a plain character class, which skips text fast; the
# "h" of a URL only where the text holds a "://" (most have none, and many an "h").
_TOKEN_START = re.compile(r"[hH\\${}*_]")
_NON_URL_START = re.compile(r"[\\${}*_]")
_ESCAPED_OR_DOLLAR = re.compile(r"\\.|\$", re.DOTALL)
_RAW_ARG = re.compile(r"\s*\{([^{}]*)\}")  # \url{...}, \cite{...}: no braces inside
_SAFE_URL = re.compile(r"https?://[^\s<>\"'`{}|\\^]+\Z", re.IGNORECASE)
_SCHEME = re.compile(r"\s*[A-Za-z][A-Za-z0-9+.-]*:")

# LaTeX text commands and the HTML element each becomes ("" adds none).
_STYLES = {"textbf": "strong", "mathbf": "strong", "textit": "em", "mathit": "em", "emph": "em",
           "textsl": "em", "texttt": "code", "mathtt": "code", "text": "", "textrm": "", "textnormal": "",
           "textup": "", "textmd": "", "textsf": "", "mathrm": "", "mathsf": "", "mbox": "", "textsc": "",
           "underline": ""}
# {\em text}, {\bf text}: old-style switches at the start of a brace group.
_SWITCHES = {"em": "em", "it": "em", "itshape": "em", "sl": "em", "bf": "strong", "bfseries": "strong",
             "tt": "code", "ttfamily": "code", "rm": "", "sc": "", "sf": "", "normalfont": "", "upshape": "",
             "scshape": "", "mdseries": ""}
_DROPPED = frozenset(["cite", "citep", "citet", "citealp", "citeauthor", "citeyear", "ref", "eqref",
                      "autoref", "cref", "Cref", "label", "footnotemark", "vspace", "hspace",
                      "includegraphics"])
_WORDS = {"LaTeX": "LaTeX", "TeX": "TeX", "ldots": "…", "dots": "…", "textendash": "–", "textemdash": "—",
          "textasciitilde": "~", "textbackslash": "\\", "textbar": "|", "textless": "<", "textgreater": ">",
          "copyright": "©", "S": "§", "P": "¶", "dag": "†", "ddag": "‡", "pounds": "£", "euro": "€"}
# Spacing commands: a space in text; nothing for the negative or invisible ones.
_SPACING = {" ": " ", ",": " ", ";": " ", ":": " ", ">": " ", "!": "", "-": "", "/": "", "@": "", "\\": " "}
# LaTeX accents typed with punctuation: \'e, \"{o}, \^a, \`e, \~n, \=a, \.z.
_ACCENTS = {"'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303", "=": "\u0304",
            ".": "\u0307"}
_ACCENTED = re.compile(r"\{([A-Za-z])\}|([A-Za-z])")
_LABEL = re.compile(r"\s*\{")  # \href{url}{label}: where the label starts

_EM_DASH = "---"
_EN_DASH = re.compile(r"(?<=\s)--(?=\s)|(?<=\d)--(?=\d)")  # not "--flag"
_DOUBLE_QUOTES = re.compile(r"``([^`]{1,300}?)''")  # bounded: a lone `` must not scan the rest
_SINGLE_QUOTES = re.compile(r"`([^`'\s][^`']*)'")
_TIE = re.compile(r"(?<!\s)~(?!\s)")  # strengthen~(by 12\%): a LaTeX non-breaking space

# Currency, not math: "$5 and $10", "$3 per hour". Math has a command, a script, a brace or "=".
_MATH_SIGNAL = re.compile(r"[\\^_{}=]")
_PROSE_WORD = re.compile(r"(?<![\w\\])[A-Za-z]{2,}(?!\w)")

_PROJECT_CUE = re.compile(r"\b(project|home)[ -]?(page|site|website)\b|\bwebsite\b|\bdemo\b", re.IGNORECASE)
_CODE_HOSTS = frozenset(["github.com", "gitlab.com", "bitbucket.org", "codeberg.org", "huggingface.co",
                         "anonymous.4open.science", "gitee.com", "sourceforge.net"])
_NOT_CODE_ON_HF = frozenset(["datasets", "papers", "docs", "blog", "learn"])


def _normalise(abstract: str) -> list[str]:
    """Return the paragraphs of ``abstract``: NFC, control and invisible characters gone, spaces folded."""
    text = unicodedata.normalize("NFC", abstract)
    paragraphs = []
    for part in _PARAGRAPH_BREAK.split(text):
        if not part.isascii():  # the invisible characters are all beyond ASCII
            part = _INVISIBLE.sub("", part)
        if not part.isprintable():  # control characters are not printable
            part = _CONTROL.sub(" ", part)
        part = collapse_spaces(part)
        if part:
            paragraphs.append(part)
    return paragraphs


def _cap(paragraphs: list[str], warnings: list[str]) -> list[str]:
    """Cut the paragraphs to MAX_CHARS characters in all, at a word boundary, with a warning."""
    total = sum(len(p) for p in paragraphs)
    if total <= MAX_CHARS:
        return paragraphs
    warnings.append(f"the abstract is {total:,} characters long; only the first {MAX_CHARS:,} are shown")
    kept, room = [], MAX_CHARS
    for paragraph in paragraphs:
        if len(paragraph) > room:
            cut = paragraph[:room]
            space = cut.rfind(" ")
            # A word boundary near the end, else a hard cut (one 20,000-character "word").
            kept.append((cut[:space] if space > room * 0.9 else cut).rstrip() + " …")
            break
        kept.append(paragraph)
        room -= len(paragraph)
    return kept


def _symbol(name: str) -> str | None:
    """Return the character a LaTeX symbol command stands for, like \\alpha -> α, or None."""
    code = convert_symbol("\\" + name)
    if code is None:
        return None
    char = chr(int(code, 16))
    return " " if char.isspace() else char


def _is_url(value: str) -> bool:
    return bool(_SAFE_URL.match(value))


def _is_prose_math(content: str) -> bool:
    """Whether a "$...$" candidate reads as prose between two prices, not as math."""
    if _MATH_SIGNAL.search(content):
        return False
    return content[-1].isspace() or (content[0].isdigit() and bool(_PROSE_WORD.search(content)))


def _flanking(before: str, after: str) -> tuple[bool, bool]:
    """CommonMark's left- and right-flanking tests for a delimiter run between two characters."""
    space_before, space_after = not before or before.isspace(), not after or after.isspace()
    punct_before, punct_after = _is_punctuation(before), _is_punctuation(after)
    left = not space_after and (not punct_after or space_before or punct_before)
    right = not space_before and (not punct_before or space_after or punct_after)
    return left, right


def _is_punctuation(char: str) -> bool:
    return bool(char) and unicodedata.category(char)[0] in "PS"


def _prose(text: str) -> str:
    """Typographic LaTeX in running text: ``quotes'', `quotes', --- and -- dashes, ~ ties."""
    if "--" in text:  # each pattern runs only where its characters are: most text has none
        text = _EN_DASH.sub("–", text.replace(_EM_DASH, "—"))
    if "`" in text:
        text = _DOUBLE_QUOTES.sub("“\\1”", text).replace("``", "“")
        text = _SINGLE_QUOTES.sub("‘\\1’", text.replace("''", "”"))
    else:
        text = text.replace("''", "”")
    return _TIE.sub(" ", text) if "~" in text else text


def _next_token(text: str, pos: int, starts: re.Pattern[str]) -> re.Match[str] | None:
    """Return the first token at or after ``pos``, as _TOKEN.search would, trying only where one may start."""
    start = starts.search(text, pos)
    while start is not None:
        match = _TOKEN.match(text, start.start())
        if match is not None:
            return match
        start = starts.search(text, start.start() + 1)  # an "h" that starts no URL, a "\" at the end
    return None


class _Reader:
    """Turns one paragraph into tokens, collecting its links and the problems found."""

    def __init__(self, links: list[Link], warnings: list[str]) -> None:
        self.tokens: list[_Token] = []
        self.stack: list[_Group] = []
        self.links = links
        self.warnings = warnings
        self.overflow = 0  # braces beyond MAX_DEPTH still open, shown as typed
        self.in_link = 0
        self.link_floor = 0  # where the text that classifies the next link starts

    def read(self, text: str) -> list[_Token]:
        """Return the tokens of ``text`` with emphasis paired."""
        top = _Group(-1, _Text(""), "")
        self.stack = [top]
        self._scan(text)
        while len(self.stack) > 1:  # never closed: the opening is shown as typed
            group = self.stack.pop()
            self.tokens[group.index] = _Text(group.source)
            _pair_emphasis(group.delims)
        _pair_emphasis(top.delims)
        return self.tokens

    def _scan(self, text: str) -> None:
        dollars = [m.start() for m in _ESCAPED_OR_DOLLAR.finditer(text) if m.group() == "$"] if "$" in text else []
        starts = _TOKEN_START if "://" in text else _NON_URL_START
        pos = 0
        while True:
            match = _next_token(text, pos, starts)
            if match is None:
                self._text(text[pos:])
                return
            self._text(text[pos:match.start()])
            kind = match.lastgroup
            if kind == "url":
                pos = self._url(text, match)
            elif kind == "cmd":
                pos = self._command(text, match)
            elif kind == "esc":
                pos = self._escape(text, match)
            elif kind == "dollar":
                pos = self._dollar(text, match.start(), dollars)
            elif kind == "brace":
                self._brace(match.group())
                pos = match.end()
            else:
                self._delim(text, match)
                pos = match.end()

    def _text(self, text: str) -> None:
        if text:
            self.tokens.append(_Text(_prose(text)))

    def _url(self, text: str, match: re.Match[str]) -> int:
        url = trim_url(match.group())
        if len(url) <= len("https://"):
            self.tokens.append(_Text(match.group()))
            return match.end()
        if self.in_link:  # a URL inside \href's text: no link in a link
            self.tokens.append(_Text(url))
        else:
            self.tokens.append(_Url(url))
            self._link(url, text, match.start())
        return match.start() + len(url)

    def _link(self, url: str, text: str, start: int) -> None:
        """Record a link; the words just before it (since the last link) can say it is a project page."""
        self._add_link(url, text[max(self.link_floor, start - 48):start])
        self.link_floor = start

    def _add_link(self, url: str, before: str) -> None:
        if all(link.url != url for link in self.links):
            self.links.append(_classify(url, before))

    def _drop_unsafe(self, target: str) -> None:
        shown = target.strip()[:40]
        self.warnings.append(f"a link to {shown!r} was dropped: only http and https links are kept")

    def _command(self, text: str, match: re.Match[str]) -> int:
        name, end = match.group("cmd"), match.end()
        brace = text.startswith("{", end)
        if name == "url":
            return self._url_command(text, match)
        if name == "href":
            return self._href(text, match)
        if name in _DROPPED:
            arg = _RAW_ARG.match(text, end)
            return arg.end() if arg else end
        word = _WORDS.get(name) or _symbol(name)
        if brace and (name in _STYLES or name == "footnote" or word is None):
            tag = "(" if name == "footnote" else _STYLES.get(name, "")
            self._open(_Open(tag), _Close(tag), text[match.start():end + 1])
            return end + 1
        if name in _SWITCHES:  # "{\em old}": the space after a switch is LaTeX's, not the text's
            self._switch(_SWITCHES[name])
            return end + 1 if text.startswith(" ", end) else end
        self.tokens.append(_Text(word if word is not None else match.group()))
        return end + 2 if word is not None and text.startswith("{}", end) else end  # \LaTeX{}

    def _url_command(self, text: str, match: re.Match[str]) -> int:
        arg = _RAW_ARG.match(text, match.end())
        if arg is None:
            self.tokens.append(_Text(match.group()))
            return match.end()
        target = arg.group(1).strip()
        if _is_url(target) and not self.in_link:
            self.tokens.append(_Url(target))
            self._link(target, text, match.start())
        elif _SCHEME.match(target) and not _is_url(target):
            self._drop_unsafe(target)
        else:  # "github.com/x" without a scheme: text, not a link we would have to guess
            self.tokens.append(_Text(target))
        return arg.end()

    def _href(self, text: str, match: re.Match[str]) -> int:
        arg = _RAW_ARG.match(text, match.end())
        if arg is None:
            self.tokens.append(_Text(match.group()))
            return match.end()
        target, end = arg.group(1).strip(), arg.end()
        label = _LABEL.match(text, end)
        if label is None:  # \href{url} alone: as \url{url}
            return self._url_command(text, match)
        if _is_url(target) and not self.in_link:
            self._link(target, text, match.start())
            self._open(_Open("a", target), _Close("a"), text[match.start():label.end()])
            self.in_link += 1
        else:
            if _SCHEME.match(target) and not _is_url(target):
                self._drop_unsafe(target)
            self._open(_Open(""), _Close(""), text[match.start():label.end()])
        return label.end()

    def _escape(self, text: str, match: re.Match[str]) -> int:
        char, end = match.group("esc"), match.end()
        letter = _ACCENTED.match(text, end) if char in _ACCENTS else None
        if letter:
            accented = unicodedata.normalize("NFC", (letter.group(1) or letter.group(2)) + _ACCENTS[char])
            # G\"odel -> Gödel, but \"quoted\" stays: only a letter that has an accented form, typed
            # unbraced only when lower case.
            if len(accented) == 1 and (letter.group(1) or accented.islower()):
                self.tokens.append(_Text(accented))
                return letter.end()
        self.tokens.append(_Text(_SPACING.get(char, char)))
        return end

    def _dollar(self, text: str, start: int, dollars: list[int]) -> int:
        """Read math from the "$" at ``start``, or a literal "$" when it is not math."""
        after = bisect.bisect_right(dollars, start)
        if text.startswith("$$", start):  # display math: shown inline like the rest
            k = after + 1
            while k < len(dollars) and not text.startswith("$$", dollars[k]):
                k += 1
            if k < len(dollars) and text[start + 2:dollars[k]].strip():
                self._math(text[start + 2:dollars[k]])
                return dollars[k] + 2
            self.tokens.append(_Text("$$"))
            return start + 2
        if after >= len(dollars):
            self.tokens.append(_Text("$"))
            return start + 1
        end = dollars[after]
        content = text[start + 1:end]
        following = text[end + 1:end + 2]
        if not content or content[0].isspace() or following.isdigit() or _is_prose_math(content):
            self.tokens.append(_Text("$"))
            return start + 1
        self._math(content)
        return end + 1

    def _math(self, source: str) -> None:
        source = self._math_links(source)
        if not source.strip():  # $\url{...}$ and nothing else
            return
        if _is_styled_text(source):  # $\textbf{D}$iverse: styled words, written as text
            self._scan(source)
        else:
            self.tokens.append(_Math(source))

    def _math_links(self, source: str) -> str:
        """Take \\href and \\url out of math: MathML has no links; keep \\href's text."""
        def link(match: re.Match[str]) -> str:
            target = match.group(1).strip()
            if _is_url(target):
                self._add_link(target, "")
            elif _SCHEME.match(target):
                self._drop_unsafe(target)
            return ""  # \href{url}{text} leaves the group {text}
        return _MATH_LINK.sub(link, source)

    def _brace(self, char: str) -> None:
        if char == "{":
            self._open(None, _Text("}"), "{")
            return
        if self.overflow:
            self.overflow -= 1
            self.tokens.append(_Text("}"))
        elif len(self.stack) > 1:
            group = self.stack.pop()
            _pair_emphasis(group.delims)
            if isinstance(group.close, _Close) and group.close.tag == "a":
                self.in_link -= 1
            self.tokens.append(group.close)
        else:
            self.tokens.append(_Text("}"))

    def _open(self, token: _Open | None, close: _Token, source: str) -> None:
        """Open a group; ``token`` None is a literal brace. Past MAX_DEPTH the brace stays as typed."""
        if len(self.stack) > MAX_DEPTH:  # the paragraph's own group is the first
            if not self.overflow:
                self.warnings.append(f"braces nested deeper than {MAX_DEPTH} are shown as typed")
            self.overflow += 1
            self.tokens.append(_Text(source))
            return
        self.stack.append(_Group(len(self.tokens), close, source))
        self.tokens.append(token if token is not None else _Text("{"))

    def _switch(self, tag: str) -> None:
        """{\\em text}: right after a literal "{", the brace group becomes the style."""
        group = self.stack[-1]
        if len(self.stack) > 1 and group.index == len(self.tokens) - 1 and group.source == "{":
            self.tokens[-1] = _Open(tag)
            group.close = _Close(tag)

    def _delim(self, text: str, match: re.Match[str]) -> None:
        run = match.group()
        before = text[match.start() - 1] if match.start() else ""
        after = text[match.end()] if match.end() < len(text) else ""
        left, right = _flanking(before, after)
        if run[0] == "*":
            can_open, can_close = left, right
        else:  # "_" inside a word (x_i, snake_case) is never emphasis
            can_open = left and (not right or _is_punctuation(before))
            can_close = right and (not left or _is_punctuation(after))
        delim = _Delim(run[0], len(run), can_open, can_close)
        self.tokens.append(delim)
        self.stack[-1].delims.append(delim)


_MATH_LINK = re.compile(r"\\(?:href|url)\s*\{([^{}]*)\}")
# Text commands whose whole "$...$" is styled words, rendered as HTML emphasis, not MathML.
_STYLED_PART = re.compile(r"\\([A-Za-z]+)\s*\{|\\[%&#_$ ,;]|[{}\\^_$&~*]")


def _is_styled_text(source: str) -> bool:
    """Whether math ``source`` is only words in text commands, like \\textbf{\\textit{Negated Harm}}."""
    depth, styled, pos = 0, False, 0
    for match in _STYLED_PART.finditer(source):
        if depth == 0 and source[pos:match.start()].strip():
            return False
        pos = match.end()
        token = match.group()
        if match.group(1) is not None:
            if match.group(1) not in _STYLES:
                return False
            depth, styled = depth + 1, True
        elif token == "}" and depth:
            depth -= 1
        elif not (token.startswith("\\") and len(token) == 2 and depth):
            return False
    return styled and depth == 0 and not source[pos:].strip()


def _classify(url: str, before: str) -> Link:
    """Return the link for ``url``: code on a forge, a project page, or another page."""
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").removeprefix("www.")
        path = [p for p in parts.path.split("/") if p]
    except ValueError:
        host, path = "", []
    if host in _CODE_HOSTS and path and not (host == "huggingface.co" and path[0] in _NOT_CODE_ON_HF):
        return Link(url, "code", "Code")
    if host.endswith((".github.io", ".gitlab.io")) or _PROJECT_CUE.search(before):
        return Link(url, "project", "Project page")
    return Link(url, "other", host or url)


# ---------------------------------------------------------------------------------------------
# Emphasis: CommonMark's delimiter algorithm, one brace group at a time


def _pair_emphasis(delims: list[_Delim]) -> None:
    """Pair the delimiter runs of one group into <em> and <strong>, as CommonMark does."""
    stack: list[_Delim] = []
    # The lowest stack height worth searching again for a closer of this kind: keeps it linear.
    bottom: dict[tuple[str, bool, int], int] = {}
    for closer in delims:
        while closer.can_close and closer.count:
            key = (closer.char, closer.can_open, closer.length % 3)
            low = bottom.get(key, -1)
            j = len(stack) - 1
            while j > low and not _pairs(stack[j], closer):
                j -= 1
            if j <= low:
                bottom[key] = len(stack) - 1
                break
            opener = stack[j]
            used = 2 if opener.count >= 2 and closer.count >= 2 else 1
            tag = "strong" if used == 2 else "em"
            opener.count -= used
            closer.count -= used
            opener.opens.insert(0, tag)
            closer.closes.append(tag)
            del stack[j + (1 if opener.count else 0):]  # runs in between stay literal
            for k, height in bottom.items():
                bottom[k] = min(height, len(stack) - 1)
        if closer.can_open and closer.count:
            stack.append(closer)


def _pairs(opener: _Delim, closer: _Delim) -> bool:
    if opener.char != closer.char or not opener.count:
        return False
    # The "rule of 3": in *foo**bar* the "**" is not a closer then an opener of its own.
    if (opener.can_close or closer.can_open) and (opener.length + closer.length) % 3 == 0:
        return opener.length % 3 == 0 and closer.length % 3 == 0
    return True


# ---------------------------------------------------------------------------------------------
# Writing: plain text

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
_SILENT = frozenset(["left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "biggl",
                     "biggr", "middle", "displaystyle", "textstyle", "scriptstyle", "limits", "nolimits",
                     "mathstrut", "mathcal", "mathbb", "mathbf", "mathrm", "mathit", "mathsf", "mathtt",
                     "mathscr", "mathfrak", "boldsymbol", "bm", "operatorname", "tilde", "hat", "bar", "vec",
                     "dot", "ddot", "overline", "underline", "widehat", "widetilde", "text", "textbf",
                     "textit", "texttt", "textrm", "mbox", "emph"])


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


def _text(tokens: list[_Token]) -> str:
    """Write tokens as plain text: no markup, URLs left out, math as readable text."""
    out = []
    for token in tokens:
        if isinstance(token, _Text):
            out.append(token.text)
        elif isinstance(token, _Math):
            out.append(_math_text(token.source))
        elif isinstance(token, _Url):
            out.append("\x00")  # a removed URL: its space goes before closing punctuation
        elif isinstance(token, _Delim):
            out.append(token.char * token.count)
        elif isinstance(token, _Open) and token.tag == "(":
            out.append(" (")
        elif isinstance(token, _Close) and token.tag == "(":
            out.append(")")
    text = "".join(out)
    if "\x00" not in text:  # no URL was left out
        return collapse_spaces(text)
    text = _URL_RUN.sub("\x00", _SPACES.sub(" ", text))
    text = _URL_GAP.sub("", _EMPTY_BRACKETS.sub("", text)).replace("\x00", " ")
    return _SPACES.sub(" ", text).strip()


# ---------------------------------------------------------------------------------------------
# Writing: HTML

# Every element latex2mathml emits; semantics and annotation it does not.
_MATHML_TAGS = frozenset(["math", "mrow", "mi", "mn", "mo", "mtext", "mspace", "mstyle", "msup", "msub",
                          "msubsup", "mfrac", "msqrt", "mroot", "mover", "munder", "munderover", "mtable",
                          "mtr", "mtd", "mpadded", "mphantom", "menclose"])
# Presentation attributes only: no colours (white on white hides text), no href, no style, no xmlns.
_MATHML_ATTRS = frozenset(["display", "mathvariant", "stretchy", "fence", "separator", "form", "lspace",
                           "rspace", "minsize", "maxsize", "movablelimits", "largeop", "symmetric", "accent",
                           "accentunder", "displaystyle", "scriptlevel", "linethickness", "width", "height",
                           "depth", "voffset", "notation", "columnalign", "columnspacing", "rowspacing",
                           "columnlines", "rowlines", "frame", "mathsize"])
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

_TAGS = {"p", "em", "strong", "a", "code"} | _MATHML_TAGS
_ATTRIBUTES = {"a": {"href"}, **{tag: set(_MATHML_ATTRS) for tag in _MATHML_TAGS}}
_REL = "noopener noreferrer nofollow"


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


# ---------------------------------------------------------------------------------------------
# The two entry points


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
