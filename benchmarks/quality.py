"""Measure what papercat derives from real abstracts against their real titles (issue 31's figures).

    .venv/bin/python benchmarks/quality.py                  # ../shared/real-dev, every paper
    .venv/bin/python benchmarks/quality.py --limit 500      # the first 500 of each listing
    .venv/bin/python benchmarks/quality.py --show titles    # print each derived title beside the real one

The real-dev folder holds real listings and each paper's real title (titles.json). The listings are
read and enriched by papercat's own reader and enricher, with the bundled topics.yaml, and each
paper's derived title, topics and keyphrases are compared with its real title:

- **name recall**: of the papers whose real title names the paper (the head of "Name: ...", or a
  coined first word such as "GraphNorm") where the abstract contains that name, the share whose
  derived title holds it;
- **ROUGE-L**: F1 of the longest common word subsequence with the real title (beside two
  references: the abstract's first 12 words, and its best 6-12-word window, which no title rule
  can beat);
- **broken**: titles with a word found nowhere in the abstract and made by no regular rewrite
  ("naturallying", "networkss"), or an article before a function word ("an and flexible");
- **debris**: titles starting with punctuation, holding markup or identifiers ("_", "\\", "=",
  braces), or unbalanced brackets;
- **short** (under four words), **sentence-like** (a finite verb or "we" outside the name), and
  **dangling** ("their", "its", "this" and the like pointing outside the title), each beside the
  same figure for the real titles;
- **topics**: the share of papers only in Other, and for each topic the share of the papers whose
  real title holds one of its distinctive phrases (weight 2.5 or more) that the topic got: a proxy
  for recall against author keywords, which real-dev lacks;
- **math**: the share of the abstracts' math expressions shown as source.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from realtext import find_real_dev  # noqa: E402

from papercat.catalog import make_catalog  # noqa: E402
from papercat.content.folder import read_content  # noqa: E402
from papercat.model import Catalog, Paper  # noqa: E402

_WORDS = re.compile(r"[a-z0-9]+")
_LETTERS = re.compile(r"[a-z]+")
_FUNCTION = frozenset("a an the and or of for in on to with by from via as at into over under is are be "
                      "its their this that these those we our it not no".split())
_ARTICLE_BEFORE_FUNCTION = re.compile(r"\b(?:a|an|the)\s+(?:and|or|to|of|for|in|on|with|by|is|are|that|which|"
                                      r"the|a|an)\b", re.IGNORECASE)
_DEBRIS = re.compile(r"^[^\w\"“'(]|[_\\{}$^=]|\s/|/\s|^paper \d+$", re.IGNORECASE)
_FINITE = frozenset("is are was were has have had can could will would should may might does do did we our "
                    "us".split())
_DANGLING = frozenset("their its this these those they it them".split())
_COINED = re.compile(r"^(?=[\w-]*[A-Z][\w-]*[A-Z]|[\w-]*(?:[A-Za-z]\d|\d[A-Za-z]))[\w-]+$")


@dataclass(frozen=True)
class Judged:
    """One paper: its derived and real titles and the abstract they come from."""

    paper: Paper
    real: str


def load(folder: Path, limit: int | None) -> tuple[Catalog, list[Judged], str]:
    """Read and enrich real-dev's listings (the first ``limit`` papers of each); return the catalog, each
    paper beside its real title, and the bundled taxonomy's path."""
    titles = {(t["file"], t["line"]): t["title"] for t in json.loads((folder / "titles.json").read_text())}
    with tempfile.TemporaryDirectory() as scratch:
        content = Path(scratch)
        (content / "listings").mkdir()
        for name in ("site.yaml", "topics.yaml"):
            shutil.copy(ROOT / "content" / name, content / name)
        for listing in sorted((folder / "listings").glob("*.txt")):
            (content / "listings" / listing.name).write_text(_first(listing.read_text(), limit))
        loaded, _ = read_content(content)
        catalog, _ = make_catalog(list(loaded.listings), loaded.taxonomy)
    judged = [Judged(p, titles[(Path(p.source.path).name, p.source.line)]) for p in catalog.papers
              if (Path(p.source.path).name, p.source.line) in titles]
    return catalog, judged, str(ROOT / "content" / "topics.yaml")


