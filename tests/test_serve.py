"""`serve`: the preview server in-process (files, types, traversal, events), then `build.py serve` itself."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from papercat.cli import main
from papercat.serve import PreviewServer, Site, add_reload_script, resolve
from tests.conftest import ABSTRACT_A

pytest_plugins = ["tests.conftest_browser"]

ROOT = Path(__file__).resolve().parent.parent
BASE_URL = "https://example.org/catalog/"
PREFIX = "/catalog/"
WAIT = 30  # seconds: the most any wait below may take; none is a fixed sleep
ABSTRACT_D = ("We introduce TideNet, a recurrent forecasting model that predicts coastal water levels "
              "from sparse tide gauge readings and satellite altimetry.")
ABSTRACT_E = ("We present a benchmark of long-horizon household tasks for embodied agents and find that "
              "planning with learned world models beats reactive policies.")
RELOAD_TAG = f'<script defer src="{PREFIX}__papercat__/reload.js"'


def wait_until(condition: Callable[[], Any], what: str, timeout: float = WAIT) -> Any:
    """Poll ``condition`` until it returns something truthy; fail naming ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting for {what} after {timeout}s")
        time.sleep(0.05)


def port_of(url: str) -> int:
    return int(url.split("://", 1)[1].split("/", 1)[0].split(":")[1])


def fetch(base: str, path: str, method: str = "GET") -> tuple[int, dict[str, str], bytes]:
    """Send ``path`` as it is (no normalising of "..", no re-encoding) and return status, headers, body."""
    conn = http.client.HTTPConnection("127.0.0.1", port_of(base), timeout=WAIT)
    try:
        conn.request(method, path)
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


# --- the server in-process, on a hand-made build folder ---------------------------------------------

