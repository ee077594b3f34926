"""The words a keyphrase may hold, and what each word is: its key, its singular, its flags."""

from __future__ import annotations

import re
from functools import lru_cache

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


@lru_cache(maxsize=1 << 16)
def is_telling(word: str) -> bool:
    """Return whether a word tells papers apart: no research talk ("method"), broad word or adjective."""
    key = word.lower().replace("-", "")
    return not (key in _GENERIC or key in _BLAND or _is_adjective(word.lower()))
