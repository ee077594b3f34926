"""Fixtures for the site tests: the bundled content built once, served under /catalog/, and Chromium.

Test files load this module as a plugin (``pytest_plugins = ["tests.conftest_browser"]``), so the
session-scoped build and server are shared by every file that uses them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser import launch_chromium, serve

ROOT = Path(__file__).resolve().parent.parent
SUBPATH = "catalog"  # the site is served below /catalog/, never at the server's root


@pytest.fixture(scope="session")
def site_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """An HTTP server on an empty folder; yields (folder, "http://127.0.0.1:PORT/")."""
    root = tmp_path_factory.mktemp("root")
    with serve(root, not_found={f"/{SUBPATH}/": root / SUBPATH / "404.html"}) as base:
        yield root, base


@pytest.fixture(scope="session")
def site_dir(site_server: tuple[Path, str]) -> Path:
    """The bundled content built once into ``<root>/catalog/``, its base URL the served one."""
    from papercat.pipeline import Paths, build

    out = site_server[0] / SUBPATH
    build(Paths(content=ROOT / "content", out=out), base_url=f"{site_server[1]}{SUBPATH}/")
    return out


@pytest.fixture(scope="session")
def site_url(site_server: tuple[Path, str], site_dir: Path) -> str:
    """The URL of the served, built site's folder, e.g. ``http://127.0.0.1:PORT/catalog/``."""
    return f"{site_server[1]}{SUBPATH}/"


@pytest.fixture(scope="session")
def site_papers(site_dir: Path) -> list[dict[str, Any]]:
    """The records of the built site's papers.json, in catalog order."""
    return json.loads((site_dir / "papers.json").read_text(encoding="utf-8"))["papers"]


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """One headless Debian Chromium per test module."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            yield browser
        finally:
            browser.close()