def _first(text: str, limit: int | None) -> str:
    """Return a listing with only its first ``limit`` abstracts (all of them for None)."""
    if limit is None:
        return text
    head, *abstracts = text.split("\n\n")
    return "\n\n".join([head, *abstracts[:limit]]) + "\n"


def own_name(real: str, abstract: str) -> str | None:
    """Return the name a real title gives its paper, where the abstract holds it too."""
    head, colon, _ = real.partition(":")
    first = real.split()[0].strip(",.?!") if real.split() else ""
    name = head.strip() if colon and len(head.split()) <= 4 else first if _COINED.match(first) else ""
    return name if name and _holds(abstract, name) else None


def _holds(text: str, name: str) -> bool:
    return re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", text) is not None


def rouge_l(derived: str, real: str) -> float:
    """Return ROUGE-L's F1 of two texts' lowercase words."""
    a, b = _WORDS.findall(derived.lower()), _WORDS.findall(real.lower())
    if not a or not b:
        return 0.0
    lcs = _lcs(a, b)
    return 0.0 if lcs == 0 else 2 * lcs / (len(a) + len(b))


def _lcs(a: list[str], b: list[str]) -> int:
    row = [0] * (len(b) + 1)
    for x in a:
        previous = 0
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], previous + 1 if x == y else max(row[j], row[j - 1])
    return row[-1]


def best_window(abstract: str, real: str) -> float:
    """Return the best ROUGE-L of any 6-12-word window of the abstract: what a title cut from it could reach."""
    words = abstract.split()[:400]
    return max((rouge_l(" ".join(words[i:i + n]), real) for n in range(6, 13)
                for i in range(0, max(1, len(words) - n + 1))), default=0.0)


def is_broken(title: str, abstract: str) -> bool:
    """Return whether a title has a word no regular rewrite of the abstract makes, or an article
    before a function word."""
    seen = set(_LETTERS.findall(_plain(abstract)))
    return bool(_ARTICLE_BEFORE_FUNCTION.search(title)) or any(
        not _made_from(w, seen) for w in _LETTERS.findall(_plain(title)) if len(w) >= 3)


def _plain(text: str) -> str:
    """Return text lowercased, without LaTeX commands, braces or accents ("\\textbf{L}ow" -> "low")."""
    text = re.sub(r"\\[A-Za-z]+|[{}]", "", text)
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)).lower()


def _made_from(word: str, seen: set[str]) -> bool:
    """Return whether ``word`` is in the abstract, a function word, or a regular form of an abstract's word:
    its plural or singular, or the -ing form of a verb the abstract uses ("studies" -> "studying")."""
    if word in seen or word in _FUNCTION:
        return True
    if any(form in seen for form in _numbers(word)):
        return True
    if word.endswith("ing") and len(word) >= 5:
        stem = word[:-3]
        verbs = {stem, stem + "e", stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else ""} - {""}
        forms = {f for v in verbs for f in (v, v + "s", v + "ed", v + "d", v + "es", v[:-1] + "ies", v[:-1] + "ied")}
        return not stem.endswith(("ly", "ing")) and not forms.isdisjoint(seen)
    return False


def _numbers(word: str) -> set[str]:
    """Return the singular and plural forms a word may stand for."""
    forms = {word + "s", word + "es"}
    if word.endswith("ies"):
        forms.add(word[:-3] + "y")
    if word.endswith("es"):
        forms.add(word[:-2])
    if word.endswith("s"):
        forms.add(word[:-1])
    return forms


def is_debris(title: str) -> bool:
    return bool(_DEBRIS.search(title)) or any(title.count(o) != title.count(c) for o, c in ("()", "[]"))


def body(title: str) -> list[str]:
    """Return the words of a title outside its "Name:" head."""
    head, colon, rest = title.partition(":")
    return _LETTERS.findall((rest if colon and len(head.split()) <= 4 else title).lower())


