"""Tests for keyword-based topic assignment and the default taxonomy."""

from __future__ import annotations

import math
import random
import re
from pathlib import Path

import pytest
import yaml

from papercat.enrich import topics
from papercat.enrich.topics import OTHER, assign_topics, normalize
from papercat.model import Topic, TopicMatch

CONTENT = Path(__file__).resolve().parent.parent / "content"

EXPECTED_NAMES = [
    "Alignment & preference learning",
    "Safety, robustness & security",
    "Privacy & federated learning",
    "Fairness & society",
    "Interpretability & explainability",
    "Efficiency, systems & compression",
    "Reasoning & program synthesis",
    "LLM agents & tool use",
    "In-context learning & prompting",
    "Retrieval, knowledge & recommendation",
    "Natural language processing",
    "Learning theory & statistics",
    "Optimization",
    "Graphs & geometric learning",
    "Datasets, benchmarks & evaluation",
    "Training methods & data",
    "Architectures",
    "Reinforcement learning",
    "Bandits, online & active learning",
    "Computer vision",
    "Vision-language & multimodal",
    "Generative models",
    "Probabilistic methods & uncertainty",
    "Causal inference",
    "Unsupervised & representation learning",
    "Transfer, meta & continual learning",
    "Time series & dynamical systems",
    "Speech & audio",
    "Robotics & control",
    "Sciences & health",
    "Neuroscience & cognitive science",
    "Game theory & multi-agent systems",
]


def phrase_topic(slug: str, keywords: dict[str, float]) -> Topic:
    return Topic(slug, slug.title(), "", tuple(keywords.items()))


def slugs(matches: tuple[TopicMatch, ...]) -> list[str]:
    return [m.slug for m in matches]


def load_taxonomy() -> tuple[Topic, ...]:
    # Deliberately minimal: the validating loader lives in papercat.content.config.
    data = yaml.safe_load((CONTENT / "topics.yaml").read_text(encoding="utf-8"))
    return tuple(
        Topic(
            slug=t["slug"],
            name=t["name"],
            description=t["description"],
            keywords=tuple((str(k), float(w)) for k, w in t["keywords"].items()),
        )
        for t in data["topics"]
    )


def load_abstracts() -> list[str]:
    abstracts = []
    for path in sorted((CONTENT / "listings").glob("*.txt")):
        body = path.read_text(encoding="utf-8").split("\n", 1)[1]  # first line is the header
        abstracts.extend(block.strip() for block in re.split(r"\n\s*\n", body) if block.strip())
    return abstracts


@pytest.fixture(scope="module")
def taxonomy() -> tuple[Topic, ...]:
    return load_taxonomy()


@pytest.fixture(scope="module")
def abstracts() -> list[str]:
    return load_abstracts()


# --- matching rules ---------------------------------------------------------------------------

RM = (phrase_topic("alignment", {"reward model": 4}),)


def test_phrase_matches_only_as_a_whole():
    assert slugs(assign_topics("We train a reward model on comparisons.", RM)) == ["alignment"]
    assert slugs(assign_topics("The reward of the model is high.", RM)) == ["other"]


@pytest.mark.parametrize("text", ["in-context learning", "in context learning", "In-Context Learning"])
def test_hyphen_and_space_are_the_same(text):
    for keyword in ("in-context learning", "in context learning"):
        taxonomy = (phrase_topic("icl", {keyword: 4}),)
        assert assign_topics(f"We study {text}.", taxonomy)[0].phrases == ("in context learning",)


@pytest.mark.parametrize(
    "keyword, text",
    [
        ("reward model", "reward models"),
        ("approach", "approaches"),
        ("policy", "policies"),
        ("graph", "graphs"),
    ],
)
def test_simple_plurals_match(keyword, text):
    assert slugs(assign_topics(f"Several {text} here.", (phrase_topic("t", {keyword: 4}),))) == ["t"]


def test_case_is_ignored():
    taxonomy = (phrase_topic("alignment", {"rlhf": 4}),)
    assert slugs(assign_topics("RLHF and Rlhf", taxonomy)) == ["alignment"]


