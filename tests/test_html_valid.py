"""Every page is valid HTML, as the Nu Html Checker (vnu.jar, the W3C validator) reads it.

The checker is the npm package vnu-jar, pinned in tests/js/package.json and installed by
`make test-setup`; it runs on Java 11 or later. One JVM checks every site at once (each start costs
seconds): the bundled catalog as GitHub Pages would publish it, and a catalog of hostile abstracts,
so the sanitised abstract HTML (MathML included) is checked too. A canary page with a known error
goes along, so a checker that silently checked nothing cannot pass.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from urllib.parse import urlsplit
from urllib.request import url2pathname

import pytest

from papercat.pipeline import Paths, build
from papercat.text import paper_id
from tests.conftest import ABSTRACT_B, ABSTRACT_C, BUNDLED, ROOT

VNU_JAR = ROOT / "tests" / "js" / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
BASE_URL = "https://example.org/catalog/"

# Untrusted text in every form the abstract renderer handles: raw HTML, Markdown, LaTeX text
# commands, math that converts to MathML and math that falls back to source.
GUARDNET = ("We introduce **GuardNet**, a *robust* reward model for reinforcement learning whose bound "
            "$O(T^{O(K)})$ and $\\tilde{\\mathcal{O}}\\big(\\sqrt{KT} + K/\\alpha\\big)$ hold with "
            "$\\left(\\frac{1}{2}\\right)$, $\\color{red}{x}$, $\\hspace{9999em}y$ and "
            "$\\begin{matrix}a & b \\\\ c & d\\end{matrix}$; code at https://github.com/example/guardnet, "
            "\\href{https://x.org/a_b}{our *site*} and https://example.org/\"onmouseover=\"alert(1) now.")
HOSTILE = (
    ("We propose <script>alert(1)</script> and <img src=x onerror=alert(2)> with "
     "<a href=\"javascript:alert(3)\">a link</a>, $\\text{<img src=y onerror=alert(4)>}$, "
     "$\\href{javascript:alert(5)}{x}$ and [click](javascript:alert(6)) plus data:text/html,evil here."),
    ("Close </p><p onclick=alert(1)>it and a <svg onload=alert(1)> and "
     "<math><mi xlink:href=javascript:alert(1)>x</mi></math> with a comment <!-- x --> and "
     "<![CDATA[ y ]]> and <style>p{}</style> for language model agents."),
    GUARDNET,
    ("Math that fails: $\\frac{a}{$ and $\\ce{H2O}$ and $x^{<script>alert(1)</script>}$ and "
     "$\\style{color:red}{x}$ and $\\class{evil}{x}$ and $\\unicode{x202E}$ for graph neural networks, "
     "87.5\\% better, \\textbf{Liger} \\underline{\\textbf{Li}}nearizing, \\texttt{--help}, G\\\"odel, "
     "``quoted'' text, \\cite{smith2020} and \\ldots"),
)
# Real title, authors and links for one paper, so the citation block is checked too.
OVERRIDES = f"""\
papers:
  {paper_id(GUARDNET)}:
    title: "GuardNet: <script>alert(1)</script> & \\"quotes\\""
    authors: [Ada <b>Lovelace</b>, "O'Brien & Sons"]
    year: 2025
    links:
      - {{label: "Paper <i>", url: "https://openreview.net/forum?id=abc&x=1"}}
      - https://github.com/example/guardnet
