"""Which name an abstract gives its own work, weighed by how the abstract uses each name it holds.

An abstract names its contribution ("we call it X", "our method, X", "we propose X, a ...") and
also names what it builds on or beats ("outperforms X", "on the X dataset"). Each name the abstract
holds gets a weight from the words around each of its uses: naming and ownership count for it,
comparison, citation and data-set use count against it, and repetition as a subject adds a little.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .reading import _expansion
from .reading import _is_distinctive as _distinctive

# The same capitalised words come back in every abstract ("We", "The", "LLM").
_is_distinctive = lru_cache(maxsize=8192)(_distinctive)

# The words right before a name that say the abstract names its own work.
# Each alternative starts with a letter rather than \b, so that re looks only where such a letter stands;
# the word boundary before it is checked apart (``_starts_word``).
_NAMING = re.compile(
    r"(?:(?:called|named|termed|dubbed|titled|coined|denoted|referred to|refer to (?:it|this|them|these|"
    r"our \w+|the \w+)|(?:we|We) (?:call|name|term|dub|coin)(?: (?:it|this|them|these|our \w+|the \w+))?)"
    r"(?: as)?|hence (?:its|the) name:?)\s+(?:the\s+)?[\"“]?")
_OURS = re.compile(
    r"(?:our|Our|the proposed|The proposed|this new|This new|this novel|This novel) "
    r"(?:(?:new|novel|best|proposed|final|main) )?"
    r"(?:\w+(?:[- ]\w+)? )?(?:method|approach|model|framework|algorithm|system|architecture|measure|"
    r"technique|network|estimator|metric|benchmark|dataset|library|package|tool|procedure|scheme|objective|"
    r"loss|solver|agent|policy|module|layer|mechanism|strategy|formulation|paradigm|family|suite)s?,?"
    r"\s+(?:the\s+|called\s+|named\s+)?")
_OURS_SHORT = re.compile(r"(?:our|Our|the proposed|The proposed)(?: (?:new|novel|best|proposed))? ")
# A strong cue: "we propose X", "this paper introduces a new X"; a name may start within a few words
# of it, or after a comma, colon or "namely" later in its sentence ("we propose a method, X, that").
_PROPOSED = re.compile(r"\b(?:[Ww]e|paper|work) (?:\w+ly )?(?:propose|introduce|present|develop|design|"
                       r"release|build|create)s?\s+(?:(?:a|an|the) (?:new |novel )?)?")
_NEXT_WORDS = re.compile(r"(?:[\w-]+,? ){0,4}")
_WORD_GAP = re.compile(r"(?<=[ (])(?=\S)")
_APPOSED = re.compile(r"(?:[,:]|\bnamely|\bcalled)\s+")
_SENTENCE_ENDS = re.compile(r"[.;]\s")
# ... and the words that say a name is someone else's: compared with, run on, built on, cited.
_COMPARED = re.compile(r"\b(?:than|over|against|versus|vs\.?|such as|e\.g\.,?|like|including|unlike|"
                       r"compared (?:to|with)|outperform\w*|beat\w*|surpass\w*|baselines?|prior|existing|"
                       r"previous|popular|standard|original|on|using|use|uses|from|with|in|via|of|for|and|"
                       r"or|to|by|based on|built on|extends?|extending|variants? of)\s+(?:the\s+)?$",
                       re.IGNORECASE)
_DATA = re.compile(r"s?\s+(?:and\s+\S+\s+)?(?:data ?sets?|benchmarks?|corpus|corpora|environments?|suite|"
                   r"challenge|games?|tasks?|leaderboard)\b")
_CITED = re.compile(r"s?\s*(?:\([^()]*\d{4}[a-z]?\)|\[\d[\d,\s–-]*\])")
_SUBJECT = re.compile(r"s?\s+(?:\w+ly\s+)?(?:is|are|was|has|have|can|achieves?|outperforms?|improves?|"
                      r"yields?|provides?|learns?|uses?|enjoys?|allows?|enables?|combines?|relies|consists|"
                      r"requires?|produces?|reduces?|scales?|works?|performs?|leverages?|generalizes?|"
                      r"exceeds?|shows?)\b")
_CAPITALISED = re.compile(r"[A-Z][\w*]*(?:-[\w*]+)*(?:(?:,? and |, | (?:(?:of|to|for|the|in|with|via|on|and) )?|-)"
                          r"(?:[A-Z][\w*]*(?:-[\w*]+)*))*"
                          r"(?: (?:networks?|nets|models?|machines?|processes|flows?|layers?|trees?|kernels?|estimators?|units?|"
                          r"graphs?|transformers?|operators?|codes?)(?=[\s,.;:(]))?")
# A word with a capital or a digit: the only words a name starts with. (Most words have neither, and a
# pattern that skips them is much faster than looking at each.)
_TOKEN = re.compile(r"(?<![\w-])(?:[A-Z0-9][\w*-]*[A-Za-z0-9*]|[a-z][a-z-]*[A-Z0-9][\w*-]*)(?![\w-])")
_SENTENCE_END = re.compile(r"[.!?]\s+")
_LEADING_WORD = re.compile(r"(?:The|Our|In|Thus|Hence|Finally|Moreover|Further(?:more)?|Notably|Overall|"
                           r"Specifically|Empirically|Experimentally),?\s+")
# What follows a name: punctuation or a verb, not the noun it would modify ("called Pareto-optimal policies").
_NAME_END = re.compile(r"\s*(?:[,.;:()\[\]]|$)|\s+(?:is|are|was|which|that|to|for|has|can|achieves|outperforms|"
                       r"learns|uses|enables|allows|provides|consists)\b")
_APPOSITION = re.compile(r"\s*(?:[,:]\s*(?:a|an|the|which)\s|\()")
_INFINITIVE_END = re.compile(r"\bto \w+\s+(?:the\s+)?$")
_ACRONYM_AFTER = re.compile(r"\s*\(([A-Za-z][\w-]*[A-Z][\w-]*)\)")
_REPOSITORY = re.compile(r"(?:github\.com|gitlab\.com|bitbucket\.org)/[\w.-]+/([A-Za-z][A-Za-z0-9-]*[A-Za-z0-9])(?!\w)")
_GENERIC_REPOSITORIES = frozenset(["README", "LICENSE"])
_NAME_CHAR = re.compile(r"[\w-]")
_LOOK_BACK = 80
_BEST_OF_OTHERS = 4  # a name found by its uses alone must weigh this much


# "called" or "we call" in the words before a name.
_CALLED = re.compile(r"\b(?:called|named|termed|dubbed|titled|call|name|term)\b")

@dataclass(frozen=True)
class OwnName:
    """A name, the spelt-out phrase beside it ("" if none), where the abstract defines it (-1 where only
    its code's address holds it), and how surely it is the abstract's own."""

    name: str
    phrase: str
    start: int
    end: int
    weight: int


@dataclass(frozen=True)
class Openings:
    """Where in an abstract a name of its own work may start, by what the words before say: after
    "called" (``named``), after "our method," (``owned``), after "we propose" (``proposed``), and where
    a sentence starts (``subjects``)."""

    named: frozenset[int]
    owned: frozenset[int]
    proposed: frozenset[int]
    subjects: frozenset[int]


@lru_cache(maxsize=4)
def openings(text: str) -> Openings:
    """Return where names may start in an abstract: each pattern runs once over it, rather than once per
    word over the words before that word."""
    proposed = set()
    for m in _PROPOSED.finditer(text):
        ends = _SENTENCE_ENDS.search(text, m.end())
        stop = ends.start() if ends else len(text)
        near = _NEXT_WORDS.match(text, m.end())
        proposed |= {m.end()} | {g.start() for g in _WORD_GAP.finditer(text, m.end(), near.end() + 2)}
        proposed |= {a.end() for a in _APPOSED.finditer(text, m.end(), stop)}
    starts = [0, *(m.end() for m in _SENTENCE_END.finditer(text))]
    subjects = starts + [m.end() for at in starts if (m := _LEADING_WORD.match(text, at))]
    return Openings(frozenset(m.end() for m in _NAMING.finditer(text) if _starts_word(text, m.start())),
                    frozenset(m.end() for pattern in (_OURS, _OURS_SHORT) for m in pattern.finditer(text)
                              if _starts_word(text, m.start())),
                    frozenset(proposed), frozenset(subjects))


def _starts_word(text: str, at: int) -> bool:
    return at == 0 or not _NAME_CHAR.match(text, at - 1)


def weigh(name: str, text: str, cue_bonus: int = 0) -> tuple[int, bool]:
    """Return how surely ``name`` is the abstract's own contribution (above 0 for likely, below for not),
    and whether a use of it names or owns it."""
    opened = openings(text)
    weight, compared, data, subjects = cue_bonus, False, False, 0
    uses = _uses(name, text)
    owned = cue_bonus > 0
    for at in uses:
        after = text[at + len(name):at + len(name) + 60]
        owning = _owning(opened, at)
        weight, owned = weight + owning, owned or owning > 0
        if not owned and _COMPARED.search(text[max(0, at - 30):at]):  # uses after ours was named are ours too
            compared = True
        if _CITED.match(after):  # "called C-RASP (Yang & Chiang, 2024)": someone else's
            return -5, False
        data = data or bool(_DATA.match(after))
        subjects += at in opened.subjects and bool(_SUBJECT.match(after))
    weight += min(2, len(uses) - 1) + min(2, subjects)
    if compared and not owned:
        weight -= 3
    if data and not owned:
        weight -= 2
    return weight, owned


def _uses(name: str, text: str) -> list[int]:
    """Return where the text uses a name (or its plural) as a whole word: a plain search, its ends checked,
    costs less than a pattern compiled per name."""
    uses, at = [], text.find(name)
    while at >= 0:
        end = at + len(name) + (text[at + len(name):at + len(name) + 1] == "s")
        if (at == 0 or not _NAME_CHAR.match(text, at - 1)) and not _NAME_CHAR.match(text, end):
            uses.append(at)
        at = text.find(name, at + 1)
    return uses


def _owning(opened: Openings, at: int) -> int:
    """Return the weight of the words before a use of a name that name it (5) or own it (4), else 0."""
    return 5 if at in opened.named else 4 if at in opened.owned else 0


def used_before(lead_in: str) -> bool:
    """Return whether the words before a name make it something the paper uses or compares with: "to
    preserve differential privacy (DP)", "than ResNet", "on CIFAR-10"."""
    return bool(_COMPARED.search(lead_in) or _INFINITIVE_END.search(lead_in)) and not _CALLED.search(lead_in)


def own_name(text: str, abstract: str) -> OwnName | None:
    """Return the name the abstract (``text`` its plain text) most surely gives its own work without a cue,
    or None."""
    best: OwnName | None = None
    for found in [*_named_by_context(text), *_named_by_code(text, abstract)]:
        if best is None or found.weight > best.weight:
            best = found
    return best if best and best.weight >= _BEST_OF_OTHERS else None


def _named_by_code(text: str, abstract: str) -> list[OwnName]:
    """Return the coined name of the code repository the abstract links to ("github.com/org/ALBERT"), where
    the text uses it too: a paper's code is published under its name, but a repository named after its
    owner or spelt as no sentence writes it ("MemoryEfficientStableLDS") names no method."""
    found = []
    for m in _REPOSITORY.finditer(abstract):
        name, at = m[1], text.find(m[1])
        if at >= 0 and _is_distinctive(name) and name not in _GENERIC_REPOSITORIES:
            weight, _ = weigh(name, text, _BEST_OF_OTHERS)
            found.append(OwnName(name, "", at, at + len(name), weight))
    return found


def _named_by_context(text: str) -> list[OwnName]:
    """Return each name the text introduces by naming, owning or proposing it, with its weight."""
    opened, found, seen = openings(text), [], set()
    for m in _TOKEN.finditer(text):
        introduced = _introduced(opened, text, m.start())
        if m[0] in seen or not (introduced or _is_distinctive(m[0])):
            continue
        start, end, phrase = _widened(text, m.start(), m.end(), introduced)
        name = singular(text[start:end])
        if name != m[0] and name in seen or not _is_distinctive(name) and not _NAME_END.match(text, end):
            continue  # "our Fréchet mean" names no method
        seen |= {m[0], name}
        # An acronym after its spelt-out phrase ("the Log Expected Empirical Prediction (LEEP)") is owned
        # where the phrase is.
        spelt = _owning(opened, m.start()) if name != m[0] else 0
        cued = 3 * (m.start() in opened.proposed) + bool(_APPOSITION.match(text, end))
        weight, owned = weigh(name, text, cued + spelt + bool(phrase))
        if owned:
            found.append(OwnName(name, phrase, start, start + len(name), weight))
    return found


def singular(name: str) -> str:
    """Return a coined name without the plural the abstract gives it ("CoMIRs", "MomentumRNNs")."""
    if len(name) > 3 and name.endswith("s") and (name[-2].isupper() or name[-2].isdigit()):
        return name[:-1]
    return name


def _introduced(opened: Openings, text: str, at: int) -> bool:
    """Return whether the words before ``at`` introduce a name there: naming, owning or proposing it."""
    return text[at].isupper() and (at in opened.named or at in opened.owned or at in opened.proposed)


def _widened(text: str, start: int, end: int, introduced: bool) -> tuple[int, int, str]:
    """Return the whole name a token starts ("Wavelet Flow", "Ridge Rider"), and the phrase an acronym
    in parentheses spells out ("Deep Graph Pose (DGP)")."""
    if introduced:
        whole = _CAPITALISED.match(text, start)
        if whole and len(whole[0].split()) <= 5:
            end = start + len(whole[0].rstrip(","))
    if text[end:end + 1] == ")":  # "Deep Graph Pose (DGP)": DGP is found with its phrase by the cue
        phrase = _expansion(text[max(0, start - 120):start - 1].split(), text[start:end])
        return start, end, phrase or ""
    spelt = _ACRONYM_AFTER.match(text, end)  # "Gradient Augmentation (GradAug)": the acronym is the name
    if spelt and " " in text[start:end] and _expansion(text[start:end].split(), spelt[1]):
        return spelt.start(1), spelt.end(1), text[start:end]
    return start, end, ""
