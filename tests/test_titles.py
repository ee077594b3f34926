"""Tests for deriving paper titles from abstracts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from papercat.enrich.titles import derive_title, unique_titles
from papercat.enrich.titles.patterns import _gerund

LISTINGS = Path(__file__).resolve().parent.parent / "content" / "listings"


def bundled_abstracts() -> list[str]:
    """Return every bundled abstract: the paragraphs after each listing's header line, lines joined."""
    abstracts = []
    for path in sorted(LISTINGS.glob("*.txt")):
        body = path.read_text(encoding="utf-8").split("\n", 1)[1]
        abstracts += [" ".join(p.split()) for p in body.split("\n\n") if p.strip()]
    return abstracts


def abstract_with(phrase: str) -> str:
    """Return the one bundled abstract that contains phrase."""
    found = [a for a in bundled_abstracts() if phrase in a]
    assert len(found) == 1, f"{len(found)} bundled abstracts contain {phrase!r}"
    return found[0]


def _words(*texts: str) -> list[str]:
    """Return the lowercased words (with inner hyphens and digits) of texts."""
    return [w.lower() for text in texts for w in re.findall(r"\w[\w'’-]*", text)]


def test_bundled_listings_hold_57_abstracts():
    assert len(bundled_abstracts()) == 57


@pytest.mark.parametrize(("phrase", "start"), [
    ("we propose GuardAgent", "GuardAgent: a guardrail agent"),
    ("this paper presents \\textbf{Liger}", "Liger: Linearizing LLMs to gated recurrent structures"),
    ("we propose Just Run Twice (JuICE)", "JuICE: Just Run Twice"),
    ("**E**valuating **T**hen **A**ligning (ETA)", "ETA: Evaluating Then Aligning, "),
    ("we propose M-STaR", "M-STaR: Multimodal Self-evolving Training for Reasoning"),
    ("we propose $\\texttt{\\textbf{DReaMAD}}$", "DReaMAD: Diverse Reasoning via Multi-Agent Debate"),
    ("we propose Shape as Line Segments (SALS)", "SALS: Shape as Line Segments"),
    ("develop two algorithms", "C-SquareCB and C-FastCB: "),
])
def test_a_named_contribution_leads_the_title(phrase, start):
    assert derive_title(abstract_with(phrase)).startswith(start)


def test_the_name_is_followed_by_what_it_is():
    assert derive_title(abstract_with("we propose GuardAgent")) == (
        "GuardAgent: a guardrail agent to protect target agents")
    assert derive_title(abstract_with("we introduce PoisonBench")).startswith("PoisonBench: a benchmark for")


@pytest.mark.parametrize("phrase", [
    "Lin et al. (2024) proposed URIAL",  # proposed by others
    "called C-RASP (Yang & Chiang, 2024)",  # a cited name
    "Theory-of-mind (ToM) enables",  # ToM is common, not a name
])
def test_names_that_are_not_the_contribution_do_not_lead(phrase):
    title = derive_title(abstract_with(phrase))
    assert not title.startswith(("URIAL", "C-RASP", "ToM", "LLM", "RL")), title
    assert ":" not in title


def test_common_acronyms_are_not_taken_for_names():
    abstract = "We propose an RLHF method for GPT-4 that reduces reward hacking in LLMs."
    assert derive_title(abstract) == "An RLHF method for GPT-4 that reduces reward hacking in LLMs"


@pytest.mark.parametrize(("phrase", "title"), [
    ("we propose a scalable Bayesian ToM planner", "A scalable Bayesian theory-of-mind planner"),
    ("This paper proposes a framework for learning RMs",
     "A framework for learning reward models under ordinal feedback"),
    ("we propose a simple and surgical method",
     "A simple and surgical method for mitigating false refusal in language models"),
    ("our analysis shows that intermediate layers",  # what it proposes, not the claim before it
     "A unified framework of representation quality metrics based on information theory"),
    ("we explore the **learning dynamics**",  # what it explores: a title names a thing
     "The learning dynamics throughout the Continual Pre-Training process for large language models"),
])
def test_without_a_name_the_title_describes_the_contribution(phrase, title):
    assert derive_title(abstract_with(phrase)) == title


def test_a_fallback_title_is_a_sentence_cased_noun_phrase():
    abstract = ("Deep networks overfit noisy labels. We propose a simple reweighting scheme for training "
                "deep networks with noisy labels. Experiments confirm it.")
    assert derive_title(abstract) == (
        "A simple reweighting scheme for training deep networks with noisy labels")


