"""Math as a title can hold it: plain text for a simple formula ($\\ell_1$ -> ℓ1, $O(\\sqrt{T})$ -> O(√T),
$\\mathbb{R}^d$ -> ℝᵈ), nothing for the rest, as real titles are plain text."""

from __future__ import annotations

import re
import unicodedata

from latex2mathml.symbols_parser import convert_symbol

_MAX_LENGTH = 24  # "O(n²⁄³)" or "ℓ1,∞" is a term of a title; a longer formula is a statement
_MAX_WORDS = 3
_DEPTH = 8  # braces nested deeper than this are no simple formula

# Commands that only size, space or style what follows, and operator names written upright.
_SILENT = frozenset("left right big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr middle displaystyle "
                    "textstyle scriptstyle limits nolimits mathstrut".split())
_OPERATORS = frozenset("log ln exp min max sup inf lim det tr Pr poly polylog arg argmin argmax sin cos tanh "
                       "sgn rank".split())
# Commands with an argument: a style whose text stays as it is, and accents over one letter.
_STYLES = ("mathcal|mathbf|mathrm|mathit|mathsf|mathtt|mathscr|mathfrak|boldsymbol|bm|operatorname|text|"
           "textrm|textit|textbf|texttt|textsf|mbox|emph")
_ACCENTS = {"tilde": "\u0303", "widetilde": "\u0303", "hat": "\u0302", "widehat": "\u0302", "bar": "\u0304",
            "overline": "\u0304", "dot": "\u0307"}
_WITH_ARGUMENT = frozenset(["frac", "dfrac", "tfrac", "nicefrac", "sfrac", "sqrt", "mathbb",
                            *_STYLES.split("|"), *_ACCENTS])
_SUPERSCRIPTS = dict(zip("0123456789+-−()/abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVW⊤",
                         "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁽⁾⁄ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂᵀ", strict=True))
_SUPERSCRIPTS |= {c: c for c in "*⋆∗′'†"}  # θ*, f′: marks written beside the letter
_SUBSCRIPTS = dict(zip("0123456789+-−()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₋₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ", strict=True))
_FAILED = "\x00"  # what a part no title can hold becomes, to be found once at the end

