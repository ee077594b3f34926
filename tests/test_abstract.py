"""Abstracts as HTML and plain text: emphasis, LaTeX math and escapes, links, hostile input, caps."""

from __future__ import annotations

import html
import random
import re
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from xml.etree.ElementTree import Element, SubElement

import nh3
import pytest

from papercat.enrich.abstract import MAX_CHARS, plain_text, render_abstract
from papercat.enrich.abstract import fragment as fragment_module
from papercat.enrich.abstract import mathml as mathml_module
from papercat.enrich.abstract import render as render_module
from papercat.enrich.abstract import tokens as tokens_module
from papercat.enrich.titles import derive_title
from papercat.model import Link
from papercat.content.folder import read_content
from papercat.search import terms as search
from tests.conftest import BUNDLED

MATHML = ' xmlns="http://www.w3.org/1998/Math/MathML"'


def bundled_abstracts() -> list[str]:
    """Every bundled abstract as the reader gives it: lines joined, text cleaned."""
    content, _ = read_content(BUNDLED)
    return [entry.text for listing in content.listings for entry in listing.entries]


def html_of(abstract: str) -> str:
    """The HTML of ``abstract``, shortened: no MathML namespace, no display attribute."""
    return render_abstract(abstract).html.replace(MATHML, "").replace(' display="inline"', "")


class Tags(HTMLParser):
    """Collects every element and attribute of a fragment, and checks that tags nest and close."""

    def __init__(self, fragment: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.open: list[str] = []
        self.unbalanced: list[str] = []
        self.text: list[str] = []
        self.feed(fragment)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        self.open.append(tag)

    def handle_endtag(self, tag):
        if not self.open or self.open.pop() != tag:
            self.unbalanced.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def assert_inert(html: str) -> Tags:
    """Assert that ``html`` holds only allowlisted markup: no script, no handlers, http(s) links only."""
    tags = Tags(html)
    allowed = {"p", "em", "strong", "a", "code"} | mathml_module._MATHML_TAGS
    assert {tag for tag, _ in tags.elements} <= allowed, tags.elements
    for tag, attrs in tags.elements:
        assert not [name for name in attrs if name.startswith("on")], (tag, attrs)
        assert "style" not in attrs and "src" not in attrs
        if tag == "a":
            assert re.match(r"https?://", attrs["href"] or ""), attrs
            assert attrs["rel"] == "noopener noreferrer nofollow"
        else:
            assert "href" not in attrs
    assert not tags.unbalanced and not tags.open
    # As markup, whatever the text around it says.
    assert "<script" not in html and "<img" not in html and "<svg" not in html
    assert not re.search(r"<[^>]*\son\w+\s*=", html)
    assert not re.search(r"""<[^>]*\shref=(?!["']?https?://)""", html)
    return tags


# --- emphasis ------------------------------------------------------------------------------------


def test_emphasis_renders_as_em_and_strong():
    assert html_of("defend against *adversaries*: malicious") == \
        "<p>defend against <em>adversaries</em>: malicious</p>"
    assert html_of("We introduce **Discriminative Fine-Tuning (DFT)**, an improved") == \
        "<p>We introduce <strong>Discriminative Fine-Tuning (DFT)</strong>, an improved</p>"
    assert html_of("achieving a **59.24%** improvement (*i.e.*, no update)") == \
        "<p>achieving a <strong>59.24%</strong> improvement (<em>i.e.</em>, no update)</p>"


def test_strong_initials_inside_words():
    assert html_of("framework, **E**valuating **T**hen **A**ligning (ETA)") == \
        "<p>framework, <strong>E</strong>valuating <strong>T</strong>hen <strong>A</strong>ligning (ETA)</p>"
    assert html_of("M-STaR (**M**ultimodal **S**elf-evolving **T**r**a**ining)") == \
        "<p>M-STaR (<strong>M</strong>ultimodal <strong>S</strong>elf-evolving <strong>T</strong>r" \
        "<strong>a</strong>ining)</p>"


def test_nested_emphasis_pairs_as_commonmark_does():
    assert html_of("framework, ***Sim**ulating **I**deal **E**ditor* (SimIE)") == \
        ("<p>framework, <em><strong>Sim</strong>ulating <strong>I</strong>deal <strong>E</strong>ditor</em> "
         "(SimIE)</p>")
    assert html_of("***both*** and *a **b** c*") == \
        "<p><em><strong>both</strong></em> and <em>a <strong>b</strong> c</em></p>"


@pytest.mark.parametrize("text", ["2 * 3 * 4 = 24", "snake_case_name and x_i", "a lone * star", "A* search",
                                  "**unclosed strong", "_private_attr"])
def test_stray_stars_and_underscores_stay_text(text):
    html = html_of(text)
    assert "<em>" not in html and "<strong>" not in html
    assert plain_text(text) == text


# --- math ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("abstract", "inside"), [
    ("sentence-level best-of-$N$ to search", "<mi>N</mi>"),
    ("the length complexity is $O(T^2)$ when", "<msup><mi>T</mi><mn>2</mn></msup>"),
    ("Deterministic Finite Automata is $2n - 2$ where", "<mn>2</mn><mi>n</mi><mo>−</mo><mn>2</mn>"),
    ("functions is $O(T^{O(K)})$ when", "<msup><mi>T</mi><mrow><mi>O</mi>"),
    ("such as DPO and $\\Psi$PO have", "<mi>Ψ</mi>"),
    ("datasets with $<$$1/4$ the compute", "<mo>&lt;</mo></mrow></math><math><mrow><mn>1</mn><mo>/</mo>"),
    ("up to $27$% improvement", "<mn>27</mn>"),
    ("speedup of 1.73$\\times$ with", "<mo>×</mo>"),
    ("minimizes the $\\mathcal{L}_p$ norm", "<msub><mi>ℒ</mi><mi>p</mi></msub>"),
    ("more than $(1+\\alpha)$ factor", "<mi>α</mi>"),
    ("to strengthen~(by $12.05\\%$) the", "<mn>12.05</mn>"),
    ("provide $\\tilde{\\mathcal{O}}\\big(\\sqrt{KT} + K/\\alpha\\big) $ and",
     "<msqrt><mrow><mi>K</mi><mi>T</mi>"),
])
def test_latex_math_renders_as_mathml(abstract, inside):
    html = html_of(abstract)
    assert "<math>" in html and inside in html, html
    assert not render_abstract(abstract).warnings


