"""The command line: build (the default), check and serve."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from .incremental.memo import DEFAULT_FOLDER, default_cache
from .errors import StrictWarnings
from .pipeline import Paths, Result, build
from .progress import NO_PROGRESS, Progress, ProgressLogHandler, terminal_progress
from .serve import serve
from .site.urls import BASE_URL


class DefaultGroup(click.Group):
    """A group that runs ``build`` when no command is named."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0].startswith("-") and args[0] not in ("--help", "-h", "--version")):
            args = ["build", *args]
        return super().parse_args(ctx, args)


content_option = click.option(
    "--content", type=click.Path(path_type=Path, file_okay=False), default=Path("content"),
    show_default=True, help="Folder with listings/, topics.yaml and site.yaml.")
strict_option = click.option("--strict", is_flag=True, help="Treat warnings as errors.")
quiet_option = click.option(
    "--quiet", "-q", is_flag=True,
    help="Print no progress and no summary; warnings and errors are still printed (on stderr).")
LISTED_FILES = 50  # --verbose lists the files written and removed up to this many
VERBOSE_HELP = ("Also print a line as each stage starts and for each step within it, and informational "
                "log messages")


def verbose_option(more: str = ""):
    """Return the --verbose option, its help ending with ``more``."""
    return click.option("--verbose", "-v", is_flag=True, help=f"{VERBOSE_HELP}{more}.")


def _check_base_url(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is not None and not BASE_URL.match(value):
        raise click.BadParameter(f'"{value}"; expected an http(s) URL with no query or fragment, '
                                 'like "https://user.github.io/repo/"')
    return value


base_url_option = click.option(
    "--base-url", callback=_check_base_url, metavar="URL",
    help="Where the site will be published, e.g. https://user.github.io/repo/ (overrides base_url "
         "in site.yaml). Sitemap, feeds, canonical links and 404.html use it.")


@click.group(cls=DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="papercat")
def main() -> None:
    """Build a static catalog of research papers from plain-text listings.

    With no command, runs `build`.
    """


@main.command("build")
@content_option
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), default=Path("site"),
              show_default=True, help="Folder to write the site to (only changed files are rewritten).")
@strict_option
@base_url_option
@click.option("--cache", "cache_dir", type=click.Path(path_type=Path, file_okay=False), metavar="DIR",
              help=f"Folder of the build cache, which makes rebuilds fast; safe to delete at any time. "
                   f"[default: {DEFAULT_FOLDER} beside the content folder]")
@click.option("--no-cache", is_flag=True, help="Build without reading or writing the cache.")
@quiet_option
@verbose_option(f"; after the summary, the files written and removed (only their counts if more than "
                f"{LISTED_FILES})")
def build_command(content: Path, out: Path, strict: bool, base_url: str | None, cache_dir: Path | None,
                  no_cache: bool, quiet: bool, verbose: bool) -> None:
    """Read the content folder and write the site.

    Shows progress on stderr (a bar per stage on a terminal, a line per stage elsewhere), then a
    summary with the time of each stage on stdout.

    A rebuild whose content, templates, static files and options are unchanged, into a site folder
    whose files still hold what the last build wrote, does nothing. The work is spread over every
    core in worker processes: PAPERCAT_JOBS=1 builds in one process, PAPERCAT_JOBS=N uses N workers.
    """
    cache = None if no_cache else cache_dir or default_cache(content)
    _run(Paths(content=content, out=out, cache=cache), strict, write=True, base_url=base_url,
         quiet=quiet, verbose=verbose)


@main.command("check")
@content_option
@strict_option
@quiet_option
@verbose_option()
def check_command(content: Path, strict: bool, quiet: bool, verbose: bool) -> None:
    """Validate listings, config and templates; write nothing."""
    _run(Paths(content=content, out=Path("site"), cache=default_cache(content)), strict, write=False,
         quiet=quiet, verbose=verbose)


@main.command("serve")
@content_option
@base_url_option
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port on 127.0.0.1; 0 picks a free one.")
@strict_option
def serve_command(content: Path, base_url: str | None, port: int, strict: bool) -> None:
    """Build, serve on 127.0.0.1 and rebuild on every change.

    Serves the site under the path of the base URL (--base-url or base_url in site.yaml): a site for
    https://user.github.io/repo/ is previewed at http://127.0.0.1:8000/repo/. Watches the content
    folder, templates/ and static/; open pages reload after each rebuild. A failed rebuild is
    reported and the last good site stays served. The preview is built in a temporary folder, never
    in site/.
    """
    serve(Paths(content=content, out=Path("site"), cache=default_cache(content)), base_url, port, strict)


def _run(paths: Paths, strict: bool, write: bool, base_url: str | None = None, quiet: bool = False,
         verbose: bool = False) -> None:
    if quiet and verbose:
        raise click.UsageError("--quiet and --verbose contradict each other; expected at most one of them")
    progress = NO_PROGRESS if quiet else terminal_progress(sys.stderr, verbose)
    try:
        with _logging_through(progress, verbose):
            result = build(paths, strict=strict, write=write, base_url=base_url, progress=progress)
    except StrictWarnings as exc:
        for warning in exc.warnings:
            click.echo(warning, err=True)
        raise
    if quiet:
        for warning in result.warnings:
            click.echo(str(warning), err=True)
        return
    _summarise(result, paths)
    if verbose and result.changes is not None:
        _list_changes(result)


@contextmanager
def _logging_through(progress: Progress, verbose: bool) -> Iterator[None]:
    """Print papercat's log records on stderr during the build: warnings, and with ``verbose`` INFO too.

    Records go through ``progress``, so that none lands in the middle of a bar; with ``--quiet``
    (``NO_PROGRESS``, which shows nothing) straight to stderr.
    """
    logger = logging.getLogger("papercat")
    handler: logging.Handler = (logging.StreamHandler(sys.stderr) if progress is NO_PROGRESS
                                else ProgressLogHandler(progress))
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s" if verbose else "%(message)s"))
    handler.setLevel(logging.INFO if verbose else logging.WARNING)
    level = logger.level
    logger.addHandler(handler)
    if verbose:
        logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def _list_changes(result: Result) -> None:
    """Print the files written and removed, or only their counts when there are many."""
    changes = result.changes
    assert changes is not None
    if len(changes.written) + len(changes.removed) > LISTED_FILES:
        click.echo(f"{len(changes.written):,} files written and {len(changes.removed):,} removed; "
                   f"more than {LISTED_FILES}, so not listed")
        return
    for path in changes.written:
        click.echo(f"  wrote {path}")
    for path in changes.removed:
        click.echo(f"  removed {path}")


def _summarise(result: Result, paths: Paths) -> None:
    for warning in result.warnings:
        click.echo(str(warning), err=True)
    steps = ", ".join(f"{name} {seconds:.2f}s" for name, seconds in result.steps.items())
    action = "checked; wrote nothing"
    if result.changes is not None:
        changes = result.changes
        action = (f"wrote {len(changes.written):,} of {result.files:,} files to {paths.out} "
                  f"({changes.unchanged:,} unchanged, {len(changes.removed):,} removed)")
    click.echo(  # counts as the stages' lines write them: 20,000 papers
        f"{result.papers:,} papers, {result.venues:,} venues, {result.topics:,} topics, "
        f"{len(result.warnings)} warning{'s' if len(result.warnings) != 1 else ''}; "
        f"{action} in {result.seconds:.2f}s ({steps})"
    )
