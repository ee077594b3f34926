"""Find each paper's most related papers: TF-IDF cosine over its words and the catalog's keyphrases.

The steps, one module each: terms (a paper's counted words and n-grams) -> matrix (the catalog's
TF-IDF matrix) -> scorer (approximate cosines, floors) -> neighbours (each paper's best, exact and
explained; copies leaves out papers with the same abstract) -> relations (all of it, extendable).
"""

from .relations import Corpus, Found, Related, Relations, extend, relate, relate_beside, related_papers
from .terms import PaperTerms, analyse_with_terms, terms

__all__ = ["Corpus", "Found", "PaperTerms", "Related", "Relations", "analyse_with_terms", "extend", "relate",
           "relate_beside", "related_papers", "terms"]
