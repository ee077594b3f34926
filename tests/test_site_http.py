"""The built site over HTTP, served below a sub-path: every link works, every page is reachable,
and nothing is fetched from another host.

The bundled content is built once and served from ``<tmp>/root/`` so the site lives at
``/catalog/``; a crawler starts at ``/catalog/index.html`` and follows every href/src it finds.
"""

from __future__ import annotations

import gzip
import http.client
import json
import re
import shutil
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urldefrag, urljoin, urlsplit
from xml.etree import ElementTree

import pytest

from tests.browser import serve

pytest_plugins = ["tests.conftest_browser"]

PAPER_COUNT = 57
MAX_URLS = 5000  # a runaway crawl (e.g. ever-longer ../../ paths) stops here
CSS_URL = re.compile(r"""url\(\s*(['"]?)(.*?)\1\s*\)""", re.IGNORECASE | re.DOTALL)
CSS_IMPORT = re.compile(r"""@import\s+(?:url\(\s*)?['"]?([^'")\s;]+)""", re.IGNORECASE)


# --- the crawler ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ref:
    """One reference found on a page: ``<tag attr="raw">`` resolved against the page's URL."""

    page: str
    tag: str
    attr: str
    raw: str
    url: str  # absolute, fragment kept

    def __str__(self) -> str:
        return f"{self.page}: <{self.tag} {self.attr}={self.raw!r}>"


class PageParser(HTMLParser):
    """Collects every href/src/srcset, every id, every <script> and every inline style."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.refs: list[tuple[str, str, str]] = []  # (tag, attr, raw value)
        self.ids: list[str] = []
        self.scripts: list[str | None] = []  # each <script>'s src, None for an inline script
        self.inline_scripts = 0  # <script> elements with code in them
        self.event_handlers: list[str] = []
        self.styles: list[str] = []  # text of <style> elements and style="" attributes
        self._in_style = False
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self.scripts.append(dict(attrs).get("src"))
            self._in_script = True
        if tag == "style":
            self._in_style = True
        for name, value in attrs:
            if value is None:
                continue
            if name == "id":
                self.ids.append(value)
            elif name in ("href", "src", "poster", "action", "data", "formaction"):
                self.refs.append((tag, name, value))
            elif name in ("srcset", "imagesrcset"):
                for candidate in value.split(","):
                    if candidate.strip():
                        self.refs.append((tag, name, candidate.split()[0]))
            elif name == "style":
                self.styles.append(value)
            elif name.startswith("on"):
                self.event_handlers.append(f"<{tag} {name}>")

    def handle_endtag(self, tag: str) -> None:
        if tag == "style":
            self._in_style = False
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.styles.append(data)
        if self._in_script and data.strip():
            self.inline_scripts += 1


@dataclass
class Response:
    status: int
    content_type: str
    body: bytes
    location: str = ""


@dataclass
class Crawl:
    """What a crawl found: every fetched URL, the parsed HTML pages, the CSS and every reference."""

    start: str
    responses: dict[str, Response] = field(default_factory=dict)
    pages: dict[str, PageParser] = field(default_factory=dict)
    css: dict[str, str] = field(default_factory=dict)
    refs: list[Ref] = field(default_factory=list)

    @property
    def origin(self) -> str:
        parts = urlsplit(self.start)
        return f"{parts.scheme}://{parts.netloc}"

    def is_same_host(self, url: str) -> bool:
        parts = urlsplit(url)
        return parts.scheme in ("http", "https") and f"{parts.scheme}://{parts.netloc}" == self.origin

    def internal_refs(self) -> list[Ref]:
        return [r for r in self.refs if self.is_same_host(r.url)]

    def external_refs(self) -> list[Ref]:
        return [r for r in self.refs if not self.is_same_host(r.url)]


def fetch(url: str) -> Response:
    """GET ``url`` without following redirects (a redirect is a broken link for a static site)."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    try:
        conn.request("GET", parts.path + (f"?{parts.query}" if parts.query else ""))
        resp = conn.getresponse()
        return Response(resp.status, resp.getheader("Content-Type", ""), resp.read(),
                        resp.getheader("Location", ""))
    finally:
        conn.close()