@pytest.mark.parametrize(("abstract", "html"), [
    # MathML Core (Chromium) ignores mathvariant on <mtext>, and latex2mathml garbles nested text
    # commands: styled words in "$...$" are written as HTML emphasis.
    ("three factors: $\\textit{Training Method}$, and", "<em>Training Method</em>"),
    ("stimuli: $\\textbf{\\textit{Negated Harm}}$, and", "<strong><em>Negated Harm</em></strong>"),
    ("we propose $\\texttt{\\textbf{DReaMAD}}$ ($\\textbf{D}$iverse",
     "<code><strong>DReaMAD</strong></code> (<strong>D</strong>iverse"),
    ("two algorithms $\\mathtt{C\\text{-}SquareCB}$ and", "<code>C-SquareCB</code>"),
    ("rates reaching up to $\\textbf{76}$\\% for", "<strong>76</strong>% for"),
])
def test_text_commands_in_math_become_html_emphasis(abstract, html):
    assert html in html_of(abstract)
    assert "<math" not in html_of(abstract)


@pytest.mark.parametrize(("abstract", "reason"), [
    ("the bound $\\frac{a}}{b$ holds", "its braces are not balanced"),  # both missing and stray
    ("water is $\\ce{H2O}$ here", "latex2mathml does not know \\ce"),
    ("a script $x^$ here", "latex2mathml could not read it"),
    ("a macro $\\def\\a{\\a\\a}\\a$ here", "it uses \\def"),
    ("a code point $\\unicode{x202E}$ here", "it uses \\unicode"),
    ("a tag $x^{<b>}$ here", "it looks like HTML"),
])
def test_math_that_cannot_be_converted_is_shown_as_source(abstract, reason):
    source = abstract.split("$")[1]
    rendered = render_abstract(abstract)
    assert f"<code>${source.replace('<', '&lt;').replace('>', '&gt;')}$</code>" in rendered.html
    assert "<math" not in rendered.html
    assert len(rendered.warnings) == 1 and rendered.warnings[0].endswith(reason), rendered.warnings