_TEXT_ONLY = re.compile(r"(?:\\(?:text\w*|mathrm|mbox|emph)\s*\{)+([^{}\\$]*)\}+")
_DOUBLE_STRUCK_ARG = re.compile(r"\\mathbb\s*\{\s*([A-Za-z])\s*\}")
_COMMAND = re.compile(r"\\([A-Za-z]+)")
_ESCAPE = re.compile(r"\\([^A-Za-z])")
_FRACTION = re.compile(r"\\(?:[dt]?frac|nicefrac|sfrac)\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_ROOT = re.compile(r"\\sqrt\s*(?:\{([^{}]*)\}|([A-Za-z0-9]))")
_STYLE = re.compile(rf"\\(?:{_STYLES})\s*\{{([^{{}}]*)\}}")
_ACCENT = re.compile(rf"\\({'|'.join(_ACCENTS)})\s*(?:\{{([^{{}}]*)\}}|([A-Za-z]))")
_BRACED_SCRIPT = re.compile(r"([_^])\s*\{([^{}]*)\}")
_SCRIPT = re.compile(r"([_^])\s*([^\s{}_^\\])")
_GROUP = re.compile(r"\{([^{}]*)\}")
_PLAIN_SUBSCRIPT = re.compile(r"[\w,∞⋆*]{1,4}")  # ℓ1, L2, ℓ1,∞, θ⋆: what titles write without lowering
_INNER_SPACE = re.compile(r"(?<=[(\[/])\s+|\s+(?=[)\]/])")
_RELATION = re.compile(r"\s*([∈∉≤≥<>≠≈∼→⊂⊆])\s*")


def plain_math(source: str) -> str | None:
    """Return a formula as plain text, or None where it is too complex for a title."""
    text_only = _TEXT_ONLY.fullmatch(source.strip())
    if text_only:  # $\textbf{DReaMAD}$: words set in math, any number of them
        return text_only[1].strip()
    text = _DOUBLE_STRUCK_ARG.sub(_double_struck, source)
    text = _ESCAPE.sub(_escaped, _COMMAND.sub(_command, text))
    for _ in range(_DEPTH):  # innermost braces first: \sqrt{\frac{1}{T}}
        previous = text
        text = _FRACTION.sub(_fraction, text)
        text = _ROOT.sub(lambda m: "√" + _grouped(m[1] if m[1] is not None else m[2]), text)
        text = _STYLE.sub(r"\1", text)
        text = _ACCENT.sub(_accented, text)
        text = _BRACED_SCRIPT.sub(_script, text)
        if text == previous:  # a plain group's braces go last: "\\mathtt{x}" needs its own
            text = _GROUP.sub(r"\1", text)
            if text == previous:
                break
    text = _SCRIPT.sub(_script, _ACCENT.sub(_accented, text))
    if _FAILED in text or any(c in text for c in "\\{}_^&$="):
        return None
    text = _INNER_SPACE.sub("", " ".join(unicodedata.normalize("NFC", text).split()))
    text = _RELATION.sub(r" \1 ", text).strip()
    if not text or len(text) > _MAX_LENGTH or len(text.split()) > _MAX_WORDS:
        return None
    return text


def _double_struck(match: re.Match[str]) -> str:
    """Return \\mathbb{X} as its letter: ℝ, ℕ, 𝔼."""
    letter = match[1]
    for name in (f"DOUBLE-STRUCK CAPITAL {letter}", f"MATHEMATICAL DOUBLE-STRUCK CAPITAL {letter.upper()}"):
        try:
            return unicodedata.lookup(name)
        except KeyError:
            continue
    return letter


def _command(match: re.Match[str]) -> str:
    """Return a command without an argument as text: a symbol, an operator's name, or nothing."""
    name = match[1]
    if name in _WITH_ARGUMENT:
        return match[0]  # the loop takes it with its argument
    if name in _SILENT:
        return ""
    if name in _OPERATORS:
        return f" {name} "
    code = convert_symbol("\\" + name)
    if code is None:
        return _FAILED  # a macro of the paper's own, or a construct no title holds
    char = chr(int(code, 16))
    return {"ϵ": "ε", "∣": "|"}.get(char, char)  # titles write the usual epsilon


def _escaped(match: re.Match[str]) -> str:
    """Return an escaped character as text: \\% -> %, \\, -> a space, \\| -> ‖; braces and breaks fail."""
    char = match[1]
    return " " if char in ",;: !>" else {"|": "‖", "%": "%", "#": "#"}.get(char, _FAILED)


def _grouped(text: str) -> str:
    """Return text as one term: "(n+1)" where it has an operator or a space, else as it is."""
    text = text.strip()
    return f"({text})" if len(text) > 1 and any(c in text for c in " +-−·×/") else text


def _fraction(match: re.Match[str]) -> str:
    return f"{_grouped(match[1])}/{_grouped(match[2])}"


def _accented(match: re.Match[str]) -> str:
    """Return one letter with its accent (\\tilde{O} -> Õ), or a longer argument as it is."""
    body = match[2] if match[2] is not None else match[3]
    return body + _ACCENTS[match[1]] if len(body.strip()) == 1 else body


def _script(match: re.Match[str]) -> str:
    """Return a subscript or superscript as a title writes it: ℓ1, x₊₁, n², n²⁄³; else the failure mark."""
    body = "".join(match[2].split())
    if match[1] == "_":
        if _PLAIN_SUBSCRIPT.fullmatch(body):
            return body
        table = _SUBSCRIPTS
    else:
        table = _SUPERSCRIPTS
    return "".join(table.get(c, _FAILED) for c in body) if body else _FAILED
