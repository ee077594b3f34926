"""Shared helpers for the site tests: a quiet local HTTP server and Debian Chromium via Playwright.

Not a test file. The pytest fixtures built on these live in ``tests/conftest_browser.py``.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# An init script (context.add_init_script) that records every Content-Security-Policy violation of
# a page in window.__violations; read it with csp_violations(page).
RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener('securitypolicyviolation',
  e => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
"""
MISSING_CHROMIUM = "Debian chromium is not installed: run `make test-setup` (apt-get install chromium)"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serve files without logging every request to stderr; a missing file gets the site's 404.html."""

    not_found: ClassVar[dict[str, Path]] = {}  # URL path prefix -> the 404.html served below it

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        # As GitHub Pages does: a missing path below a site is answered with that site's 404.html.
        page = next((page for prefix, page in self.not_found.items() if self.path.startswith(prefix)), None)
        if code != 404 or page is None or not page.is_file():
            super().send_error(code, message, explain)
            return
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


@contextlib.contextmanager
def serve(folder: str | Path, not_found: dict[str, Path] | None = None) -> Iterator[str]:
    """Serve ``folder`` on 127.0.0.1 (ephemeral port) in a background thread; yield the base URL.

    The URL ends with ``/``, e.g. ``http://127.0.0.1:41234/``. ``not_found`` maps URL path prefixes
    ("/catalog/") to the 404 page served for missing files below them.
    """
    handler_class = type("Handler", (_QuietHandler,), {"not_found": dict(not_found or {})})
    handler = functools.partial(handler_class, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name=f"serve {folder}", daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]
        yield f"http://{host}:{port}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def launch_chromium(playwright: Any, **options: Any) -> Any:
    """Launch headless Debian Chromium (never a Playwright-downloaded browser).

    Fails the test, never skips it, when /usr/bin/chromium is missing.
    """
    if not CHROMIUM.exists():
        pytest.fail(MISSING_CHROMIUM, pytrace=False)
    return playwright.chromium.launch(
        executable_path=str(CHROMIUM),
        args=list(CHROMIUM_ARGS),
        headless=True,
        **options,
    )


def csp_violations(page: Any) -> list[str]:
    """Return the CSP violations RECORD_VIOLATIONS has seen on ``page`` ("directive blocked-URI")."""
    return page.evaluate("window.__violations")
