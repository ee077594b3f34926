"""Derive a short plain-text title for a paper from its abstract."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Sequence
from itertools import islice

from papercat.text import WEB_ENDINGS, collapse_spaces, may_hold_web_address

__all__ = ["derive_title", "unique_titles"]

# Acronyms nearly every abstract mentions: seeing one is no sign of a new contribution.
_COMMON = frozenset(["AI", "API", "BERT", "CNN", "CoT", "DPO", "GNN", "GPT", "ICL", "LLM", "LM", "LoRA", "MLLM", "MoE", "NLP", "PLM", "PTQ", "RAG", "RL", "RLHF", "RNN", "SFT", "SOTA", "ToM", "VLM"])
# Spelling these out would only lengthen a title; rarer ones ("RM", "CCB") are spelt out.
_WELL_KNOWN = frozenset(["AI", "API", "CNN", "GNN", "GPT", "LLM", "LM", "MLLM", "NLP", "RL", "RLHF", "RNN", "SOTA", "VLM"])
_FILLER = frozenset(["a", "an", "the", "two", "three", "several", "novel", "new", "first", "simple", "general", "unified", "principled"])
_GENERIC = frozenset(["framework", "method", "approach", "technique", "algorithm", "algorithms", "model", "pipeline", "strategy", "system", "tool", "toolkit", "benchmark"])
# A title that ends on one of these reads as cut off.
_STOP = frozenset(["a", "an", "the", "of", "for", "to", "in", "on", "with", "without", "by", "via", "from", "during", "across", "through", "throughout", "toward", "towards", "under", "over", "between", "and", "or", "nor", "as", "at", "into", "onto", "that", "which", "whose", "while", "where", "when", "whether", "its", "their", "our", "is", "are", "be", "designed", "aimed", "based", "tailored", "using", "such", "either", "both", "than", "vs", "also", "very", "more", "most", "not"])
# A determiner before a cue word makes it a noun ("an empirical study"), not something we do.
_DETERMINERS = frozenset(["a", "an", "the", "this", "these", "those", "our", "their", "its", "many", "such", "some", "each"])
_CUE_VERBS = {"strong": "propose introduce present develop design build create derive provide offer release",
              "weak": "study investigate explore analyze analyse examine frame identify revisit characterize",
              "claim": "show find demonstrate reveal"}
_LONGEST = 6000  # abstracts run to about 2,000 characters; a longer paste must not cost seconds

_WORD = re.compile(r"\b[a-z]{4,}\b")  # a dict lookup per word is faster than a long regex alternation
# "We", "our", "this paper"...: each alternative starts with a plain letter, so re only tries where one
# stands (a leading \b would make it try everywhere); the look-behind after that letter is that \b.
_OURS = re.compile("(?:" + "|".join(f"{word[0]}(?<!\\w.){word[1:]}" for word in (
    "We", "we", "Our", "our", "us", "This (?:paper|work|study|article)", "this (?:paper|work|study|article)",
    "is proposed")) + r")\b")
_DROP = re.compile(r"\\(?:url|footnote)\{(?:[^{}]|\{[^{}]*\})*\}|\\href\{[^{}]*\}|https?://\S+|www\.\S+")
_DOMAIN = re.compile(rf"\b[\w-]+(?:\.[\w-]+)*\.(?:{'|'.join(WEB_ENDINGS)})\b\S*", re.IGNORECASE)
_LATEX_ARG = re.compile(r"\\[a-zA-Z]+\s*\{([^{}]*)\}")
_LATEX_WORD = re.compile(r"\\([a-zA-Z]+|.)")
_MARKUP = re.compile(r"[$*{}\\]")
_TIE = re.compile(r"(?<=\S)~(?=\S)")
_SYMBOLS = dict(zip(["times", "alpha", "beta", "gamma", "delta", "epsilon", "lambda", "mu", "pi", "sigma", "tau", "Psi", "psi", "leq", "geq", "to"],
                    "×αβγδελμπστΨψ≤≥→"))
# A sentence ends at a full stop, unless it ends a common abbreviation, or at "!" or "?".
_SENTENCE_END = re.compile(r"[.!?]" + "".join(rf"(?<!\b{a}\.)" for a in (r"e\.g", r"i\.e", "et al", "vs", "cf", "Fig", "Eq", "approx"))
                           + r"\s+(?=[\"“(]?[A-Z])")
_ACRONYM_DEF = re.compile(r"\(([A-Za-z][A-Za-z0-9-]*)\)")
_TOKEN = re.compile(r"[A-Za-z0-9][\w-]*[A-Za-z0-9]")
# Asides a title reads better without: parentheses, dashed insertions, list markers ("to: 1) elicit").
_ASIDE = re.compile(r"\s\([^()]*\)|\s*—[^—]*—\s*|,\s*to (?:our|the best of our) knowledge,"
                    r"|(?:[:;]\s*|\s+|^)(?:\d|i{1,3}|iv)\)(?=\s)")
_CLAUSE_END = re.compile(r"[;:!?—]|,(?!\s(?:but|and|or)\b)|\.$|\s(?:which|where|while|whereas|whose)\s"
                         r"|\sand\s(?=(?:" + "|".join(" ".join(_CUE_VERBS.values()).split()) + r")s?\b)")
_BOAST = re.compile(r"(?:\w+ly\s+)?(?:achieve|outperform|surpass|yield|deliver|attain|improve|boost|show|"
                    r"demonstrate|set)(?:s|es)?\b")  # "a framework that achieves gains" says nothing
_LEADING_HYPE = re.compile(r"^(?:a|an|the)\s+(?:novel|new|first)\s+(?=(\S+))")
_ANAPHORA = re.compile(r"\b(?:[Tt]h(?:is|ese|ose)|such(?! as)|it|them|similar"
                       r"|the (?:issue|problem|phenomenon))\b")  # needs the sentences before it
# Places where cutting a long title leaves a whole phrase: before a preposition or a clause.
_BREAK = re.compile(r"\s(?=(?:of|for|to|in|on|with|without|by|via|from|during|across|through|throughout|"
                    r"toward|towards|under|between|based|tailored|designed|aimed|using|that|which|while|"
                    r"where|and|or|as|into)\s)")
_WINDOW_END = re.compile(r"[;:.]|\s(?:which|that|where|whereby)\s")  # a name comes before these
_CITATION = re.compile(r"\s*\([^()]*\d{4}[a-z]?\)")  # "C-RASP (Yang & Chiang, 2024)" is someone else's
# The smaller patterns of the functions below, compiled once rather than looked up in re's cache per call.
_VERB_IES = re.compile(r"ies$")
_VERB_S = re.compile(r"(?<=[sc]h|ss|.x)es$|(?<![su])s$")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_VERSION = re.compile(r"[A-Za-z]\d|\d[A-Za-z]")
_NAME_TAIL = re.compile(r"(?:\s+and\s+[A-Z][\w-]*[A-Z][\w-]*|\s+[A-Z][a-z]+\b(?!-)){0,2}")
_PLAIN_NAME = re.compile(r"(?:the\s+)?([A-Z][a-z]+(?:\s+[A-Z][a-z]*[A-Z]\w*)?)(?=,\s+(?:a|an|short for)\s)")
_SPELT = re.compile(r"\s*\(([^()]+)\)")
_NOT_LOWER = re.compile(r"[^a-z]")
_LINKED = re.compile(r"\s(?:to|for|of|based)\s")
_STAGE = re.compile(r"\w+-(?:stage|phase|step)")
_PHRASE_PARTS = re.compile(r"[\s-]")
_SHORT_FOR = re.compile(r",\s*short for\s+(.*)")
_TOPIC = re.compile(r"\bwe (?:consider|study|investigate|address|explore) (.+?)(?= and |,|$)")
_NAMING_END = re.compile(r"(?:\b(?:called|named|termed|dubbed|the)\b|[\s,—])+$")
_APPOSITIVE = re.compile(r"\s*[,—]\s*((?:a|an|the|two|three)\s.*)")
_FOLLOW = re.compile(r",?\s*((?:that|designed to|aimed at|to|for)\b.*)")
_WHICH = re.compile(r",?\s*which\s+(\w+)(.*)")
_CLAIM = re.compile(r"that\s*(?:,[^,]{1,40},)?\s*(.*)")
_INFINITIVE = re.compile(r"to\s+([a-z]+)\s+(.*)")
_EITHER = re.compile(r"\b(?:either|both)\b(?!.*\b(?:or|and)\b)")
_AND_OR = re.compile(r" (?:and|or) ")
_ARTICLE_END = re.compile(r"\b(?:a|an|the) \S+$")
_SPACE = re.compile(r"\s")


def _gerund(verb: str) -> str:
    """Return the -ing form of a verb given in its base or third-person form."""
    verb = verb.lower()
    if verb.endswith("ing"):
        return verb
    verb = _VERB_S.sub("", _VERB_IES.sub("y", verb))
    return (verb[:-1] if verb.endswith("e") and not verb.endswith(("ee", "ye")) else verb) + "ing"


# Every inflection an abstract uses ("proposes", "proposing"), so a word needs one dict lookup.
_CUES = {form: (kind, base) for kind, verbs in _CUE_VERBS.items() for base in verbs.split()
         for form in (base, base[:-1] + "ies" if base.endswith("y") else base + "s", _gerund(base))}
_CUES |= dict.fromkeys(("called", "named", "termed", "dubbed"), ("naming", "call"))
_CUES["proposed"] = ("strong", "propose")


def _clean(text: str) -> str:
    """Return the abstract as plain text: no URLs, LaTeX, Markdown emphasis or backslash escapes."""
    text = _LINK.sub(r"\1", text) if "](" in text else text
    if "\\" in text or "http" in text or "www." in text:  # each pattern runs only where it can match
        text = _DROP.sub("", text)
    if may_hold_web_address(text):  # the domain pattern is slow, so run it only when it can match
        text = _DOMAIN.sub("", text)
    if "\\" in text:
        previous = None
        while previous != text:  # one pass unwraps only the innermost of \texttt{\textbf{X}}
            previous, text = text, _LATEX_ARG.sub(r"\1", text)
        text = _LATEX_WORD.sub(lambda m: _SYMBOLS.get(m[1], "" if m[1].isalpha() else m[1]), text)
    text = text.replace("``", '"').replace("''", '"')
    if "$" in text or "*" in text or "{" in text or "}" in text or "\\" in text:  # few abstracts have markup
        text = _MARKUP.sub("", text)
    text = text.replace("---", " — ").replace("--", " — ")
    return collapse_spaces(_TIE.sub(" ", text) if "~" in text else text)


def _sentences(text: str) -> list[tuple[int, str]]:
    """Split text into (offset, sentence) pairs, not breaking after common abbreviations."""
    found, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        found.append((start, text[start:m.start() + 1]))
        start = m.end()
    return found + [(start, text[start:])]


def _is_subsequence(letters: str, text: str) -> bool:
    """Return whether the letters occur in text in order."""
    rest = iter(text)
    return all(c in rest for c in letters)


def _expansion(words: list[str], acronym: str) -> str | None:
    """Return the shortest phrase ending words that the acronym abbreviates, like "Just Run Twice"."""
    letters = "".join(c for c in acronym.lower() if c.isalpha())
    for k in range(1, min(len(words), 9) + 1):
        phrase = words[-k:]
        if phrase[0] in ("—", "-") or any(w[-1] in ",;:" for w in phrase):
            return None
        flat = " ".join(phrase).lower()
        if flat[0] == letters[0] and (_is_subsequence(letters[1:], flat[1:])
                                      or len(phrase) == sum(c.isupper() for c in acronym)):
            return " ".join(phrase)
    return None


def _is_distinctive(token: str) -> bool:
    """Return whether a token looks like a coined name rather than a word or a common acronym."""
    parts = [p for p in token.split("-") if p]
    if token.islower() or not parts or parts[0].rstrip("s") in _COMMON or parts[0] in _COMMON:
        return False
    coined = any(sum(c.isupper() for c in p) >= 2 and p.rstrip("s") not in _COMMON for p in parts)
    versioned = any(_VERSION.search(p) for p in parts)
    return coined or versioned and sum(c.isalpha() for c in token) >= 3


# Where a word of a name may start and end: what surrounds it is no letter, digit, "_" or "-".
_WORD_START = re.compile(r"(?<![\w-])")
_WORD_END = re.compile(r"s?(?![\w-])")  # its plural ends there too


def _is_new(term: str, before: str, flags: int = 0) -> bool:
    """Return whether term, or its plural, is absent from the text before it.

    A pattern made per term would be compiled per paper; a plain search for the term, with its
    ends checked by the two patterns above, finds the same occurrences.
    """
    if flags & re.IGNORECASE:
        if not (term.isascii() and before.isascii()):  # Unicode case folding is re's to do
            return not re.search(r"(?<![\w-])" + re.escape(term) + r"s?(?![\w-])", before, flags)
        term, before = term.lower(), before.lower()
    at = before.find(term)
    while at >= 0:
        if _WORD_START.match(before, at) and _WORD_END.match(before, at + len(term)):
            return False
        at = before.find(term, at + 1)
    return True


_BOUNDARY = re.compile(r"\b")
_IS_A = re.compile(r" is (an? [^.]*)")


def _is_a(name: str, text: str) -> re.Match[str] | None:
    """Return the first "Name is a ..." of the text, its group 1 what the name is; a word starts the name."""
    at = text.find(name + " is a")
    while at >= 0:
        said = _BOUNDARY.match(text, at) and _IS_A.match(text, at + len(name))
        if said:
            return said
        at = text.find(name + " is a", at + 1)
    return None


def _find_name(window: str, after: str, before: str) -> tuple[int, str, str, int] | None:
    """Return (start, name, expansion, end) of a name introduced in the window after a cue."""
    found = []
    for m in _ACRONYM_DEF.finditer(window):  # "Just Run Twice (JuICE)"
        phrase = _expansion(window[:m.start()].split(), m[1])
        if (phrase and _is_distinctive(m[1]) and _is_new(m[1], before) and _is_new(phrase, before, re.IGNORECASE)
                and not _CITATION.match(window, m.end())):
            found.append((m.start() - len(phrase) - 1, m[1], phrase, m.end()))
    for m in _TOKEN.finditer(window):  # "GuardAgent", "two algorithms C-SquareCB and C-FastCB"
        in_parens = window[m.start() - 1:m.start()] == "(" and window[m.end():m.end() + 1] == ")"
        if (_is_distinctive(m[0]) and not in_parens and (len(m[0]) > 2 or not m[0].isupper())
                and _is_new(m[0].rstrip("s"), before)):
            tail = _NAME_TAIL.match(window, m.end())
            found.append((m.start(), m[0] + tail[0], "", tail.end()))
            break
    plain = _PLAIN_NAME.match(window)
    if plain and _is_new(plain[1].split()[0], before):  # "Liger, short for ...", "Paprika, a ..."
        found.append((plain.start(1), plain[1], "", plain.end(1)))
    start, name, phrase, end = min(found, default=(0, "", "", 0))
    rest = window[end:] + after
    if not name or _CITATION.match(rest):  # a name cited from other work is not ours
        return None
    spelt = _SPELT.match(rest)  # "M-STaR (Multimodal Self-evolving ...)"
    if not phrase and spelt and spelt[1][0].lower() == name[0].lower() \
            and _is_subsequence(_NOT_LOWER.sub("", name.lower()), spelt[1].lower()):
        phrase, end = spelt[1], end + spelt.end()
    return start, name, phrase, end


def _clip(text: str) -> str:
    """Return the first clause of text, without asides and list markers."""
    return _tidy(_CLAUSE_END.split(_ASIDE.sub(" ", text[:1000]), 1)[0])  # no title is 1,000 characters long


def _tidy(text: str) -> str:
    """Drop trailing stopwords, punctuation and unbalanced brackets or quotes."""
    words = text.split()
    while words:
        last = words[-1].rstrip(",;:—–-/(“")
        if not last or last.lower() in _STOP:
            words.pop()
            continue
        text = " ".join(words[:-1] + [last]).lstrip(",;:—–-/ ")
        if text.count("(") > text.count(")"):
            words = text[:text.rfind("(")].split()
        elif text.count('"') % 2 or text.count("“") > text.count("”"):
            words = text[:max(text.rfind('"'), text.rfind("“"))].split()
        else:
            return text
    return ""


def _plain_desc(desc: str) -> str:
    """Turn "the first X" or "a novel X" into "a X", with "an" where X sounds like a vowel ("an RL")."""
    return _LEADING_HYPE.sub(lambda m: "an " if m[1][:1] in "aeiou" or m[1][:2].isupper()
                             and m[1][0] in "AEFHILMNORSX" else "a ", desc)


def _is_informative(desc: str) -> bool:
    """Return whether a description says more than "a novel framework that achieves gains"."""
    head, _, clause = desc.partition(" that ")
    if len(clause.split()) >= 3 and not _BOAST.match(clause) or _LINKED.search(head):
        return True
    return any(w not in _FILLER | _GENERIC and not _STAGE.fullmatch(w)
               for w in head.lower().split())


def _acronyms(text: str) -> dict[str, str]:
    """Map the acronyms an abstract defines, like "reward model (RM)", to their phrases."""
    found = {}
    for m in _ACRONYM_DEF.finditer(text):
        if sum(c.isupper() for c in m[1]) >= 2 and m[1].rstrip("s") not in _WELL_KNOWN:
            phrase = _expansion(text[max(0, m.start() - 120):m.start()].split(), m[1])
            if phrase:
                title_case = all(p[0].isupper() for p in _PHRASE_PARTS.split(phrase) if len(p) > 3)
                found.setdefault(m[1], phrase if title_case else phrase[0].lower() + phrase[1:])
    return found


def _expand(text: str, acronyms: dict[str, str]) -> str:
    """Spell out the abstract's own acronyms so the title stands alone."""
    for acronym, phrase in acronyms.items():
        text = re.sub(r"\b" + re.escape(acronym) + r"(s?)\b", lambda m, phrase=phrase: phrase + m[1], text)
    return text


