"""Related papers: TF-IDF cosine neighbours, their scores, the shared terms and the bundled catalog."""

from __future__ import annotations

import json
import pickle
import random
from itertools import accumulate
from types import SimpleNamespace

import numpy as np
import pytest

from papercat.enrich import reference_papers as reference_module
from papercat.enrich.keyphrases import analyse, extract_keyphrases, term_runs
from papercat.enrich.related import (
    Corpus,
    Related,
    analyse_with_terms,
    extend,
    relate,
    relate_beside,
    related_papers,
    terms,
)
from papercat.enrich.related import copies as copies_module
from papercat.enrich.related import neighbours as neighbours_module
from papercat.enrich.related import scorer as scorer_module
from papercat.enrich.related.matrix import _matrix
from papercat.enrich.related.neighbours import MAX_SHARED
from papercat.enrich.related.scorer import DECIMALS
from papercat.enrich.paper_map import places
from papercat.text import folded
from tests.conftest import BUNDLED, ROOT


@pytest.fixture(scope="module")
def bundled_keyphrases(bundled) -> list[tuple[str, ...]]:
    return extract_keyphrases(bundled)


@pytest.fixture(scope="module")
def bundled_related(bundled, bundled_keyphrases) -> list[tuple[Related, ...]]:
    return related_papers(bundled, bundled_keyphrases)


def paper(docs: list[tuple[str, str]], words: str) -> int:
    """Return the position of the one paper whose abstract contains ``words``."""
    found = [i for i, (_, abstract) in enumerate(docs) if words in abstract]
    assert len(found) == 1, (words, found)
    return found[0]


def keys(text: str) -> set[str]:
    """Return the word keys of a text: lowercase, singular, hyphens dropped."""
    return {key for run in term_runs(text) for key, _ in run}


def synthetic(n: int, seed: int = 5) -> list[tuple[str, str]]:
    """Return n abstracts of words drawn by Zipf's law: a few common words, a long tail of rare ones."""
    rng = random.Random(seed)
    vocabulary = [f"term{i}" for i in range(20_000)]
    cumulative = list(accumulate(1 / (rank + 3) ** 1.1 for rank in range(len(vocabulary))))
    sentence = lambda: " ".join(rng.choices(vocabulary, cum_weights=cumulative, k=14))
    return [("", ". ".join(sentence() for _ in range(7)) + ".") for _ in range(n)]


def check_invariants(related: list[tuple[Related, ...]], n: int, k: int) -> None:
    """Assert what holds for any catalog: bounds, order, no self, symmetric scores."""
    assert len(related) == n
    scores = {}
    for i, found in enumerate(related):
        assert len(found) <= k
        assert all(r.index != i and 0 <= r.index < n for r in found)
        assert len({r.index for r in found}) == len(found)
        assert all(0 < r.score <= 1 and r.score == round(r.score, DECIMALS) for r in found)
        assert [(-r.score, r.index) for r in found] == sorted((-r.score, r.index) for r in found)
        assert all(len(r.shared) <= MAX_SHARED for r in found)
        scores.update({(i, r.index): r.score for r in found})
    for (a, b), score in scores.items():
        if (b, a) in scores:
            assert scores[(b, a)] == score, (a, b)


# --- invariants ----------------------------------------------------------------------------------------


def test_bundled_invariants(bundled, bundled_related):
    check_invariants(bundled_related, len(bundled), 5)
    assert all(len(found) == 5 for found in bundled_related)  # 57 papers on machine learning all share words


def test_a_best_match_lists_back_or_has_k_better_ones(bundled_related):
    # If B is A's best match with score s, B lists A, or B has k matches all scoring at least s.
    for a, found in enumerate(bundled_related):
        best = found[0]
        back = bundled_related[best.index]
        assert any(r.index == a for r in back) or all(r.score >= best.score for r in back)


def test_deterministic(bundled, bundled_keyphrases, bundled_related):
    assert related_papers(bundled, bundled_keyphrases) == bundled_related


def test_k(bundled, bundled_keyphrases, bundled_related):
    three = related_papers(bundled, bundled_keyphrases, k=3)
    assert three == [found[:3] for found in bundled_related]
    assert related_papers(bundled, bundled_keyphrases, k=0) == [()] * len(bundled)
    every = related_papers(bundled, bundled_keyphrases, k=99)  # all the papers sharing a term, at most
    assert max(map(len, every)) == len(bundled) - 1 and all(len(found) < len(bundled) for found in every)
    assert [found[:5] for found in every] == bundled_related


