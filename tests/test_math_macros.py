"""LaTeX as real abstracts write it: a paper's own macros, broken braces, one warning per build."""

from __future__ import annotations

import re

import pytest

from papercat.catalog import make_catalog
from papercat.content.listing import parse_listing
from papercat.enrich.abstract import render_abstract
from papercat.enrich.abstract.macros import _MACROS, _KNOWN, expand_macros, repair_braces
from papercat.enrich.abstract.mathml import _math_html, summarise_math_warnings
from papercat.errors import Problem
from tests.test_abstract import assert_inert, html_of


def rendered_math(abstract: str) -> str:
    """The abstract's HTML, which must hold MathML and no math shown as source."""
    rendered = render_abstract(abstract)
    assert "<math" in rendered.html and "<code>" not in rendered.html, rendered.html
    assert not rendered.warnings, rendered.warnings
    return html_of(abstract)


# --- macros: real examples of each class ---------------------------------------------------------


@pytest.mark.parametrize(("abstract", "inside"), [
    # a table entry
    ("returns an $\\eps$-optimal policy", "<mi>ε</mi>"),
    ("with $\\le O(\\opt_s) + \\eps$ error", "<msub><mo>OPT</mo><mi>s</mi></msub>"),
    ("the ratio $\\nicefrac{3}{2}$ holds", "<mrow><mn>3</mn></mrow><mo>/</mo><mrow><mn>2</mn></mrow>"),
    ("an error of $\\nicefrac12$", "<mn>1</mn></mrow><mo>/</mo><mrow><mn>2</mn>"),
    ("where $2\\ell \\ge \\binom{d}{\\floor{\\frac{d}{2}}}$", 'fence="true" form="prefix">⌊</mo>'),
    ("time $\\bigO{N^2}$ and", "<mi>O</mi><mrow><mo stretchy=\"true\" fence=\"true\" form=\"prefix\">(</mo>"),
    ("time $\\bigO(N)$ and", "<mi>O</mi><mo stretchy=\"false\">(</mo><mi>N</mi>"),
    ("a kernel $k(x,y)=\\dotp{\\varphi(x)}{\\varphi(y)}$", "⟨</mo><mi>φ</mi>"),
    ("a regret of $\\wt O(\\sqrt{T})$", "<mover><mrow><mi>O</mi></mrow><mo>~</mo></mover>"),
    ("a bound $\\Tilde{O}(\\sqrt{T})$", '<mover><mrow><mi>O</mi></mrow><mo stretchy="false">~</mo></mover>'),
    ("a matrix $\\mat{A}$ here", "<mi>𝐀</mi>"),
    ("with $\\ensuremath{\\mathbf{B}}^{\\natural}$", "<msup><mi>𝐁</mi><mrow><mi>♮</mi></mrow></msup>"),
    ("an indicator $\\mathbbm{1}$", "<mn mathvariant=\"double-struck\">1</mn>"),
    ("a norm $\\norm{x}_2$", "‖</mo><mi>x</mi><mo stretchy=\"true\" fence=\"true\" form=\"postfix\">‖"),
    ("valued in $f: 2^V \\rightarrow \\REAL^+$", "<mi>ℝ</mi>"),
    # calligraphic letters
    ("a rate of $\\cO(\\sqrt{T})$", "<mi>𝒪</mi>"),
    ("a rate of $\\calO(1/\\epsilon)$", "<mi>𝒪</mi>"),
    ("with $\\tilde{\\mc{O}}(T^{3/4})$", "<mi>𝒪</mi>"),
    ("actions $i \\in \\cA$", "<mi>𝒜</mi>"),
    # blackboard letters
    ("for $x \\in \\R^d$ we", "<msup><mi>ℝ</mi><mi>d</mi></msup>"),
    ("with $s \\in \\N$", "<mi>ℕ</mi>"),
    ("weights in $\\RR^d$", "<mi>ℝ</mi>"),
    ("the mean $\\bbE[X]$", "<mi>𝔼</mi>"),
    ("over $\\bR^n$", "<mi>ℝ</mi>"),
    ("the risk $\\E_{x}[\\ell(x)]$", "<mi>𝔼</mi>"),
    # bold vectors and matrices, Greek ones too
    ("pairs $(\\bx, y)$", "<mi>𝐱</mi>"),
    ("solve $\\min_\\x \\max_\\y f(\\x,\\y)$", "<msub><mo>min</mo><mrow><mi>𝐱</mi></mrow></msub>"),
    ("with $\\vy=\\vX\\vbeta_{\\star}$", "<mi mathvariant=\"bold-italic\">β</mi>"),
    ("covariance $\\vSigma_w$", "<mi mathvariant=\"bold-italic\">Σ</mi>"),
    ("a mean $\\bmu$", "<mi mathvariant=\"bold-italic\">μ</mi>"),
    ("the design $\\vX^{\\t}\\vX$", "<msup><mi>𝐗</mi><mrow><mo>⊤</mo></mrow></msup>"),
    # the ICLR template's letters, and letters named by their style last
    ("a graph $\\gG = (V, E)$", "<mi>𝒢</mi>"),
    ("a set $\\sX$ of inputs", "<mi>𝕏</mi>"),
    ("a matrix $\\mA \\in \\R^{n \\times n}$", "<mi>𝐀</mi>"),
    ("a covariance $\\mSigma$", "<mi mathvariant=\"bold-italic\">Σ</mi>"),
    ("a random vector $\\rvx$", "<mi>𝐱</mi>"),
    ("the integral $\\int f \\rmd x$", "<mi>f</mi><mi>d</mi><mi>x</mi>"),
    ("a Gaussian $\\Ncal(0, I)$", "<mi>𝒩</mi>"),
    ("the all-ones $\\bone$ and $\\bzero$", "<mn mathvariant=\"bold\">1</mn>"),
    # Greek letters abbreviated
    ("a rate $\\lam > 0$", "<mi>λ</mi>"),
    ("a noise $\\sig^2$", "<msup><mi>σ</mi><mn>2</mn></msup>"),
    ("the matrix $\\Gam$", "<mi>Γ</mi>"),
    # commands dropped with their argument, as outside math
    ("the loss $L(\\theta) \\label{eq:loss}$ is", "<mi>L</mi><mo stretchy=\"false\">(</mo><mi>θ</mi>"),
    # words without an argument: upright operator names
    ("in $\\tilde{O}(\\nnz(A) + n \\cdot \\poly(k/\\epsilon))$ time", "<mo>nnz</mo>"),
    ("in $d^{\\poly(1/\\eps)}$ time", "<mo>poly</mo>"),
    ("the $\\relu$ network", "<mo>relu</mo>"),
    ("our method $\\SURF$ works", "<mo>SURF</mo>"),
])
def test_common_macros_render(abstract, inside):
    html = rendered_math(abstract)
    assert inside in html, html


