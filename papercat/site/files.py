"""Make every file of the site into the staging folder: the pages, the data files, the search index.

Pages and data files are made by worker processes (workers.py) while this process makes the search
index. Given the last build's manifest of keyed files (incremental/pagekeys.py), a file whose key is the same and
whose file is as that build left it is kept unmade.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import jinja2

from . import urls

from .. import workers
from ..content.config import SiteConfig
from ..errors import CatalogError
from .feeds import feed_pages
from ..content.history import News
from .hosting import robots_txt, sitemap_pages
from ..content.listing import display_path
from ..model import Catalog
from ..incremental.pagekeys import Keys, LastFile, PageKey
from ..progress import Stage
from .render import Page, make_environment, render_page
from ..output.writer import Staged, Staging

if TYPE_CHECKING:
    from ..search import IndexFile, SearchWork

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True)
class DataFile:
    """A file of the site made by a function rather than a template (papers.json, the search's doc shards)."""

    path: str
    make: Callable[[], bytes]
    source: str  # what it is made from, for messages
    # The digest of what it is made of, if it has one: kept as the last build left it while that is the same.
    key: bytes | None = None


@dataclass(frozen=True)
class SiteSources:
    """What the site's files are made of."""

    catalog: Catalog
    config: SiteConfig
    news: News
    search: SearchWork
    last: Mapping[str, LastFile] | None = None  # the last build's keyed files, when keys are worked out


@dataclass(frozen=True)
class Folders:
    """The folders of templates and static files."""

    templates: Path
    static: Path


def make_site_files(sources: SiteSources, folders: Folders, staging: Staging, bar: Stage) -> list[Staged]:
    """Stage every page, data file and search index file of the site, advancing ``bar`` per file."""
    from .pages import papers_json, shared_context, site_pages

    env = make_environment(folders.templates)
    shared = shared_context(sources.catalog, sources.config)
    maker = _Maker(folders, staging, env, shared,
                   Keys(env, shared, sources.last) if sources.last is not None else None)
    pages = _pages(sources, site_pages(sources.catalog, sources.news, sources.config.base_url))
    catalog_json = DataFile(urls.PAPERS_JSON, partial(papers_json, sources.catalog), "the catalog")
    items: list[Page | DataFile] = [*pages, *search_data(sources.search), catalog_json]
    bar.set_total(len(items))
    for item in items:  # before workers fork: each stages only its own files
        staging.claim(item.path, item.source if isinstance(item, DataFile) else item.source or item.template)
    for template in dict.fromkeys(page.template for page in pages):  # compiled once, before workers fork
        _checked(folders, Page("", template), partial(env.get_template, template))
    staged = _made_beside_index(maker, items, sources.search)
    bar.advance(len(items))
    if maker.keys is not None:
        log.info("kept %d of %d pages and data files unmade: their keys are the last build's",
                 sum(not s.made for s in staged), len(staged))
    staged.append(staging.add(urls.ROBOTS, robots_txt(sources.config.base_url), "robots.txt"))
    staged.append(staging.add(urls.NOJEKYLL, b"", "GitHub Pages"))
    if folders.static.is_dir():
        staged += staging.add_tree(folders.static, "static")
    return staged


def _pages(sources: SiteSources, pages: list[Page]) -> list[Page]:
    """Return ``pages`` with the feeds and sitemaps, which a base URL makes possible (absolute URLs)."""
    if not sources.config.base_url:
        return pages
    pages = [*pages, *feed_pages(sources.catalog, sources.news, sources.config.title)]
    return pages + sitemap_pages([p.path for p in pages if p.path.endswith(".html") and p.path != urls.NOT_FOUND])


def _made_beside_index(maker: _Maker, items: list[Page | DataFile], search: SearchWork) -> list[Staged]:
    """Return ``items`` staged by workers, and the search index's files, staged by this process meanwhile."""
    # The pages by a worker of their own, while this process makes the search index (which keeps what
    # it makes in the cache, here): a rebuild that keeps most pages is mostly the index.
    pages = workers.submit(lambda: workers.map(maker.make, items))
    try:
        staged = [maker.index_file(file) for file in index_files(search, maker.index_keep)]
    except BaseException:
        # The pages' worker writes into the staged site too: it must end before the staged site is
        # removed (a full disk fails both; its own error is the same one).
        with suppress(Exception):
            pages.result()
        raise
    return staged + pages.result()


@dataclass
class _Maker:
    """Makes one file of the site, or keeps the last build's when its key says it would be the same."""

    folders: Folders
    staging: Staging
    env: jinja2.Environment
    shared: dict[str, Any]
    keys: Keys | None
    index_kept: dict[str, Staged] = field(default_factory=dict)  # the search index's files found kept

    def make(self, item: Page | DataFile) -> Staged:
        """Stage a page or data file: kept, or made now."""
        if isinstance(item, DataFile):
            if self.keys is not None and item.key is not None:
                return self._keyed_data(item)
            return self.staging.stage(item.path, item.make())
        if self.keys is not None and item.keyed:
            return self._keyed_page(item)
        return self.staging.stage(item.path, _checked(self.folders, item,
                                                      lambda: render_page(self.env, item, self.shared)))

    def index_keep(self, path: str, key: bytes) -> bool:
        """Return whether the last build's search index file at ``path`` is there to keep (and note it)."""
        kept = self._kept(path, lambda old: key)
        if kept is not None:
            self.index_kept[path] = kept
        return kept is not None

    def index_file(self, file: IndexFile) -> Staged:
        """Stage a file of the search index, or keep the last build's (no bytes)."""
        self.staging.claim(file.path, "the search index")
        if file.data is None:
            return self.index_kept[file.path]
        key = PageKey(file.key, ()) if self.keys is not None and file.key is not None else None
        return self.staging.stage(file.path, file.data, key)

    def _kept(self, path: str, key: Callable[[PageKey], bytes | None]) -> Staged | None:
        """Return the last build's file at ``path`` as staged, if ``key`` of its record is its key and the
        file is as that build left it; else None."""
        old = self.keys.last.get(path) if self.keys is not None else None
        if old is None or key(old.key) != old.key.key:
            return None
        return self.staging.keep(path, old.size, old.mtime_ns, old.digest, key=old.key)

    def _keyed_data(self, item: DataFile) -> Staged:
        """Keep the data file if its key and file are the last build's; else make it, noting its key."""
        assert item.key is not None
        return (self._kept(item.path, lambda old: item.key)
                or self.staging.stage(item.path, item.make(), PageKey(item.key, ())))

    def _keyed_page(self, page: Page) -> Staged:
        """Keep the page if its key and file are the last build's; else render it, noting its key."""
        keys = self.keys
        assert keys is not None
        own = page.own_context()
        context = keys.context(own)
        if context is not None:
            kept = self._kept(page.path, lambda old: keys.key(page.template, page.path, context, old.reads))
            if kept is not None:
                return kept
        recording = keys.recording()
        data = _checked(self.folders, page, lambda: render_page(self.env, page, recording, own))
        if context is None:
            return self.staging.stage(page.path, data)
        reads = keys.reads()
        return self.staging.stage(page.path, data, PageKey(keys.key(page.template, page.path, context, reads),
                                                           reads))


def _checked(folders: Folders, page: Page, make: Callable[[], T]) -> T:
    """Return ``make()``, turning a template's failure into an error that names the template."""
    try:
        return make()
    except jinja2.TemplateSyntaxError as exc:
        where = display_path(folders.templates / (exc.name or page.template), Path.cwd())
        raise CatalogError(f"{where}:{exc.lineno}: {exc.message}; expected a valid Jinja template") from exc
    except Exception as exc:  # a template edited by the user can fail in many ways
        raise CatalogError(f"{display_path(folders.templates / page.template, Path.cwd())}: "
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
