"""The preview server: build into a temporary folder, serve it on 127.0.0.1, rebuild on change.

Pages are served as built, except that HTML responses get one ``<script src>`` for reload.js (never
inline, so the pages' Content-Security-Policy holds); the files on disk stay as a real build writes
them. A rebuild goes into a fresh folder and is served only once it has succeeded.
"""

from __future__ import annotations

import datetime
import html
import http.server
import importlib.resources
import mimetypes
import re
import shutil
import signal
import sys
import tempfile
import threading
import traceback
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

import click
import watchfiles

from .content.config import load_site_config
from .errors import CatalogError, StrictWarnings
from .content.listing import display_path
from .pipeline import Paths, Result, build
from .site.urls import base_path

HOST = "127.0.0.1"
SPECIAL = "__papercat__/"  # the server's own files, below the base path
READY_MS = 200  # how soon the watcher reports that it is listening
DEBOUNCE_MS = 200  # an editor's save is often several writes: wait this long for the last one
KEEPALIVE_SECONDS = 15  # an idle event stream sends a comment this often to notice closed pages
KEPT_BUILDS = 2  # the served build and the one before it, for requests still reading from it
NOT_FOUND_PAGE = "404.html"

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".xml": "application/xml",
    ".txt": "text/plain; charset=utf-8",
    ".bib": "text/plain; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".ico": "image/x-icon",
    ".woff2": "font/woff2",
    ".webmanifest": "application/manifest+json",
}
_HEAD_END = re.compile(rb"</head\s*>", re.IGNORECASE)


class Site:
    """The build being served; event streams wait on it for the next one."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.number = 1
        # A new token per server, so a page from an earlier run of `serve` reloads on reconnect too.
        self.token = uuid.uuid4().hex[:8]
        self.closing = False
        self.changed = threading.Condition()

    @property
    def build_id(self) -> str:
        return f"{self.token}-{self.number}"

    def publish(self, root: Path) -> None:
        """Serve the build in ``root`` from now on and tell every open page to reload."""
        with self.changed:
            self.root = root
            self.number += 1
            self.changed.notify_all()

    def wait_for_build(self, seen: str, timeout: float) -> str | None:
        """Return the build id once it differs from ``seen`` or ``timeout`` passes; None when closing."""
        with self.changed:
            self.changed.wait_for(lambda: self.closing or self.build_id != seen, timeout)
            return None if self.closing else self.build_id

    def close(self) -> None:
        """Release every waiting event stream."""
        with self.changed:
            self.closing = True
            self.changed.notify_all()


class PreviewServer(http.server.ThreadingHTTPServer):
    """Serves ``site`` below ``prefix`` (a base path like "/repo/") on 127.0.0.1 only."""

    daemon_threads = True  # an open event stream must not hold up Ctrl+C

    def __init__(self, port: int, prefix: str) -> None:
        super().__init__((HOST, port), PreviewHandler)
        self.prefix = prefix
        self.site: Site | None = None
        self.reload_js = importlib.resources.files(__package__).joinpath("reload.js").read_bytes()

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.server_port}{self.prefix}"


class PreviewHandler(http.server.BaseHTTPRequestHandler):
    """GET and HEAD of the served build's files, reload.js and the reload event stream."""

    server: PreviewServer
    server_version = "papercat-serve"

    def do_GET(self) -> None:
        self.respond(body=True)

    def do_HEAD(self) -> None:
        self.respond(body=False)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the terminal is for build results, not for every request

    def respond(self, body: bool) -> None:
        site, prefix = self.server.site, unquote(self.server.prefix)
        parts = urlsplit(self.path)
        path = unquote(parts.path, errors="replace")
        if site is None:
            return self.send(503, b"The first build has not finished.\n", CONTENT_TYPES[".txt"], body)
        if not path.startswith(prefix):
            return self.redirect(prefix)
        rel = path[len(prefix):]
        if rel == SPECIAL + "reload.js":
            return self.send(200, self.server.reload_js, CONTENT_TYPES[".js"], body)
        if rel == SPECIAL + "events" and body:
            return self.stream_events(site, parse_qs(parts.query).get("build", [""])[0])
        self.send_build_file(site, path, rel, body)

    def send_build_file(self, site: Site, path: str, rel: str, body: bool) -> None:
        """Send the build's file at ``rel`` (a folder's index.html), else its 404 page, else a plain 404."""
        root = site.root
        file = resolve(root, rel)
        if file is not None and file.is_dir():
            if not path.endswith("/"):
                return self.redirect(path + "/")
            file = file / "index.html"
        try:
            if file is not None and file.is_file():
                return self.send_file(200, file, site, body)
            if (root / NOT_FOUND_PAGE).is_file():
                return self.send_file(404, root / NOT_FOUND_PAGE, site, body)
        except OSError:
            pass  # an old build removed while this request read from it
        self.send(404, f"Not found: {path}\n".encode(), CONTENT_TYPES[".txt"], body)

    def send_file(self, status: int, file: Path, site: Site, body: bool) -> None:
        data = file.read_bytes()
        content_type = content_type_of(file.name)
        if content_type.startswith("text/html"):
            data = add_reload_script(data, self.server.prefix, site.build_id)
        self.send(status, data, content_type, body)

    def send(self, status: int, data: bytes, content_type: str, body: bool) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")  # a reload must show the new build
        self.end_headers()
        if body:
            self.wfile.write(data)

    def redirect(self, location: str) -> None:
        self.send_response(302)
        self.send_header("Location", quote(location, safe="/%"))
        self.send_header("Content-Length", "0")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()

    def stream_events(self, site: Site, seen: str) -> None:
        """Hold a Server-Sent Events stream open; send "reload" whenever the build differs from ``seen``."""
        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        try:
            self.wfile.write(b"retry: 1000\n\n")
            while (current := site.wait_for_build(seen, KEEPALIVE_SECONDS)) is not None:
                if current == seen:
                    self.wfile.write(b": keep-alive\n\n")
                else:
                    self.wfile.write(f"event: reload\ndata: {current}\n\n".encode())
                    seen = current
                self.wfile.flush()
        except OSError:
            pass  # the page went away


