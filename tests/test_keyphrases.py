"""Keyphrase extraction: the phrase rules, corpus scoring, determinism and the bundled papers."""

from __future__ import annotations

import json
import pickle
import random
import re
from itertools import accumulate

import pytest

from papercat.enrich.keyphrases import (
    analyse,
    extract_keyphrases,
    fold_plural,
    pick,
    statistics,
    term_runs,
)
from papercat.enrich.reference_papers import reference_count
from tests.conftest import ROOT

# Words no keyphrase may start or end with, listed here independently of the module's own lists.
FUNCTION_WORDS = {"a", "an", "the", "of", "for", "to", "in", "on", "with", "by", "via", "from", "and", "or",
                  "we", "our", "this", "that", "these", "is", "are", "be", "as", "at", "its", "their"}
FILLER = {"this paper", "experimental results", "state-of-the-art methods", "extensive experiments",
          "large language models", "large language model", "language model", "proposed method",
          "existing methods", "our approach", "performance", "method", "model", "results", "paper"}


@pytest.fixture(scope="module")
def bundled_phrases(bundled) -> list[tuple[str, ...]]:
    return extract_keyphrases(bundled)


def paper(docs: list[tuple[str, str]], words: str) -> int:
    """Return the position of the one paper whose abstract contains ``words``."""
    found = [i for i, (_, abstract) in enumerate(docs) if words in abstract]
    assert len(found) == 1, (words, found)
    return found[0]


def filler_catalog(n: int = 40, seed: int = 7) -> list[tuple[str, str]]:
    """Return abstracts of common research words, so a test's own phrases stand out against them."""
    rng = random.Random(seed)
    words = ["model", "data", "method", "training", "results", "performance", "learning", "task", "network",
             "approach", "benchmark", "accuracy", "evaluation", "framework", "analysis", "dataset",
             "experiments", "baseline", "inference"]
    return [("", ". ".join(" ".join(rng.choices(words, k=9)).capitalize() for _ in range(5)) + ".")
            for _ in range(n)]


# --- the rules every keyphrase follows --------------------------------------------------------------------


def test_every_bundled_paper_gets_five_to_eight(bundled_phrases):
    assert all(5 <= len(phrases) <= 8 for phrases in bundled_phrases), [
        (i, p) for i, p in enumerate(bundled_phrases) if not 5 <= len(p) <= 8]


def test_one_to_three_words_without_function_words_at_either_end(bundled_phrases):
    for phrases in bundled_phrases:
        for phrase in phrases:
            words = phrase.split()
            assert 1 <= len(words) <= 3, phrase
            assert words[0].lower() not in FUNCTION_WORDS and words[-1].lower() not in FUNCTION_WORDS, phrase


def test_lowercase_but_for_names_written_so_in_the_paper(bundled, bundled_phrases):
    for (title, abstract), phrases in zip(bundled, bundled_phrases):
        text = f"{title} {abstract}"
        for word in " ".join(phrases).split():
            if not word.islower():  # "GuardAgent", "MoE", "RLHF", "Bayesian": as the paper writes it
                assert re.search(r"(?<![\w-])" + re.escape(word), text), (word, title)


def test_no_generic_filler_and_no_repeats(bundled_phrases):
    for phrases in bundled_phrases:
        assert not FILLER & {p.lower() for p in phrases}, phrases
        assert len(set(phrases)) == len(phrases)


def test_no_phrase_inside_a_better_one_unless_it_stands_alone(bundled, bundled_phrases):
    # "feedback" is not listed next to "ordinal feedback" when the paper's feedback is mostly ordinal.
    i = paper(bundled, "under ordinal feedback")
    assert "feedback" not in bundled_phrases[i]


# --- scoring -------------------------------------------------------------------------------------------


def test_plural_and_singular_are_one_phrase_written_singular():
    docs = filler_catalog() + [("", ("Reward models score answers. We train reward models on ordinal labels. "
                                    "A reward model trained so generalizes."))]
    phrases = extract_keyphrases(docs)[-1]
    assert "reward model" in phrases
    assert "reward models" not in phrases