def test_an_abstract_without_any_cue_falls_back_to_its_first_clause():
    abstract = ("Length generalization is the ability of a learning algorithm to learn a hypothesis which "
                "generalizes to longer inputs than the inputs in the training set.")
    assert derive_title(abstract) == (
        "Length generalization is the ability of a learning algorithm to learn a hypothesis")


def test_markdown_latex_escapes_and_urls_are_stripped():
    abstract = (r"We propose **RoboDiff**, a *diffusion policy* for $\textit{robot}$ control with 87.5\% "
                r"success. Code: https://example.com/robodiff and \url{https://github.com/x/robodiff}.")
    assert derive_title(abstract) == "RoboDiff: a diffusion policy for robot control with 87.5% success"


def test_inline_math_keeps_a_readable_inner_text():
    abstract = r"We present an algorithm with $O(T^2)$ regret for $\textit{online bandits}$."
    assert derive_title(abstract) == "An algorithm with O(T²) regret for online bandits"


def test_emphasised_initials_are_joined_back_into_words():
    title = derive_title(abstract_with("**T**ruthfulness **S**eparator **V**ector"))
    assert title.startswith("TSV: Truthfulness Separator Vector, ")


def test_a_long_sentence_is_cut_at_a_word_boundary():
    words = [f"word{i}x" for i in range(60)]
    abstract = "We propose " + " ".join(words) + "."
    title = derive_title(abstract)
    assert 80 <= len(title) <= 100
    assert all(word.lower() in words for word in title.lower().split())


@pytest.mark.parametrize("max_chars", [30, 45, 60, 80])
def test_shorter_limits_keep_whole_words_and_drop_dangling_stopwords(max_chars):
    for abstract in bundled_abstracts():
        title = derive_title(abstract, max_chars=max_chars)
        assert 0 < len(title) <= max_chars
        assert title == title.strip() and not title.endswith((",", ":", ";", "-", "—"))
        assert title.split()[-1].lower() not in {"of", "the", "and", "a", "an", "to", "for", "with", "in"}
        known = _words(abstract, derive_title(abstract, max_chars=1000), derive_title(abstract))
        assert set(_words(title)) <= set(known) | {_gerund(w) for w in known}, title


def test_bundled_titles_are_plain_distinct_and_short():
    titles = [derive_title(a) for a in bundled_abstracts()]
    for title in titles:
        assert 10 <= len(title) <= 100, title
        assert not set(title) & {"*", "$", "\\", "{", "}", "~", "_"}, title
        assert "http" not in title and ".com" not in title and ".io" not in title, title
    assert len(set(titles)) == len(titles)


def test_titles_are_deterministic():
    abstracts = bundled_abstracts()
    assert [derive_title(a) for a in abstracts] == [derive_title(a) for a in abstracts]


@pytest.mark.parametrize("abstract", ["", "   ", "https://example.com/paper", "$$"])
def test_abstracts_without_words_give_an_empty_title(abstract):
    assert derive_title(abstract) == ""


# Two abstracts whose opening sentence is the same, so their derived titles are too.
SAME_START = "We propose a new method for protein structure prediction. "
TWINS = [SAME_START + "Our approach uses graph neural networks over residue contact maps.",
         SAME_START + "It relies on diffusion models trained on synthetic folds, and halves inference time."]


def test_distinct_titles_are_returned_unchanged():
    titles = ["A", "B", "C"]
    assert unique_titles(titles, ["x", "y", "z"]) == titles


def test_bundled_titles_are_unchanged():
    abstracts = bundled_abstracts()
    titles = [derive_title(a) for a in abstracts]
    assert unique_titles(titles, abstracts) == titles


def test_repeated_titles_get_a_phrase_only_their_own_abstract_has():
    titles = [derive_title(a) for a in TWINS]
    assert titles[0] == titles[1] == "A method for protein structure prediction"
    assert unique_titles(titles, TWINS) == [
        "A method for protein structure prediction (graph neural networks)",
        "A method for protein structure prediction (diffusion models)"]


def test_a_title_cut_short_is_first_lengthened_from_its_own_abstract():
    start = ("We propose a scalable message passing framework for learning node representations "
             "on large graphs ")
    abstracts = [start + "with typed edges. Experiments confirm it.",
                 start + "with temporal nodes. Experiments confirm it."]
    titles = [derive_title(a) for a in abstracts]
    assert titles[0] == titles[1]
    assert unique_titles(titles, abstracts) == [titles[0] + " with typed edges",
                                                titles[0] + " with temporal nodes"]