@pytest.fixture
def build_folder(tmp_path: Path) -> Path:
    """A fake build with a page, a 404 page, a folder without index.html, and a secret beside it."""
    site = tmp_path / "serve" / "build-1"
    for rel, text in {
        "index.html": "<!DOCTYPE html><html><head><title>Home</title></head><body>home</body></html>",
        "404.html": "<!DOCTYPE html><html><head><title>Not found</title></head><body>missing</body></html>",
        "venues/index.html": "<html><head></head><body>venues</body></html>",
        "static/style.css": "body{}",
        "static/search.js": "1;",
        "papers.json": "{}",
        "sitemap.xml": "<urlset/>",
        "static/logo.svg": "<svg xmlns='http://www.w3.org/2000/svg'/>",
        "static/logo.png": "png",
    }.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(text, encoding="utf-8")
    (tmp_path / "serve" / "secret.txt").write_text("TOP SECRET", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("TOP SECRET", encoding="utf-8")
    (site / "static" / "link.txt").symlink_to(tmp_path / "secret.txt")
    return site


@pytest.fixture
def server(build_folder: Path) -> Iterator[PreviewServer]:
    srv = PreviewServer(0, PREFIX)
    srv.site = Site(build_folder)
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield srv
    finally:
        srv.site.close()
        srv.shutdown()
        srv.server_close()
        thread.join(timeout=5)


def test_serves_pages_below_the_base_path_with_the_reload_script(server, build_folder):
    status, headers, body = fetch(server.url, PREFIX)
    assert status == 200
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert headers["cache-control"] == "no-store"
    assert body.index(RELOAD_TAG.encode()) < body.index(b"</head>")
    assert b"__papercat__" not in (build_folder / "index.html").read_bytes()
    assert fetch(server.url, PREFIX, "HEAD")[2] == b""


@pytest.mark.parametrize("path, expected", [
    ("static/style.css", "text/css; charset=utf-8"),
    ("static/search.js", "text/javascript; charset=utf-8"),
    ("__papercat__/reload.js", "text/javascript; charset=utf-8"),
    ("papers.json", "application/json"),
    ("sitemap.xml", "application/xml"),
    ("static/logo.svg", "image/svg+xml"),
    ("static/logo.png", "image/png"),
    ("venues/", "text/html; charset=utf-8"),
])
def test_content_types(server, path, expected):
    status, headers, _ = fetch(server.url, PREFIX + path)
    assert (status, headers["content-type"]) == (200, expected)


@pytest.mark.parametrize("path, location", [
    ("/", PREFIX),
    ("/catalog", PREFIX),
    ("/elsewhere/index.html", PREFIX),
    ("/catalog/venues", "/catalog/venues/"),
])
def test_redirects(server, path, location):
    status, headers, _ = fetch(server.url, path)
    assert (status, headers["location"]) == (302, location)


def test_unknown_path_gets_the_404_page_with_status_404(server):
    status, headers, body = fetch(server.url, PREFIX + "papers/nope.html")
    assert status == 404
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert b"missing" in body and RELOAD_TAG.encode() in body


def test_plain_404_without_a_404_page_and_no_directory_listing(server, build_folder):
    (build_folder / "404.html").unlink()
    status, headers, body = fetch(server.url, PREFIX + "nope.html")
    assert (status, headers["content-type"]) == (404, "text/plain; charset=utf-8")
    status, _, body = fetch(server.url, PREFIX + "static/")
    assert status == 404 and b"style.css" not in body


@pytest.mark.parametrize("path", [
    "/catalog/../secret.txt",
    "/catalog/../../secret.txt",
    "/catalog/%2e%2e/secret.txt",
    "/catalog/%2e%2e/%2e%2e/secret.txt",
    "/catalog/%2E%2E%2Fsecret.txt",
    "/catalog/..%2f..%2fsecret.txt",
    "/catalog/static/../../secret.txt",
    "/catalog/..\\secret.txt",
    "/catalog/static/link.txt",  # a symlink out of the build
    "/catalog/../../../../../../etc/passwd",
    "/catalog/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
])
def test_no_path_escapes_the_build_folder(server, path):
    status, _, body = fetch(server.url, path)
    assert status in (302, 404)
    assert b"TOP SECRET" not in body and b"root:" not in body


def test_resolve_keeps_inside_the_root(build_folder):
    assert resolve(build_folder, "venues/index.html") == (build_folder / "venues/index.html").resolve()
    assert resolve(build_folder, "") == build_folder.resolve()
    assert resolve(build_folder, "../secret.txt") is None
    assert resolve(build_folder, "static/link.txt") is None


def test_reload_script_goes_before_head_end_or_at_the_end():
    assert add_reload_script(b"<head><title>x</title></HEAD >", "/r/", "b-1") == (
        b'<head><title>x</title><script defer src="/r/__papercat__/reload.js" data-build="b-1"></script>\n'
        b"</HEAD >")
    assert add_reload_script(b"<p>no head</p>", "/", "b-1").startswith(b"<p>no head</p><script defer")


def test_events_stream_sends_reload_when_a_new_build_is_published(server, build_folder):
    site = server.site
    conn = http.client.HTTPConnection("127.0.0.1", port_of(server.url), timeout=WAIT)
    try:
        conn.request("GET", f"{PREFIX}__papercat__/events?build={site.build_id}")
        resp = conn.getresponse()
        assert (resp.status, resp.getheader("Content-Type")) == (200, "text/event-stream")
        assert resp.fp.readline() == b"retry: 1000\n"
        site.publish(build_folder)
        lines = [resp.fp.readline() for _ in range(3)]
        assert lines[1:] == [b"event: reload\n", f"data: {site.build_id}\n".encode()]
    finally:
        conn.close()


def test_a_page_from_an_older_build_reloads_at_once(server):
    conn = http.client.HTTPConnection("127.0.0.1", port_of(server.url), timeout=WAIT)
    try:
        conn.request("GET", f"{PREFIX}__papercat__/events?build=from-another-run")
        resp = conn.getresponse()
        assert [resp.fp.readline() for _ in range(3)] == [
            b"retry: 1000\n", b"\n", b"event: reload\n"]
    finally:
        conn.close()


def test_shutdown_does_not_wait_for_open_event_streams(build_folder):
    srv = PreviewServer(0, PREFIX)
    srv.site = Site(build_folder)
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    conn = http.client.HTTPConnection("127.0.0.1", srv.server_port, timeout=WAIT)
    conn.request("GET", f"{PREFIX}__papercat__/events?build={srv.site.build_id}")
    assert conn.getresponse().fp.readline() == b"retry: 1000\n"

    def stop() -> None:
        srv.site.close()
        srv.shutdown()
        srv.server_close()

    stopper = threading.Thread(target=stop, daemon=True)
    stopper.start()
    stopper.join(timeout=WAIT)
    conn.close()
    assert not stopper.is_alive(), "shutdown hung on an open event stream"


# --- `python build.py serve` end to end --------------------------------------------------------------

def _default_sigint() -> None:
    # A job started in the background by a shell ignores SIGINT, and so would serve: undo that, so
    # the test's Ctrl+C reaches it however the suite was started.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Served:
    """`build.py serve` in a subprocess; its output lines are collected as they come."""

    def __init__(self, content: Path, workdir: Path) -> None:
        self.tmpdir = workdir / "tmp"
        self.tmpdir.mkdir()
        env = {**os.environ, "TMPDIR": str(self.tmpdir), "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            [sys.executable, str(ROOT / "build.py"), "serve", "--content", str(content), "--port", "0",
             "--base-url", BASE_URL],
            cwd=workdir, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, encoding="utf-8", preexec_fn=_default_sigint)  # noqa: PLW1509 - only resets a signal
        self.out: list[str] = []
        self.err: list[str] = []
        for stream, lines in ((self.process.stdout, self.out), (self.process.stderr, self.err)):
            threading.Thread(target=self._collect, args=(stream, lines), daemon=True).start()
        line = wait_until(lambda: next((x for x in self.out if x.startswith("Serving ")), None)
                          or self.process.poll() is not None and "exited", "the Serving line")
        assert line != "exited", f"serve exited {self.process.returncode}: {''.join(self.err)}"
        self.url = line.split()[1]

    @staticmethod
    def _collect(stream: Any, lines: list[str]) -> None:
        for line in stream:
            lines.append(line)  # noqa: PERF402 - each line is seen as soon as it is read

    def papers(self) -> list[dict[str, Any]]:
        status, _, body = fetch(self.url, PREFIX + "papers.json")
        assert status == 200
        return json.loads(body)["papers"]

    def stop(self) -> int:
        """Press Ctrl+C and return the exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=WAIT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


@pytest.fixture
def served(small_content: Path, tmp_path: Path) -> Iterator[Served]:
    server = Served(small_content, tmp_path)
    try:
        yield server
    finally:
        server.stop()


def append_abstract(content: Path, abstract: str = ABSTRACT_D) -> None:
    listing = content / "listings" / "a.txt"
    listing.write_text(listing.read_text(encoding="utf-8") + f"\n{abstract}\n", encoding="utf-8")


def test_serve_builds_serves_under_the_configured_path_and_stops_on_ctrl_c(served):
    assert served.url.startswith("http://127.0.0.1:") and served.url.endswith(PREFIX)
    status, headers, body = fetch(served.url, PREFIX)
    assert status == 200 and RELOAD_TAG.encode() in body
    on_disk = list(served.tmpdir.glob("papercat-serve-*/build-*/index.html"))
    assert on_disk and all(b"__papercat__" not in page.read_bytes() for page in on_disk)
    status, headers, _ = fetch(served.url, "/")
    assert (status, headers["location"]) == (302, PREFIX)
    assert fetch(served.url, PREFIX + "no/such/page.html")[0] == 404
    for path in ("/catalog/../../../../../../../../etc/passwd", "/catalog/%2e%2e/%2e%2e/%2e%2e/etc/passwd"):
        status, _, body = fetch(served.url, path)
        assert status != 200 and b"root:" not in body
    assert len(served.papers()) == 3

    conn = http.client.HTTPConnection("127.0.0.1", port_of(served.url), timeout=WAIT)
    conn.request("GET", f"{PREFIX}__papercat__/events?build=x")  # an open page's event stream
    try:
        conn.getresponse()
        assert served.stop() == 0  # Ctrl+C
    finally:
        conn.close()
    assert served.out[-1].strip() == "Stopped."
    assert not list(served.tmpdir.glob("papercat-serve-*"))


def test_a_change_to_a_listing_shows_up_in_the_served_site(served, small_content):
    append_abstract(small_content)
    wait_until(lambda: len(served.papers()) == 4, "the fourth paper in papers.json")
    assert ABSTRACT_D in {p["abstract"] for p in served.papers()}
    wait_until(lambda: any("a.txt changed: rebuilt 4 papers" in x for x in served.out), "the rebuild line")

    new_listing = small_content / "listings" / "d.txt"
    new_listing.write_text(f"NeurIPS 2024 Papers\n\n{ABSTRACT_E}\n", encoding="utf-8")
    wait_until(lambda: any("d.txt changed: rebuilt 5 papers" in x for x in served.out), "the second rebuild")
    # A preview writes nothing into the content folder (history.yaml is for published builds),
    # so there is one rebuild per edit, no more.
    rebuilds = [x for x in served.out if " changed: " in x]
    assert len(rebuilds) == 2, "".join(served.out)
    assert not (small_content / "history.yaml").exists()
    # three builds so far: the served one and the one before it are kept
    assert len(list(served.tmpdir.glob("papercat-serve-*/build-*"))) == 2


def test_a_failed_rebuild_keeps_the_last_good_site(served, small_content):
    broken = small_content / "listings" / "c.txt"
    broken.write_text(f"{ABSTRACT_D}\n\n{ABSTRACT_A}\n", encoding="utf-8")
    wait_until(lambda: any("keeping the last good site" in line for line in served.err), "the failure")
    assert any("c.txt:1: no venue header" in line for line in served.err), "".join(served.err)
    assert served.process.poll() is None
    status, _, body = fetch(served.url, PREFIX)
    assert status == 200 and RELOAD_TAG.encode() in body
    assert len(served.papers()) == 3

    broken.write_text(f"NeurIPS 2024 Papers\n\n{ABSTRACT_D}\n", encoding="utf-8")
    wait_until(lambda: len(served.papers()) == 4, "the fixed listing's paper")
    assert ABSTRACT_D in {p["abstract"] for p in served.papers()}
    # The site is written before the summary line is printed: wait for the line too.
    wait_until(lambda: any("c.txt changed: rebuilt 4 papers, 3 venues" in x for x in served.out),
               "the summary line of the rebuild")


CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", (e) => {
  console.error("CSP violation: " + e.violatedDirective + " " + e.blockedURI);
});
"""


