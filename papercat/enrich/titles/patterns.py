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
_GENERIC = frozenset("framework method approach technique algorithm algorithms model pipeline strategy system "
                     "tool toolkit benchmark class family variant kind type set suite".split())
# A title that ends on one of these reads as cut off.
_STOP = frozenset(read_list(__package__, "cut_off_words.txt"))
# A determiner before a cue word makes it a noun ("an empirical study"), not something we do.
_DETERMINERS = frozenset(["a", "an", "the", "this", "these", "those", "our", "their", "its", "many", "such", "some", "each"])
_CUE_VERBS = {kind: " ".join(verbs)
              for kind, *verbs in map(str.split, read_list(__package__, "cue_verbs.txt"))}

# Where _clean left out what no title holds, a formula or a reference that a phrase needs (a private-use
# character, in no real text): phrases end there, as at a clause, and no title holds it.
_GAP = "\ue000"

_WORD = re.compile(r"\b[a-z]{4,}\b")  # a dict lookup per word is faster than a long regex alternation
# "We", "our", "this paper"...: each alternative starts with a plain letter, so re only tries where one
# stands (a leading \b would make it try everywhere); the look-behind after that letter is that \b.
_OURS = re.compile("(?:" + "|".join(f"{word[0]}(?<!\\w.){word[1:]}" for word in (
    "We", "we", "Our", "our", "us", "This (?:paper|work|study|article)", "this (?:paper|work|study|article)",
    "is proposed")) + r")\b")
_DROP = re.compile(r"\\(?:url|footnote)\{(?:[^{}]|\{[^{}]*\})*\}|\\href\{[^{}]*\}|https?://\S+|www\.\S+"
                   r"|\s*\\(?:cite[a-z]*|ref|eqref|label)\*?(?:\[[^\]]*\])*\{[^{}]*\}")
_DOMAIN = re.compile(rf"\b[\w-]+(?:\.[\w-]+)*\.(?:{'|'.join(WEB_ENDINGS)})\b\S*", re.IGNORECASE)
_LATEX_ARG = re.compile(r"\\[a-zA-Z]+\s*\{([^{}]*)\}")
_LATEX_WORD = re.compile(r"\\([a-zA-Z]+|.)")
_MARKUP = re.compile(r"[$*{}\\`]")
_TIE = re.compile(r"(?<=\S)~(?=\S)")
# LaTeX accents: \'e, \"{o}, \H{o}, \v{s} are é, ö, ő, š.
_TEXT_ACCENT = re.compile(r"\\(['\"`^~=.]|[Hvcuk](?=\s*\{))\s*(?:\{([A-Za-z])\}|([A-Za-z]))")
_ACCENT_MARKS = dict(zip("'\"`^~=.Hvcuk", "\u0301\u0308\u0300\u0302\u0303\u0304\u0307\u030b\u030c\u0327"
                                          "\u0306\u0328", strict=True))
_LATEX_QUOTE = re.compile(r"`([^`'\n]{1,80})'(?!\w)")  # `almost tune-free'
_MATH_SPAN = re.compile(r"\$\$(.+?)\$\$|\$([^$]{1,500})\$|\\\((.{1,500}?)\\\)|\\\[(.{1,500}?)\\\]", re.DOTALL)
# Math typed without dollars: a word with a sub- or superscript ("O(n^{2/3})", "R^d", "x_0"), an equation.
# Each starts where a word does, so re tries only there.
_SCRIPTED = re.compile(r"(?<!\S)(?=\S*[_^])([^\s$]*[^\s$_^][_^][^\s$]*?)([,.;:]?)(?!\S)")
_EQUATION = re.compile(r"(?:(?<=\s)|^)[^\s=]*\s?(?<![<>!=])=(?!=)\s*[^\s,;.]*(?:\s*[-+×·*/]\s*[^\s,;.]+)*")
_LEFT_SCRIPT = re.compile(r"(?<!\S)[^\s_^]*[_^]\S*")
_AROUND_GAP = re.compile(r"[^\s()]*\([^()]*\ue000[^()]*\)")  # "O( 1/T ^{5/6} )": the whole is the formula
# A bibtex key, "smith_deep_2019", with its brackets.
_CITATION_KEY = re.compile(r"\s*[(\[]?(?<![\w-])[A-Za-z]+(?:_[A-Za-z]+)*_\d{4}[a-z]?\b[)\]]?")
_YEAR_KEY = re.compile(r"_\d{4}")
# "[Dasgupta et al., ICML 2019]", "[Avron, Kapralov and Zandieh 17]", "[32]": references, no words of a
# title; group 1 the preposition that needs one ("the results in [7] to").
_BRACKETED_CITATION = re.compile(r"(\b(?:in|by|of|from|see|to|with|and|or)\s*)?\s*\[(?:[A-Z][^\[\]]*?"
                                 r"(?:\bet al\b|\b\d{2}|\d{4})[^\[\]]*|[1-9]\d*(?:\s*[,–-]\s*[1-9]\d*)*)\]")
