"""Titles on real abstracts: the paper's own name, never a baseline's or a data set's, and a phrase that
reads as a title, not a sentence of background. Each abstract is a real one (ICLR 2020, ICML 2020,
NeurIPS 2020), shortened where the rest does not matter."""

from __future__ import annotations

import pytest

from papercat.enrich.titles import derive_title
from papercat.enrich.titles.readable import reads_well, trimmed

N_BEATS = (
    "We focus on solving the univariate times series point forecasting problem using deep learning. We "
    "propose a deep neural architecture based on backward and forward residual links and a very deep stack "
    "of fully-connected layers. The architecture has a number of desirable properties, being interpretable, "
    "applicable without modification to a wide array of target domains, and fast to train. We test the "
    "proposed architecture on several well-known datasets, including M3, M4 and TOURISM competition datasets "
    "containing time series from diverse domains. We demonstrate state-of-the-art performance for two "
    "configurations of N-BEATS for all the datasets, improving forecast accuracy by 11% over a statistical "
    "benchmark and by 3% over last year's winner of the M4 competition.")
ALBERT = (
    "Increasing model size when pretraining natural language representations often result in improved "
    "performance on downstream tasks. However, at some point further model increases become harder due to "
    "GPU/TPU memory limitations and longer training times. To address these problems, we present two "
    "parameter-reduction techniques to lower memory consumption and increase the training speed of BERT. "
    "Comprehensive empirical evidence shows that our proposed methods lead to models that scale much better "
    "compared to the original BERT. As a result, our best model establishes new state-of-the-art results on "
    "the GLUE, RACE, and SQuAD benchmarks while having fewer parameters compared to BERT-large. The code and "
    "the pretrained models are available at https://github.com/google-research/ALBERT.")
SNAPBOOST = (
    "Gradient boosting machines are powerful. We then describe a particular realization of a HNBM, "
    "SnapBoost, that, at each boosting iteration, randomly selects between either a decision tree of "
    "variable depth or a linear regressor with random Fourier features. We describe how SnapBoost is "
    "implemented. Finally, we present experimental results, using OpenML and Kaggle datasets, that show "
    "that SnapBoost is able to achieve better generalization loss than competing boosting frameworks.")


@pytest.mark.parametrize(("abstract", "others"), [
    (N_BEATS, ("TOURISM", "M3", "M4")),  # data sets the paper runs on
    (SNAPBOOST, ("OpenML", "Kaggle")),
    ("We compare against BERT and XLNet. Our results on CIFAR-10 show that a new pruning rule for "
     "convolutional networks, applied during training, halves their cost on CIFAR-10.", ("CIFAR-10", "XLNet")),
])
def test_a_data_set_or_baseline_never_leads_the_title(abstract, others):
    title = derive_title(abstract)
    assert not title.startswith(others), title


@pytest.mark.parametrize(("abstract", "start"), [
    ("This paper introduces Wavelet Flow, a multi-scale, normalizing flow architecture based on wavelets. "
     "A Wavelet Flow has an explicit representation of signal scale.",
     "Wavelet Flow: a multi-scale, normalizing flow architecture"),
    ("We show theoretically that this gradient estimator, which we call VarGrad due to its connection to "
     "the log-variance loss, has lower variance. We empirically demonstrate that VarGrad offers a favourable "
     "variance versus computation trade-off.", "VarGrad: "),
    ("Transfer learning is hard to predict. Our measure, the Log Expected Empirical Prediction (LEEP), is "
     "simple and easy to compute. Our analysis shows that LEEP can predict the performance of transfer.",
     "LEEP: Log Expected Empirical Prediction"),
    ("Pose tracking is hard. We propose a probabilistic graphical model built on top of deep neural networks, "
     "Deep Graph Pose (DGP), to leverage these useful spatial and temporal constraints.", "DGP: Deep Graph Pose"),
    ("Recurrent networks struggle with long sequences. We propose a new family of RNNs, called "
     "MomentumRNNs. We show that MomentumRNN is applicable to many types of recurrent cells.", "MomentumRNN: "),
])
def test_the_name_the_abstract_gives_its_own_work_leads_the_title(abstract, start):
    assert derive_title(abstract).startswith(start)


