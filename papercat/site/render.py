"""The Jinja environment (autoescape, StrictUndefined), its filters, and page rendering."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import jinja2

from . import urls
from ..memo import Memo
from ..text import first_sentence

# Every page's Content-Security-Policy (a meta tag: a static host sets no headers). Scripts,
# styles, the search worker and its data all come from the site itself; nothing inline runs.
CSP = "default-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'"


@dataclass(frozen=True)
class Page:
    """One HTML page to render: where it goes, which template, and its small context."""

    path: str
    template: str
    context: dict[str, Any] = field(default_factory=dict)
    source: str = ""  # what the page was made from, for error messages
    make_context: Callable[[], dict[str, Any]] | None = None  # if given, the context, made where the page renders

    def own_context(self) -> dict[str, Any]:
        """Return the page's own context (made now, if it is made where the page renders)."""
        return self.context if self.make_context is None else self.make_context()


def _link(page_path: str, link_base: str | None, target: str) -> str:
    """Return the link from ``page_path`` to a site-relative ``target``.

    Links are relative, so the site works under any path; a page served at any depth (404.html)
    sets ``link_base`` to the site's path, "/repo/", and its links start with it.
    """
    return link_base + target if link_base else urls.relative(page_path, target)


# The links of each folder's pages, by folder and link_base (a few in all): the pages of a folder
# link to the same targets (the header's, each other), so a link is worked out once per folder and
# then looked up. Templates look links up in these mappings rather than calling url(): a call goes
# through Jinja's Context.call, which costs more than the link (a paper page made about 40), where a
# lookup is a dict's. links[target] is url(target); paper_links[id] is url(paper_path(id)), and so
# are venue_links[slug] and topic_links[slug]. Bounded, for links to every paper.
_LINKS: dict[tuple[str, str | None], dict[str, Any]] = {}
_LINKS_LIMIT = 1_000_000


def _links(page_path: str, link_base: str | None) -> dict[str, Any]:
    """Return url() and the mappings of links (links, paper_links...) of the folder of ``page_path``."""
    key = (page_path.rpartition("/")[0], link_base)
    names = _LINKS.get(key)
    if names is None:
        link = partial(_link, page_path, link_base)
        links = Memo(link, _LINKS_LIMIT)
        names = _LINKS[key] = {
            "url": links.__getitem__,
            "links": links,
            "paper_links": Memo(lambda paper_id: links[urls.paper_path(paper_id)], _LINKS_LIMIT),
            "venue_links": Memo(lambda slug: links[urls.venue_path(slug)], _LINKS_LIMIT),
            "topic_links": Memo(lambda slug: links[urls.topic_path(slug)], _LINKS_LIMIT),
        }
    return names


@jinja2.pass_context
def _absolute(ctx: jinja2.runtime.Context, target: str) -> str:
    """Return the absolute URL of a site-relative ``target``; needs the site's base_url."""
    base_url = ctx["site"].base_url
    if not base_url:
        raise ValueError("absolute() needs base_url; guard it with {% if site.base_url %}")
    return urls.absolute(base_url, target)


def quantity(count: int, noun: str) -> str:
    """Return "1 paper", "2 papers": ``count`` and ``noun``, plural unless the count is one."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def make_environment(templates_dir: Path) -> jinja2.Environment:
    """Return the Jinja environment the site is rendered with."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(templates_dir),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # One environment per build: a template need not be checked for changes on every page (two
        # stat calls), and its few templates are kept in a plain dict, not an LRU cache that locks.
        auto_reload=False,
        cache_size=-1,
    )
    env.globals.update(
        absolute=_absolute,
        venue_feed_path=urls.venue_feed_path,
        topic_feed_path=urls.topic_feed_path,
        WHATS_NEW=urls.WHATS_NEW,
        FEED=urls.FEED,
        CSP=CSP,
        paper_path=urls.paper_path,
        venue_path=urls.venue_path,
        topic_path=urls.topic_path,
        HOME=urls.HOME,
        VENUES=urls.VENUES,
        TOPICS=urls.TOPICS,
        SEARCH=urls.SEARCH,
        MAP=urls.MAP,
        STATS=urls.STATS,
        PAPERS_JSON=urls.PAPERS_JSON,
    )
    env.filters.update(first_sentence=first_sentence, quantity=quantity)
    return env


def render_page(env: jinja2.Environment, page: Page, shared: dict[str, Any]) -> bytes:
    """Render one page to UTF-8 bytes."""
    own = page.own_context()
    links = _links(page.path, own.get("link_base"))
    html = env.get_template(page.template).render({**shared, **own, "page_path": page.path, **links})
    return html.encode("utf-8")