def resolve(root: Path, rel: str) -> Path | None:
    """Return the path below ``root`` that the URL path ``rel`` names; None when it would leave ``root``."""
    segments = rel.split("/")
    if any(s == ".." or "\\" in s or "\0" in s for s in segments):
        return None
    target = root.joinpath(*(s for s in segments if s not in ("", ".")))
    real_root = root.resolve()
    real = target.resolve()
    if real != real_root and real_root not in real.parents:
        return None
    return real


def content_type_of(name: str) -> str:
    """Return the Content-Type header for a file name."""
    suffix = Path(name).suffix.lower()
    if suffix in CONTENT_TYPES:
        return CONTENT_TYPES[suffix]
    guessed, _ = mimetypes.guess_type(name)
    return guessed or "application/octet-stream"


def add_reload_script(page: bytes, prefix: str, build_id: str) -> bytes:
    """Return ``page`` with the reload script tag right before ``</head>`` (or at the end)."""
    tag = (f'<script defer src="{html.escape(prefix)}{SPECIAL}reload.js" '
           f'data-build="{html.escape(build_id)}"></script>\n').encode()
    match = _HEAD_END.search(page)
    at = match.start() if match else len(page)
    return page[:at] + tag + page[at:]


def configured_base_url(content: Path) -> str | None:
    """Return site.yaml's base_url, or None (a broken site.yaml is reported by the build itself)."""
    config, _ = load_site_config(content / "site.yaml", display_path(content / "site.yaml", Path.cwd()))
    return config.base_url


class Builder:
    """Builds into numbered folders of a private temporary folder and removes the old ones."""

    def __init__(self, paths: Paths, folder: Path, preview_url: str, strict: bool) -> None:
        self.paths, self.folder, self.preview_url, self.strict = paths, folder, preview_url, strict
        self.count = 0
        self.good: list[Path] = []  # the folders of the successful builds, oldest first

    def build(self) -> tuple[Path, Result]:
        """Build the site into a new folder; raise CatalogError and leave the served one alone on failure."""
        self.count += 1
        out = self.folder / f"build-{self.count}"
        # A preview shows new listings as new but does not record them in history.yaml: that is
        # for the build whose site gets published.
        result = build(replace(self.paths, out=out), strict=self.strict, base_url=self.preview_url,
                       record_history=False)
        self.good.append(out)
        return out, result

    def prune(self) -> None:
        """Remove all but the newest good builds; call it once the newest one is served."""
        while len(self.good) > KEPT_BUILDS:
            shutil.rmtree(self.good.pop(0), ignore_errors=True)