@pytest.mark.parametrize("text", ["The world is large.", "We use RLHF.", "Control theory.", "A curl."])
def test_whole_words_only(text):
    assert slugs(assign_topics(text, (phrase_topic("rl", {"rl": 4}),))) == ["other"]


def test_whole_word_does_not_match_inside_longer_words():
    taxonomy = (phrase_topic("graphs", {"graph": 4}),)
    assert slugs(assign_topics("A paragraph about graphons.", taxonomy)) == ["other"]
    assert slugs(assign_topics("A graph, (graph) and graph-based.", taxonomy)) == ["graphs"]


def test_markdown_and_latex_are_ignored():
    taxonomy = (phrase_topic("mm", {"multimodal": 4}), phrase_topic("rm", {"reward model": 4}))
    text = r"**M**ultimodal reasoning with a $\textit{Reward Model}$ and \textbf{Multi}modal data"
    assert slugs(assign_topics(text, taxonomy)) == ["mm", "rm"]
    assert normalize(r"$\texttt{\textbf{D}}$iverse *emphasis* at 40\%") == "diverse emphasis at 40"


def test_longest_phrase_wins_within_a_topic():
    taxonomy = (phrase_topic("alignment", {"reward model": 3, "reward": 1}),)
    (match,) = assign_topics("A reward model.", taxonomy)
    assert match.score == 3.0
    assert match.phrases == ("reward model",)


def test_ascii_words_are_the_patterns_words():
    rng = random.Random(4)
    alphabet = [chr(c) for c in range(128)] + ["word", "x1", "_", "-", " "]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        assert topics._words(text) == topics._WORD.findall(text), repr(text)
    assert topics._words("naïve α-test_x") == ["naïve", "α", "test", "x"]


def test_other_words_are_the_patterns_words():
    rng = random.Random(5)
    alphabet = [chr(c) for c in range(128)] + ["naïve", "α", "—", "×", "\u00a0", "\u2009", "\ud800", "²", "x1", " "]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        assert topics._words(text) == topics._WORD.findall(text), repr(text)


def test_counts_are_what_a_regex_search_per_topic_finds(taxonomy):
    forms, _ = topics._forms_of(taxonomy)
    by_form = forms[0]
    searches = []
    for position in range(len(taxonomy)):
        keyword = {form: phrase for form, hits in by_form.items() for p, phrase, _ in hits if p == position}
        longest_first = sorted(keyword, key=lambda form: -form.count(" "))
        searches.append((re.compile(r"\b(?:" + "|".join(map(re.escape, longest_first)) + r")\b"), keyword))
    vocabulary = sorted({word for form in by_form for word in form.split()}) + ["the", "of", "x"]
    rng = random.Random(8)
    for _ in range(500):
        words = rng.choices(vocabulary, k=rng.randint(0, 80))
        counts = topics._counts(words, forms, len(taxonomy))
        for found, (pattern, keyword) in zip(counts, searches):
            expected: dict[str, int] = {}
            for match in pattern.finditer(" ".join(words)):
                expected[keyword[match[0]]] = expected.get(keyword[match[0]], 0) + 1
            assert found == expected, words


def test_repetitions_count_with_diminishing_weight():
    once = assign_topics("reward model", RM)[0].score
    thrice = assign_topics("reward model, reward models and a reward model", RM)[0].score
    assert once < thrice < 3 * once
    assert thrice == round(4 * (1 + math.log(3)), 3)


def test_phrases_are_sorted_by_contribution_and_deduplicated():
    taxonomy = (phrase_topic("t", {"alpha": 1, "beta": 3, "gamma": 2}),)
    (match,) = assign_topics("alpha gamma beta betas alpha", taxonomy)
    assert match.phrases == ("beta", "gamma", "alpha")


# --- selection --------------------------------------------------------------------------------


def test_weak_evidence_falls_back_to_other():
    taxonomy = (phrase_topic("t", {"model": 1}),)
    assert assign_topics("A model.", taxonomy) == (TopicMatch("other", 0.0, ()),)