def test_shared_terms_occur_in_both_papers(bundled, bundled_related):
    for a, found in enumerate(bundled_related):
        for r in found:
            for term in r.shared:
                words = keys(term)
                assert words and words <= keys(" ".join(bundled[a])) & keys(" ".join(bundled[r.index])), term


def test_shared_terms_are_telling_and_not_repeated(bundled_related):
    for found in bundled_related:
        for r in found:
            assert len(set(r.shared)) == len(r.shared)
            assert not {"method", "model", "paper", "results", "performance", "layer"} & set(r.shared)


# --- the bundled papers, read as a researcher would ---------------------------------------------------------


@pytest.mark.parametrize("one, other", [
    ("Model editing addresses this challenge", "Simulating Ideal Editor"),  # RLEdit and SimIE
    ("hypernetwork-based lifelong editing", "We develop Concept-ROT"),  # model editing for trojans
    ("value-incentivized preference optimization (VPO)", "how memorization is affected by"),  # RLHF
    ("we propose MoEQuant", "we propose RWKVQuant"),  # post-training quantization
    ("Activation sparsity can reduce", "Dynamic Layerwise Pruning (DLP)"),  # sparsity and pruning
    ("Iterative Vectors (IVs)", "URIAL, a method using only three"),  # in-context learning
])
def test_papers_on_one_subject_relate(bundled, bundled_related, one, other):
    a, b = paper(bundled, one), paper(bundled, other)
    assert b in [r.index for r in bundled_related[a][:3]]
    assert a in [r.index for r in bundled_related[b][:3]]


def test_the_link_is_explained_by_the_subject(bundled, bundled_related):
    a, b = paper(bundled, "Model editing addresses this challenge"), paper(bundled, "Simulating Ideal Editor")
    link = next(r for r in bundled_related[a] if r.index == b)
    assert {"lifelong editing", "model editing"} <= set(link.shared)
    a, b = paper(bundled, "we propose MoEQuant"), paper(bundled, "we propose RWKVQuant")
    link = next(r for r in bundled_related[a] if r.index == b)
    assert link.shared[0] == "quantization"


# --- small and odd catalogs ---------------------------------------------------------------------------------


def test_empty_one_and_two_papers():
    assert related_papers([], []) == []
    assert related_papers([("T", "Graph neural networks on molecules.")], [("graph neural network",)]) == [()]
    docs = [("", "Graph neural networks predict molecular properties."),
            ("", "Molecular properties from graph neural networks and message passing.")]
    two = related_papers(docs, extract_keyphrases(docs))
    assert [r.index for r in two[0]] == [1] and [r.index for r in two[1]] == [0]
    assert two[0][0].score == two[1][0].score
    assert "graph neural network" in two[0][0].shared


def test_papers_sharing_nothing_get_fewer_than_k():
    docs = [("", "Graph neural networks predict molecular properties."),
            ("", "Molecular properties of graph neural networks."),
            ("", "Reinforcement learning for robotic grasping.")]
    found = related_papers(docs, [()] * 3)
    assert [r.index for r in found[0]] == [1]
    assert found[2] == ()


def test_papers_sharing_no_term_have_none():
    docs = [("", "Graph neural networks predict molecular properties."),
            ("", "Reinforcement learning for robotic grasping.")]
    assert related_papers(docs, [("graph neural network",), ("reinforcement learning",)]) == [(), ()]


def test_identical_abstracts_are_one_paper_twice_not_related():
    abstract = "Sparse autoencoders find monosemantic features in transformer activations."
    docs = [("A", abstract),
            ("B", "  sparse AUTOENCODERS find monosemantic features in transformer activations. "),
            ("C", "Monosemantic features from sparse autoencoders on language model activations.")]
    found = related_papers(docs, [()] * 3)
    assert [r.index for r in found[0]] == [2]
    assert [r.index for r in found[1]] == [2]
    assert sorted(r.index for r in found[2]) == [0, 1]


