"""A paper's words and n-grams with their counts: the per-paper part of the TF-IDF matrix."""

from __future__ import annotations

from dataclasses import dataclass

from papercat.enrich.keyphrases import (
    PaperPhrases,
    analyse_and_count_terms,
    count_terms,
)


@dataclass(frozen=True)
class PaperTerms:
    """A paper's words and 1-3 word n-grams with their counts, from its title and abstract alone."""

    words: tuple[tuple[str, str, int], ...]  # (key, spelling, times) in order of first use
    grams: dict[tuple[str, ...], int]  # n-gram of word keys -> times, in order of first use; read only


def terms(title: str, abstract: str) -> PaperTerms:
    """Return the words and n-grams of a paper: the per-paper part of the TF-IDF matrix."""
    return PaperTerms(*count_terms(title, abstract))


def analyse_with_terms(title: str, abstract: str) -> tuple[PaperPhrases, PaperTerms]:
    """Return ``keyphrases.analyse(title, abstract)`` and ``terms(title, abstract)``: the words read once."""
    analysed, counts = analyse_and_count_terms(title, abstract)
    return analysed, PaperTerms(*counts)