def test_topics_far_below_the_best_are_dropped():
    taxonomy = (
        phrase_topic("main", {"quantization": 3, "pruning": 3, "sparsity": 3}),
        phrase_topic("minor", {"benchmark": 3}),
    )
    text = "quantization pruning sparsity quantization pruning sparsity benchmark"
    assert slugs(assign_topics(text, taxonomy)) == ["main"]


def test_at_most_three_topics_sorted_by_score():
    taxonomy = tuple(phrase_topic(f"t{i}", {f"word{i}": 3 + i}) for i in range(5))
    text = " ".join(f"word{i}" for i in range(5))
    matches = assign_topics(text, taxonomy)
    assert slugs(matches) == ["t4", "t3", "t2"]
    assert slugs(assign_topics(text, taxonomy, max_topics=1)) == ["t4"]


def test_ties_follow_taxonomy_order():
    taxonomy = (phrase_topic("b", {"shared": 4}), phrase_topic("a", {"shared": 4}))
    assert slugs(assign_topics("shared", taxonomy)) == ["b", "a"]
    assert slugs(assign_topics("shared", taxonomy[::-1])) == ["a", "b"]


def test_other_fallback():
    assert OTHER == Topic("other", "Other", "Papers that match no topic of the taxonomy.")
    assert assign_topics("", RM) == (TopicMatch("other", 0.0, ()),)
    assert assign_topics("Nothing relevant at all.", RM) == (TopicMatch("other", 0.0, ()),)
    assert assign_topics("reward model", ()) == (TopicMatch("other", 0.0, ()),)


def test_deterministic_and_independent_of_sequence_type(taxonomy, abstracts):
    first = [assign_topics(a, taxonomy) for a in abstracts]
    again = [assign_topics(a, list(taxonomy)) for a in abstracts]
    assert first == again
    for matches in first:
        for m in matches:
            assert m.score == round(m.score, 3)


# --- the default taxonomy on real papers ------------------------------------------------------


def test_yaml_has_the_topics_in_order():
    data = yaml.safe_load((CONTENT / "topics.yaml").read_text(encoding="utf-8"))
    assert [t["name"] for t in data["topics"]] == EXPECTED_NAMES


def test_yaml_topics_are_well_formed(taxonomy):
    assert len({t.slug for t in taxonomy}) == len(taxonomy)
    assert "other" not in {t.slug for t in taxonomy}
    for t in taxonomy:
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", t.slug), t.slug
        assert t.description.strip()
        assert 15 <= len(t.keywords) <= 80, t.slug
        for keyword, weight in t.keywords:
            assert keyword == keyword.lower() and keyword.strip(), keyword
            assert weight > 0, keyword


# Each first topic was checked by reading the abstract; the prefix identifies the paper.
HAND_CHECKED = [
    ("The rapid advancement of large language model (LLM) agents", "safety"),  # GuardAgent
    ("The canonical setup of learning a reward model", "alignment"),  # ordinal-feedback reward models
    ("Function calling, also called tool use", "agents"),  # Berkeley Function Calling Leaderboard
    ("In-context learning has become a standard approach", "icl"),  # Iterative Vectors
    ("Large language models (LLMs) acquire information from pre-training", "knowledge"),  # RLEdit
    ("Pruning has recently been widely adopted", "efficiency"),  # Dynamic Layerwise Pruning
    ("Mixture-of-Experts (MoE) large language models", "efficiency"),  # MoEQuant
    ("Attention mechanisms are critical to the success", "graphs"),  # LLM attention on graphs
    ("Length generalization is the ability", "theory"),  # provable length generalization
    ("Continual Pre-Training (CPT)", "training"),  # CPT scaling law
    ("Chain-of-Thought (CoT) technique", "reasoning"),  # Dynamic CoT
    ("Hallucinations in LLMs pose", "knowledge"),  # Truthfulness Separator Vector
    ("Benchmark Data Contamination (BDC)", "evaluation"),  # BDC mitigation assessment
    ("We present a principled approach to provide LLM-based", "evaluation"),  # selective evaluation
    ("Graph limit models, like *graphons*", "graphs"),  # Invariant Graphon Networks
    ("Conservative Contextual Bandits (CCBs)", "online"),  # C-SquareCB / C-FastCB
    ("Reinforcement learning from human feedback (RLHF) has demonstrated", "alignment"),  # VPO
    ("Training a language model to be both helpful and harmless", "safety"),  # false-refusal ablation
    ("Distance field-based implicit representations", "vision"),  # Shape as Line Segments
    ("Transformers with linear recurrent modeling", "architectures"),  # Liger
    ("Large Language Models (LLMs), despite their impressive", "interpretability"),  # attention sinks
]


