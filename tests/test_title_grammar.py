"""Tests that derived titles are grammatical English and hold no debris of math or markup.

Each failure class has its real example, a sentence of a real ICML or NeurIPS 2020 abstract.
"""

from __future__ import annotations

import re

import pytest

from papercat.enrich.titles import derive_title
from papercat.enrich.titles.naming import _plain_desc
from papercat.enrich.titles.patterns import _GAP, _INFINITIVE, _WHICH, _article, _gerund
from papercat.enrich.titles.reading import _clean, _clip, _expand, _expansion, _plural, _tidy

# An article before a word that cannot start a noun phrase: "an and", "a that", "a to", "A a".
_ARTICLE_BEFORE_FUNCTION = re.compile(r"\b(?:a|an|the)\s+(?:and|or|to|of|for|that|which|the|a|an)\b",
                                      re.IGNORECASE)
# What math and markup leave behind when a title is not plain text.
_DEBRIS = re.compile(r"^[^\w\"“'(]|[_\\{}$^=`]|\s/|/\s|\ue000")


def assert_plain(title: str) -> None:
    assert title, "a title"
    assert not _ARTICLE_BEFORE_FUNCTION.search(title), title
    assert not _DEBRIS.search(title), title
    assert title.count("(") == title.count(")"), title


# 1. Removing a hype word leaves no dangling article or conjunction.

@pytest.mark.parametrize(("desc", "plain"), [
    ("a novel and scalable algorithm", "a scalable algorithm"),
    ("a novel and efficient algorithm for computing confidence intervals",
     "an efficient algorithm for computing confidence intervals"),
    ("a new, efficient method", "an efficient method"),
    ("the first polynomial-time algorithm", "a polynomial-time algorithm"),
    ("a novel framework", "a framework"),
])
def test_hype_words_go_with_the_conjunction_after_them(desc, plain):
    assert _plain_desc(desc) == plain


@pytest.mark.parametrize(("abstract", "start"), [
    ("We consider XMC in the setting where labels are available only for groups of samples. We develop a new "
     "and scalable algorithm to impute individual-sample labels from the group labels; this can be paired "
     "with any existing XMC method.", "A scalable algorithm to impute individual-sample labels"),
    ("By applying the generalized empirical likelihood method to the resulting Lagrangian, we propose "
     "CoinDICE, a novel and efficient algorithm for computing confidence intervals.",
     "CoinDICE: an efficient algorithm for computing confidence intervals"),
    ("We develop a a new polynomial-time algorithm for identification of structural coefficients in linear "
     "causal models that subsumes previous state-of-the-art methods.",
     "A polynomial-time algorithm for identification of structural coefficients"),
])
def test_a_title_without_hype_keeps_its_article_and_noun(abstract, start):
    title = derive_title(abstract)
    assert title.startswith(start), title
    assert_plain(title)


@pytest.mark.parametrize(("word", "article"), [
    ("algorithm", "an"), ("unified", "a"), ("universal", "a"), ("use", "a"), ("Euclidean", "a"),
    ("unsupervised", "an"), ("uninformative", "an"), ("hour", "an"), ("RL", "an"), ("GAN", "a"),
    ("efficient", "an"), ("scalable", "a"), ("one-shot", "a"),
])
def test_the_indefinite_article_goes_by_sound(word, article):
    assert _article(word) == article


def test_a_doubled_article_is_read_once():
    assert _clean("We develop a a new algorithm. The the POLICY COVER algorithm.") == (
        "We develop a new algorithm. The POLICY COVER algorithm.")
    assert _clean("the a priori estimate") == "the a priori estimate"


# 2. A description keeps its noun: an article alone before a name is no description.

@pytest.mark.parametrize(("abstract", "start"), [
    ("We propose a consistent estimator that is based on recovering a correction ratio function over the given "
     "data. In particular, we develop a variational power method (VPM) that provides provably consistent "
     "estimates under general conditions.", "VPM: variational power method"),
    ("To address this gap, we leverage the original graph convolution in GCN and propose a "
     "\\textbf{L}ow-pass \\textbf{C}ollaborative \\textbf{F}ilter (\\textbf{LCF}) to make it applicable to "
     "the large graph.", "LCF: Low-pass Collaborative Filter"),
    ("To do so, we propose an online feature extractor network (OFENet) that uses neural nets to produce "
     "\\textit{good} representations to be used as inputs to an off-policy RL algorithm.",
     "OFENet: online feature extractor network"),
    ("Particularly, we learn to cluster feature channels by semantics and propose an adaptive group-wise "
     "Normalization (AdaGN) to independently control the styles of different channel groups.",
     "AdaGN: adaptive group-wise Normalization"),
    ("We propose a novel graph-aided transformer agent (GATA) that infers and updates latent belief graphs "
     "during planning to enable effective action selection.", "GATA: graph-aided transformer agent"),
])
def test_a_name_spelt_out_after_an_article_keeps_a_noun_in_its_description(abstract, start):
    title = derive_title(abstract)
    assert title.startswith(start), title
    assert_plain(title)


