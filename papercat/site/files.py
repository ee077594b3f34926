"""Make every file of the site into the staging folder: the pages, the data files, the search index.

Pages and data files are made by worker processes (workers.py) while this process makes the search
index.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, replace
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
from ..progress import Stage
from .render import Page, make_environment, render_page
from ..output.writer import Staged, Staging

if TYPE_CHECKING:
    from ..search import IndexFile, SearchWork


T = TypeVar("T")


@dataclass(frozen=True)
class DataFile:
    """A file of the site made by a function rather than a template (papers.json, the search's doc shards)."""

    path: str
    make: Callable[[], bytes]
    source: str  # what it is made from, for messages


@dataclass(frozen=True)
class SiteSources:
    """What the site's files are made of."""

    catalog: Catalog
    config: SiteConfig
    news: News
    search: SearchWork


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
    maker = _Maker(folders, staging, env, shared)
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
        staged = [maker.index_file(file) for file in index_files(search)]
    except BaseException:
        # The pages' worker writes into the staged site too: it must end before the staged site is
        # removed (a full disk fails both; its own error is the same one).
        with suppress(Exception):
            pages.result()
        raise
    return staged + pages.result()


@dataclass(frozen=True)
class _Maker:
    """Makes one file of the site into the staging folder."""

    folders: Folders
    staging: Staging
    env: jinja2.Environment
    shared: dict[str, Any]

    def make(self, item: Page | DataFile) -> Staged:
        """Stage a page or data file."""
        if isinstance(item, DataFile):
            return self.staging.stage(item.path, item.make())
        return self.staging.stage(item.path, _checked(self.folders, item,
                                                      lambda: render_page(self.env, item, self.shared)))

    def index_file(self, file: IndexFile) -> Staged:
        """Claim and stage a file of the search index."""
        self.staging.claim(file.path, "the search index")
        return self.staging.stage(file.path, file.data)


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


def index_files(work: SearchWork) -> list[IndexFile]:
    """Return the search index's files (``SearchWork.files``) with their paths in the site, in order of path."""
    files = work.files()
    return sorted((replace(file, path=f"{urls.SEARCH_DIR}/{file.path}") for file in files),
                  key=lambda file: file.path)


def search_data(work: SearchWork) -> list[DataFile]:
    """Return the search files made of the documents alone (doc shards, facets), for any process to make."""
    return [DataFile(f"{urls.SEARCH_DIR}/{rel}", make, "the search index") for rel, make in work.doc_files()]