def serve(paths: Paths, base_url: str | None, port: int, strict: bool) -> None:
    """Build, serve on 127.0.0.1 below the base URL's path, and rebuild on every change until Ctrl+C."""
    prefix = base_path(base_url or configured_base_url(paths.content))
    folder = Path(tempfile.mkdtemp(prefix="papercat-serve-"))
    previous_sigterm = _stop_on_sigterm()
    server: PreviewServer | None = None
    thread: threading.Thread | None = None
    try:
        try:
            server = PreviewServer(port, prefix)
        except OSError as exc:
            raise click.ClickException(f"{HOST}:{port}: {exc.strerror}; expected a free port: choose "
                                       "another --port, or --port 0 for any free one") from exc
        builder = Builder(paths, folder, server.url, strict)
        out, _ = _report_first(builder)
        server.site = Site(out)
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1},
                                  name="papercat serve", daemon=True)
        thread.start()
        announce = f"Serving {server.url} (Ctrl+C to stop)"
        _watch_and_rebuild(builder, server.site, prefix if base_url is None else None,
                           on_ready=lambda: click.echo(announce))
    except KeyboardInterrupt:
        click.echo("Stopped.")
    finally:
        if server is not None:
            if server.site is not None:
                server.site.close()
            if thread is not None:
                server.shutdown()
                thread.join(timeout=5)
            server.server_close()
        shutil.rmtree(folder, ignore_errors=True)
        if previous_sigterm is not None:
            signal.signal(signal.SIGTERM, previous_sigterm)


def _report_first(builder: Builder) -> tuple[Path, Result]:
    try:
        out, result = builder.build()
    except StrictWarnings as exc:
        for warning in exc.warnings:
            click.echo(warning, err=True)
        raise
    for warning in result.warnings:
        click.echo(str(warning), err=True)
    click.echo(f"Built {_summary(result)}")
    return out, result


def _watch_and_rebuild(builder: Builder, site: Site, configured_prefix: str | None,
                       on_ready: Callable[[], None]) -> None:
    """Rebuild on every batch of changes; serve a build only once it has succeeded.

    ``configured_prefix`` is the base path taken from site.yaml (None when --base-url gave it).
    ``on_ready`` runs once the watcher is in place, so no change made after it can be missed.
    """
    for changes in _changes(builder.paths, builder.folder, on_ready):
        _rebuild(builder, site, _describe(path for _, path in changes), configured_prefix)


def _changes(
    paths: Paths, folder: Path, on_ready: Callable[[], None]
) -> Iterator[set[tuple[watchfiles.Change, str]]]:
    """Yield each batch of changes to the sources; call ``on_ready`` once the watcher is listening."""
    watched = [p for p in (paths.content, paths.templates, paths.static) if p.is_dir()]
    # DefaultFilter already skips editor files (foo~, .foo.swp, .#foo) and .git; the output never
    # lies below a watched folder, but a content folder could hold the temporary one.
    watch_filter = watchfiles.DefaultFilter(ignore_paths=[folder])
    ready = False
    # watch() yields an empty set after each quiet spell of READY_MS: the first one says that the
    # watcher is listening; the later ones are skipped.
    for changes in watchfiles.watch(*watched, watch_filter=watch_filter, debounce=DEBOUNCE_MS,
                                    rust_timeout=READY_MS, yield_on_timeout=True, raise_interrupt=True):
        if not ready:
            on_ready()
            ready = True
        if changes:
            yield changes


def _rebuild(builder: Builder, site: Site, what: str, configured_prefix: str | None) -> None:
    """Build after a change to ``what`` and serve the result; on failure, say why and keep the last site."""
    try:
        out, result = builder.build()
    except CatalogError as exc:
        if isinstance(exc, StrictWarnings):
            for warning in exc.warnings:
                click.echo(warning, err=True)
        _fail(what, exc.format_message())
        return
    except Exception:  # noqa: BLE001 - a preview outlives a bug in one build; the traceback says where
        _fail(what, traceback.format_exc().rstrip())
        return
    site.publish(out)
    builder.prune()
    for warning in result.warnings:
        click.echo(str(warning), err=True)
    click.echo(f"{_now()} {what} changed: rebuilt {_summary(result)}; reloading open pages")
    if configured_prefix and base_path(configured_base_url(builder.paths.content)) != configured_prefix:
        click.echo(f"{_now()} base_url in site.yaml has a new path; restart serve to preview under it",
                   err=True)


def _fail(what: str, message: str) -> None:
    click.echo(f"{_now()} {what} changed: the build failed; keeping the last good site", err=True)
    click.echo(message, err=True)
    sys.stderr.flush()


def _describe(paths: Iterable[str]) -> str:
    shown = sorted({display_path(Path(p), Path.cwd()) for p in paths})
    if len(shown) > 3:
        return ", ".join(shown[:3]) + f" and {len(shown) - 3} more"
    return ", ".join(shown)


def _summary(result: Result) -> str:
    count = len(result.warnings)
    return (f"{result.papers} papers, {result.venues} venues, {result.topics} topics, "
            f"{count} warning{'s' if count != 1 else ''} in {result.seconds:.2f}s")


def _now() -> str:
    return datetime.datetime.now().strftime("[%H:%M:%S]")


def _stop_on_sigterm() -> Any:
    """Let SIGTERM stop the server like Ctrl+C, so the temporary folder is removed; return the old handler."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    return signal.signal(signal.SIGTERM, stop)