def crawl(start: str, start_status: int = 200) -> Crawl:
    """Fetch ``start`` and, breadth first, every same-host URL referenced by the HTML and CSS.

    ``start_status`` 404 starts from a missing page, to crawl what the site's 404.html links to.
    """
    result = Crawl(start)
    queue = [start]
    seen = {start}
    while queue:
        url = queue.pop(0)
        resp = result.responses[url] = fetch(url)
        if resp.status != (start_status if url == start else 200):
            continue
        found: list[tuple[str, str, str]] = []
        if resp.content_type.startswith("text/html"):
            parser = PageParser()
            parser.feed(resp.body.decode("utf-8"))
            parser.close()
            result.pages[url] = parser
            found = parser.refs
            for style in parser.styles:
                found += [("style", "url", m.group(2)) for m in CSS_URL.finditer(style)]
        elif resp.content_type.startswith("text/css"):
            text = result.css[url] = resp.body.decode("utf-8")
            found = [("css", "url", m.group(2)) for m in CSS_URL.finditer(text)]
            found += [("css", "@import", m.group(1)) for m in CSS_IMPORT.finditer(text)]
        for tag, attr, raw in found:
            ref = Ref(url, tag, attr, raw, urljoin(url, raw.strip()))
            result.refs.append(ref)
            target = urldefrag(ref.url).url
            if result.is_same_host(target) and target not in seen and len(seen) < MAX_URLS:
                seen.add(target)
                queue.append(target)
    return result


def check_crawl(found: Crawl, site_dir: Path, abstract_links: set[str], base: str = "") -> dict[str, list[str]]:
    """Return the problems of a crawl of the site at ``base`` (the start page's folder by default)."""
    base = base or found.start.rsplit("/", 1)[0] + "/"
    base_path = urlsplit(base).path
    problems: dict[str, list[str]] = {k: [] for k in (
        "broken", "outside", "unreachable", "fragment", "external", "script", "css")}

    for ref in found.internal_refs():
        target, fragment = urldefrag(ref.url)
        resp = found.responses.get(target)
        if resp is None:
            problems["broken"].append(f"{ref} -> not fetched (crawl limit reached)")
        elif resp.status != 200 and target != found.start:
            where = f" (Location: {resp.location})" if resp.location else ""
            problems["broken"].append(f"{ref} -> HTTP {resp.status}{where}")
        if not urlsplit(target).path.startswith(base_path):
            problems["outside"].append(f"{ref} -> {urlsplit(target).path} is outside {base_path}")
        if ref.raw.strip().endswith("#") or (fragment == "" and "#" in ref.raw):
            problems["fragment"].append(f"{ref} -> empty fragment")
        elif fragment:
            page = found.pages.get(target)
            if page is None:
                problems["fragment"].append(f"{ref} -> #{fragment} on a page that is not HTML")
            elif unquote(fragment) not in page.ids:
                problems["fragment"].append(f"{ref} -> no element with id={unquote(fragment)!r}")

    for ref in found.external_refs():
        scheme = urlsplit(ref.url).scheme
        if not (ref.tag == "a" and ref.attr == "href" and scheme in ("http", "https")):
            problems["external"].append(f"{ref} -> only <a href> may leave the site, and only to http(s)")
        elif ref.url not in abstract_links:
            problems["external"].append(f"{ref} -> not a link from an abstract")

    # 404.html is reached by a missing URL, not by a link (test_the_404_page_works_at_any_depth)
    on_disk = {base + p.relative_to(site_dir).as_posix() for p in site_dir.rglob("*.html")} - {base + "404.html"}
    problems["unreachable"] = sorted(on_disk - set(found.pages))

    for url, page in found.pages.items():
        # JavaScript only enhances the site: same-origin files under static/, nothing inline
        for src in page.scripts:
            target = urljoin(url, src.strip()) if src is not None else None
            if target is None or not src.strip():
                problems["script"].append(f"{url}: inline <script> element")
            elif not (found.is_same_host(target) and urlsplit(target).path.startswith(base_path + "static/")):
                problems["script"].append(f"{url}: <script src={src!r}> is not under {base_path}static/")
        if page.inline_scripts:
            problems["script"].append(f"{url}: {page.inline_scripts} <script> element(s) with inline code")
        if page.event_handlers:
            problems["script"].append(f"{url}: inline event handlers {page.event_handlers}")
        for style in page.styles:
            if "@import" in style.lower() or re.search(r"url\(\s*['\"]?\s*(?:[a-z]+:|//)", style, re.IGNORECASE):
                problems["css"].append(f"{url}: inline style fetches {style.strip()[:80]!r}")
    for url, text in found.css.items():
        if "@import" in text.lower():
            problems["css"].append(f"{url}: has @import")
        for match in CSS_URL.finditer(text):
            if re.match(r"\s*(?:[a-z][a-z0-9+.-]*:|//)", match.group(2), re.IGNORECASE):
                problems["css"].append(f"{url}: url({match.group(2)}) is not a relative URL")
    return problems


