"""Find each paper's most related papers: TF-IDF cosine over its words and the catalog's keyphrases."""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import chain, pairwise
from typing import TypeVar

import numpy as np
from scipy import sparse

from papercat.enrich.keyphrases import PaperPhrases, analyse_and_count_terms, count_terms, is_telling, word_keys
from papercat.enrich.reference_papers import reference_count, reference_size
from papercat.parallel import Plain, jobs, map_beside, parallel_map
from papercat.text import folded

__all__ = ["Found", "PaperTerms", "Related", "Relations", "analyse_with_terms", "extend", "relate",
           "relate_beside", "related_papers", "terms"]

B = TypeVar("B")

PHRASE_BOOST = 2.0  # a keyphrase shared says more than its words shared one by one
MAX_SHARED = 4
DECIMALS = 4
# The commonest terms are scored as a dense float32 product (BLAS): almost every pair of papers
# shares some of them, so in a sparse product they make most of the work. 192 columns of 20,000
# papers are 15 MB; at 20,000 papers 256 took 5% longer and 128 was no faster.
HEAD_TERMS = 192
# Scores computed at once: at most every paper times a strip (or block) of papers, float32. 8 million
# cells are 32 MB (plus as much for the dense product), so 20,000 papers stay far under 1 GB.
BLOCK_CELLS = 8_000_000
CHUNK = 64  # maxima per chunk of this many papers bound each paper's k-th best score from below
_RUNS_PER_WORKER = 8  # runs of chunks scored again, per worker: small enough to balance them
_TOLERANCE = 2 * 10.0 ** -DECIMALS  # float32 scores are within this of exact ones, far more than needed


@dataclass(frozen=True)
class Related:
    """A paper related to another: its position, the cosine similarity and the terms that link them."""

    index: int  # position of the related paper in docs
    score: float  # cosine similarity, rounded to DECIMALS
    shared: tuple[str, ...]  # up to MAX_SHARED shared terms or keyphrases, most important first


# A Related as a plain tuple (index, score, shared): what ``Relations.plain`` gives.
Found = tuple[int, float, tuple[str, ...]]


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


def _analysis_fields(both: tuple[PaperPhrases, PaperTerms]) -> tuple:
    analysed, counted = both
    return analysed.tokens, analysed.runs, analysed.phrases, analysed.proper, counted.words, counted.grams


def _analysis_of(fields: tuple) -> tuple[PaperPhrases, PaperTerms]:
    return PaperPhrases(*fields[:4]), PaperTerms(*fields[4:])


# ``analyse_with_terms``'s results as plain values, for worker processes to send (parallel.Plain).
PLAIN_ANALYSIS = Plain(_analysis_fields, _analysis_of)


def _paper_counts(paper: PaperTerms, own: list[tuple[str, ...]], searched: dict[tuple[str, ...], str],
                  names: dict[tuple[str, ...], str], features: _Features, spelled: bool) -> dict[int, int]:
    """Return how often a paper uses each word, each ``searched`` keyphrase and each of its ``own``
    keyphrases (given by key; ``names`` spells them), by column; ``spelled`` as ``count_words`` says."""
    counts = features.count_words(paper.words, spelled)
    grams, columns = paper.grams, features.phrases
    for gram in filter(searched.__contains__, grams):  # a loop kept lean: most keyphrases have a column
        column = columns.get(gram)
        counts[features.phrase_column(gram, searched[gram]) if column is None else column] = grams[gram]
    for key in own:  # its own keyphrases count even when spelt as an acronym ("RM" for reward model)
        if key not in grams or key not in searched:  # else counted as one of its n-grams
            counts.setdefault(features.phrase_column(key, names[key]), grams.get(key, 1))
    return counts


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
            found = _paper_counts(paper, own_keys, self.searched, self.names, self.features, row < reference)
            rows.extend([row] * len(found))
            columns.extend(found)
            counts.extend(found.values())
        return rows, columns, counts

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


def _copies(folds: Sequence[str], papers: Iterable[int] | None = None) -> dict[int, list[int]]:
    """Map each paper (of ``papers``, by default all) whose abstract appears more than once, folded
    (``folds``: ``text.folded``), to the other papers with that abstract."""
    groups: dict[str, list[int]] = {}
    for i, fold in enumerate(folds):
        groups.setdefault(fold, []).append(i)
    wanted = None if papers is None else set(papers)
    return {i: [j for j in group if j != i] for group in groups.values() if len(group) > 1 for i in group
            if wanted is None or i in wanted}