def test_converter_output_outside_the_allowlist_is_never_silently_dropped(monkeypatch):
    # nh3 removes an unknown element inside <math> together with its text: such math stays source.
    def convert(source):
        math = Element("math")
        SubElement(SubElement(math, "mrow"), "mglyph").text = "lost"
        return math
    monkeypatch.setattr(mathml_module, "convert_to_element", convert)
    rendered = render_abstract("see $x$ here")
    assert "<code>$x$</code>" in rendered.html
    assert rendered.warnings == ("the math $x$ is shown as source: latex2mathml made a <mglyph> element",)


def test_mathml_attributes_are_filtered():
    html = html_of("a $\\color{red}{x}$ and $\\hspace{9999em}y$ and $\\left(\\frac{1}{2}\\right)$")
    assert "mathcolor" not in html and "9999" not in html
    assert '<mo stretchy="true" fence="true" form="prefix">(</mo>' in html


@pytest.mark.parametrize("text", ["$5 and $10", "costs $5, while $10 buys more", "from $5 to $10.",
                                  "between $3 and $4.50 per hour", "US$5 and US$10", "pay $5 per month$"])
def test_dollar_amounts_stay_text(text):
    rendered = render_abstract(text)
    assert "<math" not in rendered.html and "<code>" not in rendered.html
    assert rendered.text == text and not rendered.warnings


def test_dollar_amount_beside_real_math():
    rendered = render_abstract("costs $5, while $x$ is free")
    assert html_of("costs $5, while $x$ is free") == \
        "<p>costs $5, while <math><mrow><mi>x</mi></mrow></math> is free</p>"
    assert rendered.text == "costs $5, while x is free"


def test_display_math_is_shown_inline():
    assert html_of("so $$x^2$$ holds") == \
        "<p>so <math><mrow><msup><mi>x</mi><mn>2</mn></msup></mrow></math> holds</p>"


# --- LaTeX text ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("abstract", "html", "text"), [
    ("reducing the unsafe rate by 87.5\\% in", "by 87.5% in", "by 87.5% in"),
    ("costs \\$5 and A \\& B", "costs $5 and A &amp; B", "costs $5 and A & B"),
    ("4open.science/LLM\\_exploration and \\#1", "LLM_exploration and #1", "LLM_exploration and #1"),
    ("a \\{set\\} and a literal \\*", "a {set} and a literal *", "a {set} and a literal *"),
    ("G\\\"odel and \\'{e}t\\'e", "Gödel and été", "Gödel and été"),
])
def test_latex_escapes_outside_math_become_the_character(abstract, html, text):
    assert html in render_abstract(abstract).html
    assert text in plain_text(abstract)


@pytest.mark.parametrize(("abstract", "html"), [
    ("this paper presents \\textbf{Liger}, short for \\underline{\\textbf{Li}}nearizing LLMs",
     "this paper presents <strong>Liger</strong>, short for <strong>Li</strong>nearizing LLMs"),
    ("we examine \\textit{logical preference consistency} as",
     "we examine <em>logical preference consistency</em> as"),
    ("an \\emph{important} and {\\em old} and {\\bf bold} style",
     "an <em>important</em> and <em>old</em> and <strong>bold</strong> style"),
    ("the \\texttt{--help} flag", "the <code>--help</code> flag"),
    ("as shown \\cite{smith2020} and in Table~\\ref{tab:1}", "as shown  and in Table "),
    ("written in \\LaTeX{} with \\ldots", "written in LaTeX with …"),
])
def test_latex_text_commands_outside_math(abstract, html):
    assert html_of(abstract) == f"<p>{html}</p>"


def test_dashes_quotes_and_ties():
    dashes = "guaranteed---such that, RLHF --- value, ambiguity -- when, pages 1--3, the --help flag"
    assert html_of(dashes) == \
        "<p>guaranteed—such that, RLHF — value, ambiguity – when, pages 1–3, the --help flag</p>"
    assert html_of("a question: ``Does attention fail?'' and an `incentive set'.") == \
        "<p>a question: “Does attention fail?” and an ‘incentive set’.</p>"
    assert plain_text("to strengthen~(by $12.05\\%$) the") == "to strengthen (by 12.05%) the"