MONET3D = ("Monocular multi-object detection is hard. We present {name}, a framework that predicts the 3D "
           "position of each object in a monocular image. Code: https://github.com/CQUlearningsystemgroup/{repo}")


def test_a_repository_names_the_paper_only_where_the_sentences_use_that_name():
    assert derive_title(MONET3D.format(name="MoNet3D", repo="MoNet3D")).startswith("MoNet3D: a framework")
    # A repository named after its owner, or spelt as no sentence writes it, names no method.
    for repo in ("YicongPeng", "MemoryEfficientMonocular3D"):
        assert repo not in derive_title(MONET3D.format(name="a method", repo=repo))
    assert not derive_title(ALBERT).startswith("ALBERT")  # its name only in its code's address


@pytest.mark.parametrize("abstract", [
    "We study the Fréchet mean. We show how to differentiate through it, and apply our Fréchet mean "
    "solver to hyperbolic neural networks.",  # "our Fréchet mean solver": a word of a phrase, no name
    "We prove that FULD targets the so-called Gibbs distribution of the underdamped dynamics.",
])
def test_a_word_before_a_noun_is_no_name(abstract):
    assert not derive_title(abstract).startswith(("Fréchet", "Gibbs")), derive_title(abstract)


@pytest.mark.parametrize(("abstract", "unwanted"), [
    ("Neural networks are widely used in Natural Language Processing, yet they are brittle. We study the "
     "problem of reducing adversarially robust learning to standard PAC learning.",
     "Neural networks are widely used"),
    ("Submodular function minimization is well studied, and existing algorithms solve it exactly. We give "
     "the first input-sparsity time algorithms for the rank-k low rank approximation problem.",
     "Submodular function minimization is"),
    ("Self-supervised features transfer well. In this paper, we propose a strong baseline. Training a linear "
     "classifier on frozen features beats meta-learning methods on few-shot image classification.",
     "A strong baseline"),
])
def test_background_and_generic_phrases_do_not_make_the_title(abstract, unwanted):
    title = derive_title(abstract)
    assert not title.startswith(unwanted) and reads_well(title), title


def test_a_contribution_framed_as_a_problem_is_titled_by_the_problem():
    abstract = ("Robustness is costly. We study the problem of reducing adversarially robust learning to "
                "standard PAC learning.")
    assert derive_title(abstract) == "Reducing adversarially robust learning to standard PAC learning"


@pytest.mark.parametrize(("title", "good"), [
    ("Missing data is a crucial issue when applying machine learning", False),  # a sentence
    ("BiGG: an autoregressive model that utilizes this sparsity", False),  # "this" points outside
    ("Their sensitive information privately", False),
    ("A strong baseline", False),  # under four words
    ("BiGG: an autoregressive model for sparse graphs", True),
])
def test_a_title_reads_as_a_phrase_that_stands_alone(title, good):
    assert reads_well(title) is good


def test_a_phrase_pointing_outside_the_title_is_cut_off():
    assert trimmed("BiGG: an autoregressive model for large graphs that utilizes this sparsity") == (
        "BiGG: an autoregressive model for large graphs")


# A bundled ICLR 2025 abstract: the term it coins is quoted once, and its other words recur.
SPURIOUS_FORGETTING = (
    'Recent advancements in large language models (LLMs) reveal a perplexing phenomenon in continual '
    'learning: despite extensive training, models experience significant performance declines, raising '
    'questions about task alignment and underlying knowledge retention. This study first explores the '
    'concept of "spurious forgetting", proposing that such performance drops often reflect a decline in '
    'task alignment rather than true knowledge loss. Through controlled experiments with a synthesized '
    'dataset, we investigate the dynamics of model performance during the initial training phases of new '
    'tasks, discovering that early optimization steps can disrupt previously established task alignments.'
    ' Our theoretical analysis connects these shifts to orthogonal updates in model weights, providing a '
    'robust framework for understanding this behavior. Ultimately, we introduce a Freezing strategy that '
    'fix the bottom layers of the model, leading to substantial improvements in four continual learning '
    'scenarios. Our findings underscore the critical distinction between task alignment and knowledge '
    'retention, paving the way for more effective strategies in continual learning.')


def test_a_term_the_abstract_quotes_weighs_as_one_it_keeps_coming_back_to():
    assert "spurious forgetting" in derive_title(SPURIOUS_FORGETTING)