def _fold_sums(folds: Iterable[str]) -> bytes:
    """Return the CRC-32 of each folded abstract, 4 bytes each: what a later ``extend`` finds copies by
    without folding every earlier abstract again (a sum that matches is checked on the abstracts)."""
    sums = [zlib.crc32(fold.encode("utf-8", "surrogatepass")) for fold in folds]
    return np.array(sums, dtype=">u4").tobytes()


def _later_copies(earlier: bytes, abstracts: Sequence[str], start: int) -> tuple[dict[int, list[int]], bytes]:
    """Return what ``_copies`` of every folded abstract maps the papers from ``start`` on to (the later
    papers; ``abstracts`` are every paper's, oldest first), given ``earlier``, the ``_fold_sums`` of the
    papers before them; and the later papers' sums."""
    folds = [folded(abstract) for abstract in abstracts[start:]]
    sums = _fold_sums(folds)
    later = np.frombuffer(sums, dtype=">u4")
    # Earlier papers whose sum is a later one's: their abstracts are folded and compared; no other can match.
    matched = np.flatnonzero(np.isin(np.frombuffer(earlier, dtype=">u4"), later)).tolist()
    later_ones = range(len(matched), len(matched) + len(folds))
    found = _copies([folded(abstracts[i]) for i in matched] + folds, later_ones)
    number = [*matched, *range(start, len(abstracts))]  # a paper's position among those compared -> its own
    return {number[i]: [number[j] for j in copies] for i, copies in found.items()}, sums


class _Scorer:
    """Approximate float32 cosines of papers with papers: dense for the commonest terms."""

    def __init__(self, matrix: sparse.csr_matrix) -> None:
        n, terms = matrix.shape
        self.width = n + (-n) % CHUNK  # padded with papers that share nothing, so rows split into chunks
        df = np.bincount(matrix.indices, minlength=terms)
        head = np.sort(np.argsort(-df, kind="stable")[:min(HEAD_TERMS, terms)])
        # Each cell goes to the head or the tail, at its column's place there (both in column order): one
        # pass over the cells, where picking the columns of each out of the matrix took five times as long.
        in_head = np.zeros(terms, dtype=bool)
        in_head[head] = True
        place = np.cumsum(~in_head) - 1
        place[head] = np.arange(len(head))
        headed = in_head[matrix.indices]
        rows = np.repeat(np.arange(n), np.diff(matrix.indptr))
        data = matrix.data.astype(np.float32)
        self.head = np.zeros((self.width, len(head)), dtype=np.float32)
        self.head[rows[headed], place[matrix.indices[headed]]] = data[headed]
        tailed = ~headed
        index = np.int32 if len(data) < 2**31 else np.int64  # as scipy would pick
        indptr = np.zeros(self.width + 1, dtype=index)
        np.cumsum(np.bincount(rows[tailed], minlength=n), out=indptr[1:n + 1])
        indptr[n + 1:] = indptr[n]
        self.tail = sparse.csr_matrix((data[tailed], place[matrix.indices[tailed]].astype(index), indptr),
                                      shape=(self.width, terms - len(head)))

    def scores(self, rows: slice | np.ndarray, columns: slice | np.ndarray) -> np.ndarray:
        """Return the scores of papers ``rows`` (down; padded) with papers ``columns`` (across).

        Papers down the rows let the chunk maxima (``_shortlist``, ``_strip_maxima``) reduce whole rows
        at a time.
        """
        scores = self.head[rows] @ self.head[columns].T
        _add_sparse(scores, self.tail[rows] @ self.tail[columns].T.tocsr())
        return scores


try:  # scipy's own loop that adds a CSR matrix into a dense one (toarray's, which zeroes the array first)
    from scipy.sparse._sparsetools import csr_todense as _csr_add
except ImportError:  # a private name: should a later scipy drop it, numpy's indexing adds the same
    _csr_add = None