def test_footnote_becomes_a_parenthesis():
    abstract = ("We release the code\\footnote{The code is available at: "
                "\\url{https://github.com/ironartisan/DLP}.} to facilitate future research.")
    rendered = render_abstract(abstract)
    assert rendered.html == ('<p>We release the code (The code is available at: <a href="https://github.com/'
                             'ironartisan/DLP" rel="noopener noreferrer nofollow">https://github.com/ironartisan/DLP'
                             '</a>.) to facilitate future research.</p>')
    assert rendered.text == "We release the code (The code is available at.) to facilitate future research."


# --- no block structure --------------------------------------------------------------------------


@pytest.mark.parametrize("abstract", [
    "# Not a heading, a hash at the start",
    "We find:\n1. the first thing\n2. the second",
    "We find: 1. the first thing 2. the second",
    "Results\n> better than baselines\n- and more\n* and even more\n+ plus",
    "Indented\n\n    not code either",
    "Setext\n===\nheading?\n---",
    "A table | with | pipes\n--- | --- | ---",
    "[a link](https://example.org) and ![an image](https://example.org/x.png) and `code`",
    "<https://example.org> and &amp; and &lt;b&gt;",
])
def test_stray_markup_characters_stay_text(abstract):
    html = render_abstract(abstract).html
    tags = Tags(html)
    assert {tag for tag, _ in tags.elements} <= {"p", "a"}, html
    assert not re.search(r"<(h\d|ol|ul|li|blockquote|pre|img|table|hr)\b", html)
    visible = re.sub(r"\s+", " ", "".join(tags.text))
    for word in re.findall(r"[A-Za-z]{4,}", abstract):
        assert word in visible


def test_less_than_and_ampersand_are_escaped():
    assert html_of("when x<y and p<0.05 (Yang & Chiang, 2024)") == \
        "<p>when x&lt;y and p&lt;0.05 (Yang &amp; Chiang, 2024)</p>"


def test_paragraphs_and_empty_input():
    assert render_abstract("First part.\n\nSecond part.").html == "<p>First part.</p><p>Second part.</p>"
    assert render_abstract("First\nline.").html == "<p>First line.</p>"
    empty = render_module.RenderedAbstract("", "", (), ())
    assert render_abstract("") == render_abstract(" \n\t ") == empty


# --- links -----------------------------------------------------------------------------------------


def test_urls_become_links_with_rel():
    rendered = render_abstract("The code can be found at https://github.com/Optimization-AI/DFT.")
    assert rendered.html == ('<p>The code can be found at <a href="https://github.com/Optimization-AI/DFT" '
                             'rel="noopener noreferrer nofollow">https://github.com/Optimization-AI/DFT</a>.</p>')
    assert rendered.links == (Link("https://github.com/Optimization-AI/DFT", "code", "Code"),)


@pytest.mark.parametrize(("abstract", "link"), [
    ("Code: https://github.com/GaotangLi/JUICE.", Link("https://github.com/GaotangLi/JUICE", "code", "Code")),
    ("Code: https://gitlab.com/group/project", Link("https://gitlab.com/group/project", "code", "Code")),
    ("Weights: https://huggingface.co/org/model", Link("https://huggingface.co/org/model", "code", "Code")),
    ("Data: https://huggingface.co/datasets/org/set", Link("https://huggingface.co/datasets/org/set", "other",
                                                            "huggingface.co")),
    ("Project page: https://guardagent.github.io/",
     Link("https://guardagent.github.io/", "project", "Project page")),
    ("via: https://tum-ai.github.io/number-token-loss/", Link("https://tum-ai.github.io/number-token-loss/",
                                                              "project", "Project page")),
    ("Project page: https://example.org/ours", Link("https://example.org/ours", "project", "Project page")),
    ("See https://www.example.org/paper.", Link("https://www.example.org/paper", "other", "example.org")),
    ("Home is https://github.com/ alone", Link("https://github.com/", "other", "github.com")),
    ("Source code: \\href{https://anonymous.4open.science/r/LLM_exploration-B21F}{LLM\\_exploration-B21F}",
     Link("https://anonymous.4open.science/r/LLM_exploration-B21F", "code", "Code")),
])
def test_links_are_classified(abstract, link):
    assert render_abstract(abstract).links == (link,)


