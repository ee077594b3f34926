"""Benchmark page rendering (site_pages and render_page) on a synthetic catalog.

    .venv/bin/python benchmarks/render_pages.py                       # 5,000 papers
    .venv/bin/python benchmarks/render_pages.py --papers 20000 --base-url https://example.org/catalog/
    .venv/bin/python benchmarks/render_pages.py --dump digests.txt    # sha256 of every page, to diff

The catalog is search_index.py's (Zipf-distributed abstracts, five venues), read and enriched by
papercat's own reader as ``pipeline.build`` does, with a history in which every listing arrived in
one build (so "What's new" has papers). Only the rendering is timed, in CPU seconds of this
process (steadier than wall time on a shared machine): ``site_pages`` (the pages and
their contexts), then ``render_page`` for each page, as ``pipeline.render_site`` calls them; with a
base URL the feeds and sitemaps are made and rendered too. ``--catalog-cache DIR`` keeps the
enriched catalog as a pickle so that repeated runs skip the enrichment (it does not depend on the
rendering code).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import pickle
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # single-thread figures: CPU time of one thread
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from search_index import make_listings

from papercat.site import urls
from papercat.catalog import make_catalog
from papercat.content.config import SiteConfig
from papercat.site.feeds import feed_pages
from papercat.content.history import make_news, update_history
from papercat.site.hosting import sitemap_pages
from papercat.model import Catalog
from papercat.site.pages import shared_context, site_pages
from papercat.content.folder import listing_ids, read_content
from papercat.site.render import make_environment, render_page
from papercat.site.urls import normalise_base_url


def load(papers: int, cache_dir: Path | None):
    """Return the synthetic catalog, its news and its site config (from the pickle when there is one)."""
    pickled = cache_dir / f"catalog-{papers}.pickle" if cache_dir else None
    if pickled and pickled.exists():
        with pickled.open("rb") as f:
            return pickle.load(f)
    with tempfile.TemporaryDirectory(prefix="papercat-render-") as tmp:
        make_listings(Path(tmp), papers)
        content, problems = read_content(Path(tmp))
        catalog, found = make_catalog(list(content.listings), content.taxonomy, content.overrides)
        assert not [p for p in problems + found if not p.warning], problems + found
        ids = listing_ids(content.listings)
        news = make_news(update_history(content.history, ids, None), ids)
        loaded = (catalog, news, content.config)
    if pickled:
        pickled.parent.mkdir(parents=True, exist_ok=True)
        with pickled.open("wb") as f:
            pickle.dump(loaded, f, protocol=pickle.HIGHEST_PROTOCOL)
    return loaded


def run(catalog: Catalog, news, config: SiteConfig) -> tuple[dict[str, str], float, float, int]:
    """Make and render every page; return their digests, the seconds of each step and the bytes."""
    env = make_environment(ROOT / "templates")
    shared = shared_context(catalog, config)
    started = time.process_time()
    pages = site_pages(catalog, news, config.base_url)
    if config.base_url:  # as pipeline.render_site: feeds and sitemaps of absolute URLs
        pages += feed_pages(catalog, news, config.title)
        pages += sitemap_pages([p.path for p in pages if p.path.endswith(".html") and p.path != urls.NOT_FOUND])
    made = time.process_time() - started
    digests, size = {}, 0
    started = time.process_time()
    for page in pages:
        data = render_page(env, page, shared)
        size += len(data)
        digests[page.path] = hashlib.sha256(data).hexdigest()
    rendered = time.process_time() - started
    return digests, made, rendered, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=5000, help="catalog size (default: 5000)")
    parser.add_argument("--base-url", help='e.g. "https://example.org/catalog/" (feeds and sitemaps too)')
    parser.add_argument("--dump", type=Path, help="write 'sha256  path' of every rendered page to this file")
    parser.add_argument("--catalog-cache", type=Path, help="folder to keep the enriched catalog in")
    parser.add_argument("--repeat", type=int, default=1, help="render this many times, report the fastest")
    parser.add_argument("--profile", type=Path, help="write a cProfile of one run to this file")
    args = parser.parse_args()
    started = time.perf_counter()
    catalog, news, config = load(args.papers, args.catalog_cache)
    if args.base_url:
        config = replace(config, base_url=normalise_base_url(args.base_url))
    print(f"catalog: {len(catalog.papers):,} papers in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    if args.profile:
        import cProfile
        profiler = cProfile.Profile()
        profiler.enable()
        run(catalog, news, config)
        profiler.disable()
        profiler.dump_stats(str(args.profile))
    best = None
    for _ in range(args.repeat):
        digests, made, rendered, size = run(catalog, news, config)
        if best is None or made + rendered < best[0] + best[1]:
            best = (made, rendered)
    made, rendered = best
    print(f"papers {len(catalog.papers)}  pages {len(digests)}  bytes {size:,}  "
          f"site_pages {made:.2f} s  render {rendered:.2f} s  total {made + rendered:.2f} s")
    if args.dump:
        args.dump.write_text("".join(f"{d}  {p}\n" for p, d in digests.items()), encoding="utf-8")


if __name__ == "__main__":
    main()