def _add_sparse(dense: np.ndarray, extra: sparse.csr_matrix) -> None:
    """Add ``extra`` (canonical CSR, of ``dense``'s dtype) into the first rows of ``dense`` (C-contiguous)."""
    rows, columns = extra.shape
    if _csr_add is not None:
        _csr_add(rows, columns, extra.indptr, extra.indices, extra.data, dense[:rows])
        return
    # Added by flat position: cheaper than indexing by (row, column) pairs.
    cells = np.repeat(np.arange(rows) * columns, np.diff(extra.indptr)) + extra.indices
    dense.ravel()[cells] += extra.data


def _reachable(floor: np.ndarray) -> np.ndarray:
    """Return the least float32 scores that may be an exact score of ``floor`` or more: positive ones."""
    return np.maximum(floor - _TOLERANCE, np.finfo(np.float32).tiny)


def _floor(maxima: np.ndarray, k: int) -> np.ndarray:
    """Return, for each row of chunk maxima (a paper's with every chunk of papers), the least float32 score
    that may be among the paper's k best once exact: the k-th best chunk maximum is at most the k-th
    best score."""
    chunks = maxima.shape[1]
    if chunks <= k:
        return _reachable(np.zeros(len(maxima), dtype=maxima.dtype))
    return _reachable(np.partition(maxima, chunks - k, axis=1)[:, chunks - k])