def _cues(sentences: list[tuple[int, str]]):
    """Yield (sentence, offset, kind, base verb, text after, is-a-noun) for cues in our own statements."""
    for index, (offset, sentence) in enumerate(sentences):
        ours = _OURS.search(sentence)
        if not ours:
            continue
        after = ours.start() if ours[0] == "is proposed" else ours.end()
        if _CUES.keys().isdisjoint(_WORD.findall(sentence, after)):  # most of our statements hold no cue
            continue
        for m in _WORD.finditer(sentence, after):
            if m[0] not in _CUES:
                continue
            previous = [w.lower() for w in sentence[max(0, m.start() - 40):m.start()].split()[-2:]]
            noun_use = bool(previous) and previous[-1] in _DETERMINERS
            after_article = len(previous) == 2 and previous[0] in ("a", "an", "the")  # "an empirical study"
            if (not noun_use or m[0] == "proposed") and not after_article:
                yield (index, offset + m.end(), *_CUES[m[0]], sentence[m.end():].lstrip(), noun_use)


def _named_title(text: str, sentences: list[tuple[int, str]], cues: list[tuple], acronyms: dict[str, str],
                 max_chars: int) -> str | None:
    """Return "Name: what it is" when the abstract names its contribution."""
    best = None
    for index, at, kind, base, rest, _ in cues:
        if kind in ("strong", "naming"):
            window = " ".join(_WINDOW_END.split(rest, 1)[0].split()[:14])
            found = _find_name(window, rest[len(window):], text[:at])
            # Papers "propose" their method but "introduce" side benchmarks; a spelt-out name is deliberate.
            score = found and (base in ("propose", "call")) + bool(found[2])
            if found and (best is None or score > best[0] and found[1] != best[4]):
                best = (score, text[sentences[index][0]:at], rest, *found)
    if best is None:
        return None
    _, lead, rest, start, name, phrase, end = best
    short_for = _SHORT_FOR.match(rest, end)
    phrase = _clip(short_for[1]) if short_for else phrase
    head = f"{name}: {phrase}" if phrase else name
    is_a = not phrase and _is_a(name, text)
    desc = _describe(rest[:start], rest[end:]) or (_plain_desc(_clip(is_a[1])) if is_a else "")
    desc = _fit(desc, max_chars - len(head) - 2, mid_phrase=False)  # "X: Y, a lightweight" says nothing
    if not phrase and not _is_informative(desc):  # "two algorithms": say what they are for instead
        topic = _TOPIC.search(lead)
        desc = _expand(_tidy(topic[1]), acronyms) if topic else desc
    if desc and (not phrase or _is_informative(desc)):
        return f"{head}, {desc}" if phrase else f"{head}: {desc}"
    return head