# 3. Gerunds are made of verbs only; an adverb before the verb stays an adverb.

@pytest.mark.parametrize(("verb", "gerund"), [
    ("proposes", "proposing"),
    ("uses", "using"),
    ("quickly discards", "quickly discarding"),
    ("holistically performs", "holistically performing"),
    ("directly minimize", "directly minimizing"),
    ("can blindly decompose", "blindly decomposing"),
    ("can be used", "used"),
    ("is", ""),
    ("are", ""),
    ("has", "having"),
    ("runs", "running"),
    ("splits", "splitting"),
    ("embeds", "embedding"),
    ("infers and updates", "inferring and updating"),
    ("applies", "applying"),
    ("simply apply", "simply applying"),
    ("sees", "seeing"),
    ("does not require", "not requiring"),
    ("cannot handle", "not handling"),
    ("can not be solved", "not solved"),
])
def test_gerunds_of_verb_phrases(verb, gerund):
    assert _gerund(verb) == gerund


@pytest.mark.parametrize("clause", [", which i.e. an attention generator", ", which we call X",
                                    ", which, in turn, helps", " which the model uses"])
def test_a_which_clause_without_a_verb_makes_no_gerund(clause):
    assert _WHICH.match(clause) is None


def test_an_infinitive_keeps_its_adverb():
    found = _INFINITIVE.match("to directly minimize the divergence between spike trains")
    assert (_gerund(found[1]), found[2]) == ("directly minimizing", "the divergence between spike trains")
    assert _INFINITIVE.match("to apply the method to graphs")[1] == "apply"


@pytest.mark.parametrize(("abstract", "title"), [
    ("To address this problem, we propose FR-Train, which holistically performs fair and robust model "
     "training.", "FR-Train: holistically performing fair and robust model training"),
    ("Inspired by this idea, we introduce ImpatientCapsAndRuns, which quickly discards less promising "
     "configurations, significantly speeding up the search procedure.",
     "ImpatientCapsAndRuns: quickly discarding less promising configurations"),
    ("To alleviate this, we propose to directly minimize the divergence between neural recorded and model "
     "generated spike trains using spike train kernels.",
     "Directly minimizing the divergence between neural recorded and model generated spike trains"),
])
def test_which_clauses_and_infinitives_read_as_english(abstract, title):
    assert derive_title(abstract).startswith(title)


@pytest.mark.parametrize(("clause", "participle"), [
    (", which can blindly decompose speech into its four components",
     "blindly decomposing speech into its four components"),
    (", which is a new class of deep unsupervised graph convolutional neural network",
     " a new class of deep unsupervised graph convolutional neural network"),
    (", which are induced from a global causal model", " induced from a global causal model"),
    (", which infers and updates latent belief graphs", "inferring and updating latent belief graphs"),
    (", which has been shown to work", " shown to work"),
    (", which does not require any amodal labels", "not requiring any amodal labels"),
])
def test_which_and_that_clauses_become_participles(clause, participle):
    found = _WHICH.match(clause)
    assert _gerund(found[1]) + found[2] == participle


@pytest.mark.parametrize(("abstract", "wrong"), [
    ("In this paper, we propose SpeechSplit, which can blindly decompose speech into its four components by "
     "introducing three carefully designed information bottlenecks.", "caning"),
    ("We propose the Interferometric Graph Transform (IGT), which is a new class of deep unsupervised graph "
     "convolutional neural network for building graph representations.", "iing"),
    ("We formalize this by introducing local causal models (LCMs), which are induced from a global causal model "
     "by conditioning on a subset of the state space.", "aring"),
])
def test_no_gerund_is_made_of_a_modal_or_a_copula(abstract, wrong):
    title = derive_title(abstract)
    assert wrong not in title, title
    assert_plain(title)


# 4. An acronym's plural spelt out is one plural.

@pytest.mark.parametrize(("phrase", "plural"), [
    ("Markov Equivalence Class", "Markov Equivalence Classes"),
    ("Gradient Boosted Normalizing Flows", "Gradient Boosted Normalizing Flows"),
    ("graph neural network", "graph neural networks"),
    ("Gaussian process", "Gaussian processes"),
    ("dynamic policy", "dynamic policies"),
    ("hash", "hashes"),
    ("random delay", "random delays"),
])
def test_plurals_of_spelt_out_phrases(phrase, plural):
    assert _plural(phrase) == plural