@pytest.mark.parametrize("abstract", [
    "a norm $\\lVert x \\rVert$", "define $a \\coloneqq b$", "the transpose $x^\\top$", "half $\\tfrac12$",
    "half $\\dfrac{1}{2}$", "the $\\argmin_x f(x)$", "the $\\argmax_a Q(s,a)$",
    "its $\\operatorname{sign}(x)$", "a $\\textrm{loss}$ and $x$", "$\\text{if } x > 0$ holds",
    "a vector $\\bm{x}$", "a $\\boldsymbol{\\theta}$",
    "$\\tilde{O}(\\sqrt{T})$ regret", "$\\widetilde{O}(d)$ regret", "$\\mathcal{O}(n)$ time",
])
def test_commands_latex2mathml_knows_are_left_alone(abstract):
    source = abstract.split("$")[1]
    assert expand_macros(source) == source
    rendered_math(abstract)


def test_macro_table_is_written_in_known_commands_and_uses_each_argument_once():
    # An argument used twice would let nested macros grow exponentially.
    for name, macro in _MACROS.items():
        for expansion in (macro.expansion, macro.alone or ""):
            assert set(re.findall(r"\\[A-Za-z]+", expansion)) <= _KNOWN, name
            for n in range(1, macro.arguments + 1):
                assert expansion.count(f"#{n}") <= 1, name
        assert macro.expansion.count("#") == macro.arguments, name


def test_expanded_math_that_grows_too_long_falls_back():
    html, warning = _math_html("\\x" * 250)
    assert html.startswith("<code>$\\x\\x") and "with its macros expanded it is" in warning


def test_unknown_command_with_an_argument_is_shown_as_source():
    # \ce{H2O} (mhchem) or \B{X}: no rule can tell what the macro does with its argument.
    for source, command in (("\\ce{H2O}", "\\ce"), ("\\B{X} \\in \\R^{d \\times n}", "\\B")):
        html, warning = _math_html(source)
        assert html.startswith("<code>$") and warning.endswith("latex2mathml does not know " + command)


# --- braces --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("abstract", "inside"), [
    ("for ${x_{1}$ we", "<msub><mi>x</mi><mrow><mn>1</mn></mrow></msub>"),
    ("a rate $\\tilde{\\Theta ({\\sqrt{d T}})$ holds", "<mi>Θ</mi>"),
    ("for $x}_1$ we", "<msub><mi>x</mi><mn>1</mn></msub>"),
])
def test_unbalanced_braces_are_repaired_when_the_repair_is_clear(abstract, inside):
    assert inside in rendered_math(abstract)


