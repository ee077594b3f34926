"""A catalog of new abstracts recombined from the sentences of real ones (../shared/real-dev/).

    .venv/bin/python benchmarks/realtext.py                   # distinct terms at 1k, 10k, 20k, 50k
    .venv/bin/python benchmarks/realtext.py --write FOLDER --papers 20000

The real abstracts (2,983 from ICML and NeurIPS 2020) are split into sentences. Each new abstract
takes its sentence count from a real abstract drawn at random, its first sentence from the real
first sentences, its last from the real last ones and the rest from the middle ones, each from
another real abstract. A name that only one real abstract uses is that paper's method name: in a
new abstract it becomes the new paper's own coined name (CamelCase, a stem and a suffix, or an
acronym), and an abstract without one gets its name beside its first method noun. So that the
number of distinct terms keeps growing with the catalog, as real catalogs' do (Heaps' law) and as
sentences drawn again and again from 2,983 abstracts would not: a share of the longer words
becomes a derived word (a prefixed or compounded variant), a new one whenever the catalog's
distinct terms fall below real-dev's own growth curve extrapolated to the catalog's size, else a
variant of that word used before. Deterministic for a seed. The listings look like the real ones
("ICML 2021 Papers"); paper i is in the file of VENUES[i % 5], as in search_index.py.
"""

from __future__ import annotations

import argparse
import bisect
import functools
import math
import os
import random
import re
import statistics
import subprocess
import tempfile
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REAL_DEV_ENV = "PAPERCAT_REAL_DEV"
VENUES = ("ICML 2021", "NeurIPS 2021", "ICLR 2022", "ICML 2022", "NeurIPS 2022")
SEED = 20260301
DERIVED_SHARE = 0.06  # of the words of 6+ letters: room to follow the growth curve up to 50,000 papers
SLOT = re.compile(r"(?<![\w\\{$-])[a-z]{6,}(?![\w}$-])")  # a plain lower-case word, outside TeX and compounds
WORD = re.compile(r"[A-Za-z0-9_][\w.+-]*[\w+]|\w")  # lunrjs_reference.js's words
NAME = re.compile(r"[a-z].*[A-Z]|[A-Z]{2,}[a-z]|[A-Z][a-z]+[A-Z]")  # mixed case: a coined name
TERM = re.compile(r"[\s\-]+")  # lunr.js's default separator
METHOD_NOUN = re.compile(
    r"\b(?:method|approach|framework|algorithm|model|architecture|technique|estimator)\b")
ABBREVIATIONS = frozenset(
    "e.g. i.e. et al. cf. vs. etc. resp. w.r.t. a.k.a. fig. eq. sec. approx. no.".split())
NEAR = 40  # a sentence is drawn from the 2 * NEAR of its pool closest in length to the real one it stands for
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z{\\$\"'(])")
PREFIXES = ("re", "non", "multi", "meta", "hyper", "sub", "co", "pre", "semi", "inter", "counter",
            "over", "under", "auto", "poly", "pseudo", "quasi", "proto", "neuro", "cross")
SUFFIXES = ("Net", "Former", "GAN", "Flow", "Diff", "RL", "Opt", "Quant", "Agent", "BERT", "Match",
            "Mix", "Prune", "Shift", "Bench", "Rank", "Fuse", "Tune")
CAPITALS = "ABCDEFGHKLMNPRSTVWXZ"


class RealDevMissing(SystemExit):
    """The real abstracts are not where they were looked for."""


@dataclass(frozen=True)
class Sentence:
    """One real sentence and what the generator may change in it."""
    text: str
    terms: frozenset[str]  # its distinct terms, as term_set counts them
    slots: tuple[tuple[int, int], ...]  # spans of words that may become derived words
    names: tuple[tuple[int, int], ...]  # spans of its abstract's own method names


@dataclass(frozen=True)
class Pool:
    """The real sentences of one position in their abstracts (first, middle, last), shortest first."""
    sentences: tuple[Sentence, ...]
    lengths: tuple[int, ...]  # of each sentence, in characters
    abstracts: tuple[int, ...]  # the number of each sentence's real abstract


@dataclass(frozen=True)
class Source:
    """The real abstracts, split into sentences by position, and their vocabulary's growth."""
    abstracts: int
    templates: tuple[tuple[int, ...], ...]  # each real abstract's sentence lengths
    first: Pool
    middle: Pool
    last: Pool
    words: tuple[str, ...]  # words of 4+ letters, the stems of coined names and compounds
    distinct: int  # distinct terms of all the real abstracts
    heaps_beta: float  # distinct terms grow as papers ** heaps_beta within real-dev


