"""Pick each paper's keyphrases: distinctive 1-3 word phrases, scored against the whole catalog."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, count, pairwise, repeat
from operator import itemgetter, mul

import numpy as np

from papercat.memo import Memo
from papercat.parallel import parallel_map
from papercat.text import WEB_ENDINGS, counted, may_hold_web_address

__all__ = ["PaperPhrases", "Statistics", "TermCounts", "analyse", "analyse_and_count_terms", "count_terms",
           "extract_keyphrases", "fold_plural", "is_telling", "pick", "reference_count", "reference_size",
           "statistics", "term_runs", "word_keys"]

# Function words: a phrase never starts or ends with one, and they split candidate phrases.
_FUNCTION = ["a", "about", "above", "across", "after", "again", "against", "all", "almost", "along", "also",
             "although", "always", "am", "among", "an", "and", "another", "any", "are", "around", "as", "at",
             "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can",
             "cannot", "could", "did", "do", "does", "doing", "done", "down", "during", "each", "either",
             "else", "even", "ever", "every", "few", "for", "from", "further", "had", "has", "have", "having",
             "he", "her", "here", "hers", "him", "his", "how", "however", "i", "if", "in", "into", "is", "it",
             "its", "itself", "just", "least", "less", "let", "like", "many", "may", "me", "might", "more",
             "most", "much", "must", "my", "neither", "no", "nor", "not", "of", "off", "often", "on", "once",
             "only", "or", "other", "others", "otherwise", "our", "ours", "out", "over", "own", "per",
             "quite", "rather", "same", "she", "should", "since", "so", "some", "such", "than", "that", "the",
             "their", "theirs", "them", "themselves", "then", "there", "therefore", "these", "they", "this",
             "those", "though", "thus", "to", "too", "toward", "towards", "under", "unless", "until", "up",
             "upon", "us", "very", "via", "was", "we", "were", "what", "whatever", "when", "whenever",
             "where", "whereas", "whether", "which", "while", "who", "whom", "whose", "why", "will", "with",
             "within", "without", "would", "yet", "you", "your", "hence", "through", "till", "unto", "beside",
             "thereby", "i.e", "e.g", "et", "al", "vs", "cf", "etc", "versus", "whereby", "respectively",
             "instead", "besides", "despite", "beyond", "alongside", "amongst", "throughout", "onto",
             "namely", "moreover", "furthermore", "additionally", "specifically", "finally", "overall",
             "meanwhile", "nevertheless", "nonetheless", "consequently", "accordingly", "notably",
             "importantly", "particularly", "way", "ways", "able", "unable", "well", "still", "already",
             "again", "lot", "lots", "someone", "something", "anyone", "anything", "everyone", "everything",
             "nothing", "nobody", "ones", "unlike"]
_NUMBERS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
            "twelve", "hundred", "thousand", "million", "billion", "first", "second", "third", "fourth",
            "fifth", "last", "single", "double", "triple", "dual", "multiple", "several", "various",
            "numerous", "half", "twice", "once"]
# Verbs abstracts use to talk about their work: never part of a keyphrase, in any inflection.
_VERBS = ["propose", "show", "demonstrate", "achieve", "outperform", "improve", "enable", "require",
          "leverage", "introduce", "present", "provide", "allow", "reveal", "find", "make", "yield", "remain",
          "become", "obtain", "consider", "investigate", "explore", "address", "develop", "exhibit",
          "suggest", "perform", "apply", "utilize", "employ", "ensure", "offer", "include", "involve", "lead",
          "help", "aim", "seek", "reduce", "increase", "enhance", "surpass", "mitigate", "tackle",
          "highlight", "establish", "identify", "examine", "analyze", "analyse", "evaluate", "validate",
          "verify", "extend", "capture", "consist", "contain", "depend", "focus", "rely", "struggle", "fail",
          "face", "pose", "raise", "emerge", "exist", "occur", "seem", "tend", "fall", "hinder", "boost",
          "facilitate", "incorporate", "integrate", "maintain", "preserve", "observe", "report", "compare",
          "assess", "study", "describe", "discuss", "argue", "claim", "believe", "expect", "know", "name",
          "dub", "refer", "relate", "correspond", "arise", "result", "design", "build", "create", "construct",
          "derive", "release", "overcome", "solve", "alleviate", "attain", "deliver", "determine", "decide",
          "affect", "regard", "underlie", "underpin", "outline", "prove", "motivate", "inspire", "underscore",
          "showcase", "uncover", "discover", "pave", "move", "give", "take", "get", "see", "use", "adopt",
          "accelerate", "operate", "appear", "ask", "try", "want", "need", "give", "keep", "let", "put",
          "bring", "hold", "draw", "serve", "share", "exploit", "excel", "lack", "suffer", "lie", "rise",
          "grow", "reach", "cover", "span", "vary", "characterize", "formulate", "formalize", "generalize",
          "quantify", "explain", "enjoy", "contribute", "produce", "generate", "modify", "alter", "select",
          "reflect", "represent", "transform", "protect", "communicate", "predict", "deal", "divide",
          "estimate", "underperform", "elicit", "kill", "refuse", "propagate", "pursue", "extract",
          "decompose", "exceed", "fix", "resolve", "diagnose", "assign", "mimic", "incur", "impede", "impair",
          "restore", "recover", "repurpose", "convert", "avoid", "prevent", "resemble", "accomplish",
          "emphasize", "indicate", "imply", "confirm", "reinforce", "interpret", "simulate", "approach",
          "introduce", "tailor", "receive", "inflate", "undermine", "sacrifice", "threaten", "emulate",
          "delve", "reframe", "inform", "benefit", "strengthen", "repeat", "satisfy", "disrupt", "abstract",
          "expand", "acquire", "diverge", "interact", "drive", "align", "emit", "overlook", "discard", "lose",
          "invoke", "bypass", "follow"]
# Verbs whose -ing form names a thing ("learning", "steering vector"): only their other forms stop.
_VERBS_NOUN_ING = ["learn", "reason", "merge", "steer", "insert", "defend", "train", "encode", "decode",
                   "gain"]
_IRREGULAR = ["shown", "found", "made", "led", "given", "taken", "seen", "known", "held", "brought", "became",
              "done", "gone", "begun", "chosen", "drawn", "grown", "proven", "arisen", "risen", "lain",
              "kept", "put", "let", "thought", "felt", "meant", "sought", "understood", "undertaken", "fed",
              "shed", "spent", "built", "sent", "lost", "balances", "learnt", "based", "tailored", "designed",
              "aimed", "driven", "focused", "oriented", "specified", "termed", "dubbed", "called", "named",
              "prompted", "trained", "tested", "compared"]
# Words that make a phrase vaguer, not more specific: "novel", "existing", "state-of-the-art".
_WEAK = ["novel", "new", "existing", "rapid", "tremendous", "intense", "growing", "increasing",
         "unprecedented", "previous", "prior", "current", "recent", "recently", "key", "crucial", "critical",
         "important", "main", "primary", "major", "simple", "simply", "effective", "effectively", "robust",
         "strong", "stronger", "strongest", "weak", "general", "generally", "overall", "specific", "certain",
         "particular", "particularly", "potential", "wide", "widely", "large", "larger", "largest", "small",
         "smaller", "smallest", "high", "higher", "highest", "low", "lower", "lowest", "good", "better",
         "best", "great", "greater", "significant", "significantly", "substantial", "considerable",
         "extensive", "comprehensive", "thorough", "systematic", "superior", "consistent", "remarkable",
         "impressive", "promising", "popular", "common", "commonly", "standard", "traditional",
         "conventional", "typical", "typically", "various", "different", "diverse", "many", "additional",
         "extra", "further", "same", "similar", "unique", "realistic", "practical", "empirical",
         "experimental", "theoretical", "fundamental", "essential", "central", "relevant", "respective",
         "corresponding", "competitive", "notable", "excellent", "efficient", "inherently", "inherent",
         "fine", "suitable", "appropriate", "available", "possible", "impossible", "necessary", "sufficient",
         "due", "full", "fully", "entire", "whole", "real", "true", "actual", "state-of-the-art",
         "real-world", "high-quality", "large-scale", "small-scale", "well-known", "so-called",
         "long-standing", "non-trivial", "cost-effective", "time-consuming", "widely-used", "open-source",
         "well-established", "off-the-shelf", "sota", "limited", "lightweight", "powerful", "responsible",
         "unrelated", "perplexing", "challenging", "difficult", "hard", "easy", "easily", "underexplored",
         "unexplored", "given", "proposed", "resulting", "underlying", "related", "following", "above",
         "unseen", "seen", "preliminary", "rigorous", "principled", "unified", "holistic", "generic", "broad",
         "broader", "deep", "deeper", "rich", "richer", "wider", "earlier", "later", "latter", "former",
         "scalable", "flexible", "reliable", "trustworthy", "accurate", "surgical", "away", "next", "short",
         "useful", "worse"]
# Research-talk nouns: a phrase made only of these ("model performance") names no topic.
_GENERIC = frozenset(["paper", "work", "approach", "method", "methodology", "result", "experiment",
                      "experimentation", "performance", "framework", "problem", "study", "analysis",
                      "finding", "insight", "effectiveness", "efficiency", "improvement", "gain", "baseline",
                      "setting", "scenario", "application", "challenge", "issue", "limitation", "ability",
                      "capability", "technique", "strategy", "process", "case", "number", "range", "variety",
                      "type", "kind", "set", "aspect", "factor", "component", "direction", "perspective",
                      "understanding", "solution", "tool", "system", "mechanism", "goal", "need", "use",
                      "impact", "effect", "role", "amount", "size", "scale", "lack", "concern", "question",
                      "idea", "concept", "pipeline", "algorithm", "art", "field", "area", "research",
                      "researcher", "evidence", "evaluation", "benchmark", "dataset", "accuracy", "cost",
                      "time", "stage", "phase", "level", "quality", "property", "behavior", "behaviour",
                      "information", "source", "end", "trend", "part", "detail", "version", "form", "term",
                      "order", "line", "point", "example", "instance", "manner", "fact", "contribution",
                      "advantage", "advance", "advancement", "progress", "success", "development", "practice",
                      "design", "state", "variant", "module", "emphasis", "interest", "world", "view",
                      "light", "avenue", "opportunity", "paradigm", "guideline", "principle", "people",
                      "community", "effort", "literature", "scratch", "model", "task", "data", "training",
                      "llm", "lm", "ai", "mechanism", "phenomenon", "series", "subset", "presence",
                      "relationship", "content", "ml", "nlp", "mllm", "vlm"])
# Words of the field too broad to be a keyphrase alone, though fine in one: "attention head", "reward model".
_BLAND = frozenset(["parameter", "layer", "token", "feature", "loss", "objective", "function", "inference",
                    "learning", "reasoning", "prediction", "generation", "output", "input", "label", "sample",
                    "query", "response", "signal", "distribution", "value", "weight", "vector", "space",
                    "structure", "pattern", "dimension", "context", "computation", "compute", "memory",
                    "agent", "safety", "alignment", "attention", "activation", "feedback", "preference",
                    "bias", "complexity", "length", "class", "event", "word", "confidence", "distance",
                    "environment", "finetuning", "interaction", "protocol", "document", "correction",
                    "decline", "policy", "embedding", "representation", "head", "expert", "vulnerability",
                    "scalability", "assumption", "judgment", "judgement", "graph", "network", "language",
                    "knowledge", "human", "user", "optimization", "generalization", "robustness", "error",
                    "noise", "guarantee", "condition", "constraint", "metric", "score", "probability",
                    "estimation", "decision", "action", "plan", "control", "step", "rate", "answer",
                    "question", "instruction", "prompt", "text", "domain", "target", "object", "entity",
                    "transition", "dynamics", "update", "gradient", "regularization", "supervision",
                    "annotation", "simulation", "transformer", "architecture", "test", "variable", "operator",
                    "matrix", "theory", "surface", "shape", "line", "neural", "trust", "demand",
                    "proliferation", "advancement", "trajectory", "capacity", "behavior", "consistency",
                    "calibration", "change", "code", "run", "pass", "execution", "wisdom", "gap", "window",
                    "tuning", "matching", "limit"])
# Adjectives: a keyphrase does not end in one ("linear recurrent", "discriminative").
_ADJECTIVES = frozenset("""recurrent sparse dense linear nonlinear implicit explicit online offline parametric
generative contrastive latent convex stochastic visual textual local global multimodal multilingual sequential
synthetic semantic syntactic spurious harmful harmless benign malicious unsafe safe fair private secure
optimal suboptimal accurate inaccurate intermediate intense auxiliary agentic inner outer discrete
continuous complex intelligent mainstream robust scalable interpretable autoregressive adaptive
in-context long-context out-of-distribution multi-modal real-time end-to-end open-ended zero-shot few-shot
multi-step multi-turn text-only inference-time test-time higher-order lower-order first-order
fine-grained coarse-grained""".replace("-", "").split())
_ADJECTIVE_ENDINGS = ("al", "ive", "ous", "able", "ible", "ic", "ful", "less", "wise")
_HYPHEN_ADJECTIVE_ENDINGS = ("based", "aware", "free", "driven", "specific", "agnostic", "efficient",
                             "grained", "level", "wise", "like", "style", "guided", "oriented", "related",
                             "dependent", "independent", "tuned", "scale", "context", "shot", "time", "only",
                             "ended", "modal", "order", "stage", "phase", "world", "source", "quality", "art",
                             "specified", "step", "layer")
# "multi-agent" and "inter-LM" describe a noun; "pre-training" and "non-linearity" are nouns.
_PREFIXES = ("inter", "intra", "multi", "non", "cross", "anti", "semi")
_NOUN_ENDINGS = ("ing", "tion", "ity", "ness", "ment", "ance", "ence", "sion")
_NOT_ADJECTIVES = frozenset(["signal", "proposal", "retrieval", "interval", "removal", "trial", "potential",
                             "manual", "tutorial", "rival", "arrival", "approval", "material", "journal",
                             "animal", "terminal", "capital", "hospital", "principal", "survival", "goal",
                             "total", "canal", "metal", "portal", "objective", "alternative",
                             "representative", "incentive", "directive", "derivative", "narrative",
                             "initiative", "perspective", "primitive", "detective", "executive", "relative",
                             "motive", "archive", "native", "additive", "imperative", "logic", "topic",
                             "metric", "heuristic", "critic", "arithmetic", "music", "traffic", "graphic",
                             "rhetoric", "mechanic", "clinic", "epidemic", "pandemic", "logistic", "mosaic",
                             "magic", "panic", "fabric", "republic", "tactic", "characteristic", "statistic",
                             "diagnostic", "variable", "table", "cable", "observable", "deliverable",
                             "handful", "seed", "speed", "need", "feed", "embed", "hundred", "breed",
                             "refusal", "denial", "reversal", "rehearsal", "dismissal", "renewal", "disposal",
                             "appraisal", "betrayal", "burial", "referral", "recital", "portrayal",
                             "upheaval", "withdrawal", "festival", "arsenal", "scandal", "crystal", "mammal",
                             "interval", "integral", "differential", "editorial", "memorial", "original",
                             "individual", "professional", "official", "chemical", "radical", "residual",
                             "ritual", "medal"])
# A phrase ending in one of these ("quantization framework") says less than its other words.
_TAIL_FILLER = frozenset(["performance", "result", "method", "approach", "framework", "technique",
                          "capability", "ability", "task", "setting", "scenario", "issue", "challenge",
                          "limitation", "effectiveness", "efficiency", "improvement", "gain", "paradigm",
                          "perspective", "analysis", "study", "process", "strategy", "pipeline", "mechanism",
                          "problem", "aspect", "property", "behavior", "behaviour", "quality", "application",
                          "solution", "tool", "system", "accuracy", "cost", "level", "stage", "phase", "type",
                          "variant", "version", "benchmark", "dataset"])
_KEEP_S = frozenset(["bias", "alias", "atlas", "canvas", "gas", "has", "was", "as", "this", "thus", "plus",
                     "minus", "bonus", "corpus", "consensus", "status", "focus", "versus", "virus", "radius",
                     "campus", "census", "nexus", "chaos", "cosmos", "ethos", "kudos", "lens", "news",
                     "series", "species", "means", "physics", "dynamics", "mathematics", "statistics",
                     "economics", "semantics", "robotics", "analytics", "graphics", "linguistics", "ethics",
                     "genetics", "genomics", "mechanics", "politics", "logistics", "optics", "aesthetics",
                     "electronics", "informatics", "kinematics", "acoustics", "pragmatics", "phonetics",
                     "diabetes", "always", "perhaps", "across", "towards", "whereas", "sometimes", "ours",
                     "yours", "its", "his", "hers", "does", "goes", "lens", "ties"])
_IRREGULAR_PLURALS = {
    "analyses": "analysis", "hypotheses": "hypothesis", "theses": "thesis", "matrices": "matrix",
    "vertices": "vertex", "indices": "index", "appendices": "appendix", "phenomena": "phenomenon",
    "criteria": "criterion", "children": "child", "stimuli": "stimulus", "automata": "automaton",
    "axes": "axis", "caches": "cache", "niches": "niche", "biases": "bias", "aliases": "alias",
    "viruses": "virus",
    "statuses": "status", "bonuses": "bonus", "focuses": "focus", "corpora": "corpus", "movies": "movie",
    "cookies": "cookie", "zombies": "zombie", "calories": "calorie", "selfies": "selfie", "men": "man",
    "women": "woman", "feet": "foot", "teeth": "tooth", "mice": "mouse", "people": "people", "data": "data",
    "media": "media",
}
_NOT_ADVERBS = frozenset(["anomaly", "family", "assembly", "supply", "reply", "early", "italy", "monopoly",
                          "butterfly", "poly", "ply", "fly", "july", "rally", "tally", "jelly", "belly",
                          "bully", "lily", "ally", "homily"])

def _inflections(verb: str) -> set[str]:
    """Return a verb's base, -s, -ed and -ing forms: "propose" -> proposes, proposed, proposing."""
    if verb.endswith("e"):
        return {verb, verb + "s", verb + "d", verb[:-1] + "ing"}
    if verb.endswith("y") and verb[-2:-1] not in ("a", "e", "i", "o", "u"):
        return {verb, verb[:-1] + "ies", verb[:-1] + "ied", verb + "ing"}
    if verb.endswith(("s", "sh", "ch", "x", "z")):
        return {verb, verb + "es", verb + "ed", verb + "ing"}
    forms = {verb, verb + "s", verb + "ed", verb + "ing"}
    if len(verb) > 2 and verb[-1] not in "aeiouwxy" and verb[-2] in "aeiou" and verb[-3] not in "aeiou":
        forms |= {verb + verb[-1] + "ed", verb + verb[-1] + "ing"}  # "occurred", "referring"
    return forms