def _describe(pre: str, post: str) -> str:
    """Return what the abstract says a named contribution is, from the text around the name."""
    pre = _NAMING_END.sub("", pre).strip(" ,—")
    appositive = _APPOSITIVE.match(post)
    follow = _FOLLOW.match(post)
    which = _WHICH.match(post)
    if appositive:
        desc = appositive[1]
    elif pre:
        desc = pre + (" " + follow[1] if follow else "")
    else:
        desc = _gerund(which[1]) + which[2] if which else ""
    return _plain_desc(_clip(desc))


def _phrasings(kind: str, base: str, rest: str) -> list[str]:
    """Return ways to title what one cue states, best first; none if it makes no title."""
    if kind == "claim":
        claim = _CLAIM.match(rest)
        core = _clip(claim[1]) if claim else ""
        phrases = [core]
    elif kind == "naming" or rest.startswith("that "):  # "we propose that X" is a hypothesis
        return []
    elif infinitive := _INFINITIVE.match(rest):
        core = _clip(infinitive[2])
        phrases = [_gerund(infinitive[1]) + " " + core]
    else:
        core = _plain_desc(_clip(rest))
        phrases = [_gerund(base) + " " + core, core] if kind == "weak" else [core]
        phrases += [p.split(" to provide ", 1)[1] for p in phrases if " to provide " in p]
    return [] if len(core.split()) < 3 or _ANAPHORA.search(core) else phrases


