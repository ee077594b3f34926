"""Derive a short plain-text title for a paper from its abstract.

The steps, one module each: patterns (the words and patterns) -> reading (the abstract as plain
text, its sentences and acronyms) -> naming ("Name: what it is") -> derive (the title) -> unique
(titles two papers share made distinct).
"""

from .derive import derive_title
from .unique import Candidate, unique_titles

__all__ = ["Candidate", "derive_title", "unique_titles"]