_STOP = frozenset(_FUNCTION + _NUMBERS + _IRREGULAR + _WEAK
                  + [form for verb in _VERBS for form in _inflections(verb)]
                  + [form for verb in _VERBS_NOUN_ING for form in _inflections(verb)
                     if not form.endswith("ing")])
# Verbs, not nouns, when a determiner follows: "Exploring the", "Training a language model".
_OBJECT_STARTS = frozenset(["the", "a", "an", "how", "what", "whether", "why", "our", "their", "its", "this",
                            "these", "those", "each", "such", "them", "it", "us"])
# "can surface"
_MODALS = frozenset(["can", "cannot", "could", "may", "might", "must", "shall", "should", "will", "would"])
_RELATIVES = frozenset(["that", "which", "who"])  # "a benchmark that challenges agents"
_CUES = frozenset(w for word in _MODALS | _RELATIVES for w in (word, word.capitalize()))

# Phrases every other abstract uses, whatever it is about.
_GENERIC_PHRASES = frozenset([("language", "model"), ("neural", "network"), ("deep", "learning"),
                              ("machine", "learning"), ("deep", "neural", "network"), ("natural", "language"),
                              ("natural", "language", "processing")])

MAX_WORDS = 3
MAX_NAME_WORDS = 6  # "Layerwise Rotated Sparse Activation (LaRoSA)": its pieces are not phrases of their own
TITLE_BOOST = 1.5  # a phrase of the title
LEAD_WEIGHTS = (1.25, 1.1)  # an occurrence in the first sentences, which state the topic
# "ordinal feedback" says more than "feedback", as C-value's log(length) has it.
LENGTH_FACTORS = (1.0, 1.6, 1.9)
ONCE_LENGTH_FACTORS = (0.5, 0.6, 0.65)  # a phrase written once is more often a turn of phrase than a term
TAIL_FILLER_FACTOR = 0.6
MIN_SHARE = 0.2  # past k_min, a phrase must score this share of the paper's best
DISTINCT_OUTSIDE = 2  # a contained phrase stays when it occurs this often outside the longer ones picked