def _described_title(sentences: list[tuple[int, str]], cues: list[tuple], acronyms: dict[str, str],
                     max_chars: int) -> str:
    """Return a noun phrase or a claim that describes the main contribution."""
    phrases = next((p for _, _, kind, base, rest, noun_use in cues
                    if not noun_use and (p := _phrasings(kind, base, rest))), None)
    if not phrases:
        return _clip(sentences[0][1])
    for phrase in phrases:
        spelt = _expand(phrase, acronyms)
        shortened = _fit(spelt, max_chars, mid_phrase=False)  # dropping a trailing phrase may be worth it
        for option in (spelt, shortened if len(shortened) >= 0.7 * len(spelt) else "", phrase):
            if option and len(option) <= max_chars:
                return option
    return _expand(phrases[0], acronyms)


def _fit(title: str, max_chars: int, mid_phrase: bool = True) -> str:
    """Shorten title to max_chars at a phrase boundary, else (if mid_phrase) at a word boundary."""
    title = _tidy(title)
    if len(title) <= max_chars:
        return title
    shortest = 0.4 * max_chars if mid_phrase else 0  # a much shorter phrase loses more than a cut phrase
    for m in reversed([m for m in _BREAK.finditer(title) if shortest <= m.start() <= max_chars]):
        piece, rest = _tidy(title[:m.start()]), title[m.start():]
        dangling = _EITHER.search(piece) or (
            _AND_OR.match(rest) and _ARTICLE_END.search(piece))  # "a lightweight"
        if piece and not dangling:
            return piece
    word_cuts = [m.start() for m in _SPACE.finditer(title, 0, max_chars + 1)] if mid_phrase else []
    return next((p for cut in reversed(word_cuts) if (p := _tidy(title[:cut]))), "")