def test_links_are_in_order_without_repeats_and_only_near_words_classify():
    rendered = render_abstract("Project page: https://a.github.io/x and data at https://zenodo.org/r/1, "
                               "code at https://github.com/a/b (also https://github.com/a/b).")
    assert [(x.url, x.kind) for x in rendered.links] == [
        ("https://a.github.io/x", "project"), ("https://zenodo.org/r/1", "other"),
        ("https://github.com/a/b", "code")]
    assert rendered.html.count('<a href="https://github.com/a/b"') == 2


def test_href_keeps_its_label_and_url_without_a_scheme_stays_text():
    rendered = render_abstract("at \\href{https://x.org/a_b}{our *site*} and \\url{gorilla.org/x}")
    assert rendered.html == ('<p>at <a href="https://x.org/a_b" rel="noopener noreferrer nofollow">our '
                             '<em>site</em></a> and gorilla.org/x</p>')
    assert rendered.text == "at our site and gorilla.org/x"
    assert [x.url for x in rendered.links] == ["https://x.org/a_b"]


# --- hostile input -------------------------------------------------------------------------------


@pytest.mark.parametrize(("abstract", "visible"), [
    ("We study <script>alert(1)</script> injection.", "<script>alert(1)</script>"),
    ("An image <img src=x onerror=alert(1)> here.", "<img src=x onerror=alert(1)>"),
    ('A <a href="javascript:alert(1)">link</a> here.', '<a href="javascript:alert(1)">link</a>'),
    ("Close </p><p onclick=alert(1)>it", "</p><p onclick=alert(1)>"),
    ("A <svg onload=alert(1)> and <math><mi xlink:href=javascript:alert(1)>x</mi></math>",
     "<svg onload=alert(1)>"),
    ("Comment <!-- x --> and <![CDATA[ y ]]> and <style>p{}</style>", "<!-- x -->"),
    ("Math $\\text{<img src=x onerror=alert(1)>}$ here.", "<img src=x onerror=alert(1)>"),
    ("**<script>alert(1)</script>** and *<b>x</b>*", "<script>alert(1)</script>"),
    ("See https://example.org/\"onmouseover=\"alert(1) now", '"onmouseover="alert(1)'),
])
def test_raw_html_is_shown_as_text_never_as_markup(abstract, visible):
    rendered = render_abstract(abstract)
    tags = assert_inert(rendered.html)
    # What a reader sees is what was typed: the page escapes it, as the search data keeps it.
    assert visible in "".join(tags.text)
    assert visible in rendered.text


@pytest.mark.parametrize(("abstract", "visible"), [
    ("Math $\\href{javascript:alert(1)}{x}$ here.", "Math x here."),
    ("See \\url{javascript:alert(1)} here.", "See here."),
    ("See \\href{javascript:alert(1)}{click me} here.", "See click me here."),
    ("See \\href{data:text/html;base64,PHNjcmlwdD4=}{this} and \\url{data:text/html,<b>x</b>}.",
     "See this and ."),
    ("See \\href{ JaVaScRiPt:alert(1)}{this} and $\\url{vbscript:x}$ too.", "See this and too."),
])
def test_links_through_latex_keep_only_http(abstract, visible):
    rendered = render_abstract(abstract)
    assert_inert(rendered.html)
    assert "javascript:" not in rendered.html.lower() and "data:" not in rendered.html
    assert "vbscript:" not in rendered.html
    assert rendered.text == visible
    assert rendered.links == ()
    assert rendered.warnings and all("only http and https links are kept" in w for w in rendered.warnings)


