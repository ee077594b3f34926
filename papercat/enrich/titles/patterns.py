"""The words and patterns a title is derived by."""

from __future__ import annotations

import re

from papercat.text import WEB_ENDINGS
from papercat.wordlists import read_list

# Acronyms nearly every abstract mentions: seeing one is no sign of a new contribution.
_COMMON = frozenset(read_list(__package__, "common_acronyms.txt"))
# Spelling these out would only lengthen a title; rarer ones ("RM", "CCB") are spelt out.
_WELL_KNOWN = frozenset(["AI", "API", "CNN", "GNN", "GPT", "LLM", "LM", "MLLM", "NLP", "RL", "RLHF", "RNN", "SOTA", "VLM"])
_FILLER = frozenset(["a", "an", "the", "two", "three", "several", "novel", "new", "first", "simple", "general", "unified", "principled"])
_GENERIC = frozenset(["framework", "method", "approach", "technique", "algorithm", "algorithms", "model", "pipeline", "strategy", "system", "tool", "toolkit", "benchmark"])
# A title that ends on one of these reads as cut off.
_STOP = frozenset(read_list(__package__, "cut_off_words.txt"))
# A determiner before a cue word makes it a noun ("an empirical study"), not something we do.
_DETERMINERS = frozenset(["a", "an", "the", "this", "these", "those", "our", "their", "its", "many", "such", "some", "each"])
_CUE_VERBS = {kind: " ".join(verbs)
              for kind, *verbs in map(str.split, read_list(__package__, "cue_verbs.txt"))}

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


# Where a word of a name may start and end: what surrounds it is no letter, digit, "_" or "-".
_WORD_START = re.compile(r"(?<![\w-])")
_WORD_END = re.compile(r"s?(?![\w-])")  # its plural ends there too


_BOUNDARY = re.compile(r"\b")
_IS_A = re.compile(r" is (an? [^.]*)")