@pytest.mark.parametrize("plural, singular", [
    ("strategies", "strategy"), ("analyses", "analysis"), ("approaches", "approach"), ("biases", "bias"),
    ("processes", "process"), ("dynamics", "dynamics"), ("bias", "bias"),
    ("mixture-of-experts", "mixture-of-experts"),
    ("heads", "head"), ("matrices", "matrix"), ("caches", "cache"), ("llms", "llm"), ("gas", "gas"),
    # The last part of a hyphenated word is its noun (real NeurIPS 2020: "time-series" read "time-sery").
    ("time-series", "time-series"), ("multi-species", "multi-species"), ("sub-matrices", "sub-matrix"),
    ("low-rank-approximations", "low-rank-approximation"),
])
def test_fold_plural(plural, singular):
    assert fold_plural(plural) == singular


def test_a_title_phrase_outranks_an_equal_phrase_of_the_abstract_only():
    abstract = ("We study quantum annealing schedules and photonic lattice codes. "
                "Quantum annealing schedules matter. Photonic lattice codes matter.")
    with_title = extract_keyphrases(filler_catalog() + [("Photonic lattice codes", abstract)])[-1]
    without = extract_keyphrases(filler_catalog() + [("", abstract)])[-1]
    assert with_title.index("photonic lattice code") < with_title.index("quantum annealing schedule")
    # Without the title the two tie, and ties go in alphabetical order.
    assert without.index("quantum annealing schedule") < without.index("photonic lattice code")


def test_a_phrase_every_paper_uses_ranks_below_a_rare_one():
    docs = [("", f"Graph transformers help. Topic {i} matters here.") for i in range(30)]
    docs.append(("", ("Graph transformers help. Graph transformers and persistent homology filtrations help. "
                     "Persistent homology filtrations win.")))
    phrases = extract_keyphrases(docs)[-1]
    assert phrases[0] == "persistent homology filtration"


def test_an_acronym_counts_for_its_spelling():
    abstract = ("We learn a reward model (RM) from ordinal labels. The RM is calibrated. "
                "RMs trained this way transfer, and the RM helps.")
    docs = [*filler_catalog(), ("", abstract)]
    assert extract_keyphrases(docs)[-1][0] == "reward model"


def test_deterministic_and_independent_of_catalog_order(bundled, bundled_phrases):
    assert extract_keyphrases(bundled) == bundled_phrases
    order = list(range(len(bundled)))
    random.Random(3).shuffle(order)
    shuffled = extract_keyphrases([bundled[i] for i in order])
    assert [shuffled[order.index(i)] for i in range(len(bundled))] == bundled_phrases


def test_a_pronoun_or_adverb_is_no_part_of_a_phrase():
    # Real ICML 2020 abstracts gave "limit ourselve" and "nowaday".
    docs = filler_catalog() + [("", "Nowadays, kernels are popular. We limit ourselves to sparse kernels and "
                                    "the mechanism behind sparse kernels, which beneath it all are kernels.")]
    phrases = extract_keyphrases(docs)[-1]
    assert not [p for p in phrases if {"ourselve", "ourselves", "nowaday", "nowadays", "behind", "beneath"}
                & set(p.lower().split())], phrases


def test_a_verb_after_to_is_no_keyphrase():
    # Real ICML 2020 abstracts gave "induce", "handle" and "define" as keyphrases of their own.
    docs = filler_catalog() + [("", "We aim to induce a sparse kernel. To handle the noise, sparse kernels "
                                    "denoise. We want to define a kernel prior and to induce the prior.")]
    phrases = extract_keyphrases(docs)[-1]
    assert not {"induce", "handle", "define"} & set(phrases), phrases
    assert "sparse kernel" in phrases


def test_k_min_and_k_max(bundled):
    for phrases in extract_keyphrases(bundled[:10], k_min=2, k_max=3):
        assert 2 <= len(phrases) <= 3


def test_edge_cases():
    assert extract_keyphrases([]) == []
    assert extract_keyphrases([("", "")]) == [()]
    assert extract_keyphrases([("", "The of and.")]) == [()]
    one = extract_keyphrases([("Sparse autoencoders", "Sparse autoencoders find monosemantic features.")])
    assert one == [("sparse autoencoder", "monosemantic feature")]