def test_hostile_math_falls_back_to_inert_source():
    rendered = render_abstract("a $x^{<script>alert(1)</script>}$ and $\\style{color:red}{x}$ and "
                               "$\\class{evil}{x}$ and $\\htmlId{a}{x}$")
    assert_inert(rendered.html)
    assert rendered.html.count("<code>") == 4 and len(rendered.warnings) == 4


# --- caps ------------------------------------------------------------------------------------------


def test_megabyte_abstract_is_cut_at_a_word_with_a_warning():
    abstract = "word " * 200_000 + "END"
    rendered = render_abstract(abstract)
    assert rendered.warnings == \
        ("the abstract is 1,000,003 characters long; only the first 20,000 are shown",)
    assert len(rendered.text) <= MAX_CHARS + 2 and rendered.text.endswith("word …")
    assert "END" not in rendered.text and plain_text(abstract) == rendered.text


def test_one_enormous_word_is_cut_hard():
    rendered = render_abstract("x" * 50_000)
    assert rendered.text == "x" * MAX_CHARS + " …" and len(rendered.warnings) == 1


def test_long_math_falls_back_with_a_warning():
    rendered = render_abstract("$" + "{" * 5000 + "$")
    assert rendered.html.startswith("<p><code>${{{") and "<math" not in rendered.html
    assert rendered.warnings == ("the math $" + "{" * 40 + "…$ is shown as source: it is 5,000 characters "
                                 "long (the limit is 500)",)


def test_deeply_nested_math_falls_back_with_a_warning():
    rendered = render_abstract("see $" + "{" * 25 + "x" + "}" * 25 + "$ here")
    assert "<code>" in rendered.html and "<math" not in rendered.html
    assert rendered.warnings[0].endswith("its braces are nested 25 deep (the limit is 20)")


def test_deep_braces_outside_math_stay_as_typed():
    rendered = render_abstract("\\textbf{" * 30 + "x" + "}" * 30)
    assert rendered.warnings == ("braces nested deeper than 20 are shown as typed",)
    assert rendered.html.count("<strong>") == 20 and "\\textbf{" * 10 in rendered.html
    assert_inert(rendered.html)


@pytest.mark.parametrize("abstract", [
    "*a " * 10_000, "**a*" * 5_000, "$a" * 10_000, "$$" * 10_000, "\\textbf{" * 7_000, "\\cite{" * 4_000,
    "_a_ b" * 4_000, "*" * 20_000, "a*b_" * 5_000, "https://x.org " * 1_500, "`" * 20_000,
    "``" + "a" * 19_000,
    "\\'" * 10_000, "{" * 20_000, "}" * 20_000, "$x^2$ " * 3_000, "\\href{https://x.org}{" * 2_000,
    "<" * 20_000, "&" * 20_000, "\\" * 20_000, "$\\sqrt" + "\\sqrt" * 90 + "x$",
])
def test_pathological_input_completes_and_stays_inert(abstract):
    rendered = render_abstract(abstract)
    assert_inert(rendered.html)
    assert rendered.text == plain_text(abstract)
    assert nh3.clean(rendered.html, tags=fragment_module._TAGS, attributes=fragment_module._ATTRIBUTES,
                     url_schemes={"http", "https"}, link_rel=fragment_module._REL) == rendered.html


# --- plain text ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("abstract", "text"), [
    ("defend against *adversaries*: malicious", "defend against adversaries: malicious"),
    ("a framework, ***Sim**ulating **I**deal **E**ditor*", "a framework, Simulating Ideal Editor"),
    ("complexity is $O(T^2)$ when $T^{O(K)}$", "complexity is O(T^2) when T^O(K)"),
    ("sentence-level best-of-$N$ to search", "sentence-level best-of-N to search"),
    ("three factors: $\\textit{Training Method}$, and", "three factors: Training Method, and"),
    ("we propose $\\texttt{\\textbf{DReaMAD}}$ ($\\textbf{D}$iverse $\\textbf{Rea}$soning",
     "we propose DReaMAD (Diverse Reasoning"),
    ("regret bounds $\\tilde{\\mathcal{O}}\\big(\\sqrt{KL^*} + K (1 + 1/\\alpha)\\big)$ respectively",
     "regret bounds O(√KL^* + K (1 + 1/α)) respectively"),
    ("a ratio $\\frac{1}{2}$ and $2n - 2$ and $<$$1/4$", "a ratio 1/2 and 2n - 2 and <1/4"),
    ("Project page: https://guardagent.github.io/", "Project page:"),
    ("Project page: https://guardagent.github.io/ and code.", "Project page: and code."),
    ("The code is available at https://github.com/a/b.", "The code is available at."),
    ("(see https://example.org) for more", "(see) for more"),
    ("links (https://example.org) here", "links here"),
    ("\\href{https://x.org}{our site} and 93\\% of \\$5", "our site and 93% of $5"),
    ("an `incentive set' and ``quotes'' and a---b", "an ‘incentive set’ and “quotes” and a—b"),
    ("x<y and <b>bold</b>", "x<y and <b>bold</b>"),
])
def test_plain_text(abstract, text):
    assert plain_text(abstract) == text
    assert render_abstract(abstract).text == text