def derive_title(abstract: str, max_chars: int = 100) -> str:
    """Return a short plain-text title for the paper an abstract describes."""
    text = _clean(abstract[:_LONGEST])
    if not text:
        return ""
    sentences, acronyms = _sentences(text), _acronyms(text)
    cues = list(islice(_cues(sentences), 50))  # real abstracts have a dozen; a pasted paper must stay fast
    title = _fit(_named_title(text, sentences, cues, acronyms, max_chars)
                 or _described_title(sentences, cues, acronyms, max_chars), max_chars)
    cased = any(c.isupper() for c in title.split(" ", 1)[0][1:])  # keep "iPhone" or "GuardAgent" as written
    return title if cased else title[:1].upper() + title[1:]


_UNIQUE_MAX = 120  # a distinguishing phrase may lengthen a title past derive_title's 100 characters
# Words that say nothing about what sets one paper apart from another with the same title.
_BLAND = _STOP | _FILLER | _DETERMINERS | frozenset([
    "we", "us", "it", "this", "paper", "work", "study", "method", "methods", "approach", "approaches",
    "results", "experiments", "show", "shows", "shown", "demonstrate", "demonstrates", "propose", "proposes",
    "proposed", "present", "presents", "introduce", "introduces", "achieve", "achieves", "outperform",
    "outperforms", "existing", "extensive", "various", "significant", "can", "may", "will", "has", "have",
    "had", "was", "were", "been", "being", "also", "then", "thus", "however", "moreover", "furthermore",
    "further", "here", "there", "task", "tasks", "performance", "state", "art", "use", "uses", "used",
    "relies", "rely", "employs", "employ", "leverages", "leverage", "combines", "combine", "applies", "apply",
    "enables", "enable", "improves", "improve", "reduces", "reduce", "builds", "build", "trained", "learned",
    "learns", "learn", "called", "named", "yields", "yield", "provides", "provide"])