def describe(problems: list[str], limit: int = 20) -> str:
    more = f"\n  ... and {len(problems) - limit} more" if len(problems) > limit else ""
    return "\n  " + "\n  ".join(problems[:limit]) + more


# --- fixtures ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def abstract_links(site_papers: list[dict]) -> set[str]:
    """Every http(s) URL the abstracts contain, as papers.json lists them."""
    links = {link for p in site_papers for link in p["links"]}
    for p in site_papers:
        for link in p["links"]:
            assert link in p["abstract"], f"papers.json: {p['id']}: link {link} is not in its abstract"
    return links


@pytest.fixture(scope="module")
def site(site_url: str) -> Crawl:
    return crawl(site_url + "index.html")


@pytest.fixture(scope="module")
def problems(site: Crawl, site_dir: Path, abstract_links: set[str]) -> dict[str, list[str]]:
    return check_crawl(site, site_dir, abstract_links)


# --- tests ---------------------------------------------------------------------------------------


def test_crawl_covers_the_whole_site(site: Crawl, site_url: str):
    """Sanity: the crawl reached every kind of page and the stylesheet (so the checks below bite)."""
    paths = {u.removeprefix(site_url) for u in site.pages}
    assert {"index.html", "venues/index.html", "topics/index.html",
            "venues/icml-2025.html", "venues/iclr-2025.html"} <= paths
    assert sum(p.startswith("papers/") for p in paths) == PAPER_COUNT
    assert site_url + "static/style.css" in site.css
    assert site_url + "papers.json" in site.responses


def test_no_broken_internal_links_or_assets(problems):
    assert not problems["broken"], "broken internal links or assets:" + describe(problems["broken"])


def test_internal_urls_stay_under_the_sub_path(problems):
    assert not problems["outside"], "links that leave /catalog/:" + describe(problems["outside"])


def test_every_page_is_reachable_from_home(problems):
    assert not problems["unreachable"], ("HTML files on disk that no link from index.html reaches:"
                                         + describe(problems["unreachable"]))


def test_fragment_links_point_at_existing_ids(problems):
    assert not problems["fragment"], "fragment links without a target:" + describe(problems["fragment"])


def test_ids_are_unique_on_every_page(site: Crawl):
    dupes = [f"{url}: id={i!r}" for url, page in site.pages.items()
             for i in sorted({i for i in page.ids if page.ids.count(i) > 1})]
    assert not dupes, "duplicate ids:" + describe(dupes)


def test_no_other_host_except_links_from_abstracts(problems, site: Crawl, abstract_links: set[str]):
    assert not problems["external"], "references to other hosts:" + describe(problems["external"])
    # the allowance is used, and only for what the abstracts hold
    linked = {r.url for r in site.external_refs()}
    assert linked == abstract_links, "every abstract link appears on its paper page"


def test_scripts_are_only_files_under_static(problems):
    assert not problems["script"], ("scripts must be same-origin files under static/, never inline "
                                    "code or event handlers:" + describe(problems["script"]))


def test_css_fetches_nothing_from_elsewhere(problems):
    assert not problems["css"], "CSS that fetches from elsewhere:" + describe(problems["css"])


def test_papers_json(site: Crawl, site_url: str, site_dir: Path):
    resp = site.responses[site_url + "papers.json"]
    assert resp.status == 200
    records = json.loads(resp.body.decode("utf-8"))["papers"]
    assert len(records) == PAPER_COUNT
    assert len({r["id"] for r in records}) == PAPER_COUNT, "paper ids are unique"
    for record in records:
        assert (site_dir / record["url"]).is_file(), f"{record['id']}: {record['url']} is not in the site"
        page = site.responses.get(urljoin(site_url, record["url"]))
        assert page is not None and page.status == 200, f"{record['url']} is not linked or not served"