def test_search_uses_this_plain_text():
    assert search.plain_text is plain_text


# --- the bundled abstracts ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bundled():
    return [(a, render_abstract(a)) for a in bundled_abstracts()]


def test_every_bundled_abstract_renders_without_warnings(bundled):
    assert len(bundled) == 57
    assert [(a[:60], r.warnings) for a, r in bundled if r.warnings] == []


def test_bundled_html_is_balanced_inert_and_stable_under_nh3(bundled):
    for abstract, rendered in bundled:
        tags = assert_inert(rendered.html)
        assert rendered.html.startswith("<p>") and rendered.html.endswith("</p>")
        assert [t for t, _ in tags.elements].count("math") == rendered.html.count("</math>")
        again = nh3.clean(rendered.html, tags=fragment_module._TAGS, attributes=fragment_module._ATTRIBUTES,
                          url_schemes={"http", "https"}, link_rel=fragment_module._REL)
        assert again == rendered.html, abstract[:60]
        assert render_abstract(abstract) == rendered  # deterministic


def test_bundled_text_has_no_markup_left(bundled):
    for abstract, rendered in bundled:
        assert rendered.text == plain_text(abstract)
        assert not re.search(r"[$\\{}`]|\*\*|https?://", rendered.text), rendered.text
        assert "<" not in rendered.text.replace("<1/4", "")


def test_bundled_math_and_emphasis_counts(bundled):
    html = "".join(r.html for _, r in bundled)
    # 63 "$...$" in the sources: 33 are math, 30 are styled words ($\textbf{D}$iverse).
    assert html.count("<math") == 33
    assert (html.count("<em>"), html.count("<strong>"), html.count("<code>")) == (38, 52, 12)
    assert "<code>$" not in html  # no fallback


def test_bundled_links(bundled):
    links = [link for _, r in bundled for link in r.links]
    assert len(links) == 12
    assert {link.kind for link in links} == {"code", "project"}
    assert Link("https://guardagent.github.io/", "project", "Project page") in links
    assert Link("https://github.com/ironartisan/DLP", "code", "Code") in links


# --- reading: tokens are tried only where one may start -------------------------------------------


def test_next_token_finds_what_a_search_finds():
    rng = random.Random(3)
    pieces = ["h", "H", "http", "https://x.org", "HTTP://X.ORG", "://", "\\", "\\em", "\\'", "$", "{", "}",
              "*", "**", "_", "word", " ", "ſ", "é", "~"]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        starts = tokens_module._TOKEN_START if "://" in text else tokens_module._NON_URL_START
        for pos in range(len(text) + 1):
            found = tokens_module._next_token(text, pos, starts)
            searched = tokens_module._TOKEN.search(text, pos)
            assert (found and found.span()) == (searched and searched.span()), (text, pos)


# --- sanitising: nh3 is skipped only where it would change nothing -------------------------------------