def find_real_dev(given: Path | None = None) -> Path:
    """Return the real-dev folder: ``given``, $PAPERCAT_REAL_DEV, or ../shared/real-dev of the checkout."""
    named = given or (Path(os.environ[REAL_DEV_ENV]) if os.environ.get(REAL_DEV_ENV) else None)
    candidates = [named] if named else []
    if not candidates:
        candidates = [ROOT.parent / "shared" / "real-dev"]
        main = _main_checkout()
        if main is not None and main != ROOT:  # a git worktree: the main checkout's neighbour
            candidates.append(main.parent / "shared" / "real-dev")
    for folder in candidates:
        if (folder / "listings").is_dir() and any((folder / "listings").glob("*.txt")):
            return folder
    raise RealDevMissing(f"real-dev abstracts not found: looked for listings/*.txt in "
                         f"{', '.join(str(c) for c in candidates)}; expected the folder of real abstracts "
                         f"(../shared/real-dev from the checkout), or give it with --real-dev or "
                         f"${REAL_DEV_ENV}")


def _main_checkout() -> Path | None:
    """Return the main checkout of the repository this file is in (itself, outside a worktree)."""
    try:
        done = subprocess.run(["git", "rev-parse", "--path-format=absolute", "--git-common-dir"], cwd=ROOT,
                              capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return Path(done.stdout.strip()).parent


def read_abstracts(folder: Path) -> list[str]:
    """Return the abstracts of every listing in ``folder``/listings, in file order."""
    abstracts = []
    for path in sorted((folder / "listings").glob("*.txt")):
        _, *blocks = re.split(r"\n[ \t]*\n", path.read_text(encoding="utf-8").strip())
        abstracts += [" ".join(block.split()) for block in blocks if block.strip()]
    return abstracts


def split_sentences(abstract: str) -> list[str]:
    """Split an abstract at sentence ends, not after an abbreviation nor inside $...$."""
    sentences, start = [], 0
    for end in SENTENCE_END.finditer(abstract):
        before = abstract[start:end.start()]
        last_word = before.rsplit(" ", 1)[-1].lower()
        if last_word in ABBREVIATIONS or before.count("$") % 2 or re.fullmatch(r"[A-Z]\.", last_word.upper()):
            continue
        sentences.append(before)
        start = end.end()
    return sentences + [abstract[start:]]


def term_set(text: str) -> set[str]:
    """Return the distinct terms of a text: lower-cased words split as lunr.js splits, punctuation trimmed."""
    trimmed = (re.sub(r"^\W+|\W+$", "", word) for word in TERM.split(text.lower()))
    return {word for word in trimmed if word}


def distinct_terms(texts: Iterable[str]) -> int:
    """Return how many distinct terms the texts hold together."""
    seen: set[str] = set()
    for text in texts:
        seen |= term_set(text)
    return len(seen)


def heaps_beta(abstracts: list[str]) -> float:
    """Return the slope of log distinct terms over log papers, within ``abstracts`` in a shuffled order."""
    order = abstracts[:]
    random.Random(0).shuffle(order)
    seen: set[str] = set()
    points = []
    step = min(50, max(1, len(order) // 20))
    for n, text in enumerate(order, 1):
        seen |= term_set(text)
        if n >= len(order) // 10 and n % step == 0:
            points.append((math.log(n), math.log(len(seen))))
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    return (sum((x - mean_x) * (y - mean_y) for x, y in points)
            / sum((x - mean_x) ** 2 for x, _ in points))


def own_names(abstracts: list[str]) -> set[str]:
    """Return the mixed-case names that one real abstract alone uses: its method's names."""
    used_by = Counter(name for text in abstracts for name in set(WORD.findall(text))
                      if len(name) >= 3 and NAME.search(name))
    return {name for name, count in used_by.items() if count == 1}


@functools.lru_cache(maxsize=2)  # the benchmark makes several catalogs of the same abstracts
def load_source(folder: Path) -> Source:
    """Read and split the real abstracts of ``folder``."""
    abstracts = read_abstracts(folder)
    names = own_names(abstracts)
    pools: dict[str, list[tuple[int, int, Sentence]]] = {"first": [], "middle": [], "last": []}
    templates = []
    for number, abstract in enumerate(abstracts):
        sentences = split_sentences(abstract)
        templates.append(tuple(len(text) for text in sentences))
        for position, text in enumerate(sentences):
            pool = "first" if position == 0 else "last" if position == len(sentences) - 1 else "middle"
            pools[pool].append((len(text), number, _sentence(text, names)))
    words = sorted({w for text in abstracts for w in re.findall(r"\b[a-z]{4,}\b", text)})
    first, middle, last = (_pool(pools[p]) for p in ("first", "middle", "last"))
    return Source(len(abstracts), tuple(templates), first, middle, last, tuple(words),
                  distinct_terms(abstracts), heaps_beta(abstracts))


def _pool(found: list[tuple[int, int, Sentence]]) -> Pool:
    found.sort(key=lambda item: (item[0], item[1], item[2].text))
    return Pool(tuple(s for _, _, s in found), tuple(n for n, _, _ in found), tuple(a for _, a, _ in found))


def _sentence(text: str, names: set[str]) -> Sentence:
    named = tuple(m.span() for m in WORD.finditer(text) if m.group() in names)
    slots = tuple(m.span() for m in SLOT.finditer(text) if not any(a <= m.start() < b for a, b in named))
    return Sentence(text, frozenset(term_set(text)), slots, named)


class Generator:
    """Make new abstracts one after another; the vocabulary grows with the papers made."""

    def __init__(self, source: Source, seed: int = SEED) -> None:
        self.source = source
        self.rng = random.Random(seed)
        self.papers = 0
        self.seen: set[str] = set()  # the distinct terms of the abstracts made so far
        self.names: set[str] = set()
        self.variants: dict[str, list[str]] = {}  # a real word -> the derived words used for it, repeated
        self.known = set(source.words)

    def target(self) -> float:
        """Return the distinct terms real-dev's growth curve gives at this many papers."""
        return self.source.distinct * (self.papers / self.source.abstracts) ** self.source.heaps_beta

    def abstract(self) -> str:
        """Return one new abstract."""
        self.papers += 1
        name = self.coin_name()
        template = self.source.templates[self.rng.randrange(len(self.source.templates))]
        count = len(template)
        pools = [self.source.first] + [self.source.middle] * (count - 2) + [self.source.last] * (count > 1)
        used: set[int] = set()
        texts = [self._rewrite(self._draw(pool, length, used), name) for pool, length in zip(pools, template)]
        text = " ".join(texts)
        if name not in text:
            text = self._beside_method_noun(text, name)
        self.seen |= term_set(name)
        return text

    def _draw(self, pool: Pool, length: int, used: set[int]) -> Sentence:
        """Draw a sentence of about ``length`` characters from a real abstract not yet drawn from."""
        middle = bisect.bisect_left(pool.lengths, length)
        low, high = max(0, middle - NEAR), min(len(pool.lengths), middle + NEAR)
        for _ in range(100):  # a tiny source may have no sentence from another abstract: then any
            index = self.rng.randrange(low, high)
            if pool.abstracts[index] not in used:
                break
        used.add(pool.abstracts[index])
        return pool.sentences[index]

    def _rewrite(self, sentence: Sentence, name: str) -> str:
        """Return the sentence with its own names replaced by ``name`` and some words derived."""
        changes = [(span, name) for span in sentence.names]
        changes += [(span, self._derived(sentence.text[span[0]:span[1]]))
                    for span in sentence.slots if self.rng.random() < DERIVED_SHARE]
        self.seen |= sentence.terms
        text = sentence.text
        for (start, end), new in sorted(changes, reverse=True):
            text = text[:start] + new + text[end:]
        return text

    def _derived(self, word: str) -> str:
        """Return a new derived word while the catalog is below the growth curve, else one used before."""
        if len(self.seen) < self.target():
            new = self._new_word(word)
            self.variants.setdefault(word, []).append(new)
            self.seen.add(new)
            return new
        before = self.variants.get(word)
        # Drawn by how often each was used: the common ones get commoner, as words do.
        return self.rng.choice(before) if before else word

    def _new_word(self, word: str) -> str:
        """Return a prefixed or compounded variant of ``word`` that no text has used."""
        while True:
            if self.rng.random() < 0.5:
                new = self.rng.choice(PREFIXES) + word
            else:
                stem = self.rng.choice(self.source.words)
                new = stem[:self.rng.randint(4, 6)] + word
            if new not in self.known:
                self.known.add(new)
                return new

    def coin_name(self) -> str:
        """Return a method name no paper has used: GraphMix-, SparseFormer- or KLAR-like."""
        while True:
            stem = lambda: self.rng.choice(self.source.words)[:self.rng.randint(3, 6)].capitalize()
            style = self.rng.random()
            if style < 0.35:
                name = stem() + stem()
            elif style < 0.75:
                name = stem() + self.rng.choice(SUFFIXES)
            else:
                name = "".join(self.rng.choice(CAPITALS) for _ in range(self.rng.randint(3, 5)))
                ending = ("", "", f"-{self.rng.randint(2, 9)}", self.rng.choice(SUFFIXES))
                name += self.rng.choice(ending)
            if name not in self.names and (NAME.search(name) or name.isupper()):
                self.names.add(name)
                return name

    @staticmethod
    def _beside_method_noun(text: str, name: str) -> str:
        """Put ``name`` in brackets after the first method noun, or say it in a last sentence."""
        match = METHOD_NOUN.search(text)
        if match is None:
            return f"{text} We call the method {name}."
        return f"{text[:match.end()]} ({name}){text[match.end():]}"


def make_abstracts(papers: int, real_dev: Path | None = None, seed: int = SEED) -> list[str]:
    """Return ``papers`` new abstracts made from the real-dev sentences."""
    generator = Generator(load_source(find_real_dev(real_dev)), seed)
    return [generator.abstract() for _ in range(papers)]


def make_listings(folder: Path, papers: int, real_dev: Path | None = None, seed: int = SEED) -> None:
    """Write ``papers`` new abstracts as listings, paper i in the file of VENUES[i % 5], and topics.yaml."""
    abstracts = make_abstracts(papers, real_dev, seed)
    (folder / "listings").mkdir(parents=True)
    for v, venue in enumerate(VENUES):
        body = f"{venue} Papers\n\n" + "\n\n".join(abstracts[v::len(VENUES)]) + "\n"
        (folder / "listings" / f"{venue.replace(' ', '_')}.txt").write_text(body, encoding="utf-8")
    (folder / "topics.yaml").write_bytes((ROOT / "content" / "topics.yaml").read_bytes())


def growth_rows(sizes: list[int], real_dev: Path | None = None) -> list[dict]:
    """Return the distinct terms of both catalogs at each size, rows for build_report.vocabulary_table."""
    from search_index import make_listings as synthetic_listings  # it imports papercat: only here

    source = load_source(find_real_dev(real_dev))
    rows = []
    with tempfile.TemporaryDirectory(prefix="papercat-vocabulary-") as tmp:
        for size in sizes:
            synthetic_listings(Path(tmp) / str(size), size)
            rows.append({"text": "synthetic", "papers": size,
                         "distinct_terms": distinct_terms(read_abstracts(Path(tmp) / str(size)))})
    generator, seen = Generator(source), set()
    for size in sizes:
        while generator.papers < size:
            seen |= term_set(generator.abstract())
        rows.append({"text": "real", "papers": size, "distinct_terms": len(seen)})
    rows[0]["real_dev"] = {"papers": source.abstracts, "distinct_terms": source.distinct,
                           "heaps_beta": source.heaps_beta}
    return rows


def length_quartiles(abstracts: list[str]) -> list[int]:
    """Return the quartiles of the abstracts' lengths in characters."""
    return [round(q) for q in statistics.quantiles([len(a) for a in abstracts], n=4)]


def main() -> None:
    """Print the vocabularies' growth, or write one real-text catalog."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 20000, 50000],
                        help="catalog sizes at which to count distinct terms (default: 1k 10k 20k 50k)")
    parser.add_argument("--real-dev", type=Path, metavar="FOLDER",
                        help=f"the real abstracts (default: ${REAL_DEV_ENV}, else ../shared/real-dev)")
    parser.add_argument("--write", type=Path, metavar="FOLDER",
                        help="write a content folder of --papers papers")
    parser.add_argument("--papers", type=int, default=1000, help="papers to write (default: 1000)")
    parser.add_argument("--seed", type=int, default=SEED, help=f"the generator's seed (default: {SEED})")
    args = parser.parse_args()
    if args.write:
        make_listings(args.write, args.papers, args.real_dev, args.seed)
        return
    from build_report import vocabulary_table

    real = read_abstracts(find_real_dev(args.real_dev))
    made = make_abstracts(len(real), args.real_dev, args.seed)
    print(vocabulary_table(growth_rows(sorted(args.sizes), args.real_dev)))
    print(f"\nCharacters per abstract, quartiles: real-dev {length_quartiles(real)}, "
          f"the real catalog at {len(made):,} papers {length_quartiles(made)}.")


if __name__ == "__main__":
    main()