def find(abstracts: list[str], prefix: str) -> str:
    (found,) = [a for a in abstracts if a.startswith(prefix)]
    return found


@pytest.mark.parametrize("prefix, first", HAND_CHECKED, ids=[p[:30] for p, _ in HAND_CHECKED])
def test_first_topic_of_hand_checked_papers(taxonomy, abstracts, prefix, first):
    assert assign_topics(find(abstracts, prefix), taxonomy)[0].slug == first


@pytest.mark.parametrize(
    "prefix, included",
    [
        ("Mixture-of-Experts (MoE) large language models", "architectures"),
        ("Reinforcement learning from human feedback (RLHF) has demonstrated", "rl"),
        ("Model editing methods modify specific behaviors", "knowledge"),  # Concept-ROT: trojans by editing
        ("Preference learning is a central component", "alignment"),  # PoisonBench
        ("Self-evolving training", "multimodal"),  # M-STaR
    ],
)
def test_secondary_topics_of_hand_checked_papers(taxonomy, abstracts, prefix, included):
    assert included in slugs(assign_topics(find(abstracts, prefix), taxonomy))


def test_every_bundled_paper_gets_one_to_three_topics_and_other_is_rare(taxonomy, abstracts):
    assert len(abstracts) == 57
    results = [assign_topics(a, taxonomy) for a in abstracts]
    assert all(1 <= len(r) <= 3 for r in results)
    assert all(len(set(slugs(r))) == len(r) for r in results)
    assert sum(r[0].slug == "other" for r in results) <= 2
    # The bundled listings are about language models: every topic of that field is the first topic of
    # at least one bundled paper (ONE_PER_TOPIC below covers the rest of the taxonomy).
    assert {r[0].slug for r in results} >= BUNDLED_FIELDS


BUNDLED_FIELDS = {"alignment", "safety", "interpretability", "efficiency", "reasoning", "agents", "icl",
                  "knowledge", "language", "theory", "graphs", "evaluation", "training", "architectures",
                  "rl", "online", "vision", "multimodal"}