def is_sentence_like(title: str) -> bool:
    return not _FINITE.isdisjoint(body(title))


def is_dangling(title: str) -> bool:
    return not _DANGLING.isdisjoint(body(title))


def share(flags: list[bool]) -> float:
    return sum(flags) / len(flags) if flags else 0.0


def title_figures(judged: list[Judged], windows: bool) -> dict[str, float]:
    """Return the title figures of the papers (``windows``: also the best-window ROUGE-L, which is slow)."""
    named = [(j, n) for j in judged if (n := own_name(j.real, j.paper.text))]
    titles = [j.paper.title for j in judged]
    counts = Counter(t.casefold() for t in titles)
    figures = {
        "papers": len(judged),
        "named papers": len(named),
        "name recall": share([_holds(j.paper.title, n) for j, n in named]),
        "ROUGE-L": sum(rouge_l(j.paper.title, j.real) for j in judged) / len(judged),
        "ROUGE-L, first 12 words": sum(rouge_l(" ".join(j.paper.text.split()[:12]), j.real)
                                       for j in judged) / len(judged),
        "broken": share([is_broken(t, j.paper.text) for t, j in zip(titles, judged)]),
        "debris": share([is_debris(t) for t in titles]),
        "under four words": share([len(t.split()) < 4 for t in titles]),
        "under four words, real": share([len(j.real.split()) < 4 for j in judged]),
        "sentence-like": share([is_sentence_like(t) for t in titles]),
        "sentence-like, real": share([is_sentence_like(j.real) for j in judged]),
        "dangling": share([is_dangling(t) for t in titles]),
        "dangling, real": share([is_dangling(j.real) for j in judged]),
        "papers sharing a title": sum(n for n in counts.values() if n > 1),
    }
    if windows:
        figures["ROUGE-L, best window"] = sum(best_window(j.paper.text, j.real) for j in judged) / len(judged)
    return figures


def topic_figures(catalog: Catalog, judged: list[Judged]) -> dict[str, float]:
    """Return the share of papers only in Other, and each topic's recall by its phrases in real titles."""
    discovered = {t.slug for t in catalog.topics if t.discovered}
    figures = {"only in Other": share([p.topic_slugs == ("other",) for p in catalog.papers]),
               "in no taxonomy topic": share([set(p.topic_slugs) <= discovered | {"other"} for p in catalog.papers]),
               "discovered topics": len(discovered),
               "papers in a discovered topic": sum(bool(discovered & set(p.topic_slugs)) for p in catalog.papers)}
    for topic in catalog.topics:
        phrases = [k for k, weight in topic.keywords if weight >= 2.5]
        hit = [j for j in judged if any(_holds(j.real.lower().replace("-", " "), k.replace("-", " "))
                                        for k in phrases)]
        if len(hit) >= 10:
            figures[f"recall, {topic.name} ({len(hit)})"] = share([topic.slug in j.paper.topic_slugs for j in hit])
    return figures


def math_figures(catalog: Catalog) -> dict[str, float]:
    """Return how many math expressions the abstracts hold and the share shown as source."""
    rendered = sum(p.html.count("<math") for p in catalog.papers)
    source = sum(p.html.count("<code>$") for p in catalog.papers)
    return {"math expressions": rendered + source, "math shown as source": source / max(1, rendered + source)}


def keyphrase_figures(catalog: Catalog) -> dict[str, float]:
    """Return the share of keyphrases of one word, of those no abstract word-for-word holds, of lone tail
    words (a one-word keyphrase ending another of the paper's), of names the abstract only compares with,
    and of phrases with a word that looks like a typo of a common one."""
    phrases = [(k, p) for p in catalog.papers for k in p.keyphrases]
    frequency = Counter(w for p in catalog.papers for w in set(_LETTERS.findall(p.text.lower())))
    return {"keyphrases": len(phrases),
            "one-word keyphrases": share([" " not in k for k, _ in phrases]),
            "keyphrases not in their abstract": share([k.lower() not in p.text.lower() for k, p in phrases]),
            "lone tail words": share([_is_lone_tail(k, p.keyphrases) for k, p in phrases]),
            "names only compared with": share([_only_compared(k, p.text) for k, p in phrases]),
            "likely typos": share([any(_looks_like_typo(w, frequency) for w in _LETTERS.findall(k.lower()))
                                   for k, _ in phrases])}


