"""Errors a user can read: each names the file and line and says what was expected."""

from __future__ import annotations

from dataclasses import dataclass

import click


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the content, at ``path:line``."""

    path: str
    line: int  # 0 when the problem is with the file or folder as a whole
    message: str
    warning: bool = False

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {'warning: ' if self.warning else ''}{self.message}"


class CatalogError(click.ClickException):
    """A build cannot go on; click prints the message and exits 1."""

    exit_code = 1


class ContentError(CatalogError):
    """One or more problems in the content folder, reported together."""

    def __init__(self, problems: list[Problem]):
        self.problems = tuple(sorted(problems, key=lambda p: (p.path, p.line, p.message)))
        count = len(self.problems)
        lines = [str(p) for p in self.problems]
        summary = f"{count} problem{'s' if count != 1 else ''} in the content; nothing was written."
        super().__init__("\n".join([*lines, summary]))


class StrictWarnings(CatalogError):
    """--strict was given and the build produced warnings."""

    def __init__(self, warnings: list[str]):
        self.warnings = tuple(warnings)
        count = len(warnings)
        super().__init__(
            f"{count} warning{'s' if count != 1 else ''} with --strict; nothing was written."
        )
