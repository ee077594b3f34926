"""The build as a short list of named steps: read -> enrich -> index -> render -> write."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from .collector import paused_gc
from .incremental.memo import Cache, open_cache
from .content.folder import Content, listing_ids, read_content
from .errors import ContentError, Problem, StrictWarnings
from .content.history import HISTORY_FILE, History, News, make_news, save_history, source_date, update_history
from .model import Catalog
from .content.overrides import unknown_ids
from .progress import NO_PROGRESS, Progress, Stage
from .site.files import Folders, SiteSources, make_site_files
from .output.swap import clear_beside
from .incremental.manifest import Inputs, Summary, built_site, read_inputs, remember
from .site.urls import normalise_base_url
from .output.writer import Staged, Staging, WriteReport

# The catalog's, the pages' and the search index's modules bring numpy, scipy, nh3 and latex2mathml
# (most of the time Python takes to start a build): the steps that use them import them, so a build
# that finds the site already what the content makes (incremental/manifest.py) starts without them.
if TYPE_CHECKING:
    from .search import SearchWork, TextFields

__all__ = ["Paths", "Result", "build"]

log = logging.getLogger(__name__)

PROJECT_ROOT = Path(__file__).resolve().parent.parent

@dataclass(frozen=True)
class Paths:
    """Where the build reads from and writes to."""

    content: Path
    out: Path
    templates: Path = PROJECT_ROOT / "templates"
    static: Path = PROJECT_ROOT / "static"
    cache: Path | None = None  # the folder of the build cache (see incremental/memo.py); None builds without one


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


def build(paths: Paths, strict: bool = False, write: bool = True, base_url: str | None = None,
          record_history: bool = True, progress: Progress = NO_PROGRESS) -> Result:
    """Build the site from ``paths.content`` into ``paths.out``; with ``write=False``, only check.

    ``base_url`` (already checked against ``urls.BASE_URL``) overrides site.yaml's. New listings
    are recorded in the content folder's history.yaml unless ``record_history`` is False (a preview).
    Each step is a stage of ``progress`` (reading, enriching, indexing, rendering, writing) and a
    lap of ``Result.steps`` (read, enrich, index, render, write); a site already up to date is only
    checked (incremental/manifest.py), in one lap, check.
    """
    run = _Run(paths, _Options(strict, write, base_url, record_history), progress, open_cache(paths.cache))
    inputs = build_inputs(run)
    done = already_built(run, inputs)
    if done is not None:
        return done
    content, problems = read(run)
    enriched = enrich(run, content, problems)
    search = index(run, enriched)
    with Staging(paths.out, write, digests=inputs is not None) as staging:
        staged = render(run, SiteSources(enriched.catalog, content.config, enriched.news, search), staging)
        del search  # the search documents go once their files are made
        check_warnings(run, enriched.warnings)
        report = write_site(run, staging, staged, enriched, inputs) if write else None
    return run.result(Summary(*enriched.counts, len(staged), enriched.warnings), report, enriched.catalog)


@dataclass(frozen=True)
class _Options:
    strict: bool  # warnings fail the build
    write: bool  # False: only check
    base_url: str | None  # overrides site.yaml's
    record_history: bool  # note new listings in history.yaml


@dataclass(frozen=True)
class _Run:
    """One build: where, how, its progress, its cache and its clock."""

    paths: Paths
    options: _Options
    progress: Progress
    cache: Cache
    clock: _Clock = field(default_factory=lambda: _Clock())

    @contextmanager
    def step(self, stage: str, lap: str, unit: str) -> Iterator[Stage]:
        """Run a step as a stage of the progress, timed as a lap of the clock."""
        with self.progress.stage(stage, unit=unit) as bar:
            yield bar
        self.clock.lap(lap)

    def result(self, summary: Summary, report: WriteReport | None, catalog: Catalog | None = None) -> Result:
        """Return the build's result for its summary line."""
        return Result(catalog, summary.warnings, summary.files, self.clock.total(), self.options.write,
                      self.clock.laps, report, summary.papers, summary.venues, summary.topics)


@dataclass(frozen=True)
class _Enriched:
    """The catalog, and what the build learnt making it."""

    catalog: Catalog
    history: History  # with this build's new listings
    news: News
    warnings: tuple[Problem, ...]
    fields: TextFields | None  # the papers' search terms, if worked out beside the catalog

    @property
    def counts(self) -> tuple[int, int, int]:
        return len(self.catalog.papers), len(self.catalog.venues), len(self.catalog.topics)


def build_inputs(run: _Run) -> Inputs | None:
    """Return the build's inputs, for telling whether the site is already what they make (incremental/manifest.py);
    None for a check or a build without a cache."""
    if not (run.options.write and run.cache.enabled):
        return None
    options = run.options
    settings = [f"strict={options.strict}", f"base_url={options.base_url}",
                f"record_history={options.record_history}",
                f"SOURCE_DATE_EPOCH={os.environ.get('SOURCE_DATE_EPOCH', '')}"]
    folders = [run.paths.content, run.paths.templates, run.paths.static]
    return read_inputs(folders, run.paths.out, settings, skip=run.paths.cache)