def test_ties_go_to_the_lower_index():
    docs = [("", "Quantum error correction codes."), ("", "Quantum error correction codes in hardware."),
            ("", "Quantum error correction codes in hardware.")]  # 1 and 2 are copies: both tie for 0
    found = related_papers(docs, [()] * 3)
    assert [r.index for r in found[0]] == [1, 2]
    assert found[0][0].score == found[0][1].score


def test_keyphrases_may_be_missing_or_spelt_as_acronyms():
    docs = [("", "We learn a reward model (RM) from ordinal feedback; the RM is calibrated."),
            ("", "Reward models trained on preferences; our reward model is robust.")]
    found = related_papers(docs, [("reward model", "ordinal feedback"), ()])
    assert found[0][0].index == 1 and found[0][0].shared[0] == "reward model"


def test_a_word_a_paper_spells_two_ways_is_one_term_named_by_its_commonest_spelling():
    abstracts = ["Pre-training lattice.", "Pretraining and pre-training lattice.",
                 "Pretraining, pretraining lattice.", "Pretraining lattice."]
    assert terms("", abstracts[1]).words == (("pretraining", "pretraining", 1),
                                             ("pretraining", "pre-training", 1), ("lattice", "lattice", 1))
    matrix, columns = _matrix([terms("", abstract) for abstract in abstracts], [()] * len(abstracts))
    features = columns.features
    assert features.names == ["pretraining", "lattice"]  # "pretraining" 4 times, "pre-training" twice
    rows = matrix.toarray().tolist()
    assert matrix.getnnz(axis=1).tolist() == [2] * 4
    assert rows[1] == rows[2] != rows[0] == rows[3]  # the middle papers say it twice, the others once


def test_the_columns_are_words_and_keyphrases_in_order_of_first_use_a_papers_words_first():
    docs = ["Reward model lattice.", "Ordinal feedback and reward model."]
    matrix, columns = _matrix([terms("", doc) for doc in docs], [("reward model",), ("ordinal feedback",)])
    features = columns.features
    assert features.names == ["reward", "model", "lattice", "reward model", "ordinal", "feedback", "ordinal feedback"]
    assert features.phrase == [False, False, False, True, False, False, True]
    assert features.keys[3] == ("reward", "model")
    assert matrix.getnnz(axis=1).tolist() == [4, 6]  # the second paper says "reward model" too


def test_a_spelling_used_once_in_many_papers_outweighs_one_used_twice_in_one():
    abstracts = ["Pre-training lattice.", "Pre-training lattice.", "Pre-training lattice.",
                 "Pretraining, pretraining lattice."]
    features = _matrix([terms("", abstract) for abstract in abstracts], [()] * len(abstracts))[1].features
    assert features.names == ["pre-training", "lattice"]  # "pre-training" 3 times, "pretraining" twice


def test_a_synthetic_catalog_of_three_thousand_papers():
    docs = synthetic(3000)
    found = related_papers(docs, [()] * len(docs))
    check_invariants(found, len(docs), 5)
    assert sum(map(len, found)) > 0.9 * 5 * len(docs)


@pytest.mark.parametrize("block_cells", [None, 704 * 128])
def test_the_related_papers_are_the_best_of_all_pairs_scored_one_by_one(block_cells, monkeypatch):
    """What the block-wise float32 scores shortlist is each paper's k best of every pair scored exactly:
    ties to the lower position, copies of an abstract never related, however the scores are split."""
    if block_cells:
        monkeypatch.setattr(neighbours_module, "BLOCK_CELLS", block_cells)  # 128 papers a block, 6 of them
    docs = synthetic(700, seed=13)
    docs[5] = docs[600]  # a copy
    docs[17] = docs[42] = docs[300][0], docs[300][1][:150]  # two papers tied with each other everywhere
    found = related_papers(docs, [()] * len(docs))
    matrix, _ = _matrix([terms(*doc) for doc in docs], [()] * len(docs))
    n, k = len(docs), 5
    left, right = np.divmod(np.arange(n * n), n)
    pairs = (left != right) & ~np.isin(left * n + right, [5 * n + 600, 600 * n + 5, 17 * n + 42, 42 * n + 17])
    left, right = left[pairs], right[pairs]
    exact = np.round(neighbours_module._exact(neighbours_module._products(matrix, left, right)), DECIMALS)
    best: list[list[tuple[int, float]]] = [[] for _ in range(n)]
    for score, a, b in sorted(zip((-exact).tolist(), left.tolist(), right.tolist()), key=lambda x: (x[1], x[0], x[2])):
        if score < 0 and len(best[a]) < k:
            best[a].append((b, -score))
    assert [[(r.index, r.score) for r in near] for near in found] == best
    assert sum(map(len, best)) > 0.9 * k * n


