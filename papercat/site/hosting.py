"""What a static host and crawlers read beside the pages: sitemap.xml, robots.txt, .nojekyll."""

from __future__ import annotations

from . import urls
from .render import Page

# The sitemap protocol's limit per file; a larger site gets a sitemap index and numbered parts.
SITEMAP_URLS = 50_000


def sitemap_pages(page_paths: list[str], limit: int = SITEMAP_URLS) -> list[Page]:
    """Return sitemap.xml listing ``page_paths`` (or an index of parts when there are too many)."""
    if len(page_paths) <= limit:
        return [Page(urls.SITEMAP, "sitemap.xml", {"pages": page_paths}, source="the sitemap")]
    parts = [page_paths[i:i + limit] for i in range(0, len(page_paths), limit)]
    names = [f"sitemap-{n}.xml" for n in range(1, len(parts) + 1)]
    return [Page(urls.SITEMAP, "sitemap.xml", {"sitemaps": names}, source="the sitemap"),
            *(Page(name, "sitemap.xml", {"pages": part}, source="the sitemap")
              for name, part in zip(names, parts))]


def robots_txt(base_url: str | None) -> bytes:
    """Return robots.txt: every page may be crawled; the sitemap's address when it is known."""
    lines = ["# Crawlers read robots.txt only at a host's root; for a site in a sub-folder the host's own applies.",
             "User-agent: *", "Allow: /"]
    if base_url:
        lines.append(f"Sitemap: {urls.absolute(base_url, urls.SITEMAP)}")
    return ("\n".join(lines) + "\n").encode("utf-8")
