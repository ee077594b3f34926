"""A map of the papers: each paper placed in 2-D so that papers with similar words sit together.

The rows of the TF-IDF matrix the related papers are found with (``enrich.related``: words and
keyphrases, weighed by the catalog's reference papers) give each paper its two principal components
(a truncated SVD of the centred matrix, ARPACK with a fixed start vector, signs fixed), scaled into
a square and rounded to whole units, so the same content always gives the same map. A catalog that
weighs words by its oldest papers (``reference_papers.reference_count``, from 4,096 papers on) takes its
axes from them too (``Layout``): the reference's own rows are laid out by the SVD of their rows, and
every later paper is projected onto those axes. So a new listing's papers are placed without a new
SVD: the build keeps the layout in its cache with the related papers, and a build without a cache
finds the same one. The places are worked out while enriching (catalog.py), beside the comparing of
papers; ``paper_map`` lays out the dots.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import LinearOperator, svds

from ..model import Catalog, Paper

SIZE = 1000  # the map's viewBox is SIZE x SIZE units
MARGIN = 20  # units kept free at each edge, so a dot is never cut by the frame
# Above this many papers each dot's label is shortened: at 10,000 papers whole titles make a
# page of several megabytes.
SHORT_LABELS_FROM = 2000
SHORT_LABEL = 60  # characters


@dataclass(frozen=True)
class Dot:
    """One paper on the map: where it is drawn, and what its link says."""

    id: str
    label: str  # the title (maybe shortened) and the paper's first topic
    topic: str  # slug of the paper's first topic
    colour: int  # index into the palette (classes c0..c{PALETTE-1} in style.css)
    x: int
    y: int


@dataclass(frozen=True)
class PaperMap:
    """The whole map: its dots in catalog order and the topics in the legend, each with its colour."""

    size: int
    radius: int  # of a dot, in viewBox units: smaller as the catalog grows
    dots: tuple[Dot, ...]
    legend: tuple[tuple[str, str, int, int], ...]  # (slug, name, colour, papers) in taxonomy order


PALETTE = 16  # colours c0..c15 in style.css; topics beyond it share colours (the legend says which)


def places(matrix: sparse.csr_matrix) -> list[tuple[int, int]]:
    """Return each paper's place (x, y) on the map, from its row of ``matrix`` (see the module's docstring)."""
    return _placed(principal_components(matrix))


def _placed(points: np.ndarray) -> list[tuple[int, int]]:
    return [(x, y) for x, y in scale(points).tolist()]


@dataclass(frozen=True)
class Layout:
    """The map's axes, found from a catalog's reference papers (the first rows of its matrix): where those
    papers go, and how any later paper's row is placed among them."""

    points: np.ndarray  # the reference papers' coordinates (papers x 2), as principal_components gives them
    columns: np.ndarray  # the matrix columns any reference paper uses, ascending: the axes' support
    mean: np.ndarray  # the reference rows' mean over those columns
    axes: np.ndarray  # (columns x 2) the principal axes, signs as the points'

    def __getstate__(self) -> tuple[bytes, ...]:  # plain bytes: the cache holds no numpy objects
        return (self.points.astype(np.float64).tobytes(), self.columns.astype(np.int64).tobytes(),
                self.mean.astype(np.float64).tobytes(), self.axes.astype(np.float64).tobytes())

    def __setstate__(self, state: tuple[bytes, ...]) -> None:
        points, columns, mean, axes = (np.frombuffer(data, kind) for data, kind
                                       in zip(state, (np.float64, np.int64, np.float64, np.float64)))
        for name, value in (("points", points.reshape(-1, 2)), ("columns", columns), ("mean", mean),
                            ("axes", axes.reshape(-1, 2))):
            object.__setattr__(self, name, value)

    def places(self, matrix: sparse.csr_matrix) -> list[tuple[int, int]]:
        """Return the place of every paper of ``matrix``: its first rows the reference's, the rest projected."""
        later = matrix[len(self.points):]
        if not later.shape[0]:
            return _placed(self.points)
        projected = later[:, self.columns] @ self.axes - self.mean @ self.axes
        return _placed(np.vstack([self.points, projected]))


def layout(matrix: sparse.csr_matrix, reference: int) -> Layout:
    """Return the Layout of the papers of ``matrix`` whose first ``reference`` rows are the reference's."""
    rows = matrix[:reference]
    columns = np.unique(rows.indices)
    used = rows[:, columns]
    points, axes = _components(used)
    return Layout(points, columns, np.asarray(used.mean(axis=0)).ravel(), axes)


def principal_components(matrix: sparse.csr_matrix, k: int = 2) -> np.ndarray:
    """Return the papers' coordinates on the first ``k`` principal components (papers x k), signs fixed."""
    return _components(matrix, k)[0]


