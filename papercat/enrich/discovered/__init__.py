"""Topics papercat discovers: the papers no topic of the taxonomy matched, grouped and named.

The steps, one module each: groups (the papers' rows of the related papers' TF-IDF matrix, in a
canonical order, grouped by average linkage) -> names (each group named by the keyphrases most
of its papers share, spelt as its abstracts spell them; a name and a slug no other topic has).
A group whose papers share no keyphrase is no topic: its papers stay in Other, as do papers in no
group of MIN_PAPERS.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from papercat.model import Topic, TopicMatch

from .groups import MAX_GROUPED, MIN_PAPERS, MIN_SIMILARITY, canonical, group_rows
from .names import Phrase, described, name_parts, ranked_phrases, spellings, unique_name, unique_slug

__all__ = ["MAX_GROUPED", "MIN_PAPERS", "MIN_SIMILARITY", "Discovered", "TermVectors", "Unmatched",
           "discover_topics"]

DECIMALS = 3


@dataclass(frozen=True)
class TermVectors:
    """The related papers' TF-IDF matrix (enrich.related) and what its columns are."""

    matrix: sparse.csr_matrix  # a row per paper, oldest first, l2-normalised
    order: Sequence[int]  # the position in the catalog of each row's paper
    keys: Sequence[tuple[str, ...]]  # each column's word keys
    names: Sequence[str]  # each column's spelling
    phrase: Sequence[bool]  # whether a column is a keyphrase's (else a word's)
    phrase_columns: Mapping[tuple[str, ...], int]  # a keyphrase's key -> its column
    phrase_keys: Mapping[str, tuple[str, ...]]  # a keyphrase -> its key

    def keyphrase_column(self, keyphrase: str) -> int | None:
        """Return the column of one of the catalog's keyphrases, if it has one."""
        key = self.phrase_keys.get(keyphrase)
        return self.phrase_columns.get(key) if key else None


@dataclass(frozen=True)
class Unmatched:
    """A paper that no topic of the taxonomy matched: what grouping and naming read of it."""

    position: int  # in the catalog
    id: str
    keyphrases: tuple[str, ...]
    text: str  # the abstract as plain text


@dataclass(frozen=True)
class Discovered:
    """The topics found, largest first, and the topic of each paper grouped into one, by position."""

    topics: tuple[Topic, ...]
    matches: dict[int, TopicMatch]


def discover_topics(papers: Sequence[Unmatched], vectors: TermVectors,
                    taken: Collection[Topic]) -> Discovered:
    """Group the papers by their rows of ``vectors`` and name each group of MIN_PAPERS or more by the
    keyphrases it shares, with a name and slug that none of the ``taken`` topics has."""
    papers = sorted(papers, key=lambda p: p.id)  # ties and sums in one order, however papers came
    rows, found = _canonical_rows(papers, vectors)
    names = {t.name.casefold() for t in taken}
    slugs = {t.slug for t in taken}
    topics, matches = [], {}
    for group in group_rows(found.matrix, sorted(range(len(papers)), key=rows.__getitem__)):
        members = found.matrix[group]
        ranked = ranked_phrases(members, [found.picked[n] for n in group], found.keys, found.names,
                                found.phrase)
        parts = name_parts(ranked, len(group))
        if not parts:
            continue  # its papers share no keyphrase they pick: nothing to call them by
        spelt = spellings(ranked, [papers[n].text for n in group])
        topic = _topic(parts, ranked, spelt, names, slugs)
        names.add(topic.name.casefold())
        slugs.add(topic.slug)
        topics.append(topic)
        for n, match in zip(group, _matches(topic.slug, members, described(ranked), spelt)):
            matches[papers[n].position] = match
    return Discovered(tuple(topics), matches)


@dataclass(frozen=True)
class _Rows:
    """The papers' rows of the TF-IDF matrix, their columns in a canonical order, and what those are."""

    matrix: sparse.csr_matrix
    keys: list[tuple[str, ...]]
    names: list[str]
    phrase: list[bool]
    picked: list[list[int]]  # each paper's keyphrases' columns


def _canonical_rows(papers: Sequence[Unmatched], vectors: TermVectors) -> tuple[list[int], _Rows]:
    """Return each paper's row in ``vectors`` and the papers' rows with their columns in a canonical order
    (by the columns' keys), so that the groups and names do not depend on how the matrix was numbered."""
    row_of = np.empty(len(vectors.order), dtype=np.int64)
    row_of[np.asarray(vectors.order, dtype=np.int64)] = np.arange(len(vectors.order))
    rows = [int(row_of[p.position]) for p in papers]
    matrix, columns = canonical(vectors.matrix[rows], lambda c: (vectors.keys[c], vectors.phrase[c]))
    canonical_of = {int(c): n for n, c in enumerate(columns)}
    picked = [[canonical_of[c] for c in map(vectors.keyphrase_column, p.keyphrases)
               if c is not None and c in canonical_of] for p in papers]
    return rows, _Rows(matrix, [vectors.keys[c] for c in columns], [vectors.names[c] for c in columns],
                       [vectors.phrase[c] for c in columns], picked)


def _topic(parts: list[Phrase], ranked: list[Phrase], spelt: dict[int, str], names: Collection[str],
           slugs: Collection[str]) -> Topic:
    """Return the topic of a group: named by ``parts`` (``spelt``: as its abstracts write them), described by
    its best ``ranked`` phrases."""
    name = unique_name([spelt[p.column] for p in parts], [spelt[p.column] for p in ranked if p not in parts],
                       names)
    quoted = [spelt[p.column] for p in described(ranked)]
    return Topic(slug=unique_slug(name, slugs), name=name, description=_description(quoted), discovered=True)


def _description(quoted: list[str]) -> str:
    """Return a discovered topic's description, quoting its phrases."""
    marks = [f"“{q}”" for q in quoted]
    listed = marks[0] if len(marks) == 1 else ", ".join(marks[:-1]) + " and " + marks[-1]
    return f"Papers that share {listed}."


def _matches(slug: str, members: sparse.csr_matrix, quoted: list[Phrase],
             spelt: dict[int, str]) -> list[TopicMatch]:
    """Return each member's match of its topic: its mean cosine with the group's papers, and which of the
    phrases ``quoted`` it uses."""
    scores = members @ np.asarray(members.mean(axis=0)).ravel()
    matches = []
    for n, score in enumerate(scores.tolist()):
        row = set(members.indices[members.indptr[n]:members.indptr[n + 1]].tolist())
        matches.append(TopicMatch(slug, round(score, DECIMALS), tuple(spelt[p.column] for p in quoted
                                                                      if p.column in row)))
    return matches