"""
SITE_YAML = 'title: "Papers <b>&amp;</b> \\"more\\""\ndescription: "A <script> & \\"quoted\\" catalog"\n'
CANARY = ("<!DOCTYPE html><html lang=\"en\"><head><title>canary</title></head>"
          "<body><p><div>a div may not stand in a paragraph</div></p></body></html>\n")


def _hostile_content(make_content) -> Path:
    content = make_content({
        "evil.txt": "ICML 2025 Papers\n\n" + "\n\n".join(HOSTILE) + "\n",
        "more.txt": f"ICLR 2025 <b>Papers</b>\n\n{HOSTILE[0]}\n\n{ABSTRACT_B}\n\n{ABSTRACT_C}\n",
    }, site=SITE_YAML)
    (content / "papers.yaml").write_text(OVERRIDES, encoding="utf-8")
    return content


def _vnu(paths: list[Path]) -> list[dict]:
    """Run vnu.jar once over ``paths`` and return its error messages."""
    java = shutil.which("java")
    if java is None:
        pytest.fail("java is not on PATH: the HTML check runs the Nu Html Checker (vnu.jar) on Java 11 or "
                    "later; install it (apt-get install default-jre-headless), then run `make test-setup`")
    if not VNU_JAR.is_file():
        pytest.fail(f"{VNU_JAR.relative_to(ROOT)} is missing: run `make test-setup` "
                    "(it installs tests/js/package-lock.json with npm ci)")
    proc = subprocess.run(
        [java, "-jar", str(VNU_JAR), "--errors-only", "--format", "json", "--skip-non-html", "--stdout",
         *map(str, paths)],
        capture_output=True, text=True, encoding="utf-8", timeout=600, check=False)
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        pytest.fail(f"vnu.jar exited {proc.returncode} without a JSON report:\n{proc.stdout[-2000:]}"
                    f"\n{proc.stderr[-2000:]}")
    # exit 1 means "errors found"; anything else is the checker failing
    assert proc.returncode in (0, 1), (proc.returncode, proc.stderr[-2000:])
    return [m for m in report["messages"] if m.get("type") in ("error", "non-document-error")]


def _file(message: dict) -> Path:
    return Path(url2pathname(urlsplit(message.get("url", "")).path))


def _describe(errors: list[dict], folder: Path) -> str:
    lines = []
    for m in errors:
        path = _file(m)
        shown = path.relative_to(folder) if path.is_relative_to(folder) else path
        extract = " ".join(m.get("extract", "").split())
        lines.append(f"{shown}:{m.get('lastLine', '?')}: {m.get('message')}  [{extract}]")
    return f"{len(errors)} HTML error(s) in {folder}:\n" + "\n".join(lines)


@pytest.fixture(scope="module")
def checked(tmp_path_factory) -> dict[str, tuple[Path, list[dict]]]:
    """Build the sites, check them with one run of vnu.jar; name -> (site folder, its errors)."""
    root = tmp_path_factory.mktemp("html")
    sites = {"bundled": root / "bundled", "hostile": root / "hostile", "hostile-local": root / "hostile-local"}
    build(Paths(content=BUNDLED, out=sites["bundled"]), base_url=BASE_URL)

    def make_content(listings, site):
        folder = root / "content"
        (folder / "listings").mkdir(parents=True)
        for name, text in listings.items():
            (folder / "listings" / name).write_text(text, encoding="utf-8")
        shutil.copy(BUNDLED / "topics.yaml", folder / "topics.yaml")
        (folder / "site.yaml").write_text(site, encoding="utf-8")
        return folder

    content = _hostile_content(make_content)
    build(Paths(content=content, out=sites["hostile"]), base_url=BASE_URL)
    build(Paths(content=content, out=sites["hostile-local"]))
    canary = root / "canary" / "canary.html"
    canary.parent.mkdir()
    canary.write_text(CANARY, encoding="utf-8")
    sites["canary"] = canary.parent

    errors = _vnu(list(sites.values()))
    out = {}
    for name, folder in sites.items():
        mine = [m for m in errors if _file(m).is_relative_to(folder)]
        out[name] = (folder, mine)
    unplaced = [m for m in errors if not any(m in found for _, found in out.values())]
    assert not unplaced, _describe(unplaced, root)
    return out


def test_the_checker_runs_and_reports_errors(checked):
    folder, errors = checked["canary"]
    assert [(_file(m).name, m["type"]) for m in errors] == [("canary.html", "error")], _describe(errors, folder)
    assert "“p” end tag" in errors[0]["message"]


def test_the_bundled_site_as_published_is_valid_html(checked):
    folder, errors = checked["bundled"]
    assert len(list(folder.rglob("*.html"))) > 57  # every paper page and more were there to check
    assert not errors, _describe(errors, folder)


@pytest.mark.parametrize("name", ["hostile", "hostile-local"])
def test_hostile_abstracts_render_to_valid_html(checked, name):
    folder, errors = checked[name]
    pages = [p.read_text(encoding="utf-8") for p in (folder / "papers").glob("*.html")]
    assert len(pages) == 6
    # the renderer's output really is on the pages: MathML, emphasis, math shown as source, citation
    assert any("<math" in page and "<strong>GuardNet</strong>" in page for page in pages)
    assert any("<code>$\\ce{H2O}$</code>" in page for page in pages)
    assert any("Lovelace" in page and "@inproceedings" in page for page in pages)
    assert not errors, _describe(errors, folder)