_EMPHASIS = re.compile(r"(?<![\w\\])(_{1,2})(?=[^\s_])([^_]{1,200}?)(?<=[^\s_])\1(?!\w)")  # _Scene Flow_
_DOUBLED_ARTICLE = re.compile(r"\b(a|an|the)\s+\1\b", re.IGNORECASE)  # "We develop a a new algorithm"
_DOUBLED_HINTS = ("a a ", "A a ", "an an ", "An an ", "the the ", "The the ")  # looked for first
_SPACED_SLASH = re.compile(r"(?<=\w) / (?=\w)")
_SYMBOLS = dict(zip(["times", "alpha", "beta", "gamma", "delta", "epsilon", "lambda", "mu", "pi", "sigma", "tau", "Psi", "psi", "leq", "geq", "to"],
                    "×αβγδελμπστΨψ≤≥→"))
# A sentence ends at a full stop, unless it ends a common abbreviation, or at "!" or "?".
_SENTENCE_END = re.compile(r"[.!?]" + "".join(rf"(?<!\b{a}\.)" for a in (r"e\.g", r"i\.e", "et al", "vs", "cf", "Fig", "Eq", "approx"))
                           + r"\s+(?=[\"“(]?[A-Z])")
_ACRONYM_DEF = re.compile(r"\(([A-Za-z][A-Za-z0-9-]*)\)")
_TOKEN = re.compile(r"[A-Za-z0-9][\w-]*[A-Za-z0-9]")
# Asides a title reads better without: parentheses, dashed insertions, list markers ("to: 1) elicit",
# "that (a) adversarial training").
_ASIDE = re.compile(r"(?:\s|^)\([^()]*\)(?![\w-])|\s*—[^—]*—\s*|,\s*to (?:our|the best of our) knowledge,"
                    r"|(?:[:;]\s*|\s+|^)(?:\d|[a-h]|i{1,3}|iv|vi{0,3})\)(?=\s|$)")
_CLAUSE_END = re.compile(r"[;:!?—\ue000]|,(?=\s)(?!\s(?:but|and|or)\b)|\.$"  # not "(ε,δ)" or "1,000"
                         r"|\s(?:which|where|while|whereas|whose)\s"
                         r"|\sand\s(?=(?:" + "|".join(" ".join(_CUE_VERBS.values()).split()) + r")s?\b)")
_BOAST = re.compile(r"(?:\w+ly\s+)?(?:achieve|outperform|surpass|yield|deliver|attain|improve|boost|show|"
                    r"demonstrate|set)(?:s|es)?\b")  # "a framework that achieves gains" says nothing
# "a novel and scalable X" loses "novel and" together, or it reads "an and scalable X".
_LEADING_HYPE = re.compile(r"^(?:a|an|the)\s+(?:novel|new|first)(?:\s*,|\s+(?:and|yet|but)\b)?\s+(?=(\S+))")
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
# What ends the words before a name but describes nothing: "called", an article ("we develop a variational
# power method (VPM)": the name holds the noun), or a phrase that leaves the name the object of a
# preposition ("the use of a VAE-GAN").
_NAMING_END = re.compile(r"^.*\b(?:of|for|with|to|in|on|by|from|via|into)(?:\s+(?:a|an|the))?[\s,—]*$"
                         r"|(?:\b(?:called|named|termed|dubbed|(?:a|an|the)(?:\s+(?:novel|new|first))?)\b"
                         r"|[\s,—])+$")
_APPOSITIVE = re.compile(r"\s*[,—]\s*((?:a|an|the|two|three)\s.*)")
_FOLLOW = re.compile(r",?\s*((?:that|designed to|aimed at|to|for)\b.*)")
# The verbs of a clause a title turns into participles: "which quickly discards" -> "quickly discarding",
# "which can decompose" -> "decomposing", "which is based on" -> "based on". A word ending in -ly is an
# adverb but for the few verbs that end so; a pronoun, article or preposition is no verb ("which we call",
# "which i.e."): then the clause makes no participle.
_LY_VERBS = "apply|supply|multiply|imply|comply|reply|rely|fly|ally"
_ADVERB = rf"(?:(?!(?:{_LY_VERBS})\b)[a-z]{{2,}}ly|also|then|further|first|only|thus|not only)"
_NOT_VERBS = ("we|they|it|its|our|their|he|she|one|the|this|these|those|that|which|and|but|or|not|also|then|"
              "in|on|at|by|for|of|to|with|from|as|is|are|was|were|be|been|can|cannot|could|may|might|will|"
              "would|shall|should|must")
