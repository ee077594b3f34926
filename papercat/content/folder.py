"""Read the content folder: site.yaml, topics.yaml, papers.yaml, history.yaml and every listing."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..incremental.memo import Cache
from .config import SiteConfig, load_site_config, load_taxonomy
from ..errors import CatalogError, Problem
from .history import HISTORY_FILE, History, ListingIds, load_history
from .listing import Listing, display_path, read_listings
from ..model import Topic
from .overrides import Override, load_overrides


@dataclass(frozen=True)
class Content:
    """Everything read from the content folder."""

    config: SiteConfig
    taxonomy: tuple[Topic, ...]
    listings: tuple[Listing, ...]
    overrides: dict[str, Override] = field(default_factory=dict)
    overrides_path: str = "papers.yaml"  # as shown in messages
    history: History = field(default_factory=History)


def read_content(content_dir: Path, cache: Cache | None = None) -> tuple[Content, list[Problem]]:
    """Read site.yaml, topics.yaml and every listing (those ``cache`` knows unchanged from it); collect all
    problems at once."""
    if not content_dir.is_dir():
        raise CatalogError(f"{content_dir}: no such folder; expected a content folder with listings/ in it")
    root = Path.cwd()
    config, problems = load_site_config(content_dir / "site.yaml", display_path(content_dir / "site.yaml", root))
    taxonomy, found = load_taxonomy(content_dir / "topics.yaml", display_path(content_dir / "topics.yaml", root))
    problems += found
    shown = display_path(content_dir / "papers.yaml", root)
    overrides, found = load_overrides(content_dir / "papers.yaml", shown, {t.slug for t in taxonomy})
    problems += found
    listings, found = read_listings(content_dir, root, cache)
    problems += found
    history, found = load_history(content_dir / HISTORY_FILE, display_path(content_dir / HISTORY_FILE, root))
    problems += found
    return Content(config, taxonomy, tuple(listings), overrides, shown, history), problems


def listing_ids(listings: tuple[Listing, ...]) -> list[ListingIds]:
    """Return each listing's file, venue and paper ids, in order: what its history entry is made of."""
    return [(listing.path, listing.venue.slug, [e.id for e in listing.entries])
            for listing in listings]
