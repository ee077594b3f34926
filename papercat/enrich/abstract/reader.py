"""The inline parser: one paragraph of an abstract read into tokens, its links classified."""

from __future__ import annotations

import bisect
import re
import unicodedata
from urllib.parse import urlsplit

from papercat.model import Link
from papercat.text import trim_url

from .emphasis import _pair_emphasis
from .tokens import (
    _ACCENTED,
    _ACCENTS,
    _CODE_HOSTS,
    _DROPPED,
    _ESCAPED_OR_DOLLAR,
    _LABEL,
    _NON_URL_START,
    _NOT_CODE_ON_HF,
    _PROJECT_CUE,
    _RAW_ARG,
    _SCHEME,
    _SPACING,
    _STYLES,
    _SWITCHES,
    _TOKEN_START,
    _WORDS,
    MAX_DEPTH,
    _Close,
    _Delim,
    _flanking,
    _Group,
    _is_prose_math,
    _is_punctuation,
    _is_url,
    _Math,
    _next_token,
    _Open,
    _prose,
    _symbol,
    _Text,
    _Token,
    _Url,
)


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
        while (match := _next_token(text, pos, starts)) is not None:
            self._text(text[pos:match.start()])
            pos = self._token(text, match, dollars)
        self._text(text[pos:])

    def _token(self, text: str, match: re.Match[str], dollars: list[int]) -> int:
        """Read the token ``match`` found, by its kind; return where the text after it starts."""
        kind = match.lastgroup
        if kind == "url":
            return self._url(text, match)
        if kind == "cmd":
            return self._command(text, match)
        if kind == "esc":
            return self._escape(text, match)
        if kind == "dollar":
            return self._dollar(text, match.start(), dollars)
        if kind == "brace":
            self._brace(match.group())
        else:
            self._delim(text, match)
        return match.end()

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
        if name == "url":
            return self._url_command(text, match)
        if name == "href":
            return self._href(text, match)
        if name in _DROPPED:
            arg = _RAW_ARG.match(text, end)
            return arg.end() if arg else end
        return self._text_command(text, match)

    def _text_command(self, text: str, match: re.Match[str]) -> int:
        """Read a command that styles, switches or writes text: \\textbf{...}, {\\em ...}, \\ldots."""
        name, end = match.group("cmd"), match.end()
        word = _WORDS.get(name) or _symbol(name)
        if text.startswith("{", end) and (name in _STYLES or name == "footnote" or word is None):
            tag = "(" if name == "footnote" else _STYLES.get(name, "")
            self._open(_Open(tag), _Close(tag), text[match.start():end + 1])
            return end + 1
        if name in _SWITCHES:  # "{\em old}": the space after a switch is LaTeX's, not the text's
            self._switch(_SWITCHES[name])
            return end + 1 if text.startswith(" ", end) else end
        return self._command_word(text, match, word)

    def _command_word(self, text: str, match: re.Match[str], word: str | None) -> int:
        """Write a command as the ``word`` it stands for, or as typed when it stands for none."""
        end = match.end()
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
            return self._display_math(text, start, after, dollars)
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

    def _display_math(self, text: str, start: int, after: int, dollars: list[int]) -> int:
        """Read display math from the "$$" at ``start`` (``dollars[after]`` is its second "$") to the next
        "$$", or a literal "$$" when none closes it."""
        k = after + 1
        while k < len(dollars) and not text.startswith("$$", dollars[k]):
            k += 1
        if k < len(dollars) and text[start + 2:dollars[k]].strip():
            self._math(text[start + 2:dollars[k]])
            return dollars[k] + 2
        self.tokens.append(_Text("$$"))
        return start + 2

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
        depth = _depth_after(match, depth)
        if depth is None:
            return False
        styled = styled or match.group(1) is not None
    return styled and depth == 0 and not source[pos:].strip()


def _depth_after(match: re.Match[str], depth: int) -> int | None:
    """Return the brace depth after a piece of math source, or None if the piece is no styled text."""
    command = match.group(1)
    if command is not None:
        return depth + 1 if command in _STYLES else None
    token = match.group()
    if token == "}" and depth:
        return depth - 1
    if token.startswith("\\") and len(token) == 2 and depth:  # \, or \% inside a text command
        return depth
    return None


def _classify(url: str, before: str) -> Link:
    """Return the link for ``url``: code on a forge, a project page, or another page."""
    host, path = _host_and_path(url)
    if host in _CODE_HOSTS and path and not (host == "huggingface.co" and path[0] in _NOT_CODE_ON_HF):
        return Link(url, "code", "Code")
    if host.endswith((".github.io", ".gitlab.io")) or _PROJECT_CUE.search(before):
        return Link(url, "project", "Project page")
    return Link(url, "other", host or url)


def _host_and_path(url: str) -> tuple[str, list[str]]:
    """Return a URL's host without "www." and the parts of its path; nothing for a URL urlsplit refuses."""
    try:
        parts = urlsplit(url)
        return (parts.hostname or "").removeprefix("www."), [p for p in parts.path.split("/") if p]
    except ValueError:
        return "", []