def _components(matrix: sparse.csr_matrix, k: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Return the papers' coordinates on the first ``k`` principal components (papers x k), signs fixed, and
    the components themselves (columns x k), signs alike."""
    n, m = matrix.shape
    out = np.zeros((n, k))
    axes = np.zeros((m, k))
    if n < 2:
        return out, axes
    mean = np.asarray(matrix.mean(axis=0)).ravel()
    if min(n, m) <= k + 1:  # too small for ARPACK: a dense SVD of a handful of papers
        dense = matrix.toarray() - mean
        u, s, vt = np.linalg.svd(dense, full_matrices=False)
        found, components = u[:, :k] * s[:k], vt[:k].T
    else:
        # The centred matrix, never built: centring a sparse matrix would make it dense.
        ones = np.ones(n)
        centred = LinearOperator(
            (n, m), dtype=np.float64,
            matvec=lambda v: matrix @ np.ravel(v) - ones * (mean @ np.ravel(v)),
            rmatvec=lambda v: matrix.T @ np.ravel(v) - mean * np.ravel(v).sum(),
        )
        # A fixed start, so every build gives the same answer; not constant, since the centred
        # matrix sends the all-ones vector to zero (ARPACK then stops: "starting vector is zero").
        start = np.random.default_rng(0).standard_normal(min(n, m))
        u, s, vt = svds(centred, k=k, v0=start, solver="arpack")
        order = np.argsort(-s, kind="stable")
        found, components = u[:, order] * s[order], vt[order].T
    out[:, : found.shape[1]] = found
    axes[:, : components.shape[1]] = components
    for c in range(k):  # an eigenvector's sign is arbitrary: make its largest entry positive
        column = out[:, c]
        if column[np.argmax(np.abs(np.round(column, 9)))] < 0:
            out[:, c] = -column
            axes[:, c] = -axes[:, c]
    return out, axes


def scale(points: np.ndarray, size: int = SIZE, margin: int = MARGIN) -> np.ndarray:
    """Return integer coordinates in [margin, size - margin], each axis stretched to fill it.

    Each axis is first measured in standard deviations and passed through asinh: straight near the
    middle, logarithmic far out, so a few outlying papers pull in rather than squash the rest.
    """
    out = np.full(points.shape, size // 2, dtype=np.int64)
    for c in range(points.shape[1]):
        column = np.round(points[:, c], 9)  # last-bit noise never moves a dot
        spread = column.std() if len(column) else 0.0
        if spread <= 1e-9:
            continue
        column = np.arcsinh((column - column.mean()) / spread)
        low, high = column.min(), column.max()
        out[:, c] = np.rint(margin + (column - low) / (high - low) * (size - 2 * margin)).astype(np.int64)
    out[:, 1] = size - out[:, 1]  # SVG's y grows downwards: larger values are drawn higher
    return out


def short(title: str, limit: int) -> str:
    """Return ``title`` cut at a word boundary to at most ``limit`` characters, with an ellipsis."""
    if len(title) <= limit:
        return title
    cut = title[: limit - 1].rsplit(" ", 1)[0] if " " in title[: limit - 1] else title[: limit - 1]
    return cut.rstrip(" ,;:-") + "…"


def _dot(
    paper: Paper, place: tuple[int, int], names: dict[str, str], colours: dict[str, int], limit: int | None
) -> Dot:
    """Make the dot of one paper, labelled with its title and first topic."""
    slug = paper.topics[0].slug if paper.topics else ""
    title = short(paper.title, limit) if limit else paper.title
    x, y = place
    return Dot(paper.id, f"{title} ({names.get(slug, 'no topic')})", slug, colours.get(slug, 0), x, y)


def _legend(
    catalog: Catalog, dots: list[Dot], colours: dict[str, int]
) -> tuple[tuple[str, str, int, int], ...]:
    """List each topic that has a dot, in catalog order, with its colour and number of dots."""
    counts = {slug: 0 for slug in colours}
    for dot in dots:
        if dot.topic in counts:
            counts[dot.topic] += 1
    return tuple((t.slug, t.name, colours[t.slug], counts[t.slug]) for t in catalog.topics if counts[t.slug])


def _radius(dots: int) -> int:
    """Return the dot radius for a map of ``dots`` dots: smaller as the map gets crowded."""
    if dots <= 300:
        return 10
    if dots <= 2000:
        return 7
    return 5


def paper_map(catalog: Catalog) -> PaperMap:
    """Lay out every paper of the catalog at its place on the map, coloured by its first topic."""
    papers = catalog.papers
    colours = {t.slug: i % PALETTE for i, t in enumerate(catalog.topics)}
    names = {t.slug: t.name for t in catalog.topics}
    limit = SHORT_LABEL if len(papers) >= SHORT_LABELS_FROM else None
    dots = [_dot(p, catalog.places[p.id], names, colours, limit) for p in papers]
    return PaperMap(SIZE, _radius(len(dots)), tuple(dots), _legend(catalog, dots, colours))
