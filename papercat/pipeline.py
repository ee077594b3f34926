"""The build as a short list of named steps: read -> enrich -> index -> render -> write."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import jinja2

from . import urls, workers
from .cache import Cache, open_cache, paused_gc
from .config import SiteConfig, load_site_config, load_taxonomy
from .errors import CatalogError, ContentError, Problem, StrictWarnings
from .feeds import feed_pages
from .history import (
    HISTORY_FILE,
    NO_NEWS,
    History,
    ListingIds,
    News,
    load_history,
    make_news,
    save_history,
    source_date,
    update_history,
)
from .hosting import robots_txt, sitemap_pages
from .listing import Listing, display_path, read_listings
from .model import Catalog, Topic
from .overrides import Override, load_overrides, unknown_ids
from .pagekeys import Keys, LastPage, PageKey
from .progress import NO_PROGRESS, Progress, Stage
from .render import Page, make_environment, render_page
from .swap import clear_beside
from .uptodate import Inputs, built_site, last_pages, read_inputs, remember
from .urls import normalise_base_url
from .writer import Staged, Staging, WriteReport

# The catalog's, the pages' and the search index's modules bring numpy, scipy, nh3 and latex2mathml
# (0.4 of the 0.6 s Python takes to start a build): the steps that use them import them, so a build
# that finds the site already what the content makes (uptodate.py) starts without them.
if TYPE_CHECKING:
    from .search import IndexFile, SearchWork, TextFields

log = logging.getLogger(__name__)

PROJECT_ROOT = Path(__file__).resolve().parent.parent

T = TypeVar("T")


@dataclass(frozen=True)
class Paths:
    """Where the build reads from and writes to."""

    content: Path
    out: Path
    templates: Path = PROJECT_ROOT / "templates"
    static: Path = PROJECT_ROOT / "static"
    cache: Path | None = None  # the folder of the build cache (see cache.py); None builds without one


@dataclass(frozen=True)
class Content:
    """Everything read from the content folder."""

    config: SiteConfig
    taxonomy: tuple[Topic, ...]
    listings: tuple[Listing, ...]
    overrides: dict[str, Override] = field(default_factory=dict)
    overrides_path: str = "papers.yaml"  # as shown in messages
    history: History = field(default_factory=History)


@dataclass(frozen=True)
class Result:
    """What a build or check made, for the summary line."""

    catalog: Catalog | None  # None when the site was already what the inputs make (nothing was built)
    warnings: tuple[Problem, ...]
    files: int
    seconds: float
    wrote: bool
    steps: dict[str, float] = field(default_factory=dict)
    changes: WriteReport | None = None  # what the write changed in the output folder
    papers: int = 0
    venues: int = 0
    topics: int = 0


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


@dataclass(frozen=True)
class DataFile:
    """A file of the site made by a function rather than a template (papers.json, the search's doc shards)."""

    path: str
    make: Callable[[], bytes]
    source: str  # what it is made from, for messages
    # The digest of what it is made of, if it has one: kept as the last build left it while that is the same.
    key: bytes | None = None


def render_site(catalog: Catalog, config: SiteConfig, paths: Paths, staging: Staging, news: News = NO_NEWS,
                bar: Stage | None = None, index: Callable[[Callable[[str, bytes], bool]], list[IndexFile]] = list,
                data: Sequence[DataFile] = (), last: Mapping[str, LastPage] | None = None
                ) -> list[Staged]:
    """Render every page and data file into ``staging``, advancing ``bar`` per file; return them staged.

    Worker processes stage the pages and the ``data`` files (papers.json's too) as they make them;
    meanwhile this process stages the files ``index(keep)`` makes (the search index's: see
    ``index_files``). Given ``last`` (the last build's page keys: uptodate.last_pages), keyed pages get keys,
    and those whose key and file are as the last build left them are kept unrendered (pagekeys.py);
    so are data files with a key, and the files ``index`` gives without bytes (those
    ``keep(path, key)`` finds so).
    """
    from .pages import papers_json, shared_context, site_pages

    bar = bar or Stage("rendering")
    env = make_environment(paths.templates)
    shared = shared_context(catalog, config)
    keys = Keys(env, shared, last) if last is not None else None
    pages = site_pages(catalog, news, config.base_url)
    if config.base_url:  # sitemaps and feeds are made of absolute URLs
        pages += feed_pages(catalog, news, config.title)
        pages += sitemap_pages([p.path for p in pages if p.path.endswith(".html") and p.path != urls.NOT_FOUND])
    catalog_json = DataFile(urls.PAPERS_JSON, partial(papers_json, catalog), "the catalog")
    items: list[Page | DataFile] = [*pages, *data, catalog_json]
    bar.set_total(len(items))
    for item in items:  # before workers fork: each stages only its own files
        staging.claim(item.path, item.source if isinstance(item, DataFile) else item.source or item.template)
    for template in dict.fromkeys(page.template for page in pages):  # compiled once, before workers fork
        _checked(paths, Page("", template), partial(env.get_template, template))

    def make(item: Page | DataFile) -> Staged:
        if isinstance(item, DataFile):
            return _keyed_data(item) if keys is not None and item.key is not None else staging.stage(
                item.path, item.make())
        if keys is not None and item.keyed:
            return _keyed(item)
        return staging.stage(item.path, _checked(paths, item, lambda: render_page(env, item, shared)))

    def _kept(path: str, key: Callable[[PageKey], bytes | None]) -> Staged | None:
        """Return the last build's file at ``path`` as staged, if ``key`` of its record is its key and the
        file is as that build left it; else None."""
        old = keys.last.get(path) if keys is not None else None
        return staging.keep(path, *old[1:], key=old[0]) if old is not None and key(old[0]) == old[0].key else None

    index_kept: dict[str, Staged] = {}  # the search index's files found kept, as staged

    def _index_keep(path: str, key: bytes) -> bool:
        """Return whether the last build's file of the search index at ``path`` is there to keep (and note it)."""
        kept = _kept(path, lambda old: key)
        if kept is not None:
            index_kept[path] = kept
        return kept is not None

    def _index_file(file: IndexFile) -> Staged:
        """Stage a file of the search index, or keep the last build's (no bytes)."""
        staging.claim(file.path, "the search index")
        if file.data is None:
            return index_kept[file.path]
        key = PageKey(file.key, ()) if keys is not None and file.key is not None else None
        return staging.stage(file.path, file.data, key)

    def _keyed_data(item: DataFile) -> Staged:
        """Keep the data file if its key and file are the last build's; else make it, noting its key."""
        assert item.key is not None
        return _kept(item.path, lambda old: item.key) or staging.stage(item.path, item.make(), PageKey(item.key, ()))

    def _keyed(page: Page) -> Staged:
        """Keep the page if its key and file are the last build's; else render it, noting its key."""
        assert keys is not None
        own = page.own_context()
        context = keys.context(own)
        if context is not None:
            kept = _kept(page.path, lambda old: keys.key(page.template, page.path, context, old.reads))
            if kept is not None:
                return kept
        recording = keys.recording()
        data = _checked(paths, page, lambda: render_page(env, page, recording, own))
        if context is None:
            return staging.stage(page.path, data)
        reads = keys.reads()
        key = keys.key(page.template, page.path, context, reads)
        return staging.stage(page.path, data, PageKey(key, reads))

    # The pages by workers of a worker of their own, while this process makes the search index (which
    # keeps what it makes in the cache, here): a rebuild that keeps most pages is mostly the index.
    pages = workers.submit(lambda: workers.map(make, items))
    try:
        staged = [_index_file(file) for file in index(_index_keep)]
    except BaseException:
        # The pages' worker writes into the staged site too: it must end before the staged site is
        # removed (a full disk fails both; its own error is the same one).
        with suppress(Exception):
            pages.result()
        raise
    staged += pages.result()
    bar.advance(len(items))
    if keys is not None:
        log.info("kept %d of %d pages and data files unmade: their keys are the last build's",
                 sum(not s.made for s in staged), len(staged))
    staged.append(staging.add(urls.ROBOTS, robots_txt(config.base_url), "robots.txt"))
    staged.append(staging.add(urls.NOJEKYLL, b"", "GitHub Pages"))
    if paths.static.is_dir():
        staged += staging.add_tree(paths.static, "static")
    return staged


def _checked(paths: Paths, page: Page, make: Callable[[], T]) -> T:
    """Return ``make()``, turning a template's failure into an error that names the template."""
    try:
        return make()
    except jinja2.TemplateSyntaxError as exc:
        where = display_path(paths.templates / (exc.name or page.template), Path.cwd())
        raise CatalogError(f"{where}:{exc.lineno}: {exc.message}; expected a valid Jinja template") from exc
    except Exception as exc:  # a template edited by the user can fail in many ways
        raise CatalogError(f"{display_path(paths.templates / page.template, Path.cwd())}: "
                           f"{type(exc).__name__}: {exc} while rendering {page.path}; "
                           "expected a template that uses only the documented context") from exc


def index_files(work: SearchWork, keep: Callable[[str, bytes], bool]) -> list[IndexFile]:
    """Return the search index's files (``SearchWork.files``) with their paths in the site, in order of path;
    ``keep(path, key)`` says whether the last build's file of that key is there to keep."""
    files = work.files(lambda rel, key: keep(f"{urls.SEARCH_DIR}/{rel}", key))
    return sorted((replace(file, path=f"{urls.SEARCH_DIR}/{file.path}") for file in files),
                  key=lambda file: file.path)


def search_data(work: SearchWork) -> list[DataFile]:
    """Return the search files made of the documents alone (doc shards, facets), for any process to make."""
    return [DataFile(f"{urls.SEARCH_DIR}/{rel}", make, "the search index", key)
            for rel, make, key in work.doc_files()]


def build(paths: Paths, strict: bool = False, write: bool = True, base_url: str | None = None,
          record_history: bool = True, progress: Progress = NO_PROGRESS) -> Result:
    """Build the site from ``paths.content`` into ``paths.out``; with ``write=False``, only check.

    ``base_url`` (already checked against ``urls.BASE_URL``) overrides site.yaml's. New listings
    are recorded in the content folder's history.yaml unless ``record_history`` is False (a preview).
    Each step is a stage of ``progress`` (reading, enriching, indexing, rendering, writing) and a
    lap of ``Result.steps`` (read, enrich, index, render, write); a site already up to date is only
    checked (uptodate.py), in one lap, check.
    """
    clock = _Clock()
    with progress.stage("reading", unit="listings") as bar:
        # A check (write=False) reads the cache but leaves it as it was: it writes nothing.
        cache = open_cache(paths.cache)
        inputs = None
        if write and cache.enabled:
            inputs = build_inputs(paths, strict, base_url, record_history)
            done = built_site(cache, inputs, paths.out)
            if done is not None:  # the site is already what these inputs make
                cache.save()  # new modification times, if the check compared files by content
                clear_beside(paths.out)  # what a stopped build left beside the site, if any
                clock.lap("check")
                log.info("the site in %s is already what the content makes; nothing to do", paths.out)
                return Result(None, done.warnings, done.file_count, clock.total(), True, clock.laps,
                              WriteReport((), done.file_count, ()), done.papers, done.venues, done.topics)
        # Imported only now (see the note at the imports), and off the build's clock, as they were when
        # every module was imported before it started: the clock times the build, not Python's start.
        with clock.outside():
            from .catalog import make_catalog
            from .search import search_work, terms_cached
        # The last build's page keys, when this build records its own: pages whose key is the same are kept.
        last = last_pages(cache, paths.out) if inputs is not None else None
        content, problems = read_content(paths.content, cache)
        if base_url is not None:
            content = replace(content, config=replace(content.config, base_url=normalise_base_url(base_url)))
        bar.advance(len(content.listings))
    log.info("read %d listings from %s; cache: %s", len(content.listings), paths.content,
             paths.cache if paths.cache is not None else "none")
    clock.lap("read")
    with progress.stage("enriching", unit="papers") as bar:
        ids = listing_ids(content.listings)
        history = update_history(content.history, ids, source_date())
        news = make_news(history, ids)
        # The papers' search terms beside the catalog's steps, unless the cache has the last build's.
        fields: list[TextFields] | None = None if terms_cached(cache) else []
        catalog, found = make_catalog(list(content.listings), content.taxonomy, content.overrides, cache, bar,
                                      news.oldest_first, fields)
        problems += found
        problems += unknown_ids(content.overrides, {p.id for p in catalog.papers}, content.overrides_path)
    clock.lap("enrich")
    errors = [p for p in problems if not p.warning]
    warnings = tuple(sorted((p for p in problems if p.warning), key=lambda p: (p.path, p.line)))
    if errors:
        raise ContentError(errors)
    # The search documents first (their names in worker processes); their terms and the index made
    # of them while the workers render the pages.
    with progress.stage("indexing", unit="documents") as bar:
        work = search_work(catalog, cache=cache, order=news.oldest_first, fields=fields[0] if fields else None)
        bar.advance(len(work.docs))
    clock.lap("index")
    # The whole site is staged beside the output folder as its files are made, and swapped in once all
    # are made and the build has not failed: leaving this block otherwise removes the staged site.
    with Staging(paths.out, write, digests=inputs is not None) as staging:
        with progress.stage("rendering", unit="files") as bar:
            staged = render_site(catalog, content.config, paths, staging, news, bar, partial(index_files, work),
                                 search_data(work), last)
        del work
        clock.lap("render")
        if strict and warnings:
            raise StrictWarnings([str(w) for w in warnings])
        counts = len(catalog.papers), len(catalog.venues), len(catalog.topics)
        report = None
        if write:
            # The collector paused: listing the site again for the record makes 21,000 entries at 20,000
            # papers, and the collection of the oldest generation they set off walked the catalog (0.3 s).
            with progress.stage("writing", unit="files") as bar, paused_gc():
                report = staging.finish(staged)
                bar.advance(len(report.written))  # finish reports once, at the end
                if record_history:
                    history_file = paths.content / HISTORY_FILE
                    save_history(history, history_file)
                    if inputs is not None:
                        inputs = inputs.with_file(history_file, history_file.read_bytes())
                if inputs is not None:  # the staged files' sha256, for the up-to-date check
                    remember(cache, inputs, paths.out, *counts, len(staged), warnings,
                             {s.path: s.digest for s in staged if s.digest is not None},
                             {s.path: s.key for s in staged if s.key is not None})
                cache.save()  # only after a good write: a failed build leaves the cache as it was
            log.info("wrote %d files to %s, %d unchanged, %d removed", len(report.written), paths.out,
                     report.unchanged, len(report.removed))
            clock.lap("write")
    return Result(catalog, warnings, len(staged), clock.total(), write, clock.laps, report, *counts)


def build_inputs(paths: Paths, strict: bool, base_url: str | None, record_history: bool) -> Inputs:
    """Return the build's inputs, for telling whether the site is already what they make (uptodate.py)."""
    settings = [f"strict={strict}", f"base_url={base_url}", f"record_history={record_history}",
                f"SOURCE_DATE_EPOCH={os.environ.get('SOURCE_DATE_EPOCH', '')}"]
    folders = [paths.content, paths.templates, paths.static]
    return read_inputs(folders, paths.out, settings, skip=paths.cache)


class _Clock:
    """Times the build's steps for the summary (never written into the site)."""

    def __init__(self) -> None:
        self.start = self.last = time.perf_counter()
        self.laps: dict[str, float] = {}

    @contextmanager
    def outside(self) -> Iterator[None]:
        """Leave the time spent in the block out of the laps and the total."""
        began = time.perf_counter()
        try:
            yield
        finally:
            spent = time.perf_counter() - began
            self.start += spent
            self.last += spent

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.laps[name] = now - self.last
        self.last = now

    def total(self) -> float:
        return time.perf_counter() - self.start
