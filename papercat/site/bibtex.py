"""Write a BibTeX entry for a paper: escaped so that no title or name can break the file."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from urllib.parse import quote, urlsplit

__all__ = ["bibtex_entry", "booktitle", "citation_key"]

# The names proceedings go by; a venue not listed here is cited by its own name.
BOOKTITLES = {
    "ICML": "Proceedings of the International Conference on Machine Learning (ICML)",
    "ICLR": "International Conference on Learning Representations (ICLR)",  # OpenReview, no proceedings
    "NeurIPS": "Advances in Neural Information Processing Systems (NeurIPS)",
    "ACL": "Proceedings of the Annual Meeting of the Association for Computational Linguistics (ACL)",
    "EMNLP": "Proceedings of the Conference on Empirical Methods in Natural Language Processing (EMNLP)",
    "NAACL": "Proceedings of the Conference of the North American Chapter of the Association for "
             "Computational Linguistics (NAACL)",
    "CVPR": "Proceedings of the IEEE/CVF Conference on Computer Vision and Pattern Recognition (CVPR)",
    "ICCV": "Proceedings of the IEEE/CVF International Conference on Computer Vision (ICCV)",
    "ECCV": "Proceedings of the European Conference on Computer Vision (ECCV)",
    "AAAI": "Proceedings of the AAAI Conference on Artificial Intelligence (AAAI)",
    "IJCAI": "Proceedings of the International Joint Conference on Artificial Intelligence (IJCAI)",
    "KDD": "Proceedings of the ACM SIGKDD Conference on Knowledge Discovery and Data Mining (KDD)",
    "COLM": "Conference on Language Modeling (COLM)",
    "AISTATS": "Proceedings of the International Conference on Artificial Intelligence and Statistics "
               "(AISTATS)",
    "UAI": "Proceedings of the Conference on Uncertainty in Artificial Intelligence (UAI)",
    "COLT": "Proceedings of the Conference on Learning Theory (COLT)",
}
_BY_FOLDED = {name.casefold(): title for name, title in BOOKTITLES.items()} | {"nips": BOOKTITLES["NeurIPS"]}

# BibTeX counts braces even after a backslash, so "\{" would unbalance a field: use text commands.
_ESCAPES = {"\\": r"\textbackslash{}", "{": r"\textbraceleft{}", "}": r"\textbraceright{}",
            "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
            "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
_SPECIAL = re.compile(r"[\\{}&%$#_~^]")
_WORD = re.compile(r"[^\W_](?:[^\W_]|-)*")  # letters and digits, hyphenated parts kept together
# Letters NFKD does not take apart into an ASCII letter and an accent.
_FOLD = str.maketrans({"ß": "ss", "ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE",
                       "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "ð": "d", "þ": "th", "Þ": "TH", "ı": "i"})
# Words a citation key skips to reach the word that names the paper.
_MINOR = frozenset(["a", "an", "the", "on", "of", "for", "in", "to", "with", "and", "or", "at", "by",
                    "from", "into", "via", "towards", "toward", "is", "are", "do", "does", "can", "when",
                    "what", "why", "how", "who", "which", "your", "our", "we", "not", "beyond"])


def bibtex_entry(key_hint: str, title: str, authors: Sequence[str], year: int, venue_name: str,
                 url: str | None) -> str:
    """Return an @inproceedings entry (no trailing newline); key_hint stands in for missing authors."""
    fields = [("title", _protect(title)),
              ("author", " and ".join(_name(a) for a in authors if a.strip())),
              ("booktitle", _protect(booktitle(venue_name))),
              ("year", str(year)),
              ("url", _url(url) if url else "")]
    lines = [f"@inproceedings{{{citation_key(key_hint, title, authors, year)},"]
    lines += [f"  {name:<9} = {{{value}}}," for name, value in fields if value]
    return "\n".join(lines) + "\n}"


def booktitle(venue_name: str) -> str:
    """Return the proceedings title of a well-known venue, else the venue name itself."""
    name = " ".join(venue_name.split())
    return _BY_FOLDED.get(name.casefold(), name)


def citation_key(key_hint: str, title: str, authors: Sequence[str], year: int) -> str:
    """Return a key like zheng2025spurious: first author's surname, year, first significant title word."""
    surname = _ascii(_surname(authors[0])) if authors else ""
    who = surname or _ascii(key_hint) or "anon"
    words = [_ascii(w) for w in _WORD.findall(title) if w.casefold() not in _MINOR]
    return f"{who}{year}{next((w for w in words if w), '')}"


def _ascii(text: str) -> str:
    """Return text folded to lowercase ASCII letters and digits: "Müller" -> "muller"."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_FOLD))
    return re.sub(r"[^a-z0-9]", "", decomposed.encode("ascii", "ignore").decode().lower())


def _surname(name: str) -> str:
    """Return the family name of "First Last" or "Last, First"."""
    name = " ".join(name.split())
    if "," in name:
        return name.split(",", 1)[0]
    parts = name.split(" ")
    return parts[-1] if parts else ""


def _escape(text: str) -> str:
    """Return text with LaTeX's special characters written as commands."""
    return _SPECIAL.sub(lambda m: _ESCAPES[m[0]], text)


def _is_cased(word: str) -> bool:
    """Return whether a word's capitals are its own (GuardAgent, LLMs, GPT-4, iPhone), not sentence case."""
    for part in word.split("-"):
        upper = sum(c.isupper() for c in part)
        if upper >= 2 or (upper and (not part[0].isupper() or any(c.isdigit() for c in part))):
            return True
    return False


def _protect(text: str) -> str:
    """Escape text, bracing cased words so bibliography styles that lowercase titles keep them."""
    text = " ".join(text.split())
    out, at = [], 0
    for m in _WORD.finditer(text):
        out.append(_escape(text[at:m.start()]))
        out.append(f"{{{_escape(m[0])}}}" if _is_cased(m[0]) else _escape(m[0]))
        at = m.end()
    out.append(_escape(text[at:]))
    return "".join(out)


def _name(name: str) -> str:
    """Escape one author; an "and" or "others" inside a name must not split it into two authors."""
    escaped = _escape(" ".join(name.split()))
    if escaped.count(",") > 2 or escaped.casefold() == "others":  # BibTeX stops at "too many commas"
        return f"{{{escaped}}}"
    return re.sub(r"(?<!\S)(and)(?!\S)", r"{\1}", escaped, flags=re.IGNORECASE)


def _url(url: str) -> str:
    """Return an http(s) URL with the characters BibTeX or \\url cannot take percent-encoded; else ""."""
    if urlsplit(url.strip()).scheme.lower() not in ("http", "https"):
        return ""  # a javascript: link has no place in a citation
    return quote(url.strip(), safe="/:?#[]@!$&'()*+,;=%~-._^|")
