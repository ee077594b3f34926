"""The Jinja environment (autoescape, StrictUndefined), its filters, and page rendering."""

from __future__ import annotations

import posixpath
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

import jinja2
from jinja2.utils import missing
from markupsafe import Markup, _escape_inner, escape

from . import urls
from .memo import Memo
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
    make_context: Callable[[], dict[str, Any]] | None = None  # if given, the context, made where the page renders
    keyed: bool = False  # kept unrendered when its key is the last build's (pagekeys.py)

    def own_context(self) -> dict[str, Any]:
        """Return the page's own context (made now, if it is made where the page renders)."""
        return self.context if self.make_context is None else self.make_context()


def _link(page_path: str, link_base: str | None, target: str) -> str:
    """Return the link from ``page_path`` to a site-relative ``target``.

    Links are relative, so the site works under any path; a page served at any depth (404.html)
    sets ``link_base`` to the site's path, "/repo/", and its links start with it.
    """
    return link_base + target if link_base else urls.relative(page_path, target)


# url() of the pages of each folder, by folder and link_base (a few in all). Every page of a folder
# ("venues/", "topics/", "papers/") links to the same targets, so each link is worked out once per
# folder and then looked up: url() is the memo's own __getitem__, called by _Context.call with no
# Python in between. Bounded (links to every paper stay far below the limit).
_LINKS: dict[tuple[str, str | None], Callable[[str], str]] = {}
_LINKS_LIMIT = 1_000_000


def _url(page_path: str, link_base: str | None) -> Callable[[str], str]:
    """Return url() of the pages of the folder of ``page_path`` (see _link)."""
    key = (posixpath.dirname(page_path), link_base)
    url = _LINKS.get(key)
    if url is None:
        url = _LINKS[key] = Memo(partial(_link, page_path, link_base), _LINKS_LIMIT).__getitem__
        _PLAIN[id(url)] = url  # one object for every call: _Context.call knows it by its id
    return url


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
    ``url()`` itself, which a page calls dozens of times. The site's functions (_PLAIN, each
    folder's url(), see _LINKS, and absolute()) are known, and so are macros (a topic page calls
    one per paper): they are called straight away, with the same arguments Jinja would give them.
    """

    def call(self, obj: Any, /, *args: Any, _block_vars: Any = None, _loop_vars: Any = None, **kwargs: Any) -> Any:
        if _PLAIN.get(id(obj)) is obj:
            pass
        elif type(obj) is jinja2.runtime.Macro:  # Macro.__call__ takes the evaluation context
            args = (self.eval_ctx, obj, *args)
            obj = _call_macro
        # Jinja passes the variables set in the block or loop around the call: a function that
        # takes the context then gets a derived one, so those calls take Jinja's own way.
        elif obj is _absolute and not (_block_vars or _loop_vars):
            args = (self, *args)
        else:
            return super().call(obj, *args, _block_vars=_block_vars, _loop_vars=_loop_vars, **kwargs)
        try:
            return obj(*args, **kwargs)
        except StopIteration:  # as Context.call
            return self.environment.undefined("value was undefined because a callable raised a"
                                              " StopIteration exception")


def _call_macro(eval_ctx: jinja2.nodes.EvalContext, macro: jinja2.runtime.Macro, /, *args: Any, **kwargs: Any
                ) -> Any:
    """Return ``macro(eval_ctx, *args, **kwargs)``, its arguments bound as Macro.__call__ binds them.

    Jinja's binding is general (a caller, extra positional or keyword arguments); a macro that takes
    none of them, such as paper_card (called for tens of thousands of cards), takes its arguments in
    order, the keyword ones by name, and ``missing`` for the others (it fills in their defaults).
    """
    count = macro._argument_count
    if macro.caller or macro.catch_kwargs or macro.catch_varargs or len(args) > count or macro._environment.is_async:
        return macro(eval_ctx, *args, **kwargs)
    arguments = list(args)
    if len(args) < count:
        arguments += [kwargs.pop(name, missing) for name in macro.arguments[len(args):]]
    if kwargs:
        raise TypeError(f"macro {macro.name!r} takes no keyword argument {next(iter(kwargs))!r}")
    made = macro._func(*arguments)
    return Markup(made) if eval_ctx.autoescape else made


def _escape(value: Any) -> str:
    """Return the text of ``markupsafe.escape(value)``, with less work for the usual cases.

    The compiled templates call it only on the values they output, and only join what it returns
    (a macro, a block or a set block makes Markup of the joined text): so a plain string or a whole
    number (a position, a heading level, a place on the map) comes back as a plain str, without
    making a Markup object of each (a fifth of the CPU of rendering a page). Markup (macro output,
    sanitised abstracts) is already safe and returned as it is (escape would copy it).
    """
    kind = type(value)
    if kind is str:
        return _escape_inner(value)  # type: ignore[no-any-return]
    if kind is Markup:
        return value
    if kind is int:
        return int.__repr__(value)
    return escape(value)


class _Template(jinja2.Template):
    """A template whose ``{{ ... }}`` outputs are escaped by ``_escape``: pages output tens of
    thousands of values, and markupsafe's own escape does more checks than the values need."""

    @classmethod
    def _from_namespace(cls, environment: jinja2.Environment, namespace: Any, globals: Any) -> jinja2.Template:
        if namespace.get("escape") is escape:  # the compiled module's own import of markupsafe's escape
            namespace["escape"] = _escape
        return super()._from_namespace(environment, namespace, globals)