def test_scipys_loop_and_numpys_indexing_add_the_rare_terms_alike(monkeypatch):
    """The scores' rare terms are added by a private loop of scipy's when it is there, else by numpy."""
    docs = synthetic(600, seed=11)
    with_scipy = related_papers(docs, [()] * len(docs))
    assert scorer_module._csr_add is not None, "scipy still has it"
    monkeypatch.setattr(scorer_module, "_csr_add", None)
    assert related_papers(docs, [()] * len(docs)) == with_scipy


@pytest.mark.parametrize("added", [1, 40])
def test_extend_finds_what_relating_the_whole_catalog_finds(added, monkeypatch):
    """Papers added to a catalog past its reference (its oldest 128 of 300 here) are compared with all,
    and the earlier papers' lists take them in: as relating all at once does, ties and copies included."""
    monkeypatch.setattr(reference_module, "REFERENCE_MIN", 64)
    docs = synthetic(300, seed=7)
    order = list(range(300))
    random.Random(3).shuffle(order)  # arrival is not catalog order
    docs[order[-1]] = docs[order[0]]  # the newest paper has the oldest one's abstract: never related to it
    docs[order[1]] = docs[order[2]] = docs[order[-1]][0], docs[order[-1]][1][:200]  # ties with both
    docs[order[-2]] = docs[order[5]][0], docs[order[5]][1].upper()  # a copy in another case
    phrases = extract_keyphrases(docs)
    keep = 300 - added
    earlier = sorted(order[:keep])  # the earlier catalog: its papers in the same order
    oldest = [earlier.index(row) for row in order[:keep]]
    subset = [docs[row] for row in earlier]
    held, _ = relate_beside(Corpus(subset, [phrases[row] for row in earlier], oldest),
                            [terms(*doc) for doc in subset], places)
    held = pickle.loads(pickle.dumps(held))  # as the cache keeps it
    grown, placed = extend(held, Corpus(docs, phrases, order), [terms(*docs[row]) for row in order[keep:]], places)
    whole, laid = relate_beside(Corpus(docs, phrases, order), [terms(*doc) for doc in docs], places)
    assert placed == laid, "the map of the whole catalog, laid out beside"
    assert grown.pairs == whole.pairs and grown.rows == whole.rows and grown.rank == whole.rank
    assert grown.folds == whole.folds
    found = whole.found(order)
    assert grown.found(order) == found
    assert sum(order.index(x.index) >= keep for row in order[:keep] for x in found[row]) > 0, \
        "new papers entered old lists"
    assert found[order[-1]] and all(x.index != order[0] for x in found[order[-1]])
    assert found[order[-2]] and all(x.index != order[5] for x in found[order[-2]])


@pytest.mark.parametrize("collide", [False, True])
def test_the_later_papers_copies_are_found_by_the_earlier_ones_sums(collide, monkeypatch):
    """Copies of a later paper, earlier or later, are found as folding every abstract finds them, even when
    the sums of different abstracts are the same."""
    if collide:
        monkeypatch.setattr(copies_module, "zlib", SimpleNamespace(crc32=lambda data: 7))
    abstracts = ["A b c", "c d e", "a  B c", "x y z", "C D e", "e f g", "E F  G", "c d e"]
    folds = [folded(a) for a in abstracts]
    whole = copies_module._copies(folds)
    found, sums = copies_module._later_copies(copies_module._fold_sums(folds[:3]), abstracts, 3)
    assert found == {i: copies for i, copies in whole.items() if i >= 3} == {
        4: [1, 7], 5: [6], 6: [5], 7: [1, 4]}
    assert copies_module._fold_sums(folds[:3]) + sums == copies_module._fold_sums(folds)


# --- the split the build cache relies on: each paper's terms counted alone, compared across the catalog -----