_COMPARED = re.compile(r"\b(?:than|over|against|versus|vs\.?|outperform\w*|beat\w*|surpass\w*|compared (?:to|with)|"
                       r"baselines?|unlike|prior|existing|previous|competing|such as|e\.g\.,?|including|like)\s+"
                       r"(?:the\s+)?(?:[\w-]+(?:,| and| or)\s+){0,4}$", re.IGNORECASE)


def _is_lone_tail(keyphrase: str, keyphrases: tuple[str, ...]) -> bool:
    lower = keyphrase.lower()
    return " " not in lower and any(o.lower().endswith(" " + lower) for o in keyphrases)


def _only_compared(keyphrase: str, text: str) -> bool:
    """Return whether a one-word name ("DQN") is used only after words that compare with it."""
    if " " in keyphrase or keyphrase.islower():
        return False
    uses = [m.start() for m in re.finditer(rf"(?<![\w-]){re.escape(keyphrase)}s?(?![\w-])", text)]
    return bool(uses) and all(_COMPARED.search(text[max(0, at - 60):at]) for at in uses)


def _looks_like_typo(word: str, frequency: Counter[str]) -> bool:
    """Return whether a word of one abstract is a common word with a letter left out, added or swapped
    inside it ("quantifcation", "coorperative", "quantizatoin"), not at its end, where suffixes differ."""
    if len(word) < 7 or frequency[word] > 1:
        return False
    inner = range(1, len(word) - 2)
    near = {word[:i] + word[i + 1:] for i in inner} | {word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in inner}
    near |= {word[:i] + c + word[i:] for i in inner for c in "abcdefghijklmnopqrstuvwxyz"}
    return any(frequency[n] >= 10 for n in near - {word})


def all_figures(catalog: Catalog, judged: list[Judged], windows: bool = False) -> dict[str, float]:
    """Return every figure, by name (``windows``: with the best-window reference, slow on many papers)."""
    return {**title_figures(judged, windows), **topic_figures(catalog, judged), **math_figures(catalog),
            **keyphrase_figures(catalog)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--real-dev", type=Path, help="the real-dev folder (default: ../shared/real-dev)")
    parser.add_argument("--limit", type=int, help="only the first LIMIT papers of each listing")
    parser.add_argument("--show", choices=["titles", "other", "names", "discovered"],
                        help="also print each derived title beside the real one, the papers only in Other, "
                             "the named papers whose title misses the name, or each discovered topic's papers")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    catalog, judged, _ = load(find_real_dev(args.real_dev), args.limit)
    figures = all_figures(catalog, judged, windows=args.limit is not None and args.limit <= 300)
    for name, value in figures.items():
        print(f"{name:55} {value:8.4f}" if isinstance(value, float) else f"{name:55} {value:8,}")
    _show(args.show, catalog, judged)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")


def _show(what: str | None, catalog: Catalog, judged: list[Judged]) -> None:
    if what == "titles":
        for j in judged:
            print(f"{j.paper.title}\n    real: {j.real}")
    elif what == "other":
        for p in catalog.papers:
            if p.topic_slugs == ("other",):
                print(f"{p.title}  |  {', '.join(p.keyphrases[:5])}")
    elif what == "discovered":
        for topic in (t for t in catalog.topics if t.discovered):
            print(f"{topic.name}: {topic.description}")
            for p in catalog.papers:
                if topic.slug in p.topic_slugs:
                    print(f"    {p.title}")
    elif what == "names":
        for j in judged:
            name = own_name(j.real, j.paper.text)
            if name and not _holds(j.paper.title, name):
                print(f"{name:20} {j.paper.title}\n{'':20} real: {j.real}")


if __name__ == "__main__":
    main()