def test_the_crawler_catches_faults(site_dir: Path, tmp_path: Path, abstract_links: set[str]):
    """Break a copy of the site in several ways; each check must report its fault."""
    copy = tmp_path / "root" / "catalog"
    shutil.copytree(site_dir, copy)
    venues = copy / "venues" / "index.html"
    html = venues.read_text(encoding="utf-8")
    html = html.replace('href="icml-2025.html"', 'href="icml-2026.html"', 1)  # broken link
    html = html.replace("</main>", '<a href="../../outside.html">out</a>'
                                   '<a href="../index.html#nowhere">frag</a>'
                                   '<img src="https://example.org/x.png" alt="">'
                                   '<script>1</script><script src="../papers.json"></script></main>')
    venues.write_text(html, encoding="utf-8")
    (copy / "papers" / "orphan.html").write_text("<!DOCTYPE html><title>x</title>", encoding="utf-8")
    (tmp_path / "root" / "outside.html").write_text("<!DOCTYPE html><title>x</title>", encoding="utf-8")
    css = copy / "static" / "style.css"
    css.write_text('@import url("https://fonts.example/x.css");\n' + css.read_text(encoding="utf-8"))

    with serve(tmp_path / "root") as base:
        found = check_crawl(crawl(base + "catalog/index.html"), copy, abstract_links)
    assert any("icml-2026.html" in p and "404" in p for p in found["broken"]), found["broken"]
    assert any("outside.html" in p for p in found["outside"]), found["outside"]
    assert any("nowhere" in p for p in found["fragment"]), found["fragment"]
    assert any("example.org" in p for p in found["external"]), found["external"]
    assert any("<script>" in p for p in found["script"]), found["script"]
    assert any("papers.json" in p and "static/" in p for p in found["script"]), found["script"]
    assert any("@import" in p for p in found["css"]), found["css"]
    assert any(p.endswith("papers/orphan.html") for p in found["unreachable"]), found["unreachable"]


# --- served at any depth: the 404 page ----------------------------------------------------------


@pytest.mark.parametrize("missing", ["no-such-page.html", "papers/000000000000.html", "a/b/c/d/e/", "venues/x/y"])
def test_the_404_page_works_at_any_depth(site_url: str, site_dir: Path, abstract_links: set[str], missing: str):
    """GitHub Pages answers a missing path with 404.html at that path: its links and assets must work."""
    found = crawl(site_url + missing, start_status=404)
    start = found.responses[site_url + missing]
    assert start.status == 404 and start.content_type.startswith("text/html")
    page = found.pages[site_url + missing]
    assert ("link", "href", "/catalog/static/style.css") in page.refs
    assert ("form", "action", "/catalog/search/index.html") in page.refs
    problems = check_crawl(found, site_dir, abstract_links, base=site_url)
    for kind in ("broken", "outside", "fragment", "external", "script", "css"):
        assert not problems[kind], f"{kind} from 404.html at /{missing}:" + describe(problems[kind])
    assert site_url + "index.html" in found.pages and site_url + "search/index.html" in found.pages
    assert sum(u.startswith(site_url + "papers/") and u != site_url + missing for u in found.pages) == PAPER_COUNT


# --- what hosts and crawlers read -----------------------------------------------------------------

SITEMAP_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
ATOM = "{http://www.w3.org/2005/Atom}"


def test_sitemap_lists_every_page_by_its_absolute_url(site: Crawl, site_url: str, site_dir: Path):
    resp = fetch(site_url + "sitemap.xml")
    assert resp.status == 200
    root = ElementTree.fromstring(resp.body)
    assert root.tag == SITEMAP_NS + "urlset"
    locs = [loc.text for loc in root.iter(SITEMAP_NS + "loc")]
    assert len(locs) == len(set(locs))
    assert all(loc.startswith(site_url) for loc in locs), "sitemap URLs are absolute under the base URL"
    pages = {p.relative_to(site_dir).as_posix() for p in site_dir.rglob("*.html")} - {"404.html"}
    # a folder's index.html is listed as the folder, the URL people share
    listed = {loc.removeprefix(site_url) for loc in locs}
    assert listed == {p.removesuffix("index.html") for p in pages}
    for loc in locs:
        assert fetch(loc).status == 200, loc


def test_robots_txt_and_nojekyll(site_url: str, site_dir: Path):
    robots = fetch(site_url + "robots.txt")
    assert robots.status == 200
    assert f"Sitemap: {site_url}sitemap.xml" in robots.body.decode().splitlines()
    assert (site_dir / ".nojekyll").is_file()