def test_relate_of_terms_gives_the_golden_related_papers():
    from papercat.catalog import make_catalog, merge_listings
    from papercat.content.folder import read_content
    content, _ = read_content(BUNDLED)
    catalog, _ = make_catalog(list(content.listings), content.taxonomy)
    by_id = {p.id: p for p in catalog.papers}
    papers = [by_id[m.id] for m in merge_listings(list(content.listings))[0]]  # the order the build uses
    docs = [(p.title, p.text) for p in papers]
    found = relate(docs, [terms(title, abstract) for title, abstract in docs], [p.keyphrases for p in papers])
    golden = json.loads((ROOT / "tests" / "golden" / "site" / "papers.json").read_text(encoding="utf-8"))
    assert {p.id: [papers[r.index].id for r in near if r.shared] for p, near in zip(papers, found)} == {
        p["id"]: p["related"] for p in golden["papers"]}


def test_terms_depend_on_their_paper_alone_and_survive_pickling(bundled, bundled_keyphrases, bundled_related):
    counted = [terms(title, abstract) for title, abstract in bundled]
    assert [terms(title, abstract) for title, abstract in reversed(bundled)] == counted[::-1]
    assert relate(bundled, pickle.loads(pickle.dumps(counted)), bundled_keyphrases) == bundled_related


@pytest.mark.parametrize("title, abstract", [
    ("Training Agents. A Second Sentence",
     "Training helps. Reward models (RMs) score answers. LLMs process text."),
    ("Steering vectors", "Theory-of-mind (ToM) lets agents plan; ToM's limits show. ToM agents plan well."),
    ("Training agents to plan", "We train agents. Training agents to plan is hard for LLMs."),
    ("(Learning) rules of games", "Rules of games are learnt. Learning rules."),
    ("A leaderboard", "We host the leaderboard at gorilla.cs.berkeley.edu for Function Calling models."),
    ("", "Sparse autoencoders find features. Features of MoE's experts. e.g. Some text, i.e. more."),
    ("Exploring the limits", "Exploring the limits of transfer. The Berkeley Function Calling Leaderboard."),
])
def test_terms_counted_with_the_analysis_are_the_terms_counted_alone(title, abstract):
    assert analyse_with_terms(title, abstract) == (analyse(title, abstract), terms(title, abstract))


def test_the_bundled_terms_counted_with_the_analyses_are_the_terms_counted_alone(bundled):
    assert [analyse_with_terms(title, abstract) for title, abstract in bundled] == [
        (analyse(title, abstract), terms(title, abstract)) for title, abstract in bundled]


def test_the_bundled_analyses_travel_from_worker_processes_unchanged(bundled):
    for title, abstract in bundled:
        both = analyse_with_terms(title, abstract)
        back = pickle.loads(pickle.dumps(both, protocol=pickle.HIGHEST_PROTOCOL))
        assert back == both and type(back[0].proper) is frozenset and type(back[1].words) is tuple


def test_the_terms_may_be_freed_once_the_matrix_is_made(monkeypatch):
    """``made()`` comes once the matrix holds the terms and before ``beside`` (while workers compare): a caller
    that empties the terms there finds the same relations, whole or extended."""
    monkeypatch.setattr(reference_module, "REFERENCE_MIN", 64)
    docs = synthetic(300, seed=11)
    phrases = extract_keyphrases(docs)
    steps: list[str] = []

    def freeing(papers: list):
        def made() -> None:
            steps.append("made")
            papers.clear()
        return made

    def beside(matrix):
        steps.append("beside")
        return places(matrix)

    held_terms = [terms(*doc) for doc in docs[:260]]
    held, _ = relate_beside(Corpus(docs[:260], phrases[:260]), held_terms, beside,
                            before_comparing=freeing(held_terms))
    assert steps == ["made", "beside"] and held_terms == []
    whole, laid = relate_beside(Corpus(docs, phrases), [terms(*doc) for doc in docs], places)
    all_terms = [terms(*doc) for doc in docs]
    freed, placed = relate_beside(Corpus(docs, phrases), all_terms, places, before_comparing=freeing(all_terms))
    assert freed.pairs == whole.pairs and freed.rows == whole.rows and placed == laid
    steps.clear()
    new_terms = [terms(*doc) for doc in docs[260:]]
    grown, _ = extend(pickle.loads(pickle.dumps(held)), Corpus(docs, phrases, range(300)), new_terms, beside,
                      freeing(new_terms))
    assert steps == ["made", "beside"] and new_terms == []
    assert grown.pairs == whole.pairs and grown.rows == whole.rows