# Words, and the runs of punctuation that end a phrase.
_CHUNK_WORD = re.compile(r"[A-Za-z0-9][\w'-]*|[^\w\s]+")


def _title_key(title: str) -> str:
    """Return what a reader compares titles by: case and spacing do not make two titles different."""
    return " ".join(title.split()).casefold()


def _words_of(abstract: str) -> set[str]:
    return {w.casefold() for w in _CHUNK_WORD.findall(_clean(abstract)) if w[0].isalnum()}


def _distinguishing_phrase(abstract: str, others: set[str], max_words: int = 5) -> str:
    """Return the first run of content words in abstract holding a word the others' abstracts lack."""
    chunks, run = [], []
    for token in _CHUNK_WORD.findall(_clean(abstract)[:_LONGEST]) + ["."]:
        folded = token.casefold()
        content = token[0].isalnum() and folded not in _BLAND and not folded.endswith("ly")  # no adverbs
        if content or token == "of" and run:  # "millions of sequences" is one phrase
            run.append(token)
            continue
        while run and run[-1] == "of":
            run.pop()
        if run:
            chunks.append(run)
        run = []
    fresh = [c for c in chunks if any(w.casefold() not in others for w in c)]
    # A run of two or more words ("graph neural networks") says more than a lone word ("graphs").
    best = next((c for c in fresh if len(c) > 1), fresh[0] if fresh else [])
    if len(best) > max_words:  # keep the new word and the words right after it
        start = next(i for i, w in enumerate(best) if w.casefold() not in others)
        best = best[max(0, min(start, len(best) - max_words)):][:max_words]
    phrase = " ".join(best)
    cased = any(c.isupper() for c in phrase.split(" ", 1)[0][1:])  # keep "GPT-4" or "iPhone" as written
    return phrase if cased or not phrase else phrase[:1].lower() + phrase[1:]