def test_an_acronym_in_the_plural_is_spelt_out_in_the_plural():
    acronyms = {"MEC": "Markov Equivalence Class", "GBNF": "Gradient Boosted Normalizing Flows"}
    assert _expand("iteration over possible MECs given intervention results; GBNFs outperform", acronyms) == (
        "iteration over possible Markov Equivalence Classes given intervention results; "
        "Gradient Boosted Normalizing Flows outperform")


def test_an_acronym_is_not_spelt_out_from_a_function_word():
    words = "an Optimistic variant of the Proximal Policy Optimization algorithm".split()
    assert _expansion(words, "OPPO") == "Optimistic variant of the Proximal Policy Optimization algorithm"


# 5. Math and markup become plain text, or a place where a title stops.

@pytest.mark.parametrize(("source", "text"), [
    (r"$\ell_1$ regularization", "ℓ1 regularization"),
    (r"Ordered Weighted $L_2$ regression", "Ordered Weighted L2 regression"),
    (r"sets-$k$-means", "sets-k-means"),
    (r"an $\epsilon$-net", "an ε-net"),
    (r"with $O(\sqrt{T})$ regret", "with O(√T) regret"),
    (r"with $\tilde{O}(\sqrt{T})$ regret", "with Õ(√T) regret"),
    (r"onto $\ell_{1, \infty}$-norm ball", "onto ℓ1,∞-norm ball"),
    (r"in $\mathbb{R}^d$", "in ℝᵈ"),
    (r"at most $O(T^2)$", "at most O(T²)"),
    (r"a rate $O(n^{2/3})$", "a rate O(n²⁄³)"),
    (r"$\ell_p$ adversarial attacks", "ℓp adversarial attacks"),
    (r"$\textit{robot}$ control", "robot control"),
    (r"in bare R^d and L^p", "in bare Rᵈ and Lᵖ"),
    (r"a bound O(n^{2/3}) here", "a bound O(n²⁄³) here"),
    (r"samples $\tilde O(n / \epsilon^2)$ suffice", "samples Õ(n/ε²) suffice"),
    (r"the $ \ell_{\infty} $-based sample complexity", "the ℓ∞-based sample complexity"),
    (r"the expectation $\mathbb{E}$ under $\mathbb{P}$", "the expectation 𝔼 under ℙ"),
    (r"an integer $k\geq 1$ and $s\in \mathbb{N}$", "an integer k ≥ 1 and s ∈ ℕ"),
    (r"costs from $5 to $10 a day", "costs from 5 to 10 a day"),
    (r"with ridge $\lambda>0$ and", "with ridge λ > 0 and"),
])
def test_simple_math_is_written_as_plain_text(source, text):
    assert _clean(source) == text


@pytest.mark.parametrize("source", [
    r"problems $\min_\x \max_\y f(\x,\y)$, where",
    r"risk $\mathbb{E}(y-\vx^{\t}\hat{\vbeta}_{\lambda})^2$ in",
    r"problem y = Mx + ε, where",
    r"a set $\mathcal{P}=\{P_1,\cdots,P_n\}$ of",
    r"a learned predictor h^ in terms",
    r"decays at \tilde{O}( 1/T ^{5/6} ), improving",
])
def test_complex_math_becomes_a_place_where_phrases_stop(source):
    cleaned = _clean(source)
    assert _GAP in cleaned, cleaned
    assert not re.search(r"[_^{}\\$=]", cleaned), cleaned


def test_a_title_stops_before_complex_math():
    abstract = ("We study the low rank regression problem y = Mx + ε, where x and y are d1 and d2 dimensional "
                "vectors respectively. We consider the extreme high-dimensional setting.")
    assert derive_title(abstract) == "The low rank regression problem"
    abstract = (r"This paper studies minimax optimization problems $\min_\x \max_\y f(\x,\y)$, where $f(\x,\y)$ "
                r"is $m_\x$-strongly convex with respect to $\x$.")
    assert_plain(derive_title(abstract))


def test_a_bare_formula_in_parentheses_is_left_out_whole():
    assert _clean(r"Hedge decays at \tilde{O}( 1/T ^{5/6} ), improving") == f"Hedge decays at {_GAP}, improving"


def test_a_reference_after_a_preposition_ends_the_phrase():
    abstract = ("In this work, we generalize the results in [Avron, Kapralov, Musco, Musco, Velingker and Zandieh "
                "17] to a broader class of kernels.")
    title = derive_title(abstract)
    assert " in to " not in title, title
    assert_plain(title)


def test_tidy_never_leaves_a_formula_marker():
    assert _tidy(f"the role of {_GAP} regularization") == "the role"
    assert _tidy(f"{_GAP} samples suffice for an algorithm") == "samples suffice for an algorithm"