def test_braces_both_missing_and_stray_are_not_guessed():
    assert repair_braces("\\frac{a}}{b") is None
    rendered = render_abstract("the bound $\\frac{a}}{b$ holds")
    assert "<code>$\\frac{a}}{b$</code>" in rendered.html
    assert rendered.warnings[0].endswith("its braces are not balanced")


def test_escaped_braces_are_not_repaired():
    assert repair_braces("\\{x\\}") == "\\{x\\}"
    assert repair_braces("\\{x") == "\\{x"
    assert repair_braces("{x\\") is None  # the "}" it lacks would be escaped


# --- safety --------------------------------------------------------------------------------------


@pytest.mark.parametrize("source", [
    "\\href{javascript:alert(1)}{x}", "\\url{javascript:alert(1)}",
    "\\mathbbm{\\href{javascript:alert(1)}{x}}",
    "\\nicefrac{\\href{javascript:alert(1)}{x}}{2}", "\\htmlClass{x}{y}", "\\ensuremath{\\htmlId{a}{x}}",
    "\\textsc{<img src=x onerror=alert(1)>}", "\\ensuremath{</math><script>alert(1)</script>}",
    "\\script", "\\onerror", "\\opt<script>alert(1)</script>", "\\norm{a<b} > c",
    "\\ensuremath{\\text{<b>x</b>}}", "\\abs{\\unicode{x202E}}", "\\mc{\\def\\a{\\a\\a}\\a}",
])
def test_macro_expansion_cannot_smuggle_markup_or_links(source):
    html, _ = _math_html(source)
    assert_inert(html)
    assert "href" not in html and "<script" not in html and "<img" not in html and "<b>" not in html
    if "<math" in html:  # the link's target never reaches MathML; as source it is escaped text
        assert "javascript" not in html.lower()


def test_math_shown_as_source_is_escaped():
    rendered = render_abstract("see $\\ce{a&b} < \\foo{x}$ here")
    assert "<code>$\\ce{a&amp;b} &lt; \\foo{x}$</code>" in rendered.html
    assert_inert(rendered.html)


# --- one warning per build -----------------------------------------------------------------------


def listing(text: str, path: str):
    parsed, problems = parse_listing(text.encode("utf-8"), path)
    assert [p for p in problems if not p.warning] == []
    return parsed


def test_many_fallbacks_make_one_warning_naming_the_first():
    abstracts = [f"We study the chemistry of $\\ce{{H{n}O}}$ and $\\ce{{N{n}}}$ in detail with new methods."
                 for n in range(6)]
    text = "ICML 2025 Papers\n\n" + "\n\n".join(abstracts) + "\n"
    _, problems = make_catalog([listing(text, "listings/icml.txt")], ())
    math = [p for p in problems if "math" in p.message]
    assert math == [Problem("listings/icml.txt", 3, "12 math expressions in 6 papers are shown as source; "
                            "the first here, $\\ce{H0O}$, because latex2mathml does not know \\ce; then "
                            "listings/icml.txt:5, listings/icml.txt:7, listings/icml.txt:9, …",
                            warning=True)]
    assert str(math[0]).startswith("listings/icml.txt:3: warning: 12 math expressions in 6 papers")


def test_one_fallback_keeps_its_own_warning_and_other_warnings_stay():
    fallback = Problem("a.txt", 3, "the math $\\ce{x}$ is shown as source: latex2mathml does not know \\ce",
                       warning=True)
    other = Problem("a.txt", 9, "a link to 'javascript:x' was dropped: only http and https links are kept",
                    warning=True)
    assert summarise_math_warnings([fallback, other]) == [fallback, other]
    summary = summarise_math_warnings([fallback, other, Problem("b.txt", 1, fallback.message, True)])
    assert summary == [other, Problem("a.txt", 3, "2 math expressions in 2 papers are shown as source; the "
                                      "first here, $\\ce{x}$, because latex2mathml does not know \\ce; "
                                      "then b.txt:1", True)]
    same_paper = Problem("a.txt", 3, "the math $\\foo{y}$ is shown as source: latex2mathml does not know "
                         "\\foo", warning=True)
    again = summarise_math_warnings([fallback, same_paper])
    assert again[0].message.startswith("2 math expressions in 1 paper are shown as source;")
    assert again[0].message.endswith("because latex2mathml does not know \\ce")