# What an HTML parser or sanitiser might treat specially: quotes, entities, markup, script, javascript:
# URLs, NBSP and other spaces, CR, tabs, NUL and other controls, invisible, private and non-characters.
ADVERSARIAL = [
    'a "quoted" \'word\'', "&quot; &amp; &#x27; &#39; &lt;b&gt; &nbsp; &copy &", "AT&T and R&D", "x<y>z",
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "javascript:alert(1)",
    "[x](javascript:alert(1))", "\\href{javascript:alert(1)}{x}", "\\url{javascript:alert(1)}",
    "<a href='javascript:alert(1)'>x</a>", "<p>x</p>", "</p><p>", "<!-- c -->", "<![CDATA[x]]>", "]]>",
    "a\xa0b", "a\u202fb\u3000c\u2007d", "a\rb\r\nc", "a\tb\x0bc\x0cd", "a\x00b", "\x1f\x7f\x85\x9f",
    "\ufeff\u200b\u00ad\u2028\u2029", "\ufdd0\ufffe\uffff\U0010ffff\ue000\U000e0001", "\ufffd",
    "😀 数 é e\u0301 ß", "&#0; &#x0; &#xD800; &#128512;", "*em* and **strong** and `code` and $x^2$",
    "see https://example.org/a?b=c&d=\"e\" now", "x_i and snake_case and 5 $ and 10 $", "{\\em old}",
]


def nh3_clean(fragment: str) -> str:
    """What _clean does with a fragment when it hands it to nh3."""
    return nh3.clean(fragment, tags=fragment_module._TAGS, attributes=fragment_module._ATTRIBUTES,
                     url_schemes={"http", "https"}, link_rel=fragment_module._REL, strip_comments=True)


def fragment_of(abstract: str) -> str:
    """The fragment render_abstract hands to _clean."""
    return fragment_module._fragment(render_module._parse(abstract, [], []), [])


@pytest.fixture(scope="module")
def synthetic() -> list[str]:
    """Abstracts of the benchmarks' synthetic catalog: plain text, as most abstracts are."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from search_index import make_listings

    with tempfile.TemporaryDirectory() as folder:
        make_listings(Path(folder), 300)
        content, _ = read_content(Path(folder))
    return [entry.text for listing in content.listings for entry in listing.entries]


def test_clean_returns_what_nh3_returns_for_escaped_text():
    rng = random.Random(5)
    pieces = ADVERSARIAL + [chr(c) for c in range(0x180)] + ["word", " ", "  ", "\u2028", "\U0001f600"]
    skipped = 0
    for _ in range(3000):
        paragraphs = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 6)))
                      for _ in range(rng.randint(1, 3))]
        fragment = "".join(f"<p>{html.escape(p, quote=False)}</p>" for p in paragraphs)
        cleaned = fragment_module._clean(fragment, len(paragraphs))
        assert cleaned == nh3_clean(fragment), repr(paragraphs)
        skipped += cleaned is fragment
    assert 0 < skipped < 3000  # both ways were taken


def test_clean_hands_any_other_tag_to_nh3():
    for fragment in ["<p>a</p><script>alert(1)</script>", '<p><a href="javascript:alert(1)">x</a></p>',
                     "<p><p>x</p></p>", "<p><b>x</b></p>"]:
        assert fragment_module._clean(fragment, 1) == nh3_clean(fragment)
        assert "<script" not in nh3_clean(fragment) and "javascript" not in nh3_clean(fragment)


def test_rendered_html_is_what_nh3_makes_of_the_fragment(synthetic):
    rng = random.Random(9)
    mixed = [" ".join(rng.choices(ADVERSARIAL, k=4)) + "\n\n" + rng.choice(ADVERSARIAL) for _ in range(300)]
    for abstract in bundled_abstracts() + synthetic + ADVERSARIAL + mixed:
        assert render_abstract(abstract).html == nh3_clean(fragment_of(abstract)), repr(abstract[:80])



def test_ligatures_copied_from_a_pdf_are_spelt_out_so_search_and_keyphrases_find_the_word():
    # Real NeurIPS 2020 text: "implicit collaborative ﬁltering" (U+FB01) is "filtering" to a reader.
    rendered = render_abstract("We study implicit collaborative \ufb01ltering with e\ufb03cient \ufb02ows.")
    assert "collaborative filtering with efficient flows" in rendered.html
    assert "collaborative filtering with efficient flows" in plain_text(rendered.html)
    assert "filtering" in derive_title("We study implicit collaborative \ufb01ltering with e\ufb03cient \ufb02ows.")