def test_hostile_text_does_not_break_it():
    docs = [("", "x" * 5000),
            ("", "(((( )))) —— -- 'quoted' \"x\" 1e-5 10^{-3} p<0.05 naïve İstanbul ΟΔΟΣ"),
            ("A (B) C", "Ü (Ü) (LLMs) (a) (ABC) (Just Run Twice) e.g. i.e. vs. al."),
            ("", "a\u00a0b c\u200bd")]
    assert len(extract_keyphrases(docs)) == len(docs)


def test_term_runs_fold_plurals_and_keep_names():
    assert term_runs("Reward models (RMs) for GuardAgent; in-context learning.") == [
        [("reward", "reward"), ("model", "model")], [("rm", "RM")], [("guardagent", "GuardAgent")],
        [("incontext", "in-context"), ("learning", "learning")]]


# --- the bundled papers, read as a researcher would ---------------------------------------------------------


@pytest.mark.parametrize("words, expected", [
    ("under ordinal feedback", {"ordinal feedback", "reward model"}),
    ("we propose GuardAgent", {"GuardAgent", "guardrail agent"}),
    ("Length generalization is the ability", {"length generalization", "length complexity"}),
    ("knowledge conflicts when parametric memory", {"JuICE", "knowledge conflict", "attention head"}),
    ("Activation sparsity can reduce", {"LaRoSA", "activation sparsification"}),
    ("Simulating Ideal Editor", {"SimIE", "lifelong model editing", "Moore-Penrose inverse"}),
    ("vulnerable to data poisoning", {"data poisoning", "PoisonBench", "preference learning"}),
    ("we propose MoEQuant", {"MoEQuant", "quantization", "post-training quantization"}),
    ("Dynamic Layerwise Pruning (DLP)", {"dynamic layerwise pruning"}),
    ("Multi-Agent Debate (MAD)", {"multi-agent debate", "DReaMAD"}),
    ("Conservative Contextual Bandits (CCBs)", {"conservative contextual bandit", "C-SquareCB", "regret"}),
    ("Benchmark Data Contamination (BDC)", {"benchmark data contamination", "contamination resistance"}),
    ("preference optimization (VPO)", {"value-incentivized preference optimization", "RLHF"}),
    ("first-order Markov chains", {"Markov chain", "induction head"}),
    ("spurious forgetting", {"spurious forgetting", "task alignment", "continual learning"}),
    ("false refusal", {"false refusal"}),
])
def test_bundled_papers_have_the_phrases_a_reader_expects(bundled, bundled_phrases, words, expected):
    phrases = bundled_phrases[paper(bundled, words)]
    assert expected <= set(phrases), phrases


def test_bundled_papers_keep_their_coined_names_first_or_near(bundled, bundled_phrases):
    for words, name in [("we propose GuardAgent", "GuardAgent"), ("we propose MoEQuant", "MoEQuant"),
                        ("we propose RWKVQuant", "RWKVQuant"), ("we propose AdaDecode", "AdaDecode")]:
        assert name in bundled_phrases[paper(bundled, words)][:4]


def test_a_name_spelt_out_is_not_cut_into_pieces(bundled, bundled_phrases):
    # "LaRoSA (Layerwise Rotated Sparse Activation)": "rotated sparse activation" is the name, not a phrase.
    phrases = bundled_phrases[paper(bundled, "Activation sparsity can reduce")]
    assert not {"rotated sparse activation", "layerwise rotated sparse", "rotated sparse"} & set(phrases)
    phrases = bundled_phrases[paper(bundled, "Berkeley Function Calling Leaderboard (BFCL)")]
    assert "BFCL" in phrases
    assert not {"berkeley", "leaderboard", "function calling leaderboard"} & set(phrases)


def test_a_catalog_of_several_thousand_papers():
    rng = random.Random(11)
    vocabulary = [f"w{i}" for i in range(3000)]
    cumulative = list(accumulate(1 / (rank + 3) ** 1.2 for rank in range(len(vocabulary))))
    sentence = lambda: " ".join(rng.choices(vocabulary, cum_weights=cumulative, k=15))
    docs = [("", ". ".join(sentence() for _ in range(6)) + ".") for _ in range(2000)]
    phrases = extract_keyphrases(docs)
    assert len(phrases) == len(docs) and all(len(p) <= 8 for p in phrases)


