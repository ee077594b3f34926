"""Pick each paper's keyphrases: distinctive 1-3 word phrases, scored against the whole catalog.

The steps, one module each: words (what a word is) -> runs (texts split where no phrase goes on)
-> grams (their n-grams, counted) -> candidates (one paper's phrases, weighed) -> analysis (all
that needs no catalog) -> statistics (the reference papers' counts) -> ranking (scored and picked).
"""

from .analysis import PaperPhrases, analyse, analyse_and_count_terms
from .grams import TermCounts, count_terms
from .ranking import extract_keyphrases, pick
from .runs import term_runs, word_keys
from .statistics import Statistics, statistics
from .words import fold_plural, is_telling

__all__ = ["PaperPhrases", "Statistics", "TermCounts", "analyse", "analyse_and_count_terms", "count_terms",
           "extract_keyphrases", "fold_plural", "is_telling", "pick", "statistics", "term_runs", "word_keys"]
