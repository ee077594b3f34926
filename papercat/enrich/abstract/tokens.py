"""The tokens an abstract is read into, the patterns that find them, and the text they are read from."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from latex2mathml.symbols_parser import convert_symbol

from papercat.text import collapse_spaces, spell_out_ligatures
from papercat.wordlists import read_list

MAX_CHARS = 20_000  # longer abstracts are cut: no real abstract comes near, a pasted paper does
MAX_MATH_CHARS = 500  # a longer "$...$" is a stray dollar pairing, or an attempt to slow the build
MAX_DEPTH = 20  # braces nested deeper than this are shown as typed


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
_DROPPED = frozenset(read_list(__package__, "dropped_commands.txt"))
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
    """Return the paragraphs of ``abstract``: NFC, ligatures spelt out, control and invisible characters
    gone, spaces folded."""
    text = unicodedata.normalize("NFC", abstract)
    text = spell_out_ligatures(text)
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