def _with_phrase(title: str, phrase: str) -> str:
    """Return "title (phrase)", shortening the title at a phrase boundary if the whole would be too long."""
    room = _UNIQUE_MAX - len(phrase) - 3
    # A title of one long word has no phrase boundary: cut it anyway.
    head = title if len(title) <= room else _fit(title, room) or title[:room].rstrip()
    return f"{head} ({phrase})" if head and phrase else ""


def _numbered(title: str, number: int) -> str:
    """Return "title (2)", the last resort when nothing in the abstract tells two papers apart."""
    return _with_phrase(title, str(number)) or f"({number})"  # a title of no words still gets a number


def _longer_title(title: str, abstract: str, others: set[str]) -> str:
    """Return the title derived with more room: a title cut short may differ further on."""
    return derive_title(abstract, max_chars=_UNIQUE_MAX)


def _title_with_phrase(title: str, abstract: str, others: set[str]) -> str:
    """Return the title followed by a phrase of its abstract that the other abstracts lack."""
    for words in range(5, 0, -1):  # a shorter phrase before a shorter title: the title says more
        phrase = _distinguishing_phrase(abstract, others, max_words=words)
        if len(title) + len(phrase) + 3 <= _UNIQUE_MAX:
            break
    return _with_phrase(title, phrase)


