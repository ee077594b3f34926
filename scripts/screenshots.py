#!/usr/bin/env python3
"""Save PNG screenshots of a built papercat site with headless Debian Chromium.

    python scripts/screenshots.py --site site --out docs/screenshots

The site is served over HTTP on 127.0.0.1 (an ephemeral port) while the screenshots are taken:
every main page (home, a venue, a paper, search results for "agent", What's new, and the map and
statistics pages when the site has them) in the light and the dark theme (the browser's
prefers-color-scheme), on a desktop (1280x900) and a phone (390x844):
``<page>-<theme>-<device>.png``, e.g. home-dark-phone.png.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import json
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def serve(folder: Path) -> Iterator[str]:
    """Serve ``folder`` on 127.0.0.1 in a background thread; yield its base URL (ending in /)."""
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def pick_pages(site: Path, venue: str | None, paper: str | None) -> dict[str, str]:
    """Return the site-relative path of each page to shoot, from the site's papers.json."""
    records = json.loads((site / "papers.json").read_text(encoding="utf-8"))["papers"]
    if not records:
        raise SystemExit(f"{site}/papers.json: no papers; expected a site built from some listings")
    venue = venue or records[0]["venue_slug"]
    if paper is None:
        paper = next((r["id"] for r in records if r["venue_slug"] == venue), records[0]["id"])
    pages = {"home": "index.html", "venue": f"venues/{venue}.html", "paper": f"papers/{paper}.html",
             "search": "search/index.html?q=agent"}
    for name, rel in pages.items():
        if not (site / rel.split("?")[0]).is_file():
            raise SystemExit(f"{site / rel}: no such page for the {name} screenshot")
    optional = {"new": "new/index.html", "map": "map/index.html", "stats": "stats/index.html"}
    pages.update({name: rel for name, rel in optional.items() if (site / rel).is_file()})
    return pages


def take(site: Path, out: Path, pages: dict[str, str], full_page: bool) -> list[Path]:
    """Shoot every page; return the PNG files written."""
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.exists():
        raise SystemExit("Debian chromium is not installed: run `make test-setup` (apt-get install chromium)")
    out.mkdir(parents=True, exist_ok=True)
    devices = {"desktop": {"viewport": DESKTOP},
               "phone": {"viewport": PHONE, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}}
    shots = [(f"{name}-{theme}-{device}.png", rel, {**options, "color_scheme": theme})
             for name, rel in pages.items() for theme in ("light", "dark") for device, options in devices.items()]
    written = []
    with serve(site) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS,
                                             headless=True)
        try:
            for name, rel, options in shots:
                context = browser.new_context(**options)
                try:
                    page = context.new_page()
                    response = page.goto(base + rel, wait_until="load")
                    if response is None or response.status != 200:
                        raise SystemExit(f"{base + rel}: HTTP {response.status if response else '?'}")
                    if name.startswith("search-"):  # results come from a Web Worker after the load event
                        page.wait_for_selector("#search-results li")
                    page.screenshot(path=str(out / name), full_page=full_page)
                finally:
                    context.close()
                written.append(out / name)
        finally:
            browser.close()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, default=Path("site"), help="the built site (default: site)")
    parser.add_argument("--out", type=Path, default=Path("docs/screenshots"),
                        help="where the PNG files go (default: docs/screenshots)")
    parser.add_argument("--venue", help="venue slug for the venue shots (default: the first paper's venue)")
    parser.add_argument("--paper", help="paper id for the paper shots (default: the venue's first paper)")
    parser.add_argument("--full-page", action="store_true", help="shoot whole pages, not the first screen")
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        parser.error(f"{args.site}: no index.html; build the site first (python build.py build)")
    pages = pick_pages(args.site, args.venue, args.paper)
    for path in take(args.site, args.out, pages, args.full_page):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