# One plain abstract per topic, in the words of its field: each topic is the first topic of its own.
ONE_PER_TOPIC = {
    "alignment": "We align a language model with human preferences: a reward model trained on pairwise "
                 "comparisons guides preference optimization, and we study reward hacking.",
    "safety": "We show that adversarial examples crafted by a black-box attack transfer across models and "
              "propose a certified defense based on randomized smoothing.",
    "privacy": "We train models by federated learning across many clients under differential privacy and "
               "bound the privacy loss of each round.",
    "fairness": "Classifiers can discriminate against a protected group. We enforce demographic parity and "
                "equalized odds and measure the fairness of the resulting decisions.",
    "interpretability": "We explain the predictions of deep networks with feature attribution, compare "
                        "saliency maps and evaluate the explanations with users.",
    "efficiency": "We compress networks by pruning and low-bit quantization, reducing latency and memory "
                  "footprint on mobile devices.",
    "reasoning": "We study multi-step mathematical reasoning: the model writes a chain-of-thought, and a "
                 "verifier checks each step of the proof.",
    "agents": "We build an LLM agent that uses tools: it plans, issues function calls to web APIs and "
              "navigates websites to complete tasks.",
    "icl": "Large models learn new tasks from in-context examples. We study how the choice and order of "
           "demonstrations in the prompt change in-context learning.",
    "knowledge": "We build a recommender system that retrieves items for each user and ranks them with "
                 "collaborative filtering over a knowledge base.",
    "language": "We pretrain a masked language model on a large text corpus and evaluate it on machine "
                "translation, summarization and question answering.",
    "theory": "We prove a generalization bound for overparameterized networks and show a matching lower "
              "bound on the sample complexity of learning.",
    "optimization": "We analyse stochastic gradient descent for non-convex optimization and prove its "
                    "convergence rate to a stationary point with variance reduction.",
    "graphs": "We propose a graph neural network whose message passing is as expressive as the "
              "Weisfeiler-Leman test, for node classification and link prediction.",
    "evaluation": "We release a new benchmark suite and a leaderboard with a standard evaluation protocol, "
                  "and study the reproducibility of reported results.",
    "training": "We study data augmentation, label smoothing and weight decay when training networks on "
                "noisy labels with class imbalance.",
    "architectures": "We propose a new architecture that replaces self-attention in the Transformer with "
                     "a recurrent state-space model and a mixture of experts.",
    "rl": "We propose an off-policy actor-critic method for reinforcement learning that learns a value "
          "function and a policy from sparse reward in Atari games.",
    "online": "We study a contextual bandit problem and give a Thompson sampling algorithm whose regret "
              "bound is optimal, together with an online learning lower bound.",
    "vision": "We detect objects and predict semantic segmentation from a single image, and extend the "
              "model to video and 3D point clouds.",
    "multimodal": "We train a vision-language model on image-text pairs and evaluate it on image captioning "
                  "and visual question answering.",
    "generative": "We train a diffusion model and compare it with a GAN and a variational autoencoder on "
                  "image generation, measuring sample quality with FID.",
    "probabilistic": "We propose a variational inference method for Bayesian neural networks and compare "
                     "its posterior with MCMC, measuring uncertainty and calibration.",
    "causal": "We estimate treatment effects from observational data with unobserved confounders, using "
              "instrumental variables and a structural causal model.",
    "representation": "We learn representations without labels by contrastive learning: a self-supervised "
                      "objective whose embeddings we evaluate by clustering.",
    "transfer": "We propose a meta-learning method for few-shot learning that adapts to new tasks and "
                "transfers across domains without catastrophic forgetting.",
    "time-series": "We forecast multivariate time series with irregularly sampled observations and model "
                   "event sequences with a temporal point process.",
    "audio": "We train a speech recognition model on raw audio and a text-to-speech model that produces a "
             "waveform from a spectrogram.",
    "robotics": "We train a robot for dexterous manipulation and legged locomotion in simulation and "
                "transfer the controller sim-to-real.",
    "science": "We predict molecular properties for drug discovery and the structure of proteins, and "
               "apply the model to clinical data of patients.",
    "neuroscience": "We model spiking activity of neurons recorded in the visual cortex and compare "
                    "biologically plausible learning rules with synaptic plasticity in the brain.",
    "games": "We compute a Nash equilibrium of two-player zero-sum games and design an auction mechanism "
             "that is incentive compatible for every bidder.",
}


def test_every_topic_is_first_for_an_abstract_of_its_field(taxonomy):
    assert set(ONE_PER_TOPIC) == {t.slug for t in taxonomy}
    for slug, text in ONE_PER_TOPIC.items():
        assert assign_topics(text, taxonomy)[0].slug == slug, slug


# Neighbouring topics the old taxonomy mixed up: each abstract gets its topic and not the neighbour.
BOUNDARIES = [
    ("An agent learns a policy by reinforcement learning from the reward of its environment, with "
     "exploration bonuses on Atari games.", "rl", "agents"),
    (ONE_PER_TOPIC["agents"], "agents", "rl"),
    ("We propose a meta-learning algorithm for few-shot classification: from a few labelled examples of "
     "a new task, the learner adapts in one gradient step.", "transfer", "icl"),
    (ONE_PER_TOPIC["icl"], "icl", "transfer"),
    ("We train a convolutional network for image classification on ImageNet and study which visual "
     "features in each image it uses.", "vision", "multimodal"),
]


@pytest.mark.parametrize("text, topic, neighbour", BOUNDARIES, ids=[f"{t}-not-{n}" for _, t, n in BOUNDARIES])
def test_boundaries_between_neighbouring_topics(taxonomy, text, topic, neighbour):
    found = slugs(assign_topics(text, taxonomy))
    assert found[0] == topic and neighbour not in found
