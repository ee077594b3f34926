"""The catalog's TF-IDF matrix: a column per word or keyphrase, weighed over the reference papers."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain

import numpy as np
from scipy import sparse

from papercat.enrich.keyphrases import word_keys
from papercat.enrich.reference_papers import reference_count, reference_size

from .terms import PaperTerms

PHRASE_BOOST = 2.0  # a keyphrase shared says more than its words shared one by one


class _Features:
    """The columns of the paper-term matrix, words and keyphrases mixed, each with its key and name."""

    def __init__(self) -> None:
        self.words: dict[str, int] = {}  # a word's key -> its column
        self.phrases: dict[tuple[str, ...], int] = {}  # a keyphrase's key -> its column
        self.keys: list[tuple[str, ...]] = []
        self.names: list[str] = []
        self.phrase: list[bool] = []
        self.spellings: dict[int, Counter[str]] = {}  # a word's spellings but its first, once it has one

    def _add(self, key: tuple[str, ...], name: str, phrase: bool) -> int:
        """Return the column of a new word or keyphrase."""
        self.keys.append(key)
        self.names.append(name)
        self.phrase.append(phrase)
        return len(self.names) - 1

    def count_words(self, words: tuple[tuple[str, str, int], ...], spelled: bool = True) -> dict[int, int]:
        """Return how often a paper uses each word (its ``PaperTerms.words``) by column, adding new words.

        Unless ``spelled`` (a paper outside the reference), its spellings are not counted: a new word is
        named as this paper spells it.
        """
        counts: dict[int, int] = {}
        columns, names, spellings = self.words, self.names, self.spellings
        if not spelled:
            for key, name, times in words:
                column = columns.get(key)
                if column is None:
                    column = columns[key] = self._add((key,), name, False)
                counts[column] = counts.get(column, 0) + times
            return counts
        for key, name, times in words:  # a loop kept lean: it runs for every word of every paper
            column = columns.get(key)
            if column is None:
                column = columns[key] = self._add((key,), name, False)
            elif name != names[column] or column in spellings:
                if name != names[column]:  # the first spelling's count is settled from the word's total
                    spelt = spellings.get(column)
                    if spelt is None:
                        spelt = spellings[column] = Counter()
                    spelt[name] += times
                # A word the paper spells a second way comes here (that spelling differs from the first
                # or is in spellings), so only here may the paper have counted the word already.
                counts[column] = counts.get(column, 0) + times
                continue
            counts[column] = times
        return counts

    def phrase_column(self, key: tuple[str, ...], name: str) -> int:
        """Return the column of a keyphrase by its key, adding it when new."""
        column = self.phrases.get(key)
        if column is None:
            column = self.phrases[key] = self._add(key, name, True)
        return column

    def settle_names(self, totals: np.ndarray) -> None:
        """Name each word by its most frequent spelling ("pretraining" over "pre-training" if more common).

        ``totals`` is how often the reference papers use each column. ``count_words`` counts only the
        other spellings of a word, so the first spelling's count is what they leave of its total.
        """
        for column, spellings in self.spellings.items():
            spellings[self.names[column]] = int(totals[column]) - sum(spellings.values())
            self.names[column] = min(spellings.items(), key=lambda kv: (-kv[1], kv[0]))[0]
        self.spellings = {}  # settled: papers added later are named as they spell a new word


@dataclass
class _Columns:
    """The columns of a catalog's matrix and what weighs them: enough to add papers' rows later."""

    features: _Features
    size: int  # the reference_size of IDF
    idf: np.ndarray = field(default_factory=lambda: np.zeros(0))  # by column, keyphrases boosted
    phrase_keys: dict[str, tuple[str, ...]] = field(default_factory=dict)  # keyphrase -> its words' keys
    names: dict[tuple[str, ...], str] = field(default_factory=dict)  # each keyphrase key's first spelling
    searched: dict[tuple[str, ...], str] = field(default_factory=dict)  # the reference's keyphrases, by key

    def learn(self, keyphrases: Iterable[Sequence[str]]) -> None:
        """Key and name the keyphrases not seen before ("Reward models" -> ("reward", "model"))."""
        distinct = [phrase for phrase in dict.fromkeys(chain.from_iterable(keyphrases))
                    if phrase not in self.phrase_keys]
        # In this process: cheaper than starting workers, which would copy the pages of every object
        # they touch, and this process's pages it writes to while they run.
        self.phrase_keys.update(zip(distinct, map(word_keys, distinct)))
        for phrase in distinct:
            if self.phrase_keys[phrase]:
                self.names.setdefault(self.phrase_keys[phrase], phrase)

    def seek(self, keyphrases: Iterable[Sequence[str]]) -> None:
        """Seek these (learnt) keyphrases in every paper's n-grams."""
        for phrase in chain.from_iterable(keyphrases):
            key = self.phrase_keys[phrase]
            if key:
                self.searched.setdefault(key, self.names[key])

    def rows(self, papers: Sequence[PaperTerms], keyphrases: Sequence[Sequence[str]],
             reference: int) -> tuple[list[int], list[int], list[int]]:
        """Return (row, column, count) of each term of ``papers``, whose ``keyphrases`` are learnt, adding
        their new columns; the first ``reference`` of them are reference papers (see ``_Features.count_words``)."""
        rows, columns, counts = [], [], []
        for row, (paper, own) in enumerate(zip(papers, keyphrases)):
            own_keys = [self.phrase_keys[phrase] for phrase in own if self.phrase_keys[phrase]]
            found = self.paper_counts(paper, own_keys, row < reference)
            rows.extend([row] * len(found))
            columns.extend(found)
            counts.extend(found.values())
        return rows, columns, counts

    def paper_counts(self, paper: PaperTerms, own: list[tuple[str, ...]], spelled: bool) -> dict[int, int]:
        """Return how often a paper uses each word, each keyphrase sought and each of its ``own`` keyphrases
        (given by key), by column, adding new columns; ``spelled`` as ``_Features.count_words`` says."""
        features, searched = self.features, self.searched
        counts = features.count_words(paper.words, spelled)
        grams, columns = paper.grams, features.phrases
        for gram in filter(searched.__contains__, grams):  # a loop kept lean: most keyphrases have a column
            column = columns.get(gram)
            counts[features.phrase_column(gram, searched[gram]) if column is None else column] = grams[gram]
        for key in own:  # its own keyphrases count even when spelt as an acronym ("RM" for reward model)
            if key not in grams or key not in searched:  # else counted as one of its n-grams
                counts.setdefault(features.phrase_column(key, self.names[key]), grams.get(key, 1))
        return counts

    def weights(self, rows: list[int], columns: list[int], counts: list[int], papers: int) -> sparse.csr_matrix:
        """Return the l2-normalised rows of TF-IDF weights made of ``rows``' terms; a column new since
        the IDF was counted had no reference document."""
        if len(self.idf) < len(self.features.names):
            self.count(np.zeros(len(self.features.names) - len(self.idf), dtype=np.int64))
        rows_a = np.array(rows, dtype=np.int64)
        columns_a = np.array(columns, dtype=np.int64)
        data = (1.0 + np.log(np.array(counts, dtype=np.float64))) * self.idf[columns_a]
        norms = np.sqrt(np.bincount(rows_a, weights=data * data, minlength=papers))
        data /= np.where(norms > 0, norms, 1.0)[rows_a]
        matrix = sparse.csr_matrix((data, (rows_a, columns_a)), shape=(papers, len(self.features.names)))
        matrix.sort_indices()  # sorted terms make cosine(a, b) and cosine(b, a) sum in the same order
        return matrix

    def count(self, df: np.ndarray) -> None:
        """Weigh the columns from the next one on by their document frequencies ``df`` in the reference."""
        idf = np.log(self.size / (1 + df)) + 1.0
        idf[np.array(self.features.phrase[len(self.idf):], dtype=bool)] *= PHRASE_BOOST
        self.idf = np.concatenate((self.idf, idf))

    def __getstate__(self) -> dict:
        return {**self.__dict__, "idf": self.idf.tobytes()}  # a cache file holds no numpy objects

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, idf=np.frombuffer(state["idf"], dtype=np.float64).copy())