def already_built(run: _Run, inputs: Inputs | None) -> Result | None:
    """Return the last build's result if the site is already what ``inputs`` make; else None."""
    done = built_site(run.cache, inputs, run.paths.out) if inputs is not None else None
    if done is None:
        return None
    run.cache.save()  # new modification times, if the check compared files by content
    clear_beside(run.paths.out)  # what a stopped build left beside the site, if any
    run.clock.lap("check")
    log.info("the site in %s is already what the content makes; nothing to do", run.paths.out)
    return run.result(done.summary, WriteReport((), done.summary.files, ()))


def read(run: _Run) -> tuple[Content, list[Problem]]:
    """Read the content folder (listings the cache knows unchanged are not parsed again)."""
    with run.step("reading", "read", unit="listings") as bar:
        content, problems = read_content(run.paths.content, run.cache)
        if run.options.base_url is not None:
            config = replace(content.config, base_url=normalise_base_url(run.options.base_url))
            content = replace(content, config=config)
        bar.advance(len(content.listings))
        log.info("read %d listings from %s; cache: %s", len(content.listings), run.paths.content,
                 run.paths.cache if run.paths.cache is not None else "none")
    return content, problems


def enrich(run: _Run, content: Content, problems: list[Problem]) -> _Enriched:
    """Make the catalog: papers merged from the listings, with their titles, topics, keyphrases and
    related papers; raise ContentError if any listing or setting has an error."""
    with run.clock.outside():  # imported now (see the note at the imports), off the build's clock
        from .catalog import make_catalog
        from .search import terms_cached
    with run.step("enriching", "enrich", unit="papers") as bar:
        ids = listing_ids(content.listings)
        history = update_history(content.history, ids, source_date())
        news = make_news(history, ids)
        # The papers' search terms beside the catalog's steps, unless the cache has the last build's.
        fields: list[TextFields] | None = None if terms_cached(run.cache) else []
        catalog, found = make_catalog(list(content.listings), content.taxonomy, content.overrides, run.cache,
                                      bar, news.oldest_first, fields)
        problems = [*problems, *found,
                    *unknown_ids(content.overrides, {p.id for p in catalog.papers}, content.overrides_path)]
    errors = [p for p in problems if not p.warning]
    if errors:
        raise ContentError(errors)
    warnings = tuple(sorted((p for p in problems if p.warning), key=lambda p: (p.path, p.line)))
    return _Enriched(catalog, history, news, warnings, fields[0] if fields else None)


def index(run: _Run, enriched: _Enriched) -> SearchWork:
    """Make the search documents; their terms and the index come while the pages render."""
    with run.clock.outside():
        from .search import search_work
    with run.step("indexing", "index", unit="documents") as bar:
        work = search_work(enriched.catalog, cache=run.cache, order=enriched.news.oldest_first,
                           fields=enriched.fields)
        bar.advance(len(work.docs))
    return work


def render(run: _Run, sources: SiteSources, staging: Staging) -> list[Staged]:
    """Stage every file of the site beside the output folder (swapped in by ``write_site``)."""
    with run.step("rendering", "render", unit="files") as bar:
        return make_site_files(sources, Folders(run.paths.templates, run.paths.static), staging, bar)


def check_warnings(run: _Run, warnings: tuple[Problem, ...]) -> None:
    """Fail a strict build that has warnings (before anything is written)."""
    if run.options.strict and warnings:
        raise StrictWarnings([str(w) for w in warnings])


def write_site(run: _Run, staging: Staging, staged: list[Staged], enriched: _Enriched,
               inputs: Inputs | None) -> WriteReport:
    """Swap the staged site in, record the history and what was written, and save the cache."""
    # The collector paused: listing the site again for the record makes an entry per file, and a
    # collection of the oldest generation they set off would walk the whole catalog.
    with run.step("writing", "write", unit="files") as bar, paused_gc():
        report = staging.finish(staged)
        bar.advance(len(report.written))  # finish reports once, at the end
        if run.options.record_history:
            history_file = run.paths.content / HISTORY_FILE
            save_history(enriched.history, history_file)
            if inputs is not None:
                inputs = inputs.with_file(history_file, history_file.read_bytes())
        if inputs is not None:  # the staged files' sha256, for the up-to-date check
            remember(run.cache, inputs, run.paths.out,
                     Summary(*enriched.counts, len(staged), enriched.warnings), staged)
        run.cache.save()  # only after a good write: a failed build leaves the cache as it was
        log.info("wrote %d files to %s, %d unchanged, %d removed", len(report.written), run.paths.out,
                 report.unchanged, len(report.removed))
    return report


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