@pytest.mark.parametrize(("source", "text"), [
    (r"as in the reference \cite{canuto_spectral_1988}, we", "as in the reference, we"),
    (r"spectral methods (canuto_spectral_1988) converge", "spectral methods converge"),
    ("the model introduced in [Dasgupta et al., ICML 2019], where", f"the model introduced in {_GAP}, where"),
    ("the results in [Avron, Kapralov, Musco and Zandieh 17] to", f"the results in {_GAP} to"),
    ("the SOLO method [32], and", "the SOLO method, and"),
    ("functions on [0, 1] and", "functions on [0, 1] and"),
    ("we propose _Scene Flow via Distillation_ for", "we propose Scene Flow via Distillation for"),
    ("This work introduces `almost tune-free' SVRG", "This work introduces ‘almost tune-free’ SVRG"),
    (r"an Erd\H{o}s-R\'enyi random network", "an Erdős-Rényi random network"),
    (r"the G{\"o}del prize", "the Gödel prize"),
    ("a deep ReLU / Leaky ReLU student", "a deep ReLU/Leaky ReLU student"),
])
def test_citations_emphasis_quotes_and_accents_are_plain_text(source, text):
    assert _clean(source) == text


@pytest.mark.parametrize(("abstract", "start"), [
    (r"For these networks we show that (a) adversarial training using an $\ell_\infty$-bounded adversary "
     r"produces models with sparse attribution vectors, and (b) natural model-training is equivalent.",
     "Adversarial training using an ℓ∞-bounded adversary produces models"),
    ("In particular, our analysis shows that (1) value smoothing results in increased stability of the "
     "algorithm in exchange for slower convergence, (2) entropy regularization reduces overestimation errors.",
     "Value smoothing results in increased stability of the algorithm"),
])
def test_list_markers_do_not_start_a_title(abstract, start):
    title = derive_title(abstract)
    assert title.startswith(start), title
    assert_plain(title)


def test_a_parenthesis_that_is_part_of_a_word_is_no_aside():
    assert _clip(r"an (ε,δ)-differentially private algorithm (DPA) that approximates, with") == (
        "an (ε,δ)-differentially private algorithm that approximates")


def test_stray_punctuation_does_not_start_a_title():
    assert _tidy(") trains the unpruned weights") == "trains the unpruned weights"
    assert _tidy("]. a method for graphs") == "a method for graphs"


@pytest.mark.parametrize("abstract", [
    r"We present a method for provably defending any pretrained image classifier against $\ell_p$ "
    r"adversarial attacks.",
    r"We propose an efficient algorithm for Euclidean projection onto $\ell_{1, \infty}$-norm ball.",
    r"We study the role of $L_2$ regularization in deep learning, and uncover simple relations.",
    r"We derive a novel O(n^{2/3}) dimension-free minimax regret lower bound for sparse linear bandits.",
    r"We show that $\tilde O(n / \epsilon^2)$ samples from the prior with $n$ agents suffice for an algorithm.",
    r"We provide an exact characterization of the prediction risk $\mathbb{E}(y-\vx^{\t}\hat{\vbeta}_{\lambda})^2$ "
    r"in the proportional asymptotic limit.",
    r"We propose to study the generalization error of a learned predictor h^ in terms of that of a surrogate.",
])
def test_titles_from_math_heavy_abstracts_are_plain_text(abstract):
    assert_plain(derive_title(abstract))


@pytest.mark.parametrize(("cut", "tidied"), [
    # Real NeurIPS 2020 and ICML 2020 titles cut after a modifier that waits for its noun.
    ("A class of stochastic", "A class"),
    ("DNN: a detailed experimental study of decentralized", "DNN: a detailed experimental study"),
    ("The model of Machine Teaching with a black box learner introduced",
     "The model of Machine Teaching with a black box learner"),
    ("Combinatorial semi-bandits", "Combinatorial semi-bandits"),  # a plural is a noun
    ("Learning with TinyBERT", "Learning with TinyBERT"),
])
def test_a_title_does_not_end_on_a_modifier_waiting_for_its_noun(cut, tidied):
    assert _tidy(cut) == tidied


def test_an_acronym_spelt_out_takes_the_article_of_its_spelling():
    # Real ICML 2020 (CSER): "an SGD variant" had become "An Stochastic Gradient Descent variant".
    acronyms = {"SGD": "Stochastic Gradient Descent", "MDP": "Markov decision process"}
    assert _expand("An SGD variant", acronyms) == "A Stochastic Gradient Descent variant"
    assert _expand("a view of an MDP", acronyms) == "a view of a Markov decision process"
    assert _expand("SGDs in an ocean", acronyms) == "Stochastic Gradient Descents in an ocean"