_SUMMARIES = 1 << 16  # first sentences remembered: more than twice the papers of a large catalog
_JINJA_JOIN = jinja2.defaults.DEFAULT_FILTERS["join"]


@jinja2.pass_eval_context
def _join(eval_ctx: jinja2.nodes.EvalContext, value: Any, d: str = "", attribute: str | None = None) -> str:
    """Return what Jinja's ``join`` filter returns, with less work for a tuple of plain strings.

    Such a tuple (a paper's topics, keyphrases, shared phrases) joined by a plain string is a plain
    string, as Jinja makes it; Jinja's filter first looks for markup in every item (a page joins
    about eight such tuples). Anything else goes to Jinja's filter.
    """
    if type(value) is tuple and type(d) is str and attribute is None:
        for item in value:
            if type(item) is not str:
                break
        else:
            return d.join(value)
    return _JINJA_JOIN(eval_ctx, value, d, attribute)  # type: ignore[no-any-return]


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
        # One environment per build: a template need not be checked for changes on every page, and
        # its few templates are kept in a plain dict (Jinja's LRU cache locks and reorders on every
        # page, and again for the template it extends).
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
    # A paper's summary is on every page that lists it (what's new, its venues, its topics): the
    # filter works each one out once per environment and process.
    env.filters.update(first_sentence=lru_cache(maxsize=_SUMMARIES)(first_sentence), join=_join, quantity=quantity)
    env.context_class = _Context
    env.template_class = _Template
    return env


# The site's functions that take no context, which _Context calls straight away, by id.
_PLAIN: dict[int, Any] = {id(f): f for f in (urls.paper_path, urls.venue_path, urls.topic_path,
                                             urls.venue_feed_path, urls.topic_feed_path)}


class _Names(dict[str, Any]):
    """A page's names: Jinja's ``missing`` for a name it lacks, as Context.resolve_or_missing gives."""

    __slots__ = ()

    def __missing__(self, key: str) -> Any:
        return jinja2.utils.missing


def render_page(env: jinja2.Environment, page: Page, shared: dict[str, Any],
                own: dict[str, Any] | None = None) -> bytes:
    """Render one page to UTF-8 bytes (``own``: its own context, if already made)."""
    template = env.get_template(page.template)
    # template.render(**shared, **page.context, page_path=page.path, url=...), without merging the
    # ~25 globals into the variables through a ChainMap on every page: merged once per template.
    # url() is the links of the page's folder (see _LINKS).
    names = _GLOBALS.get(template)
    if names is None:
        names = _GLOBALS[template] = dict(template.globals)
    if own is None:
        own = page.own_context()
    url = _url(page.path, own.get("link_base"))
    page_names = _Names({**names, **shared, **own, "page_path": page.path, "url": url})
    # template.new_context(page_names, shared=True), without listing the globals' names again
    context = env.context_class(env, page_names, template.name, template.blocks)
    context.globals_keys = names.keys()  # type: ignore[assignment]  # a set of names, as Jinja's
    # The page's names and what its templates set ({% set %}) in one dict of its own, so a name is
    # looked up by the dict's own __getitem__ rather than by Context.resolve_or_missing, which
    # looks in two dicts in Python (a paper page looks up about 55 names).
    context.vars = page_names
    context.resolve_or_missing = page_names.__getitem__  # type: ignore[method-assign]
    try:
        return env.concat(template.root_render_func(context)).encode("utf-8")  # type: ignore[attr-defined]
    except Exception:
        env.handle_exception()
        raise  # handle_exception raises; this keeps type checkers content


# Each template's globals (the environment's, which make_environment sets once), as one dict.
_GLOBALS: weakref.WeakKeyDictionary[jinja2.Template, dict[str, Any]] = weakref.WeakKeyDictionary()