# A word, or punctuation that ends a phrase (brackets, commas, full stops, dashes but a word's hyphen).
_PIECE = re.compile(r"([^\W_][\w'’]*(?:-[^\W_][\w'’]*)*)|([^\w\s'’-]|--)")
# The lookbehinds come after the stop, so they run only at full stops ("e.g. The" is no sentence end).
_SENTENCE_END = re.compile(r"[.!?](?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bal\.)(?<!\bvs\.)\s+(?=[\"“(]?[A-Z0-9])")
_ACRONYM_DEF = re.compile(r"\(\s*([A-Za-z][A-Za-z0-9]*[A-Z][A-Za-z0-9-]*?)(s?)\s*\)")  # "reward model (RM)"
_NAME_DEF = re.compile(r"\b([A-Za-z][\w-]*[A-Z][\w-]*)\s+\(([^()\d]{5,100})\)")  # "LaRoSA (Layerwise ...)"
_DOMAIN = re.compile(rf"\S+\.(?:{'|'.join(WEB_ENDINGS)})\b\S*", re.IGNORECASE)  # "gorilla.cs.berkeley.edu"
# A capital past the first letter of a part of a word, or a digit: "GuardAgent", "k-WL", "v1".
_CODED_PART = re.compile(r".+[A-Z]|.*\d")
_POSSESSIVE = re.compile(r"['’]s?$")

# Flags of a word, worked out once per distinct word.
_ING, _CODED, _PLURAL, _ADJECTIVE, _BLAND_WORD, _GENERIC_WORD = 1, 2, 4, 8, 16, 32
_BROAD = _BLAND_WORD | _GENERIC_WORD  # a broad word of the field or research talk
_FILLER_ALONE = _ADJECTIVE | _BROAD  # no keyphrase alone

# A word of a run: (key, surface, singular surface, flags). The key is lowercase, singular and
# without hyphens, so "Pre-trainings" and "pretraining" match.
_Token = tuple[str, str, str, int]
_Key = tuple[str, ...]


