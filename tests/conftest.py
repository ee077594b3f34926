"""Shared fixtures: small content folders written into tmp_path, and the bundled content."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = ROOT / "content"

ABSTRACT_A = ("We propose GuardAgent, a guardrail agent that checks whether the actions of "
              "large language model agents satisfy safety requests.")
ABSTRACT_B = ("Length generalization is the ability of a learning algorithm to learn a hypothesis "
              "which generalizes to longer inputs than the inputs in the training set.")
ABSTRACT_C = ("We study graph neural networks and show that message passing over molecular graphs "
              "benefits from positional encodings.")


def tree(folder: Path) -> dict[str, bytes]:
    """Return every file below ``folder`` by its relative path, with its bytes."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def make_content(tmp_path: Path):
    """Return a function that writes a content folder and returns its path.

    ``listings`` maps file names to text (str) or raw bytes; ``topics`` defaults to the bundled
    taxonomy; ``site`` is the text of site.yaml, if any.
    """

    def make(listings: dict[str, str | bytes], topics: str | None = "bundled",
             site: str | None = None, name: str = "content") -> Path:
        root = tmp_path / name
        (root / "listings").mkdir(parents=True)
        for file_name, body in listings.items():
            path = root / "listings" / file_name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(body, bytes):
                path.write_bytes(body)
            else:
                path.write_text(body, encoding="utf-8", newline="")
        if topics == "bundled":
            shutil.copy(BUNDLED / "topics.yaml", root / "topics.yaml")
        elif topics is not None:
            (root / "topics.yaml").write_text(topics, encoding="utf-8")
        if site is not None:
            (root / "site.yaml").write_text(site, encoding="utf-8")
        return root

    return make


@pytest.fixture
def small_content(make_content):
    """A content folder with two venues and three papers."""
    return make_content({
        "a.txt": f"ICML 2025 Papers\n\n{ABSTRACT_A}\n\n{ABSTRACT_B}\n",
        "b.txt": f"ICLR 2025 Papers\n\n{ABSTRACT_C}\n",
    })


@pytest.fixture(scope="session")
def bundled() -> list[tuple[str, str]]:
    """The bundled papers as (title, plain abstract): what the build gives keyphrases and related papers."""
    from papercat.catalog import make_catalog
    from papercat.content.folder import read_content

    content, _ = read_content(BUNDLED)
    catalog, _ = make_catalog(list(content.listings), content.taxonomy)
    return [(paper.title, paper.text) for paper in catalog.papers]
