"""Word lists kept in data files beside the code that reads them."""

from __future__ import annotations

from importlib.resources import files


def read_list(package: str, name: str) -> list[str]:
    """Return the entries of ``package``'s data file ``data/<name>``: one a line, # starts a comment line."""
    text = files(package).joinpath("data", name).read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