def feed_paths(site_dir: Path) -> list[str]:
    return sorted(p.relative_to(site_dir).as_posix() for p in (site_dir / "feeds").rglob("*.xml"))


def test_a_feed_per_catalog_venue_and_topic(site_dir: Path, site_papers: list[dict]):
    venues = {p["venue_slug"] for p in site_papers}
    topics = {t for p in site_papers for t in p["topics"]}
    assert feed_paths(site_dir) == sorted(["feeds/all.xml", *(f"feeds/venues/{v}.xml" for v in venues),
                                           *(f"feeds/topics/{t}.xml" for t in topics)])


def test_feeds_are_atom_with_absolute_urls_that_work(site_url: str, site_dir: Path, site_papers: list[dict]):
    by_url = {site_url + p["url"]: p for p in site_papers}
    for path in feed_paths(site_dir):
        resp = fetch(site_url + path)
        assert resp.status == 200 and "xml" in resp.content_type, path
        feed = ElementTree.fromstring(resp.body)
        assert feed.tag == ATOM + "feed"
        self_link = feed.find(f"{ATOM}link[@rel='self']")
        assert self_link is not None and self_link.get("href") == site_url + path
        assert feed.findtext(ATOM + "id") == site_url + path
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", feed.findtext(ATOM + "updated") or "")
        entries = feed.findall(ATOM + "entry")
        assert entries, f"{path} has no entries"
        urls_ = [e.find(f"{ATOM}link[@rel='alternate']").get("href") for e in entries]
        assert len(set(urls_)) == len(urls_)
        for entry, url in zip(entries, urls_):
            assert url in by_url, f"{path}: {url} is not a paper of the catalog under {site_url}"
            assert entry.findtext(ATOM + "id") == url
            assert entry.findtext(ATOM + "title") == by_url[url]["title"]
            assert by_url[url]["text"] in entry.findtext(ATOM + "summary")
            assert entry.findtext(ATOM + "updated") <= feed.findtext(ATOM + "updated")
        if path.startswith("feeds/venues/"):
            slug = path.rsplit("/", 1)[1].removesuffix(".xml")
            assert all(slug in by_url[u]["venues"] for u in urls_)
    whole = ElementTree.fromstring(fetch(site_url + "feeds/all.xml").body)
    assert len(whole.findall(ATOM + "entry")) == len(site_papers)


def test_a_site_at_a_domain_root_works_and_so_does_its_404(small_content: Path, tmp_path: Path):
    """A custom domain serves the site at "/": its links, sitemap and 404 page work there too."""
    from papercat.pipeline import Paths, build

    site = tmp_path / "site"
    with serve(site, not_found={"/": site / "404.html"}) as base:
        build(Paths(content=small_content, out=site), base_url=base)
        home = crawl(base + "index.html")
        problems = check_crawl(home, site, set())
        missing = crawl(base + "deep/missing/page.html", start_status=404)
        from_404 = check_crawl(missing, site, set(), base=base)
        sitemap = ElementTree.fromstring(fetch(base + "sitemap.xml").body)
    for kind in ("broken", "outside", "unreachable", "fragment", "external"):
        assert not problems[kind], kind + describe(problems[kind])
        if kind != "unreachable":
            assert not from_404[kind], f"{kind} from 404.html:" + describe(from_404[kind])
    assert base + "index.html" in missing.pages
    assert ("link", "href", "/static/style.css") in missing.pages[base + "deep/missing/page.html"].refs
    assert {loc.text for loc in sitemap.iter(SITEMAP_NS + "loc")} >= {base, base + "venues/"}


# --- page weight ----------------------------------------------------------------------------------

PAGE_BUDGET = 30_000  # bytes, gzip: a paper page's HTML and CSS before search is used


def test_every_paper_page_and_its_css_weigh_under_30_kb_gzip(site: Crawl, site_url: str):
    css = sum(len(gzip.compress(r.body, 9)) for u, r in site.responses.items() if r.content_type.startswith("text/css"))
    papers = {u: r for u, r in site.responses.items() if u.startswith(site_url + "papers/") and u.endswith(".html")}
    assert len(papers) == PAPER_COUNT
    heaviest = max(papers, key=lambda u: len(gzip.compress(papers[u].body, 9)))
    weight = len(gzip.compress(papers[heaviest].body, 9)) + css
    assert weight < PAGE_BUDGET, f"{heaviest}: {weight} bytes gzip with the CSS; budget {PAGE_BUDGET}"