def unique_titles(titles: Sequence[str], abstracts: Sequence[str], keep: Collection[int] = ()) -> list[str]:
    """Return the titles, each repeated one made distinct with more of its own abstract."""
    # keep: positions of titles a person gave (papers.yaml); those are never changed, the others move.
    keys = [_title_key(t) for t in titles]
    counts = Counter(keys)
    out = list(titles)
    taken = set(counts)  # a new title must not take the place of any title already in the catalog
    groups: dict[str, list[int]] = {}
    for index, key in enumerate(keys):
        if counts[key] > 1:
            groups.setdefault(key, []).append(index)
    for key in sorted(groups):  # sorted, so the result does not depend on where each paper was listed
        members = sorted(groups[key], key=lambda i: (abstracts[i], titles[i]))
        # A word of one abstract is in another's exactly when more than one abstract of the group has it.
        frequency = Counter(w for i in members for w in _words_of(abstracts[i]))
        shared = {w for w, n in frequency.items() if n > 1}
        pending = [i for i in members if i not in keep]
        plain_is_free = len(pending) == len(members)  # a given title keeps the plain one for itself
        for make in (_longer_title, _title_with_phrase):
            candidates = {i: make(titles[i], abstracts[i], shared) for i in pending}
            seen = Counter(_title_key(c) for c in candidates.values())
            for i, candidate in candidates.items():
                new = _title_key(candidate)
                # Two members reaching the same new title are no more distinct than before.
                if candidate and len(candidate) <= _UNIQUE_MAX and new != key and new not in taken \
                        and seen[new] == 1:
                    out[i] = candidate
                    taken.add(new)
            pending = [i for i in pending if _title_key(out[i]) == key]
        # The first one left keeps the plain title, unless a given title has it.
        for number, i in enumerate(pending[1:] if plain_is_free else pending, start=2):
            while _title_key(numbered := _numbered(titles[i], number)) in taken:
                number += 1
            out[i] = numbered
            taken.add(_title_key(numbered))
    return out