# --- the split the build cache relies on: each paper analysed alone, picked across the catalog ------------


def test_pick_of_analyses_gives_the_golden_keyphrases(bundled):
    golden = json.loads((ROOT / "tests" / "golden" / "site" / "papers.json").read_text(encoding="utf-8"))
    expected = {p["title"]: tuple(p["keyphrases"]) for p in golden["papers"]}
    picked = pick([analyse(title, abstract) for title, abstract in bundled])
    assert dict(zip((title for title, _ in bundled), picked)) == expected


def test_an_analysis_depends_on_its_paper_alone_and_survives_pickling(bundled, bundled_phrases):
    analyses = [analyse(title, abstract) for title, abstract in bundled]
    assert [analyse(title, abstract) for title, abstract in reversed(bundled)] == analyses[::-1]
    assert pick(pickle.loads(pickle.dumps(analyses))) == bundled_phrases
    assert pick(analyses[::-1]) == bundled_phrases[::-1]  # document frequencies do not depend on order
    # A paper's phrases are scored against the catalog it is picked in, not the one it was analysed in.
    assert pick(analyses[:10]) == extract_keyphrases(bundled[:10])


@pytest.mark.parametrize(("papers", "reference"), [(1, 1), (4095, 4095), (4096, 4096), (20_000, 16_384),
                                                   (32_767, 16_384), (32_768, 32_768), (50_000, 32_768)])
def test_a_catalog_is_weighed_by_all_its_papers_then_by_the_oldest_power_of_two(papers, reference):
    assert reference_count(papers) == reference


def test_papers_outside_the_reference_are_picked_against_it(bundled, bundled_phrases):
    analyses = [analyse(title, abstract) for title, abstract in bundled]
    stats = statistics(analyses)
    assert pick(analyses, stats=pickle.loads(pickle.dumps(stats))) == bundled_phrases
    # Against the first 20 papers, a paper is picked the same alone or with others, in or out of them.
    first = statistics(analyses[:20])
    picked = pick(analyses, stats=first)
    assert [pick([a], stats=first)[0] for a in analyses[15:25]] == picked[15:25]
    assert picked[:20] == pick(analyses[:20])
    assert picked[20:] != bundled_phrases[20:]  # their own words count as rare: the reference lacks them


def test_a_phrase_with_a_word_the_reference_lacks_has_no_document_frequency():
    stats = statistics([analyse("", "Reward models rank responses. Reward models help.")])
    vocabulary, counts = stats.vocabulary, stats.counts
    codes = vocabulary.codes([("reward",), ("reward", "model"), ("lattice",), ("lattice", "reward"),
                              ("model", "lattice", "reward")])
    assert counts.lookup(codes).tolist() == [1, 1, 0, 0, 0]
    assert codes[2:].tolist() == [-1, -1, -1]  # never the code of a phrase it has, such as ("reward",)


def test_a_name_new_to_the_reference_keeps_its_capitals_unless_the_paper_lowers_it():
    stats = statistics([analyse("", "We train reward models. Reward models rank answers.")])
    named = analyse("", "Our method, Lattice, beats reward models. We run Lattice twice.")
    lowered = analyse("", "Our method, Lattice, beats reward models. A lattice of models.")
    assert "lattice" in stats.proper_of(named) and "lattice" not in stats.proper_of(lowered)
    assert stats.proper_of(analyse("", "Reward models rank answers.")) is stats.proper


@pytest.mark.parametrize("address", ["anonymous.4open.science/r/RewardBench-7F3A",
                                     "github.com/lab/RewardBench-7F3A",
                                     "gorilla.cs.berkeley.edu/RewardBench-7F3A"])
def test_a_web_address_written_without_a_scheme_gives_no_keyphrase(address):
    abstract = ("We study reward hacking in language model agents and propose a benchmark of reward hacking. "
                f"Code is available at {address}. Our reward models reduce reward hacking on the benchmark.")
    phrases = extract_keyphrases([("Reward hacking in language model agents", abstract)])[0]
    assert "reward hacking" in phrases
    assert not [p for p in phrases if "7f3a" in p.lower() or "4open" in p.lower()], phrases
