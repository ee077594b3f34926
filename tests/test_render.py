"""Page rendering: url() from any folder, calls as Jinja makes them, and escaping."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import jinja2
import pytest
from markupsafe import Markup, escape

from papercat.content.config import SiteConfig
from papercat.site.render import Page, make_environment, render_page

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"


def render(source: str, path: str = "papers/a.html", context: dict | None = None) -> str:
    env = make_environment(TEMPLATES)
    env.loader = jinja2.DictLoader({"page.html": source})
    return render_page(env, Page(path, "page.html", context or {}), {}).decode()


@pytest.mark.parametrize("path, links", [
    ("index.html", "papers/b.html venues/v.html index.html"),
    ("papers/a.html", "b.html ../venues/v.html ../index.html"),
    ("venues/v.html", "../papers/b.html v.html ../index.html"),
])
def test_url_links_from_the_page_being_rendered(path, links):
    source = "{{ url(paper_path('b')) }} {{ url(venue_path('v')) }} {{ url(HOME) }}"
    assert render(source, path) == links
    assert render(source, path) == links  # again, from the links remembered for the folder


@pytest.mark.parametrize("path", ["index.html", "papers/a.html", "venues/v.html", "404.html"])
def test_links_are_url_of_their_targets(path):
    source = ("{{ paper_links['b'] }} {{ venue_links['v'] }} {{ topic_links['t'] }} {{ links[SEARCH] }}|"
              "{{ url(paper_path('b')) }} {{ url(venue_path('v')) }} {{ url(topic_path('t')) }} "
              "{{ url(SEARCH) }}")
    context = {"link_base": "/repo/"} if path == "404.html" else {}
    short, long = render(source, path, context).split("|")
    assert short == long


def test_url_starts_with_link_base_when_a_page_gives_one():
    assert render("{{ url(SEARCH) }}", "404.html", {"link_base": "/repo/"}) == "/repo/search/index.html"


def test_calls_of_names_keep_jinjas_meaning():
    # macros, caller() and absolute() as Jinja calls them; a macro may shadow a site function
    source = ("{% macro paper_path(x) %}<{{ x }}>{% endmacro %}{{ paper_path('b') }} "
              "{% macro box(x) %}[{{ caller() }}{{ x }}]{% endmacro %}{% call box(1) %}c{% endcall %} "
              "{{ topic_path('t') }} {{ absolute(VENUES) }}")
    site = SiteConfig(base_url="https://x.org/")
    assert render(source, context={"site": site}) == "<b> [c1] topics/t.html https://x.org/venues/"
    with pytest.raises(jinja2.UndefinedError, match="'nothing' is undefined"):
        render("{{ nothing(1) }}")


@pytest.mark.parametrize("call", ["m(1)", "m(1, 2)", "m(1, c=3)", "m(c=3, a=1)", "m(b=2, a='<')", "m()",
                                  "m(1, 2, 3)", "m(1, a=2)", "m(1, d=4)", "m(1, 2, 3, 4)", "v(1, 2, 3)",
                                  "k(1, e=5)", "m(1) ~ '<'"])
def test_macro_calls_bind_arguments_as_jinja_does(call):
    # defaults, keywords, missing arguments, and the same errors for a wrong call; varargs and kwargs
    source = ("{% macro m(a, b=2, c='x') %}{{ a is defined }}{{ a }}|{{ b }}|{{ c }}{% endmacro %}"
              "{% macro v(a) %}{{ a }}{{ varargs }}{% endmacro %}{% macro k(a) %}{{ a }}{{ kwargs }}{% endmacro %}"
              f"{{{{ {call} }}}}")
    jinjas = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)

    def outcome(make: Callable[[], str]) -> object:
        try:
            return make()
        except (TypeError, jinja2.UndefinedError) as error:
            return type(error), str(error)

    assert outcome(lambda: render(source)) == outcome(jinjas.from_string(source).render)


def test_names_set_by_templates_and_names_undefined():
    # a page's names and what its templates set live in one dict (render_page): set names shadow
    # the page's, reach macros imported with context, and names never given stay undefined
    macros = "{% macro m() %}{{ x }}/{{ y is defined }}{% endmacro %}"
    page = ("{{ x }} {% set x = 'set' %}{% from 'm.html' import m with context %}{{ x }} {{ m() }} "
            "{{ y is defined }} {% for i in [1] %}{% set x = 'loop' %}{{ x }}{% endfor %} {{ x }}")
    env = make_environment(TEMPLATES)
    env.loader = jinja2.DictLoader({"page.html": page, "m.html": macros})
    out = render_page(env, Page("papers/a.html", "page.html", {"x": "given"}), {}).decode()
    assert out == "given set set/False False loop set"
    assert env.get_template("page.html").render(x="given") == out


@pytest.mark.parametrize("value", ["a<b>&\"'", Markup("<i>safe</i>"), 0, -12, 2025, True, None, 1.5])
def test_outputs_are_escaped_as_markupsafe_escapes(value):
    # text is escaped, Markup (macro output, sanitised abstracts) is output as it is
    assert render("{{ value }}", context={"value": value}) == escape(value)


def test_blocks_and_macros_of_escaped_outputs_stay_safe():
    # what a set block, a macro or a block holds is Markup, however its outputs were escaped
    source = ("{% set x %}<{{ '<' }}>{% endset %}{{ x }} {% macro m(v) %}<{{ v }}>{% endmacro %}{{ m('&') }} "
              "{{ m(m('>')) }}")
    assert render(source) == "<&lt;> <&amp;> <<&gt;>>"


@pytest.mark.parametrize("value, delimiter", [
    (("a<b", "c&d"), ", "), ((), ", "), (("only",), "”, “"), ((Markup("<i>x</i>"), "a<b"), ", "),
    (["a<b", "c"], ", "), (("a", 1, None), "-"), (("a<b", "c"), Markup("<br>")),
])
@pytest.mark.parametrize("autoescape", [True, False])
def test_join_matches_jinjas(value, delimiter, autoescape):
    ours = make_environment(TEMPLATES)
    ours.autoescape = autoescape
    theirs = jinja2.Environment(autoescape=autoescape)
    source = "{{ value|join(delimiter) }}|{{ value|join(delimiter)|length }}"
    context = {"value": value, "delimiter": delimiter}
    assert ours.from_string(source).render(context) == theirs.from_string(source).render(context)
    joined = ours.filters["join"](jinja2.nodes.EvalContext(ours), value, delimiter)
    assert joined == theirs.filters["join"](jinja2.nodes.EvalContext(theirs), value, delimiter)
    assert type(joined) is type(theirs.filters["join"](jinja2.nodes.EvalContext(theirs), value, delimiter))


def test_counts_of_one_are_singular(small_content, tmp_path):
    """A venue, topic or catalog of one paper says "1 paper", never "1 papers"."""
    from papercat.pipeline import Paths, build
    from tests.conftest import tree

    build(Paths(small_content, tmp_path / "site"))
    pages = {path: data.decode("utf-8") for path, data in tree(tmp_path / "site").items() if path.endswith(".html")}
    assert not [path for path, html in pages.items() if re.search(r"\b1 (papers|venues|topics)\b", html)]
    assert re.search(r"\b1 paper\b", pages["index.html"]), "ICLR 2025 holds one paper"