def fold_plural(word: str) -> str:
    """Return the singular of a lowercase noun: "strategies" -> "strategy", "analyses" -> "analysis"."""
    if word in _IRREGULAR_PLURALS:
        return _IRREGULAR_PLURALS[word]
    if len(word) <= 3 or not word.endswith("s") or word in _KEEP_S or "-of-" in word:
        return word  # "mixture-of-experts" is a name, not a plural
    if word.endswith(("ss", "us", "is", "ous")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes", "zzes")):
        return word[:-2]
    return word[:-1]


@lru_cache(maxsize=1 << 16)
def _is_coded(token: str) -> bool:
    """Return whether a token's case is part of its name: "GuardAgent", "LLM", "MoE", "GPT-4", "k-WL"."""
    if token.isalpha() and token[1:].islower():
        return False  # most words: letters, no capital past the first
    return any(_CODED_PART.match(part) for part in token.split("-") if part)


def _singular(token: str) -> str:
    """Return a token with its plural folded and its case kept: "LLMs" -> "LLM", "Models" -> "Model"."""
    if _is_coded(token):  # only an acronym's lowercase "s" is a plural: LLMs, CCBs; SALS is a name
        return token[:-1] if len(token) > 2 and token[-1] == "s" and token[-2].isupper() else token
    lower = token.lower()
    folded = fold_plural(lower)
    return token[:len(folded)] if lower.startswith(folded) else token[:1] + folded[1:]


def _is_stop(lower: str) -> bool:
    """Return whether a lowercase token can never be part of a keyphrase."""
    if lower in _STOP or len(lower) < 2 or lower[0].isdigit() or "'" in lower or "’" in lower:
        return True  # a contraction ("don't") is a function word; possessives are stripped before this
    if lower.endswith("ly") and "-" not in lower and len(lower) > 4 and lower not in _NOT_ADVERBS:
        return True  # an adverb: "dynamically", "effectively"
    head = lower.split("-", 1)[0]
    return head != lower and (head in _NUMBERS or head[:1].isdigit())  # "two-stage", "1-layer"


def _is_adjective(word: str) -> bool:
    """Return whether a lowercase word is an adjective, which ends no keyphrase: "in-context", "gated"."""
    first, _, last = word.rpartition("-")
    if first and (last in _HYPHEN_ADJECTIVE_ENDINGS or last in _ADJECTIVES):
        return True
    if first.split("-")[0] in _PREFIXES and not last.endswith(_NOUN_ENDINGS):
        return True
    key = word.replace("-", "")
    if key in _NOT_ADJECTIVES:
        return False
    if key in _ADJECTIVES or key.endswith(_ADJECTIVE_ENDINGS) and len(key) > 4:
        return True
    return key.endswith("ed") and len(key) > 4 and not key.endswith("eed")


@lru_cache(maxsize=1 << 18)
def _word(token: str) -> _Token | None:
    """Return a word's (key, surface, singular surface, flags), or None when no keyphrase may hold it."""
    raw = _POSSESSIVE.sub("", token) if "'" in token or "’" in token else token
    lower = raw.lower()
    if not raw or _is_stop(lower) or not (raw.isalpha() or any(map(str.isalpha, raw))):
        return None
    singular = _singular(raw)
    key = singular.lower().replace("-", "")
    flags = ((_ING if lower.endswith("ing") else 0) | (_CODED if _is_coded(raw) else 0)
             | (_PLURAL if singular != raw else 0) | (_ADJECTIVE if _is_adjective(singular.lower()) else 0)
             | (_BLAND_WORD if key in _BLAND else 0) | (_GENERIC_WORD if key in _GENERIC else 0))
    return key, raw, singular, flags


# What a piece of text between spaces holds: (word, its token or None for a stopword); a break is ("", None).
_Piece = tuple[str, _Token | None]
_BREAK: _Piece = ("", None)


def _pieces(chunk: str) -> tuple[_Piece, ...]:
    """Return the words and breaks of a chunk of text between spaces: "(LLMs)," -> break, LLMs, break."""
    if chunk.isalpha():  # most chunks are one plain word
        return ((chunk, _word(chunk)),)
    if not chunk.strip("-–—"):
        return (_BREAK,)  # a dash between spaces
    return tuple(_BREAK if mark else (word, _word(word)) for word, mark in _PIECE.findall(chunk))


# Each chunk's pieces: most chunks recur. At most 2**18 chunks held.
_CHUNK_PIECES = Memo(_pieces, 1 << 18)


def _sentences(text: str) -> list[str]:
    """Split an abstract into sentences at full stops followed by a capital or a digit."""
    if "." not in text and "!" not in text and "?" not in text:  # a title or a keyphrase, mostly
        return [text] if text.strip() else []
    parts, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        parts.append(text[start:m.start() + 1])
        start = m.end()
    parts.append(text[start:])
    return [p for p in parts if p.strip()]


def _is_name_part(pieces: list[_Piece], i: int) -> bool:
    """Return whether the word of pieces[i] sits next to another capitalised word, as in "Dynamic
    Layerwise Pruning"."""
    for j in (i - 2, i - 1, i + 1, i + 2):
        word = pieces[j][0] if 0 <= j < len(pieces) else ""
        if (word[:1].isupper() and not _is_coded(word)
                and (abs(j - i) == 1 or len(pieces[(i + j) // 2][0]) <= 3)):
            return True
    return False


def _is_verb(token: _Token, previous: str, following: str, opens_title: bool) -> bool:
    """Return whether a word is a verb by its neighbours: "Exploring the", "can surface", "that shows"."""
    flags = token[3]
    if flags & _ING:
        return following.lower() in _OBJECT_STARTS or opens_title  # a derived title starts with what we did
    if flags & _CODED or previous not in _CUES:
        return False
    return previous.lower() in _MODALS or token[1].endswith("s")


def _runs(sentence: str, is_title: bool = False, aliases: dict[str, tuple[str, str]] | None = None,
          proper: set[str] | None = None) -> list[list[_Token]]:
    """Split a sentence into runs of words that may form a keyphrase; stopwords and punctuation end a run.

    ``aliases`` maps a word's key to the (key, surface) it stands for, like "tom" to theory-of-mind's;
    ``proper`` collects the keys of capitalised words that are not at a sentence start or in a name.
    """
    runs: list[list[_Token]] = []
    current: list[_Token] = []
    # A break after the end closes the last run; it is also before the start (pieces[-1]).
    pieces = [*chain.from_iterable(map(_CHUNK_PIECES.__getitem__, sentence.split())), _BREAK]  # in C, mostly
    for i, (text, token) in enumerate(pieces):
        # After a plural a lowercase word is a verb: nouns pile up before the plural ("LLMs process").
        if token is None or current and current[-1][3] & _PLURAL and token[1].islower() or (
                token[3] & _ING or pieces[i - 1][0] in _CUES) and _is_verb(
                    token, pieces[i - 1][0], pieces[i + 1][0], is_title and i == 0):
            if current:
                runs.append(current)
                current = []
            continue
        if (proper is not None and i and not is_title and text[0].isupper() and not token[3] & _CODED
                and not _is_name_part(pieces, i)):
            proper.add(token[0])
        possessive = token[1] != text  # _word strips "'s"
        if aliases and token[0] in aliases:
            key, surface = aliases[token[0]]
            token = (key, surface, surface, token[3] & ~_PLURAL)
        current.append(token)
        if possessive:  # a possessive ends the phrase: "MoE's sparse" is not "MoE sparse"
            runs.append(current)
            current = []
    return runs


def _plain_runs(text: str) -> list[list[_Token]]:
    """Return the runs of the sentences of a text, each read alone: no aliases, no title rule."""
    return [run for sentence in _sentences(text) for run in _runs(sentence)]


def _term_word(token: _Token) -> tuple[str, str]:
    """Return a word's key and display form: lowercase but for names, its plural folded."""
    return token[0], token[2] if token[3] & _CODED else token[2].lower()


def term_runs(text: str) -> list[list[tuple[str, str]]]:
    """Return the runs of (key, display form) of the words in text that may belong to a keyphrase."""
    return [[_term_word(t) for t in run] for run in _plain_runs(text)]


def word_keys(text: str) -> tuple[str, ...]:
    """Return the keys of ``term_runs(text)``'s words, run after run: a keyphrase's key."""
    return tuple(token[0] for run in _plain_runs(text) for token in run)


# How often a paper uses each word, as (key, display form, times) in order of first use, and each
# 1-3 word n-gram of word keys, in order of first use: the terms related.py compares papers by.
TermCounts = tuple[tuple[tuple[str, str, int], ...], dict[_Key, int]]


def count_terms(title: str, abstract: str) -> TermCounts:
    """Return the words and n-grams of the runs of a paper's title and abstract (see ``term_runs``)."""
    runs = _plain_runs(title) + _plain_runs(abstract)
    return _term_counts(runs, [_run_grams(runs)])


def _run_grams(runs: list[list[_Token]]) -> list[_Key]:
    """Return the 1-3 word n-grams of runs, run by run."""
    found: list[_Key] = []
    for run in runs:
        _add_grams(found, run)
    return found


def _term_counts(runs: list[list[_Token]], grams: list[list[_Key]]) -> TermCounts:
    """Return the counts of the words of runs and of their n-grams, given in lists to be joined in order."""
    return _term_words(counted(chain.from_iterable(runs)).items()), counted(chain.from_iterable(grams))


def _term_words(counted: Iterable[tuple[_Token, int]]) -> tuple[tuple[str, str, int], ...]:
    """Return (key, display form, times) for counted words, each distinct word given once, in order."""
    words: dict[tuple[str, str], int] = {}
    for (key, _, singular, flags), times in counted:
        word = key, singular if flags & _CODED else singular.lower()  # _term_word, inline: once a word
        words[word] = words.get(word, 0) + times
    return tuple((key, name, times) for (key, name), times in words.items())


def _initials_match(acronym: str, words: list[str]) -> bool:
    """Return whether an acronym abbreviates the words: "RM" for reward model, "IWN" for Invariant Graph..."""
    letters = [c for c in acronym.lower() if c.isalpha()]
    flat = " ".join(words).lower()
    if not letters or flat[:1] != letters[0]:
        return False
    if len(words) == sum(c.isupper() for c in acronym):
        return True
    rest = iter(flat[1:])
    return all(c in rest for c in letters[1:])


def _expansion(before: str, acronym: str) -> str | None:
    """Return the shortest ending of ``before`` that the acronym abbreviates: "Just Run Twice" for JuICE."""
    words = before.split()[-MAX_NAME_WORDS:]
    for n in range(1, len(words) + 1):
        if words[-n][-1:] in ",;:.!?)":  # the name does not run across punctuation
            return None
        if _initials_match(acronym, words[-n:]):
            return " ".join(words[-n:])
    return None


def _aliases(text: str) -> dict[str, list[list[_Token]]]:
    """Map each acronym or name the text spells out to the runs of its spelling.

    Both "reward model (RM)" and "LaRoSA (Layerwise Rotated Sparse Activation)" count. A spelling
    with stopwords ("Just Run Twice") gets an empty run at the end: its pieces are not the name.
    """
    found: dict[str, list[list[_Token]]] = {}
    if "(" not in text:
        return found
    spellings = [(m.group(1), _expansion(text[max(0, m.start() - 150):m.start()], m.group(1)))
                 for m in _ACRONYM_DEF.finditer(text)]
    spellings += [(_singular(m.group(1)), m.group(2)) for m in _NAME_DEF.finditer(text)
                  if _initials_match(_singular(m.group(1)), m.group(2).split())]
    for name, spelt in spellings:
        key = _singular(name).lower().replace("-", "")
        if spelt and key not in found:
            runs = _runs(spelt)
            if sum(map(len, runs)) < len(spelt.split()):
                runs.append([])
            found[key] = runs
    return found


def _word_aliases(defined: dict[str, list[list[_Token]]]) -> dict[str, tuple[str, str]]:
    """Map an acronym of one word to that word: ToM and theory-of-mind are one word of a phrase."""
    return {acronym: (runs[0][0][0], runs[0][0][2]) for acronym, runs in defined.items()
            if len(runs) == 1 and len(runs[0]) == 1 and runs[0][0][0] != acronym}


def _without_domains(text: str) -> str:
    """Return text without web addresses, whose pieces ("berkeley", "leaderboard") are no phrases."""
    return _DOMAIN.sub(" ", text) if may_hold_web_address(text) else text  # the pattern is slow


def _paper_runs(title: str, abstract: str, aliases: dict[str, tuple[str, str]],
                proper: set[str] | None = None) -> list[list[list[_Token]]]:
    """Return a paper's runs part by part: the title's (part 0), then each sentence's (part 1 + its position).

    ``abstract`` is without web addresses (_without_domains) and ``aliases`` are its _word_aliases.
    """
    parts = [title] + _sentences(abstract) if title.strip() else [""] + _sentences(abstract)
    return [_runs(text, part == 0, aliases, proper) for part, text in enumerate(parts)]


def _part_weight(part: int) -> float:
    """Return an occurrence's weight in a part: 1 in the title, a little more in the first sentences."""
    return LEAD_WEIGHTS[part - 1] if 0 < part <= len(LEAD_WEIGHTS) else 1.0


class _Vocabulary:
    """Numbers for a catalog's distinct words (as written) and word keys, and phrase codes made of them."""

    BITS = 21  # bits per word of a phrase code: three words and 2 million keys fit in an int64

    def __init__(self) -> None:
        self.keys: dict[str, int] = {}

    def key_numbers(self, tokens: Sequence[_Token]) -> list[int]:
        """Return the numbers of words' keys, numbering each key when new."""
        keys = self.keys
        numbers = [keys.setdefault(token[0], len(keys)) for token in tokens]
        if len(keys) >= 1 << self.BITS:
            raise ValueError("more distinct words than keyphrase codes can hold")
        return numbers

    def phrase_codes(self, keys: np.ndarray, papers: np.ndarray) -> np.ndarray:
        """Return the codes of the 1-3 word phrases in packed key numbers (-1 opens a run), once per paper.

        ``papers`` numbers the paper of each key number; each paper's keys start with -1.
        """
        shift, k = self.BITS, keys + 1  # 0 opens a run and never joins a phrase
        ok = k > 0
        pairs, triples = ok[:-1] & ok[1:], ok[:-2] & ok[1:-1] & ok[2:]
        codes = np.concatenate([k[ok], ((k[:-1] << shift) | k[1:])[pairs],
                                ((k[:-2] << 2 * shift) | (k[1:-1] << shift) | k[2:])[triples]])
        where = np.concatenate([papers[ok], papers[:-1][pairs], papers[:-2][triples]])
        # Sorted by code, each code's papers stay in order: a code has one length, and the codes of each
        # length come paper after paper.
        order = np.argsort(codes, kind="stable")
        codes, where = codes[order], where[order]
        first = np.ones(len(codes), dtype=bool)
        first[1:] = (codes[1:] != codes[:-1]) | (where[1:] != where[:-1])
        return codes[first]

    def codes(self, keys: Sequence[_Key]) -> np.ndarray:
        """Return phrases' codes: their words' key numbers plus one, BITS bits each; -1 for a phrase with a
        word the vocabulary lacks."""
        if not keys:
            return np.zeros(0, np.int64)
        sizes = np.fromiter(map(len, keys), np.int64, len(keys))
        ends = np.cumsum(sizes)
        numbers = np.fromiter(map(self.keys.get, chain.from_iterable(keys), repeat(-1)), np.int64, int(ends[-1]))
        after = np.repeat(ends, sizes) - np.arange(len(numbers)) - 1  # the words after each in its phrase
        codes = np.add.reduceat((numbers + 1) << (self.BITS * after), ends - sizes)  # the bits never overlap
        if numbers.min() < 0:  # a word the vocabulary lacks (counted as 0 bits) makes a phrase no code has
            codes[np.minimum.reduceat(numbers, ends - sizes) < 0] = -1
        return codes


class _Counts:
    """Document frequencies of phrase codes, merged in batches so memory stays near the distinct phrases."""

    BATCH = 1 << 21  # codes held before a merge

    def __init__(self) -> None:
        self.codes = np.zeros(0, np.int64)
        self.counts = np.zeros(0, np.int64)
        self.pending: list[np.ndarray] = []
        self.size = 0

    def add(self, codes: np.ndarray) -> None:
        """Count phrase codes, each once per paper it occurs in."""
        self.pending.append(codes)
        self.size += len(codes)
        if self.size >= self.BATCH:
            self.merge()

    def merge(self) -> None:
        """Fold the pending codes into the sorted codes and their counts."""
        if not self.pending:
            return
        new, counts = np.unique(np.concatenate(self.pending), return_counts=True)
        codes = np.concatenate((self.codes, new))
        counts = np.concatenate((self.counts, counts))
        order = np.argsort(codes, kind="stable")
        codes, counts = codes[order], counts[order]
        starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]]) if len(codes) else order
        self.codes, self.counts = codes[starts], np.add.reduceat(counts, starts) if len(codes) else counts
        self.pending, self.size = [], 0

    def __getstate__(self) -> dict:
        self.merge()
        return {"codes": self.codes.tobytes(), "counts": self.counts.tobytes()}  # a cache holds no numpy objects

    def __setstate__(self, state: dict) -> None:
        self.__init__()  # type: ignore[misc]
        self.codes = np.frombuffer(state["codes"], dtype=np.int64)
        self.counts = np.frombuffer(state["counts"], dtype=np.int64)

    def lookup(self, codes: np.ndarray) -> np.ndarray:
        """Return the document frequency of each code: 0 for a code never counted."""
        where = np.minimum(np.searchsorted(self.codes, codes), len(self.codes) - 1)
        return np.where(self.codes[where] == codes, self.counts[where], 0) if len(self.codes) else 0 * codes


# A candidate phrase of one paper: [weight, count, literal count, in title]. The weight sums its
# occurrences by where they are; the count includes an acronym's occurrences, the literal count
# only the phrase as written.
_WEIGHT, _COUNT, _LITERAL, _IN_TITLE = range(4)


def _add_grams(found: list[_Key], run: list[_Token]) -> None:
    """Append the 1-3 word n-grams of a run's word keys: its words, then its pairs, then its triples."""
    if len(run) == 1:  # four runs in five are one word: one n-gram
        found.append((run[0][0],))
        return
    words = [t[0] for t in run]
    found.extend(zip(words))  # zip makes the tuples in C: this is the hot loop of the module
    found.extend(pairwise(words))
    found.extend(zip(words, words[1:], words[2:]))


def _ngrams(parts: list[list[list[_Token]]]) -> list[list[_Key]]:
    """Return a paper's 1-3 word n-grams per part (title, 1st, 2nd, later sentences), given its runs by part."""
    grams: list[list[_Key]] = [[] for _ in range(len(LEAD_WEIGHTS) + 2)]
    last = len(grams) - 1
    for part, runs in enumerate(parts):
        found = grams[part if part < last else last]  # noqa: FURB136 - min() costs more, per part
        for run in runs:
            if len(run) == 1:  # four runs in five are one word: one n-gram, without a call
                found.append((run[0][0],))
            else:
                _add_grams(found, run)
    return grams


_LEAD_PART_WEIGHTS = tuple(map(_part_weight, range(len(LEAD_WEIGHTS) + 1)))  # the title's and lead sentences'
_LATER_WEIGHT = _part_weight(len(LEAD_WEIGHTS) + 1)


def _candidates(numbers: list[int], table: Sequence[_Token], grams: list[list[_Key]], counts: dict[_Key, int],
                flags: dict[str, int], defined: dict) -> dict[_Key, list]:
    """Return a paper's candidate phrases by key, given its packed runs and words (see ``_spellings``), its
    ``_ngrams`` and their counts all parts together."""
    # Each phrase as if all its occurrences were in the later sentences, as most are ...
    # (_is_filler's one-word test inline: most n-grams are one word.)
    phrases = {key: [float(n), n, n, False] for key, n in counts.items()
               if not (flags[key[0]] & _FILLER_ALONE if len(key) == 1 else _is_filler(key, flags))}
    # ... then those in the title or the lead sentences weighed part by part, in order: a part a phrase
    # is not in adds 0.0, so each weight is the very float of a sum over the parts it is in.
    lead = [counted(part) for part in grams[:-1]]
    for key in set().union(*lead):
        phrase = phrases.get(key)
        if phrase is not None:
            times = [counter.get(key, 0) for counter in lead]
            n = phrase[_COUNT]
            weight = sum(map(mul, _LEAD_PART_WEIGHTS, times))
            phrase[:] = [weight + (n - sum(times)) * _LATER_WEIGHT, n - times[0], n - times[0], times[0] > 0]
    _drop_name_pieces(phrases, defined)
    _merge_aliases(phrases, {a: tuple(t[0] for t in spelt[0]) for a, spelt in defined.items()
                             if len(spelt) == 1 and 1 < len(spelt[0]) <= MAX_WORDS}, numbers, table)
    return phrases


def _spellings(keys: list[_Key], numbers: list[int], table: Sequence[_Token]) -> dict[_Key, dict[_Key, int]]:
    """Return how often each phrase is spelt each way, its last word singular.

    ``numbers`` are a paper's packed runs (see ``PaperPhrases``), ``table`` its words in number order.
    """
    # Each number's word key; a negative number (-1 - part) indexes one of the Nones appended.
    said = list(map(([t[0] for t in table] + [None] * -min(numbers, default=0)).__getitem__, numbers))
    found: dict[_Key, dict[tuple[str, ...], int]] = {}
    for key in keys:
        spelt = found[key] = {}
        n, at = len(key), -1
        for _ in range(said.count(key[0])):  # count and index find the places in C, not word by word
            at = said.index(key[0], at + 1)
            if tuple(said[at:at + n]) == key:
                surface = tuple([table[w][1] for w in numbers[at:at + n - 1]] + [table[numbers[at + n - 1]][2]])
                spelt[surface] = spelt.get(surface, 0) + 1
    return found


def _drop_name_pieces(phrases: dict[_Key, list], defined: dict[str, list[list[_Token]]]) -> None:
    """Drop pieces of a spelt-out name ("rotated sparse", "leaderboard") found nowhere else."""
    for acronym, runs in defined.items():
        if (acronym,) not in phrases:
            continue
        whole = len(runs) == 1 and len(runs[0]) <= MAX_WORDS  # a short spelling is merged, not dropped
        for run in runs:
            keys = tuple(t[0] for t in run)
            for size in range(1, min(len(keys), MAX_WORDS) + 1):
                for i in range(len(keys) - size + 1):
                    piece = phrases.get(keys[i:i + size])
                    if piece is not None and piece[_LITERAL] <= 1 and not (whole and size == len(keys)):
                        del phrases[keys[i:i + size]]


def _merge_aliases(phrases: dict[_Key, list], aliases: dict[str, _Key], numbers: list[int],
                   table: Sequence[_Token]) -> None:
    """Count an acronym and its spelling as one phrase, named by the spelling unless the acronym is coined."""
    for acronym, expansion in aliases.items():
        short = (acronym,)
        if short not in phrases or expansion not in phrases:
            continue
        # "SimIE" and "MOSSBench" are names; "RM" or "DLP" only abbreviate their phrase.
        coined = any(c.islower() for spelling in _spellings([short], numbers, table)[short] for c in spelling[0])
        source, target = (expansion, short) if coined else (short, expansion)
        moved, kept = phrases.pop(source), phrases[target]
        kept[_WEIGHT] += moved[_WEIGHT]
        kept[_COUNT] += moved[_COUNT]
        kept[_IN_TITLE] |= moved[_IN_TITLE]


def _is_filler(key: _Key, flags: dict[str, int]) -> bool:
    """Return whether a phrase cannot be a keyphrase: "model performance", "LLM", "layer", "gated".

    That is one ending in an adjective, one every abstract uses, a broad word alone, or research
    talk after broad words ("model performance", "training data"). ``flags`` maps words to their flags.
    """
    last = flags[key[-1]]
    if len(key) == 1:  # most phrases: no word before, none of the phrases every abstract uses
        return bool(last & _FILLER_ALONE)
    if last & _ADJECTIVE or key in _GENERIC_PHRASES:
        return True
    return bool(last & _GENERIC_WORD) and all(flags[w] & _BROAD for w in key[:-1])


def _nested_weights(phrases: dict[_Key, list]) -> list[float]:
    """Return each phrase's weight less the mean weight of the longer candidates that contain it (C-value),
    in the order of ``phrases``.

    Only longer phrases said twice count: "frame data mixing" said once does not make "data mixing" a part.
    """
    total: dict[_Key, float] = {}
    count: dict[_Key, int] = {}
    for key, phrase in phrases.items():
        n = len(key)
        if n == 1 or phrase[_LITERAL] + phrase[_IN_TITLE] < 2:
            continue
        for size in range(1, n):
            for i in range(n - size + 1):
                inner = key[i:i + size]
                total[inner] = total.get(inner, 0.0) + phrase[_WEIGHT]
                count[inner] = count.get(inner, 0) + 1
    if not total:  # most papers: no phrase said twice inside a longer one
        return list(map(itemgetter(_WEIGHT), phrases.values()))
    return [p[_WEIGHT] - total[key] / count[key] if key in total else p[_WEIGHT] for key, p in phrases.items()]


def _rank(phrases: dict[_Key, list], idf: Iterable[float]) -> list[tuple[float, _Key]]:
    """Return (-score, key) for a paper's possible keyphrases, best first, ties in alphabetical order.

    The score is negated so that the tuples sort as they are, in C, without a key function per phrase.
    ``idf`` gives the phrases' inverse document frequencies in their order (only as many are read).
    """
    ranked = []
    # phrases first: zip stops at their end without reading one more idf
    for (key, phrase), weight, key_idf in zip(phrases.items(), _nested_weights(phrases), idf):
        if weight <= 0:
            continue
        # Sublinear in the count: a word said ten times ("agent") is not ten times as telling.
        score = (1.0 + math.log(weight) if weight > 1.0 else weight) * key_idf
        once = phrase[_COUNT] + phrase[_IN_TITLE] <= 1
        score *= (ONCE_LENGTH_FACTORS if once else LENGTH_FACTORS)[len(key) - 1]
        if phrase[_IN_TITLE]:
            score *= TITLE_BOOST
        if key[-1] in _TAIL_FILLER:
            score *= TAIL_FILLER_FACTOR
        ranked.append((-round(score, 9), key))
    ranked.sort()
    return ranked


def _contains(long: _Key, short: _Key) -> bool:
    """Return whether the words of short occur together inside long."""
    n = len(short)
    # A phrase has at most MAX_WORDS = 3 words: a shorter one inside it is a word, or two words that
    # start or end it.
    return len(long) > n and (short[0] in long if n == 1 else long[:n] == short or long[-n:] == short)


def _is_covered(key: _Key, picked: list[_Key], phrases: dict[_Key, list]) -> bool:
    """Return whether a phrase occurs too rarely outside the longer picked phrases that contain it."""
    longer = [p for p in picked if _contains(p, key)]
    if not longer:
        return False
    literal = phrases[key][_LITERAL]
    outside = literal - sum(phrases[p][_LITERAL] for p in longer)
    return outside < DISTINCT_OUTSIDE or outside < literal / 2


def _is_shifted(key: _Key, picked: list[_Key], phrases: dict[_Key, list]) -> bool:
    """Return whether a phrase is a picked one moved by a word ("calling leaderboard") and never apart."""
    return len(key) > 1 and any(len(p) == len(key) and (p[1:] == key[:-1] or p[:-1] == key[1:])
               and phrases[key][_LITERAL] <= phrases[p][_LITERAL] for p in picked)


def _select(ranked: list[tuple[float, _Key]], phrases: dict[_Key, list], k_min: int,
            k_max: int) -> list[_Key]:
    """Pick the best phrases, skipping one that overlaps better picks unless it also stands on its own.

    ``ranked`` is ``_rank``'s: (-score, key), best first.
    """
    picked: list[tuple[float, _Key]] = []
    for negated, key in ranked:
        score = -negated
        if len(picked) >= k_max or len(picked) >= k_min and score < MIN_SHARE * picked[0][0]:
            break
        keys = [k for _, k in picked]
        if _is_covered(key, keys, phrases) or _is_shifted(key, keys, phrases):
            continue
        # A longer phrase takes the place of a shorter pick that rarely occurs without it:
        # "ordinal feedback" replaces "feedback" when the paper's feedback is mostly ordinal.
        at = len(picked)
        for i in reversed(range(len(picked))):
            shorter = picked[i][1]
            if _contains(key, shorter) and _is_covered(shorter, [k for k in keys if k != shorter] + [key], phrases):
                del picked[i]
                at = i
        picked.insert(at, (score, key))
    return [key for _, key in picked]


def _display(spellings: dict[tuple[str, ...], int], proper: frozenset[str]) -> str:
    """Write a phrase as the paper writes it most often, in lowercase but for names: "MoE quantization"."""
    # The most frequent spelling; on a tie the lowercase one ("oversensitivity" over "OverSenSitivity").
    best = next(iter(spellings)) if len(spellings) == 1 else min(
        spellings.items(), key=lambda kv: (-kv[1], not " ".join(kv[0]).islower(), kv[0]))[0]
    # A lowercase word is written as it is whatever the rule says (most words: no other test).
    return " ".join(w if w.islower() or _is_coded(w) or w.lower().replace("-", "") in proper else w.lower()
                    for w in best)


@dataclass(frozen=True)
class PaperPhrases:
    """What picking needs of one paper, worked out from its title and abstract alone (so it can be cached).

    ``runs`` packs the paper's runs as int32 numbers: -1 - part opens a run, any other number is a
    position in ``tokens``, the paper's distinct words in order of appearance.
    """

    tokens: tuple[_Token, ...]
    runs: bytes
    phrases: dict[_Key, list]  # the candidate phrases: [weight, count, literal count, in title]; read only
    proper: frozenset[str]  # keys of words capitalised mid-sentence, not at a sentence start or in a name

    def spellings(self, keys: list[_Key]) -> dict[_Key, dict[_Key, int]]:
        """Return how often each of the paper's phrases ``keys`` is spelt each way, its last word singular."""
        return _spellings(keys, np.frombuffer(self.runs, dtype=np.int32).tolist(), self.tokens)


def analyse(title: str, abstract: str) -> PaperPhrases:
    """Return a paper's words, runs, candidate phrases and proper-noun evidence: all that needs no catalog."""
    return _analyse(title, abstract)[0]


def analyse_and_count_terms(title: str, abstract: str) -> tuple[PaperPhrases, TermCounts]:
    """Return ``analyse(title, abstract)`` and ``count_terms(title, abstract)``.

    The runs and n-grams of the abstract are worked out once for both when no web address is cut
    from it and it spells out no one-word alias; those of the title too when it reads alike.
    """
    analysed, parts, words, grams, counts, adapted = _analyse(title, abstract)
    if adapted:
        return analysed, count_terms(title, abstract)
    if _title_reads_alike(title):
        return analysed, (_term_words(words.items()), counts)  # counts: read only by the candidates
    title_runs = _plain_runs(title)
    return analysed, _term_counts(title_runs + list(chain.from_iterable(parts[1:])),
                                  [_run_grams(title_runs), *grams[1:]])


def _analyse(title: str, abstract: str) -> tuple[PaperPhrases, list[list[list[_Token]]], dict[_Token, int],
                                                 list[list[_Key]], dict[_Key, int], bool]:
    """Return ``analyse(title, abstract)``, the paper's runs by part, how often it uses each word, its
    ``_ngrams`` lists and their counts all together, and whether the abstract was adapted (web addresses
    cut, one-word aliases put in): then its runs are not ``_plain_runs``'s."""
    proper: set[str] = set()
    plain = _without_domains(abstract)
    defined = _aliases(plain)  # read only, by the runs and the candidates alike
    aliases = _word_aliases(defined)
    parts = _paper_runs(title, plain, aliases, proper)
    words = list(chain.from_iterable(chain.from_iterable(parts)))
    used = counted(words)  # the paper's distinct words in order of first use, and their counts
    numbers = dict(zip(used, count()))
    # Each run's part marker (-1 - part), then its words, part after part: made in C, not run by run.
    marked = list(chain.from_iterable(chain.from_iterable(
        chain.from_iterable(zip(repeat((-1 - part,)), runs)) for part, runs in enumerate(parts))))
    packed = list(map(numbers.get, marked, marked))  # a word's number; a marker is not in numbers: itself
    grams = _ngrams(parts)
    counts = counted(chain.from_iterable(grams))
    flags = dict(zip(map(itemgetter(0), words), map(itemgetter(3), words)))  # where each word occurs last
    table = tuple(numbers)
    phrases = _candidates(packed, table, grams, counts, flags, defined)
    packed_runs = np.array(packed, dtype=np.int32).tobytes()
    analysed = PaperPhrases(table, packed_runs, phrases, frozenset(proper))
    return analysed, parts, used, grams, counts, plain != abstract or bool(aliases)


def _title_reads_alike(title: str) -> bool:
    """Return whether a title's runs are ``_plain_runs``'s: it is one sentence whose first piece is no
    -ing word, the only word ``_runs``'s title rule may take for a verb where a sentence's would not."""
    first = next(chain.from_iterable(map(_CHUNK_PIECES.__getitem__, title.split())), _BREAK)[1]
    return (first is None or not first[3] & _ING) and _SENTENCE_END.search(title) is None


_TOKENIZE_BATCH = 4096  # papers whose phrase codes are found at once
_PICK_BATCH = 256  # papers whose keyphrases a worker picks at once: their phrases looked up together


def _tokenize(papers: Sequence[PaperPhrases]) -> tuple[_Vocabulary, _Counts, set[str]]:
    """Return the catalog's vocabulary, its phrase document frequencies and its proper nouns."""
    proper: set[str] = set().union(*(paper.proper for paper in papers))
    lowercase: set[str] = set()
    vocabulary, counts = _Vocabulary(), _Counts()
    for start in range(0, len(papers), _TOKENIZE_BATCH):
        batch = papers[start:start + _TOKENIZE_BATCH]
        tokens = list(chain.from_iterable(paper.tokens for paper in batch))
        # The papers' word numbers become catalog key numbers; -1 (the appended last one) opens a run.
        keys = np.array(vocabulary.key_numbers(tokens) + [-1], dtype=np.int64)
        local = np.frombuffer(b"".join(paper.runs for paper in batch), dtype=np.int32)
        where = np.repeat(np.arange(len(batch)), [len(paper.runs) // 4 for paper in batch])  # 4-byte int32s
        before = np.cumsum([0] + [len(paper.tokens) for paper in batch])  # the words of the papers before
        counts.add(vocabulary.phrase_codes(keys[np.where(local < 0, -1, local + before[where])], where))
        lowercase.update([t[0] for t in tokens if t[0] in proper and t[1].islower()])
    counts.merge()
    return vocabulary, counts, proper - lowercase  # proper: capitalised mid-sentence, never lowercase


def reference_size(papers: int) -> int:
    """Return the catalog size that inverse document frequencies use: the next power of two.

    IDF is log(size / document frequency). With the exact size, every paper added would shift
    every weight a little, reorder near ties and rewrite pages that have nothing to do with the
    new papers; a size that changes only when the catalog doubles keeps them as they were.
    """
    return 1 << papers.bit_length()


REFERENCE_MIN = 4096  # a smaller catalog is its own reference: every paper counts


def reference_count(papers: int) -> int:
    """Return how many of a catalog's oldest papers (by arrival) its word statistics are counted over.

    All of them below REFERENCE_MIN; from there on, the largest power of two the catalog reaches. So
    until the catalog doubles, a new listing changes no statistic, and no keyphrase or related-paper
    score of an earlier paper: its page changes only if a new paper is now among its closest.
    """
    return papers if papers < REFERENCE_MIN else 1 << (papers.bit_length() - 1)


@dataclass(frozen=True)
class Statistics:
    """What picking needs of the catalog, counted over its reference papers: their vocabulary, the
    document frequency of each phrase, their proper nouns, and the size IDF divides."""

    vocabulary: _Vocabulary
    counts: _Counts
    proper: frozenset[str]  # capitalised mid-sentence, never lowercase
    size: int

    def proper_of(self, paper: PaperPhrases) -> frozenset[str]:
        """Return the proper nouns of the reference, and those of the paper's words it has never seen."""
        new = [word for word in paper.proper if word not in self.vocabulary.keys]
        if not new:
            return self.proper
        lowercase = {token[0] for token in paper.tokens if token[1].islower()}
        return self.proper.union(word for word in new if word not in lowercase)


def statistics(reference: Sequence[PaperPhrases]) -> Statistics:
    """Return the statistics of the reference papers (see ``reference_count``)."""
    vocabulary, counts, proper = _tokenize(reference)
    return Statistics(vocabulary, counts, frozenset(proper), reference_size(len(reference)))


def pick(papers: Sequence[PaperPhrases], k_min: int = 5, k_max: int = 8,
         stats: Statistics | None = None) -> list[tuple[str, ...]]:
    """Return each paper's ``k_min``-``k_max`` keyphrases, best first, scored against ``stats`` (by
    default, those of ``papers`` themselves)."""
    stats = stats or statistics(papers)
    vocabulary, counts, size = stats.vocabulary, stats.counts, stats.size

    def pick_batch(start: int) -> list[tuple[str, ...]]:
        batch = papers[start:start + _PICK_BATCH]
        # The inverse document frequencies of the batch's candidates, paper after paper.
        found = counts.lookup(vocabulary.codes(list(chain.from_iterable(paper.phrases for paper in batch))))
        idf = iter((np.log(size / (found + 1)) + 1.0).tolist())
        picked = []
        for paper in batch:
            phrases = paper.phrases
            keys = _select(_rank(phrases, idf), phrases, k_min, k_max)
            spellings = paper.spellings(keys)
            proper = stats.proper_of(paper)
            picked.append(tuple(dict.fromkeys(_display(spellings[key], proper) for key in keys)))
        return picked

    # Each batch of papers alone, once the catalog's counts are known.
    batches = parallel_map(pick_batch, range(0, len(papers), _PICK_BATCH), min_items=2)
    return [picked for batch in batches for picked in batch]


def extract_keyphrases(docs: Sequence[tuple[str, str]], k_min: int = 5,
                       k_max: int = 8) -> list[tuple[str, ...]]:
    """Return each paper's ``k_min``-``k_max`` keyphrases, best first, from (title, plain abstract) pairs."""
    return pick([analyse(title, abstract) for title, abstract in docs], k_min, k_max)


@lru_cache(maxsize=1 << 16)
def is_telling(word: str) -> bool:
    """Return whether a word tells papers apart: no research talk ("method"), broad word or adjective."""
    key = word.lower().replace("-", "")
    return not (key in _GENERIC or key in _BLAND or _is_adjective(word.lower()))