def _matrix(papers: Sequence[PaperTerms], keyphrases: Sequence[Sequence[str]],
            order: Sequence[int] | None = None) -> tuple[sparse.csr_matrix, _Columns]:
    """Return the l2-normalised TF-IDF matrix (papers x terms, in ``order``), sublinear in counts, and its
    columns.

    ``order`` gives the papers' positions oldest first (by default, as given): columns are numbered
    as the papers bring them, and the document frequencies, the keyphrases sought in every paper and
    the words' names come from the first ``reference_count`` papers alone, so that a paper's row
    depends on them and on itself only.
    """
    order = range(len(papers)) if order is None else order
    reference = reference_count(len(papers))
    columns = _Columns(_Features(), reference_size(reference))
    own = [keyphrases[row] for row in order]
    columns.learn(own)
    columns.seek(own[:reference])
    rows, cols, counts = columns.rows([papers[row] for row in order], own, reference)
    counted = int(np.searchsorted(np.array(rows, dtype=np.int64), reference))  # the reference's terms
    reference_cols = np.array(cols[:counted], dtype=np.int64)
    total = len(columns.features.names)
    columns.features.settle_names(np.bincount(reference_cols, weights=counts[:counted], minlength=total))
    columns.count(np.bincount(reference_cols, minlength=total))
    return columns.weights(rows, cols, counts, len(papers)), columns