def test_a_phrase_may_span_of():
    abstracts = [SAME_START + "It learns from millions of unlabelled sequences.",
                 SAME_START + "It learns from billions of unlabelled sequences."]
    titles = [derive_title(a) for a in abstracts]
    assert unique_titles(titles, abstracts) == [
        "A method for protein structure prediction (millions of unlabelled sequences)",
        "A method for protein structure prediction (billions of unlabelled sequences)"]


def test_titles_differing_only_in_case_or_spacing_count_as_repeats():
    out = unique_titles(["A method  for X", "a method for x"], TWINS)
    assert len({t.casefold() for t in out}) == 2 and all(t.endswith(")") for t in out)


def test_abstracts_with_nothing_to_tell_apart_fall_back_to_a_number():
    abstracts = ["We study label noise in deep nets.", "We study label noise in deep nets!"]
    assert unique_titles(["Noise", "Noise", "Other"], abstracts + ["z"]) == ["Noise (2)", "Noise", "Other"]


def test_a_new_title_never_takes_another_papers_title():
    titles = ["A method for protein structure prediction"] * 2 + [
        "A method for protein structure prediction (graph neural networks)"]
    out = unique_titles(titles, [*TWINS, "Something else entirely here."])
    assert len(set(out)) == 3 and out[2] == titles[2]
    assert out[1] == "A method for protein structure prediction (diffusion models)"


def test_numbers_skip_titles_already_in_use():
    out = unique_titles(["T", "T", "T", "T (2)"], ["same words"] * 3 + ["other"])
    assert out == ["T", "T (3)", "T (4)", "T (2)"]


def test_unique_titles_do_not_depend_on_input_order():
    abstracts = [*TWINS, abstract_with("we propose GuardAgent"), SAME_START + "It learns from billions."]
    titles = [derive_title(a) for a in abstracts]
    forward = unique_titles(titles, abstracts)
    backward = unique_titles(titles[::-1], abstracts[::-1])
    assert forward == backward[::-1] and len(set(forward)) == 4
    assert forward[2] == titles[2]  # the one unique title is untouched


def test_remembered_candidates_make_the_same_titles_without_making_them_again():
    abstracts = [*TWINS, SAME_START + "It learns from billions.", abstract_with("we propose GuardAgent")]
    titles = [derive_title(a) for a in abstracts]
    memo: dict[tuple[str, ...], str] = {}
    made: list[tuple[str, ...]] = []

    def remembered(candidates):
        for candidate in candidates:
            if candidate.parts not in memo:
                made.append(candidate.parts)
                memo[candidate.parts] = candidate.make()
        return [memo[candidate.parts] for candidate in candidates]

    first = unique_titles(titles, abstracts, made=remembered)
    assert first == unique_titles(titles, abstracts) and made, "the same titles, their candidates made once"
    made.clear()
    assert unique_titles(titles, abstracts, made=remembered) == first
    assert made == [], "a second catalog with the same papers makes no candidate again"
    # A candidate phrase depends on the other papers of its group: a new member makes it again.
    unique_titles([*titles, titles[0]], [*abstracts, SAME_START + "It uses sparse attention."], made=remembered)
    assert any(parts[0] == "_title_with_phrase" for parts in made)


def test_new_titles_stay_within_120_characters_shortening_the_phrase_first():
    title = "A long derived title that goes on and on about protein structure prediction for proteins"
    assert unique_titles([title, title], TWINS) == [title + " (graph neural networks)",
                                                    title + " (diffusion models)"]
    too_long = "An extremely long derived title that goes on about protein structure prediction " * 2
    out = unique_titles([too_long, too_long], TWINS)
    assert len(set(out)) == 2 and all(len(t) <= 120 for t in out), out
    assert out[0].startswith("An extremely long") and out[0].endswith("(graph)"), out


def test_kept_titles_never_change_and_the_others_move_away_from_them():
    given = "A method for protein structure prediction"
    titles = [given, given]
    assert unique_titles(titles, TWINS, keep={0}) == [given, given + " (diffusion models)"]
    same_words = ["We study label noise in deep nets.", "We study label noise in deep nets!"]
    studying = derive_title(same_words[0])
    assert unique_titles([studying, studying], same_words, keep={1}) == [studying + " (2)", studying]
    assert unique_titles(["Noise", "Noise"], same_words, keep={0, 1}) == ["Noise", "Noise"]
