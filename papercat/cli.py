"""The command line: build (the default) and check."""

from __future__ import annotations

from pathlib import Path

import click

from .errors import StrictWarnings
from .pipeline import Paths, Result, build


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


@click.group(cls=DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="papercat")
def main() -> None:
    """Build a static catalog of research papers from plain-text listings.

    With no command, runs `build`.
    """


@main.command("build")
@content_option
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), default=Path("site"),
              show_default=True, help="Folder to write the site to (replaced atomically).")
@strict_option
def build_command(content: Path, out: Path, strict: bool) -> None:
    """Read the content folder and write the site."""
    _run(Paths(content=content, out=out), strict, write=True)


@main.command("check")
@content_option
@strict_option
def check_command(content: Path, strict: bool) -> None:
    """Validate listings, config and templates; write nothing."""
    _run(Paths(content=content, out=Path("site")), strict, write=False)


def _run(paths: Paths, strict: bool, write: bool) -> None:
    try:
        result = build(paths, strict=strict, write=write)
    except StrictWarnings as exc:
        for warning in exc.warnings:
            click.echo(warning, err=True)
        raise
    _summarise(result, paths)


def _summarise(result: Result, paths: Paths) -> None:
    for warning in result.warnings:
        click.echo(str(warning), err=True)
    catalog = result.catalog
    steps = ", ".join(f"{name} {seconds:.2f}s" for name, seconds in result.steps.items())
    action = f"wrote {result.files} files to {paths.out}" if result.wrote else "checked; wrote nothing"
    click.echo(
        f"{len(catalog.papers)} papers, {len(catalog.venues)} venues, {len(catalog.topics)} topics, "
        f"{len(result.warnings)} warning{'s' if len(result.warnings) != 1 else ''}; "
        f"{action} in {result.seconds:.2f}s ({steps})"
    )
