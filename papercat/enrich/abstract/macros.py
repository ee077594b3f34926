"""Math source rewritten into what latex2mathml knows: braces repaired, a paper's own macros expanded.

Abstracts are copied out of papers without their preamble, so their math uses macros the paper
defined: \\eps, \\R, \\cO, \\bx, \\nicefrac, \\poly. Commands latex2mathml knows are left alone. An
unknown one is, the first that applies:
- an entry of data/math_macros.txt (\\eps, \\nicefrac{1}{2}, \\norm{x}, \\bigO(n));
- a command dropped with its argument, as outside math (\\label, \\cite);
- after "^", \\T or \\t: the transpose;
- a letter in a style, by the shape of its name: \\cO, \\calO, \\Ocal calligraphic; \\bbR, \\RR and
  \\R, \\N, \\E blackboard; \\bx, \\vx, \\mA, \\vbeta, \\bone and other one-letter macros bold;
  \\lam, \\sig an abbreviated Greek letter;
- the table's entry for the name in lower case (\\BigO, \\REAL);
- a word without an argument, shown upright as an operator name (\\poly, \\nnz, \\SURF).
A word followed by a braced argument is a macro whose meaning cannot be guessed (\\ce{H2O}): the
math stays source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from latex2mathml import commands
from latex2mathml.symbols_parser import SYMBOLS

from papercat.wordlists import read_list

from .tokens import _DROPPED


@dataclass(frozen=True)
class _Macro:
    """An entry of data/math_macros.txt."""

    arguments: int
    expansion: str
    alone: str | None  # the expansion when no argument follows, as in \bigO(n)


class MacroError(ValueError):
    """A command that latex2mathml does not know and no rule here explains."""


def _read_macros() -> dict[str, _Macro]:
    macros = {}
    for line in read_list(__package__, "math_macros.txt"):
        definition, _, alone = line.partition(" | ")
        name, arguments, expansion = definition.split(" ", 2)
        macros[name] = _Macro(int(arguments), expansion, alone or None)
    return macros


def _known_commands() -> frozenset[str]:
    """Return every command latex2mathml converts: its symbols and the commands it defines (it has no
    list of them; its commands module names each in a constant, a tuple or a dict)."""
    names = {name for name in SYMBOLS if name.startswith("\\")}
    for value in vars(commands).values():
        items = (value,) if isinstance(value, str) else value if isinstance(value, (tuple, dict)) else ()
        names.update(item for item in items if isinstance(item, str) and item.startswith("\\"))
    return frozenset(names)


def _is_greek(char: str) -> bool:
    return "\u0391" <= char <= "\u03c9" or char in "ϑϕϖϱϵϰ"


_MACROS = _read_macros()
_KNOWN = _known_commands()
# Letters as symbols name them; \vbeta is a bold beta, \bmu a bold mu, \bell a bold ell.
_LETTER_SYMBOLS = frozenset(name[1:] for name, code in SYMBOLS.items()
                            if len(name) > 2 and name[1:].isalpha() and chr(int(code, 16)).isalpha())
# The Greek alphabet and its variant forms (not the archaic letters, not the upright "up" names):
# \lam, \gam, \sig abbreviate one of them.
_GREEK = tuple(sorted(name[1:] for name, code in SYMBOLS.items()
                      if name[1:].isalpha() and "up" not in name and _is_greek(chr(int(code, 16)))))
_CALLIGRAPHIC, _BLACKBOARD, _BOLD, _UPRIGHT = r"\mathcal", r"\mathbb", r"\mathbf", r"\mathrm"
# How a prefix styles the letter after it, lower case and upper case: \cO \calO \mcO, \bbR, \bx \vx
# \bmx, and the ICLR template's \gA (graphs), \sA (sets), \mA (matrices), \rvx (random vectors).
_PREFIXES: dict[str, tuple[str | None, str]] = {
    **dict.fromkeys(("c", "cal", "mc", "mcal", "g"), (None, _CALLIGRAPHIC)),
    **dict.fromkeys(("bb", "mbb"), (_BLACKBOARD, _BLACKBOARD)),
    "s": (None, _BLACKBOARD),
    **dict.fromkeys(("b", "v", "bm", "bf", "mb", "mbf", "bs", "vec", "rv"), (_BOLD, _BOLD)),
    "m": (None, _BOLD),
    "rm": (_UPRIGHT, _UPRIGHT),
}
_SUFFIXES = {"cal": _CALLIGRAPHIC, "bb": _BLACKBOARD}  # \Ocal, \Rbb
_BOLD_GREEK = ("b", "v", "bm", "bf", "mb", "bs", "m")  # \vbeta, \bmu; \mSigma (not \meta: a word)
_DIGITS = {"one": "1", "zero": "0"}  # \bone, \vzero, \bbone
# The letters that are blackboard when written alone or after \b: number sets and expectation.
_BLACKBOARD_LETTERS = frozenset("CENQRZ")
_COMMAND = re.compile(r"\\(?:([A-Za-z]+)|.)", re.DOTALL)
_LONE_BACKSLASH = re.compile(r"(?<!\\)(?:\\\\)*\\$")  # an odd number of "\" at the end
_BEFORE_SCRIPT = re.compile(r"[_^]\s*$")
_BEFORE_TRANSPOSE = re.compile(r"\^\s*\{?\s*$")  # x^\T, x^{\top}


def repair_braces(source: str) -> str | None:
    """Return ``source`` with its braces balanced, or None when the repair would be a guess.

    Braces left open are closed at the end (a "$" typed before the last "}"), and closers that close
    nothing are dropped; math with both is not repaired.
    """
    depth, stray = 0, []
    for match in re.finditer(r"\\[{}\\]|[{}]", source):
        brace = match.group()
        if brace == "{":
            depth += 1
        elif brace == "}" and depth:
            depth -= 1
        elif brace == "}":
            stray.append(match.start())
    if (stray or _LONE_BACKSLASH.search(source)) and depth:  # "{x\" closed would escape its "}"
        return None
    for position in reversed(stray):
        source = source[:position] + source[position + 1:]
    return source + "}" * depth


def expand_macros(source: str) -> str:
    """Return math ``source`` with every command latex2mathml does not know rewritten into ones it does.

    Raise MacroError for a command with an argument that no rule explains. ``source`` has balanced
    braces; an expansion uses each argument once, so the result grows with ``source`` alone.
    """
    out: list[str] = []
    pos = 0
    while (match := _COMMAND.search(source, pos)) is not None:
        out.append(source[pos:match.start()])
        name = match.group(1)
        if name is None or "\\" + name in _KNOWN:
            out.append(match.group())
            pos = match.end()
            continue
        expansion, pos = _expand(name, source, match.end(), "".join(out[-2:]))
        # x_\bx is x_{\mathbf{x}}: a script takes the whole expansion.
        out.append(f"{{{expansion}}}" if _BEFORE_SCRIPT.search("".join(out[-2:])) else expansion)
        if re.search(r"\\[A-Za-z]+$", expansion):
            out.append(" ")  # \eps x must not become \varepsilonx
    out.append(source[pos:])
    return "".join(out)


def _expand(name: str, source: str, end: int, before: str) -> tuple[str, int]:
    """Return the expansion of the unknown command ``\\name`` that ends at ``end``, and where the text
    after it (and its arguments) starts."""
    macro = _MACROS.get(name)
    if macro is not None:
        return _expand_macro(name, macro, source, end)
    argument = _argument(source, end) if source[end:].lstrip().startswith("{") else None
    if name in _DROPPED:  # \label{eq:1}: as outside math, dropped with its argument
        return "", argument[1] if argument else end
    if name in ("T", "t") and _BEFORE_TRANSPOSE.search(before):
        return r"\top", end
    return _guess(name, source, end, braced=argument is not None)


def _guess(name: str, source: str, end: int, braced: bool) -> tuple[str, int]:
    """Return the expansion of ``\\name`` by the shape of its name; ``braced`` when a group follows it."""
    letter = _styled_letter(name) or _greek_abbreviation(name)
    if letter is not None and not (len(name) == 1 and braced):  # \B{X} is a macro with an argument
        return letter, end
    macro = _MACROS.get(name.lower())  # \BigO, \REAL, \Norm
    if macro is not None:
        return _expand_macro(name, macro, source, end)
    if braced:
        raise MacroError(f"latex2mathml does not know \\{name}")
    return rf"\operatorname{{{name}}}", end


def _expand_macro(name: str, macro: _Macro, source: str, end: int) -> tuple[str, int]:
    arguments = []
    pos = end
    for _ in range(macro.arguments):
        argument = _argument(source, pos)
        if argument is None:
            if macro.alone is not None and not arguments:
                return macro.alone, end
            raise MacroError(f"\\{name} needs {macro.arguments} argument{'s' if macro.arguments > 1 else ''}")
        text, pos = argument
        arguments.append(expand_macros(text))
    return re.sub(r"#([1-9])", lambda m: arguments[int(m.group(1)) - 1], macro.expansion), pos


def _argument(source: str, pos: int) -> tuple[str, int] | None:
    """Return the argument at ``pos`` (a braced group's inside, a letter, a digit or a command) and
    where it ends; None when something else follows, as the "(" of \\bigO(n)."""
    while pos < len(source) and source[pos].isspace():
        pos += 1
    if pos == len(source):
        return None
    char = source[pos]
    if char == "{":
        close = _closing_brace(source, pos)
        return source[pos + 1:close], close + 1
    if char == "\\":
        match = _COMMAND.match(source, pos)
        return (match.group(), match.end()) if match and match.group(1) else None
    return (char, pos + 1) if char.isascii() and char.isalnum() else None


def _closing_brace(source: str, start: int) -> int:
    """Return the position of the "}" that closes the "{" at ``start``."""
    depth = 0
    pos = start
    while pos < len(source):
        char = source[pos]
        if char == "\\":
            pos += 2
            continue
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth == 0:
            return pos
        pos += 1
    raise MacroError("its braces are not balanced")  # repair_braces balanced them: not reached


def _styled_letter(name: str) -> str | None:
    """Return the styled letter that a macro's name spells, or None: \\R, \\RR, \\vbeta, \\cO, \\Ocal."""
    if len(name) == 1:
        return rf"\mathbb{{{name}}}" if name in _BLACKBOARD_LETTERS else rf"\mathbf{{{name}}}"
    if len(name) == 2 and name[0] == name[1] and name[0].isupper():
        return rf"\mathbb{{{name[0]}}}"
    return _bold_greek(name) or _prefixed_letter(name) or _suffixed_letter(name)


def _bold_greek(name: str) -> str | None:
    """Return the bold Greek letter of \\vbeta, \\bmu, \\mSigma; a Greek letter goes first, as \\bmu is
    a bold mu, not a bold u after \\bm."""
    for prefix in _BOLD_GREEK:
        rest = name[len(prefix):]
        if name.startswith(prefix) and rest in _LETTER_SYMBOLS and (prefix != "m" or rest[0].isupper()):
            return rf"\boldsymbol{{\{rest}}}"
    return None


def _prefixed_letter(name: str) -> str | None:
    """Return the letter or digit of \\cO, \\bbR, \\bx, \\gA, \\bone in the style its prefix gives it."""
    prefix, body = name[:-1], name[-1]
    for word, digit in _DIGITS.items():
        if name.endswith(word):
            prefix, body = name.removesuffix(word), digit
    if prefix not in _PREFIXES or not body.isascii():
        return None
    if prefix == "b" and body in _BLACKBOARD_LETTERS:  # \bR is the reals, \bX a bold X
        return rf"\mathbb{{{body}}}"
    lower, upper = _PREFIXES[prefix]
    style = upper if body.isupper() else lower
    return rf"{style}{{{body}}}" if style else None


def _suffixed_letter(name: str) -> str | None:
    """Return the letter of \\Ocal or \\Rbb in its style."""
    if name[0].isascii() and name[0].isupper() and name[1:] in _SUFFIXES:
        return rf"{_SUFFIXES[name[1:]]}{{{name[0]}}}"
    return None


def _greek_abbreviation(name: str) -> str | None:
    """Return the Greek letter that ``name`` abbreviates (\\lam, \\sig, \\Gam), if it is one only."""
    if len(name) < 3:  # \th is "th" more often than theta
        return None
    letters = [letter for letter in _GREEK if letter.startswith(name)]
    return rf"\{letters[0]}" if len(letters) == 1 else None