def _shortlist(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Return (column, row) of every positive score that may be among its column's k best once exact."""
    width, columns = scores.shape
    chunks = scores.reshape(width // CHUNK, CHUNK, columns)
    maxima = chunks.max(axis=1).T  # a row of chunk maxima for each column of scores
    floor = _floor(maxima, k)
    # Only the few chunks whose maximum reaches the floor are searched, not every cell.
    column, chunk = np.nonzero(maxima >= floor[:, None])
    hit, offset = np.nonzero(chunks[chunk, :, column] >= floor[column, None])
    return column[hit], chunk[hit] * CHUNK + offset


def _products(matrix: sparse.csr_matrix, left: np.ndarray, right: np.ndarray) -> sparse.csr_matrix:
    """Return what each shared term adds to the cosines of pairs of papers: a row per pair."""
    return matrix[left].multiply(matrix[right]).tocsr()


def _exact(products: sparse.csr_matrix) -> np.ndarray:
    """Return the cosines of pairs of papers, summed over shared terms in term order: the same both ways."""
    return np.asarray(products.sum(axis=1)).ravel()


def _neighbours(matrix: sparse.csr_matrix, features: _Features, k: int, duplicates: dict[int, list[int]],
                rank: np.ndarray, beside: Callable[[], B],
                floors: np.ndarray | None = None) -> tuple[list[tuple[int, int, float, tuple[str, ...]]], B]:
    """Return (paper, related paper, rounded cosine, shared terms) for each paper's top k (and maybe more:
    ``_best`` keeps the k best), ties to the related paper of lower ``rank``, and ``beside()``.

    With ``floors`` (one per earlier paper, the first ones: see ``_floors``), only the later papers
    are ranked against all, block by block, and each earlier paper against the later ones whose
    score may reach its floor: the pairs (earlier, later paper) are its top k of those.

    The blocks are independent, so worker processes share them (parallel.py) while this process runs ``beside``.
    """
    n = matrix.shape[0]
    scorer = _Scorer(matrix)
    if floors is None:
        return _all_neighbours(matrix, features, scorer, k, duplicates, rank, beside)
    step = max(1, BLOCK_CELLS // scorer.width)
    blocks = [(start, min(n, start + step)) for start in range(len(floors), n, step)]
    found, other = map_beside(lambda block: _block_neighbours(matrix, features, scorer, k, duplicates, rank, floors,
                                                              *block),
                              blocks, beside, min_items=2)
    return [pair for pairs in found for pair in pairs], other


def _all_neighbours(matrix: sparse.csr_matrix, features: _Features, scorer: _Scorer, k: int,
                    duplicates: dict[int, list[int]], rank: np.ndarray,
                    beside: Callable[[], B]) -> tuple[list[tuple[int, int, float, tuple[str, ...]]], B]:
    """Return what ``_neighbours`` returns without floors: every paper ranked against all, each pair scored
    once.

    The scores are symmetric, so only those on and below the diagonal are computed, a strip of
    papers (columns) against the papers from the strip's first on (rows) at a time. A strip gives
    each chunk of CHUNK papers' maximum score with each of its papers, and each of its papers'
    maximum with each chunk of the strip: the k-th best of a paper's chunk maxima bounds its k-th
    best score from below. Then only the chunks that reach that floor are scored again, cell by cell.
    """
    n, width = matrix.shape[0], scorer.width
    step = max(CHUNK, BLOCK_CELLS // width // CHUNK * CHUNK)
    strips = [(start, min(width, start + step)) for start in range(0, n, step)]
    parts, other = map_beside(lambda strip: _strip_maxima(scorer, duplicates, *strip), strips, beside, min_items=2)
    maxima = np.zeros((width, width // CHUNK), dtype=np.float32)  # paper x chunk of papers
    for (start, stop), (down, across) in zip(strips, parts):
        first, last = start // CHUNK, stop // CHUNK
        maxima[start:stop, first:] = down
        np.maximum(maxima[start:, first:last], across, out=maxima[start:, first:last])
    maxima = maxima[:n]
    chunks = maxima.shape[1]
    floor = _floor(maxima, k)
    paper, chunk = np.nonzero(maxima >= floor[:, None])
    order = np.argsort(chunk, kind="stable")
    paper, chunk = paper[order], chunk[order]
    bounds = np.searchsorted(chunk, np.arange(chunks + 1))
    # Runs of chunks with about as many hits each, a run a piece of work for a worker.
    shares = np.linspace(0, len(paper), min(chunks, _RUNS_PER_WORKER * jobs()) + 1)[1:-1]
    edges = np.unique(np.r_[0, np.searchsorted(bounds, shares), chunks]).tolist()
    runs = list(pairwise(edges))
    found = parallel_map(lambda run: _chunk_neighbours(matrix, features, scorer, k, duplicates, rank, floor, paper,
                                                       bounds, *run), runs, min_items=2)
    return [pair for pairs in found for pair in pairs], other



def _strip_maxima(scorer: _Scorer, duplicates: dict[int, list[int]], start: int,
                  stop: int) -> tuple[np.ndarray, np.ndarray]:
    """Return the maxima of the scores of papers start..stop-1 (a strip, multiples of CHUNK) with the papers
    from ``start`` on: each paper of the strip's with each chunk from ``start``'s (a row per paper), and each
    paper's from ``start`` on with each chunk of the strip (a row per paper)."""
    scores = scorer.scores(slice(start, None), slice(start, stop))
    _unrelated(scores, duplicates, start, np.arange(start, stop))
    height, breadth = scores.shape
    down = scores.reshape(height // CHUNK, CHUNK, breadth).max(axis=1).T
    across = np.maximum.reduceat(scores, np.arange(0, breadth, CHUNK), axis=1)  # quicker than a reshaped max
    return np.ascontiguousarray(down), across


def _unrelated(scores: np.ndarray, duplicates: dict[int, list[int]], first: int, columns: np.ndarray) -> None:
    """Zero the scores (papers from ``first`` on down, ``columns`` across) of a paper with itself or a copy."""
    own = columns - first
    inside = (own >= 0) & (own < scores.shape[0])
    scores[own[inside], np.flatnonzero(inside)] = 0.0  # never related to itself
    for column, paper in enumerate(columns.tolist()):
        for copy in duplicates.get(paper, ()):
            if 0 <= copy - first < scores.shape[0]:
                scores[copy - first, column] = 0.0  # nor to another copy of itself


def _chunk_neighbours(matrix: sparse.csr_matrix, features: _Features, scorer: _Scorer, k: int,
                      duplicates: dict[int, list[int]], rank: np.ndarray, floor: np.ndarray, paper: np.ndarray,
                      bounds: np.ndarray, first: int, last: int) -> list[tuple[int, int, float, tuple[str, ...]]]:
    """Return the top k, among chunks first..last-1, of each paper some of them may reach the floor of:
    ``paper[bounds[c]:bounds[c + 1]]`` are chunk c's papers."""
    left, others = [], []
    for chunk in range(first, last):
        mine = paper[bounds[chunk]:bounds[chunk + 1]]
        if not len(mine):
            continue
        rows = np.arange(chunk * CHUNK, (chunk + 1) * CHUNK)
        scores = scorer.scores(rows, mine)  # a chunk down, its papers across
        _unrelated(scores, duplicates, int(rows[0]), mine)
        hit, column = np.nonzero(scores >= floor[mine])
        left.append(mine[column])
        others.append(rows[hit])
    if not left:
        return []
    return _top(matrix, features, np.concatenate(left), np.concatenate(others), k, rank)


def _block_neighbours(matrix: sparse.csr_matrix, features: _Features, scorer: _Scorer, k: int,
                      duplicates: dict[int, list[int]], rank: np.ndarray, floors: np.ndarray, start: int,
                      stop: int) -> list[tuple[int, int, float, tuple[str, ...]]]:
    """Return the top k of papers start..stop-1, and the earlier papers' pairs with them, as ``_neighbours``
    does with ``floors``."""
    scores = scorer.scores(slice(None), slice(start, stop))
    _unrelated(scores, duplicates, 0, np.arange(start, stop))
    mine, others = _shortlist(scores, k)
    found = _top(matrix, features, mine + start, others, k, rank)
    earlier, later = np.nonzero(scores[:len(floors)] >= floors[:, None])
    return found + _top(matrix, features, earlier, later + start, k, rank)


def _top(matrix: sparse.csr_matrix, features: _Features, left: np.ndarray, others: np.ndarray, k: int,
         rank: np.ndarray) -> list[tuple[int, int, float, tuple[str, ...]]]:
    """Return (paper, related paper, rounded cosine, shared terms) for each paper of ``left``'s k best of
    the ``others`` paired with it, best first, ties to the lower ``rank``, positive scores only."""
    if not len(left):
        return []
    products = _products(matrix, left, others)
    exact = np.round(_exact(products), DECIMALS)
    order = np.lexsort((rank[others], -exact, left))
    left, others, exact = left[order], others[order], exact[order]
    first = np.searchsorted(left, left)  # where each paper's pairs start
    keep = (np.arange(len(left)) - first < k) & (exact > 0)
    shared = _explain(products[order[keep]], features)
    return list(zip(left[keep].tolist(), others[keep].tolist(), exact[keep].tolist(), shared))


def _explain(products: sparse.csr_matrix, features: _Features) -> list[tuple[str, ...]]:
    """Return for each pair (a row of ``_products``) the shared terms that add most to its cosine.

    No word of a keyphrase already shown is shown again.
    """
    products.sort_indices()
    # Each pair's terms by contribution, largest first, ties by column: one sort for all pairs. Complex
    # numbers sort by real part, then imaginary part; a stable sort keeps the columns in order on ties and
    # runs fast over the pairs, which are in order already.
    rows = np.repeat(np.arange(products.shape[0]), np.diff(products.indptr))
    ranked = products.indices[np.argsort(rows - 1j * products.data, kind="stable")].tolist()
    bounds = products.indptr.tolist()
    names, keys, phrase = features.names, features.keys, features.phrase

    @cache
    def telling(column: int) -> bool:
        return is_telling(names[column])

    out = []
    for p in range(products.shape[0]):
        shown: list[str] = []
        words_shown: set[str] = set()
        for c in ranked[bounds[p]:bounds[p + 1]]:
            if phrase[c] or keys[c][0] not in words_shown and telling(c):
                shown.append(names[c])
                words_shown.update(keys[c])
                if len(shown) == MAX_SHARED:
                    break
        out.append(tuple(shown))
    return out


def related_papers(docs: Sequence[tuple[str, str]], keyphrases: Sequence[Sequence[str]],
                   k: int = 5) -> list[tuple[Related, ...]]:
    """Return each paper's up to ``k`` most similar papers, best first, with the terms they share."""
    return relate(docs, [terms(title, abstract) for title, abstract in docs], keyphrases, k)


def relate(docs: Sequence[tuple[str, str]], papers: Sequence[PaperTerms], keyphrases: Sequence[Sequence[str]],
           k: int = 5, order: Sequence[int] | None = None) -> list[tuple[Related, ...]]:
    """Return related papers as ``related_papers`` does, given every paper's ``terms`` (maybe cached)."""
    return relate_beside(docs, papers, keyphrases, lambda matrix: None, k, order)[0].found(order)


@dataclass(frozen=True)
class Relations:
    """Every paper's related papers, with what it takes to add papers later (``extend``): all oldest first."""

    pairs: _Pairs  # each paper's related papers, best first
    rank: tuple[int, ...]  # each paper's position in the catalog then
    columns: _Columns
    rows: _Rows  # the TF-IDF matrix
    k: int
    folds: bytes  # each paper's folded abstract's CRC-32 (_fold_sums): how a later paper's copies are found

    def found(self, order: Sequence[int] | None = None) -> list[tuple[Related, ...]]:
        """Return the related papers by position in the catalog, given ``order`` (positions oldest first)."""
        return [tuple(Related(*x) for x in found) for found in self.plain(order)]

    def plain(self, order: Sequence[int] | None = None) -> list[list[Found]]:
        """Return what ``found`` returns as (index, score, shared) tuples: for a caller that makes records of
        its own of them (the catalog's), without making a Related of each first."""
        order = range(len(self.rank)) if order is None else order
        out: list[list[Found]] = [[] for _ in self.rank]
        pairs = self.pairs
        for a, b, score, shared in zip(pairs.left().tolist(), pairs.right().tolist(), pairs.scores().tolist(),
                                       pairs.shared):
            out[order[a]].append((order[b], score, shared))
        return out


@dataclass(frozen=True)
class _Pairs:
    """Pairs of papers (paper, related paper, score, shared terms), as plain bytes but for the terms: a
    cache file holds no numpy objects, and pickles a million of these fast."""

    left_bytes: bytes
    right_bytes: bytes
    score_bytes: bytes
    shared: tuple[tuple[str, ...], ...]

    @classmethod
    def of(cls, left: np.ndarray, right: np.ndarray, scores: np.ndarray, shared: Sequence[tuple[str, ...]]) -> _Pairs:
        return cls(left.astype(np.int64).tobytes(), right.astype(np.int64).tobytes(),
                   scores.astype(np.float64).tobytes(), tuple(shared))

    def left(self) -> np.ndarray:
        return np.frombuffer(self.left_bytes, np.int64)

    def right(self) -> np.ndarray:
        return np.frombuffer(self.right_bytes, np.int64)

    def scores(self) -> np.ndarray:
        return np.frombuffer(self.score_bytes, np.float64)


@dataclass(frozen=True)
class _Rows:
    """A CSR matrix as plain bytes, for the cache (which holds no numpy objects)."""

    shape: tuple[int, int]
    data: bytes
    indices: bytes
    indptr: bytes

    @classmethod
    def of(cls, matrix: sparse.csr_matrix) -> _Rows:
        return cls(matrix.shape, matrix.data.tobytes(), matrix.indices.astype(np.int64).tobytes(),
                   matrix.indptr.astype(np.int64).tobytes())

    def matrix(self, columns: int) -> sparse.csr_matrix:
        """Return the matrix, widened to ``columns``."""
        return sparse.csr_matrix((np.frombuffer(self.data, np.float64), np.frombuffer(self.indices, np.int64),
                                  np.frombuffer(self.indptr, np.int64)), shape=(self.shape[0], columns))


def relate_beside(docs: Sequence[tuple[str, str]], papers: Sequence[PaperTerms],
                  keyphrases: Sequence[Sequence[str]], beside: Callable[[sparse.csr_matrix], B], k: int = 5,
                  order: Sequence[int] | None = None, made: Callable[[], None] | None = None) -> tuple[Relations, B]:
    """Return what ``relate(docs, papers, keyphrases, k, order)`` finds, as Relations, and ``beside`` of the
    TF-IDF matrix (a row per paper, oldest first): a catalog-wide step this process runs while worker
    processes compare papers.

    ``order`` lists the papers' positions oldest first (by default, as given): see ``_matrix``.
    ``made()`` is called once the matrix is made, before the workers start: where a caller frees the
    papers' terms. Freed while the workers run, their objects' pages, shared with the workers, would
    each be copied first (about 65,000 pages at 20,000 papers).
    """
    order = range(len(docs)) if order is None else order
    matrix, columns = _matrix(papers, keyphrases, order)
    if made is not None:
        made()
    return _compared(matrix, columns, docs, order, max(0, min(k, len(docs) - 1)), beside)


def extend(relations: Relations, docs: Sequence[tuple[str, str]], papers: Sequence[PaperTerms],
           keyphrases: Sequence[Sequence[str]], order: Sequence[int],
           beside: Callable[[sparse.csr_matrix], B], made: Callable[[], None] | None = None
           ) -> tuple[Relations, B]:
    """Return ``relate_beside(docs, all papers' terms, keyphrases, beside, relations.k, order)`` for a catalog
    whose oldest papers are those of ``relations``, in the same order in the catalog, under the same
    reference (see ``_matrix``): only the new papers' ``papers`` (terms, oldest first) are needed.

    The earlier papers' rows and their pairs stay as they were; only the new papers are compared with
    all, and an earlier paper's related papers change only where a new paper enters them. ``made()`` as
    ``relate_beside`` calls it.
    """
    columns = relations.columns
    new = [keyphrases[row] for row in order[len(relations.rank):]]
    columns.learn(new)
    rows, cols, counts = columns.rows(papers, new, 0)
    added = columns.weights(rows, cols, counts, len(papers))
    matrix = sparse.vstack([relations.rows.matrix(added.shape[1]), added], format="csr")
    if made is not None:
        made()
    return _compared(matrix, columns, docs, order, relations.k, beside, relations)


def _compared(matrix: sparse.csr_matrix, columns: _Columns, docs: Sequence[tuple[str, str]], order: Sequence[int],
              k: int, beside: Callable[[sparse.csr_matrix], B], earlier: Relations | None = None) -> tuple[Relations, B]:
    """Return the Relations of ``matrix`` (a row per paper, oldest first: ``order``) and ``beside(matrix)``.

    With the ``earlier`` Relations of the first papers (see ``extend``), only the later papers are
    compared with all, and the earlier ones' lists take them in where they may reach them.
    """
    rank = np.array(order, dtype=np.int64)
    abstracts = [docs[row][1] for row in order]
    held = None
    floors = None
    if earlier is None:
        folds = [folded(abstract) for abstract in abstracts]
        duplicates, sums = _copies(folds), _fold_sums(folds)
    else:  # only the later papers are compared, so only their copies matter
        held = earlier.pairs
        floors = _floors(held, len(earlier.rank), k)
        duplicates, later = _later_copies(earlier.folds, abstracts, len(earlier.rank))
        sums = earlier.folds + later
    found: list[tuple[int, int, float, tuple[str, ...]]] = []
    if k:
        found, other = _neighbours(matrix, columns.features, k, duplicates, rank, lambda: beside(matrix),
                                   floors)
    else:
        other = beside(matrix)
    return Relations(_best(held, found, rank, k), tuple(order), columns, _Rows.of(matrix), k, sums), other


def _floors(pairs: _Pairs, papers: int, k: int) -> np.ndarray:
    """Return the least float32 score by which a paper may enter each of the first ``papers``' top k."""
    left, scores = pairs.left(), pairs.scores()
    first = np.searchsorted(left, np.arange(papers))
    full = np.searchsorted(left, np.arange(papers), side="right") - first >= k
    floors = np.zeros(papers)
    floors[full] = scores[first[full] + k - 1]
    return _reachable(floors).astype(np.float32)


def _best(held: _Pairs | None, pairs: list[tuple[int, int, float, tuple[str, ...]]], rank: np.ndarray,
          k: int) -> _Pairs:
    """Return each paper's k best of the ``held`` pairs and then ``pairs`` (all positive), best first, ties to
    the lower ``rank``."""
    left, right, scores, shared = zip(*pairs) if pairs else ((), (), (), ())
    left_a, right_a = np.array(left, np.int64), np.array(right, np.int64)
    scores_a = np.array(scores, np.float64)
    if held is not None:
        left_a, right_a = np.concatenate((held.left(), left_a)), np.concatenate((held.right(), right_a))
        scores_a, shared = np.concatenate((held.scores(), scores_a)), held.shared + shared
    if not len(left_a):
        return _Pairs.of(*(np.zeros(0),) * 3, ())
    order = np.lexsort((rank[right_a], -scores_a, left_a))
    ranked = left_a[order]
    keep = order[np.arange(len(order)) - np.searchsorted(ranked, ranked) < k]  # the first k of each paper
    return _Pairs.of(left_a[keep], right_a[keep], scores_a[keep], [shared[n] for n in keep.tolist()])
