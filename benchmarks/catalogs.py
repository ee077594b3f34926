"""The two catalogs the build benchmark measures, written as content folders of the same shape.

- synthetic: search_index.py's random words (Zipf-distributed over a growing vocabulary, a coined
  method name per paper, five venues);
- real: realtext.py's new abstracts recombined from the sentences of the real-dev abstracts, with
  coined method names and a vocabulary that grows with the catalog.

Both put paper i in the listing file of their VENUES[i % 5]; each catalog is made with 5 % more
papers, which go to one more listing of a sixth venue, added by the benchmark's "add listing" build.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

EXTRA_SHARE = 0.05  # the added listing holds this share of the catalog's papers: 1,000 at 20,000
EXTRA_HEADER = "COLM 2025 Papers"
TEXTS = ("synthetic", "real")
DESCRIPTIONS = {
    "synthetic": ("benchmarks/search_index.py: random words, Zipf-distributed over a growing vocabulary, "
                  "a coined method name per paper"),
    "real": ("benchmarks/realtext.py: new abstracts recombined from the sentences of the real-dev "
             "abstracts, the real length distribution, a coined method name per paper, a vocabulary "
             "that grows as real-dev's own"),
}


@dataclass(frozen=True)
class Contents:
    """A content folder of one catalog, and the listing the "add listing" build copies in."""
    folder: Path
    extra_listing: str  # the text of the extra listing file
    distinct_terms: int  # of the catalog's abstracts, the extra listing's not counted


def extra_papers(papers: int) -> int:
    """Return how many papers the extra listing holds for a catalog of ``papers``."""
    return max(1, round(papers * EXTRA_SHARE))


def make_contents(text: str, papers: int, work: Path, real_dev: Path | None = None) -> Contents:
    """Write a catalog of ``papers`` papers of the ``text`` kind into ``work``; return its content folder."""
    import realtext

    generated = work / f"generated-{text}-{papers}"
    venues = _write_listings(text, generated, papers + extra_papers(papers), real_dev)
    content = work / f"content-{text}-{papers}"
    (content / "listings").mkdir(parents=True)
    shutil.copy(generated / "topics.yaml", content / "topics.yaml")
    added: list[str] = []
    for v, venue in enumerate(venues):  # paper i, in order, is in the file of venues[i % 5]
        name = f"{venue.replace(' ', '_')}.txt"
        header, *abstracts = (generated / "listings" / name).read_text(encoding="utf-8").strip().split("\n\n")
        keep = [a for i, a in enumerate(abstracts) if v + len(venues) * i < papers]
        added += [a for i, a in enumerate(abstracts) if v + len(venues) * i >= papers]
        (content / "listings" / name).write_text(header + "\n\n" + "\n\n".join(keep) + "\n", encoding="utf-8")
    shutil.rmtree(generated)
    return Contents(content, EXTRA_HEADER + "\n\n" + "\n\n".join(added) + "\n",
                    realtext.distinct_terms(realtext.read_abstracts(content)))


def _write_listings(text: str, folder: Path, papers: int, real_dev: Path | None) -> tuple[str, ...]:
    """Write the listings of one kind of catalog; return its venues, in the order papers go to them."""
    if text == "synthetic":
        from search_index import VENUES, make_listings

        make_listings(folder, papers)
        return tuple(VENUES)
    if text == "real":
        import realtext

        realtext.make_listings(folder, papers, real_dev)
        return realtext.VENUES
    raise ValueError(f"unknown catalog text {text!r}; expected one of {', '.join(TEXTS)}")
