"""The Jinja environment (autoescape, StrictUndefined), its filters, and page rendering."""

from __future__ import annotations

import posixpath
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup, _escape_inner, escape

from . import urls
from .text import first_sentence

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


@jinja2.pass_context
def _url(ctx: jinja2.runtime.Context, target: str) -> str:
    """Link from the page being rendered to a site-relative ``target``.

    Links are relative, so the site works under any path; a page served at any depth (404.html)
    sets ``link_base`` to the site's path, "/repo/", and its links start with it.
    """
    # ctx.get("link_base") and ctx["page_path"], looked up as Context.resolve_or_missing does
    names, parent = ctx.vars, ctx.parent
    link_base = names["link_base"] if "link_base" in names else parent.get("link_base")
    if link_base:
        return link_base + target
    return _relative(names["page_path"] if "page_path" in names else parent["page_path"], target)


# Links from a folder to a target: every page of a folder ("venues/", "topics/", "papers/") links to
# the same targets, so each link is worked out once per folder. Bounded: cleared when it grows past
# _RELATIVE_LIMIT (links to every paper from every folder stay far below it).
_FOLDERS: dict[str, str] = {}
_RELATIVE: dict[tuple[str, str], str] = {}
_RELATIVE_LIMIT = 1_000_000


def _folder(page_path: str) -> str:
    """Return ``posixpath.dirname(page_path)``, remembered."""
    folder = _FOLDERS.get(page_path)
    if folder is None:
        if len(_FOLDERS) > _RELATIVE_LIMIT:
            _FOLDERS.clear()
        folder = _FOLDERS[page_path] = posixpath.dirname(page_path)
    return folder


def _relative(page_path: str, target: str) -> str:
    """Return ``urls.relative(page_path, target)``, remembered per (folder, target)."""
    key = (_folder(page_path), target)
    link = _RELATIVE.get(key)
    if link is None:
        if len(_RELATIVE) > _RELATIVE_LIMIT:
            _RELATIVE.clear()
        link = _RELATIVE[key] = urls.relative(page_path, target)
    return link


@jinja2.pass_context
def _absolute(ctx: jinja2.runtime.Context, target: str) -> str:
    """Return the absolute URL of a site-relative ``target``; needs the site's base_url."""
    base_url = ctx["site"].base_url
    if not base_url:
        raise ValueError("absolute() needs base_url; guard it with {% if site.base_url %}")
    return urls.absolute(base_url, target)


class _Context(jinja2.runtime.Context):
    """Jinja's context, with a short path for calls of the site's own functions (url(), paper_path()...).

    Jinja's ``Context.call`` inspects every callable for pass_context and friends: more work than
    ``url()`` itself, which a page calls dozens of times. The functions below are known, so they
    are called straight away, with the same arguments Jinja would give them.
    """

    def call(self, obj: Any, /, *args: Any, **kwargs: Any) -> Any:
        known = _KNOWN.get(id(obj))
        # Jinja passes the variables set in the block or loop around the call: a function that
        # takes the context then gets a derived one, so those calls take Jinja's own way.
        if known is None or known[0] is not obj or kwargs.get("_block_vars") or kwargs.get("_loop_vars"):
            return super().call(obj, *args, **kwargs)
        kwargs.pop("_block_vars", None)
        kwargs.pop("_loop_vars", None)
        try:
            return obj(self, *args, **kwargs) if known[1] else obj(*args, **kwargs)
        except StopIteration:  # as Context.call
            return self.environment.undefined("value was undefined because a callable raised a"
                                              " StopIteration exception")


def _escape(value: Any) -> Markup:
    """Return ``markupsafe.escape(value)``, the same string, with less work for the usual cases.

    A plain string is escaped and wrapped without Markup's checks for __html__; Markup (macro
    output, sanitised abstracts) is already safe and returned as it is (escape would copy it).
    """
    kind = type(value)
    if kind is str:
        return str.__new__(Markup, _escape_inner(value))
    if kind is Markup:
        return value
    return escape(value)


class _Template(jinja2.Template):
    """A template whose ``{{ ... }}`` outputs are escaped by ``_escape``: pages output tens of
    thousands of values, and markupsafe's own escape does more checks than the values need."""

    @classmethod
    def _from_namespace(cls, environment: jinja2.Environment, namespace: Any, globals: Any) -> jinja2.Template:
        if namespace.get("escape") is escape:  # the compiled module's own import of markupsafe's escape
            namespace["escape"] = _escape
        return super()._from_namespace(environment, namespace, globals)


def make_environment(templates_dir: Path) -> jinja2.Environment:
    """Return the Jinja environment the site is rendered with."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(templates_dir),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # One environment per build: a template need not be checked for changes on every page.
        auto_reload=False,
    )
    env.globals.update(
        url=_url,
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
    env.filters.update(first_sentence=first_sentence)
    env.context_class = _Context
    env.template_class = _Template
    return env


# The callables _Context calls straight away, by id: (the callable, whether it takes the context).
_KNOWN: dict[int, tuple[Any, bool]] = {
    id(f): (f, takes_context) for f, takes_context in (
        (_url, True), (_absolute, True), (urls.paper_path, False), (urls.venue_path, False),
        (urls.topic_path, False), (urls.venue_feed_path, False), (urls.topic_feed_path, False))
}


def render_page(env: jinja2.Environment, page: Page, shared: dict[str, Any]) -> bytes:
    """Render one page to UTF-8 bytes."""
    template = env.get_template(page.template)
    # template.render(**shared, **page.context, page_path=page.path), without merging the ~25
    # globals into the variables through a ChainMap on every page: merged once per template.
    names = _GLOBALS.get(template)
    if names is None:
        names = _GLOBALS[template] = dict(template.globals)
    context = template.new_context({**names, **shared, **page.context, "page_path": page.path}, shared=True)
    try:
        return env.concat(template.root_render_func(context)).encode("utf-8")  # type: ignore[attr-defined]
    except Exception:
        env.handle_exception()
        raise  # handle_exception raises; this keeps type checkers content


# Each template's globals (the environment's, which make_environment sets once), as one dict.
_GLOBALS: weakref.WeakKeyDictionary[jinja2.Template, dict[str, Any]] = weakref.WeakKeyDictionary()