_VERB = rf"(?!(?:{_NOT_VERBS})\b)(?:(?:{_LY_VERBS})\b|[a-z]{{3,}}\b(?<!ly))(?!\.\w)"
_VERBS = rf"(?:{_ADVERB}(?:\s+and)?\s+)*{_VERB}(?:\s+(?:and|or)\s+(?:{_ADVERB}\s+)*{_VERB})?"
_MODAL = (r"(?:can|cannot|could|may|might|will|would|shall|should|must|does|do|did)"
          r"(?:\s+(?:also|then|further|not|be))*")
_VERB_PHRASE = rf"(?:is|are|was|were|has been|have been)\b|(?:{_MODAL}\s+)?{_VERBS}"
_WHICH = re.compile(rf",?\s*which\s+({_VERB_PHRASE})(.*)")
_CLAIM = re.compile(r"that\s*(?:,[^,]{1,40},)?\s*(.*)")
_INFINITIVE = re.compile(rf"to\s+({_VERBS})\s+(.*)")
_EITHER = re.compile(r"\b(?:either|both)\b(?!.*\b(?:or|and)\b)")
_AND_OR = re.compile(r" (?:and|or) ")
_ARTICLE_END = re.compile(r"\b(?:a|an|the) \S+$")
# No acronym is spelt out from one of these: "of the Proximal Policy Optimization algorithm (OPPO)".
_FUNCTION_WORDS = frozenset("of the a an for and or to in on with by from via".split())
# Words spelt with a vowel that sound a consonant first ("a unified", "a Euclidean"), and the reverse.
_CONSONANT_SOUND = re.compile(r"uni(?!n)|us[aeiu]|ut[ei]|ub|eu|one\b|once\b", re.IGNORECASE)
_VOWEL_SOUND = re.compile(r"hour|honest|honou?r|heir", re.IGNORECASE)
_SIBILANT_END = re.compile(r"(?:ss|sh|ch|x|z)$")
_CONSONANT_Y = re.compile(r"[^aeiou]y$")
_SPACE = re.compile(r"\s")


_ADVERB_WORD = re.compile(_ADVERB)
_COPULAS = frozenset(["is", "are", "was", "were", "be", "been"])
_AUXILIARIES = _COPULAS | frozenset("can cannot could may might will would shall should must has have does "
                                     "do did not".split())
_IRREGULAR = {"is": "being", "are": "being", "be": "being", "has": "having", "have": "having",
              "does": "doing", "do": "doing", "goes": "going", "lies": "lying", "dies": "dying",
              "ties": "tying"}
_DOUBLING = frozenset(read_list(__package__, "doubling_verbs.txt"))
_ONE_SYLLABLE_CVC = re.compile(r"[^aeiou]*[aeiou][^aeiouwxy]")  # "run", "split": "running", "splitting"


def _article(word: str) -> str:
    """Return "a" or "an" for the word after it, by its sound: "an algorithm", "a unified", "an RL"."""
    if word[:2].isupper():  # an acronym is read letter by letter
        return "an" if word[0] in "AEFHILMNORSX" else "a"
    vowel = word[:1].lower() in "aeiou" and not _CONSONANT_SOUND.match(word) or _VOWEL_SOUND.match(word)
    return "an" if vowel else "a"


def _gerund(verb: str) -> str:
    """Return a verb phrase with its verbs in the -ing form: "quickly discards" -> "quickly discarding",
    "can decompose" -> "decomposing". After a copula the words stay ("is based" -> "based"); a copula
    alone leaves nothing, as what follows it already describes ("which is a new class of ...")."""
    words = verb.lower().split()
    passive, negated = False, False
    while words and (len(words) > 1 and words[0] in _AUXILIARIES or words[0] in _COPULAS - {"be"}):
        word = words.pop(0)
        passive |= word in _COPULAS
        negated |= word in ("not", "cannot")  # "does not require" -> "not requiring"
    if not passive:
        words = [w if w in ("and", "or") or _ADVERB_WORD.fullmatch(w) else _ing(w) for w in words]
    return " ".join(["not", *words] if negated else words)


def _ing(verb: str) -> str:
    """Return the -ing form of one verb given in its base or third-person form."""
    if verb.endswith("ing") or verb in _IRREGULAR:
        return _IRREGULAR.get(verb, verb)
    verb = _VERB_S.sub("", _VERB_IES.sub("y", verb))
    if verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")):
        verb = verb[:-1]
    elif _ONE_SYLLABLE_CVC.fullmatch(verb) or verb in _DOUBLING:
        verb += verb[-1]
    return verb + "ing"


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