@pytest.mark.browser
def test_an_open_page_reloads_by_itself_after_a_change(served, small_content, chromium):
    context = chromium.new_context()
    try:
        page = context.new_page()
        page.add_init_script(CSP_LISTENER)
        errors: list[str] = []
        page.on("console", lambda msg: msg.type == "error" and errors.append(msg.text))
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        assert page.goto(served.url + "venues/icml-2025.html").status == 200
        assert "TideNet" not in page.inner_text("main")
        page.evaluate("window.beforeTheChange = true")
        with page.expect_event("load", timeout=WAIT * 1000):
            append_abstract(small_content)
        assert "TideNet" in page.inner_text("main")
        assert page.evaluate("window.beforeTheChange") is None
        assert errors == []
    finally:
        context.close()


# --- what `serve` says when it cannot start ----------------------------------------------------------

def test_a_port_in_use_is_an_error(small_content, tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(main, ["serve", "--content", str(small_content), "--port", str(port)])
    assert result.exit_code == 1
    assert f"Error: 127.0.0.1:{port}: " in result.output
    assert "expected a free port: choose another --port, or --port 0 for any free one" in result.output
    assert not list(tmp_path.glob("papercat-serve-*"))


def test_a_failed_first_build_is_an_error(make_content, tmp_path, monkeypatch):
    content = make_content({"a.txt": f"{ABSTRACT_A}\n"})
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    result = CliRunner().invoke(main, ["serve", "--content", str(content), "--port", "0"])
    assert result.exit_code == 1
    assert "a.txt:1: no venue header" in result.output
    assert "Serving" not in result.output
    assert not list(tmp_path.glob("papercat-serve-*"))
