"""Load and validate content/papers.yaml: a paper's real title, authors, year, links and topics."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import yaml

from ..errors import Problem
from .yamlcheck import YamlChecker, describe, read_mapping

PAPER_ID = re.compile(r"^[0-9a-f]{12}$")
FIELDS = ("title", "authors", "year", "links", "topics")
FIRST_YEAR, LAST_YEAR = 1900, 2100
# A bare URL needs a label; these hosts have a name a reader knows, others show the host itself.
_HOST_LABELS = {"arxiv.org": "arXiv", "openreview.net": "OpenReview", "github.com": "Code",
                "gitlab.com": "Code", "huggingface.co": "Hugging Face", "doi.org": "DOI"}
# Characters that cannot stand in a URL as written; a link with them was mistyped or is hostile.
_BAD_URL_CHARS = re.compile(r"[\s<>\"'`{}|\\^\x00-\x1f\x7f]")


@dataclass(frozen=True)
class Override:
    """What content/papers.yaml says about one paper; empty fields leave the derived values alone."""

    title: str | None = None
    authors: tuple[str, ...] = ()
    year: int | None = None
    links: tuple[tuple[str, str], ...] = ()  # (label, url)
    topics: tuple[str, ...] = ()  # extra topic slugs, after the derived ones
    line: int = field(default=0, compare=False)  # where the id is, for warnings about it


def load_overrides(path: Path, shown: str,
                   topic_slugs: set[str]) -> tuple[dict[str, Override], list[Problem]]:
    """Read papers.yaml (missing or empty means no overrides) and report every mistake at once."""
    check, _, top = read_mapping(path, shown, "papers.yaml")  # a file of only comments is a valid start
    if top is None:
        return {}, check.problems
    _check_top_keys(check, top)
    node = top.get("papers", (None, None))[1]
    if node is None or _is_null(node):  # "papers:" with every entry commented out
        return {}, check.problems
    entries = check.mapping(node, '"papers"')
    return _paper_overrides(check, entries or {}, topic_slugs), check.problems


def _check_top_keys(check: YamlChecker, top: dict) -> None:
    """Report each key of papers.yaml other than "papers", hinting when it looks like a paper id."""
    for name, (key, _) in top.items():
        if name != "papers":
            hint = " (paper ids go under 'papers:')" if PAPER_ID.match(name) else ""
            check.fail(key, f'unknown key "{name}" in papers.yaml{hint}; expected one of: papers')


def _paper_overrides(check: YamlChecker, entries: dict, topic_slugs: set[str]) -> dict[str, Override]:
    """Return the override of each valid paper id under "papers", with the line the id is on."""
    overrides: dict[str, Override] = {}
    for pid, (key, value) in entries.items():
        if not PAPER_ID.match(pid):
            check.fail(key, f'paper id "{pid}" is not 12 lowercase hexadecimal characters; expected an id '
                            'like "4576ae661917", as in papers.json or a paper page\'s address')
            continue
        override = _override(check, value, f"paper {pid}", topic_slugs)
        if override is not None:
            overrides[pid] = Override(override.title, override.authors, override.year, override.links,
                                      override.topics, key.start_mark.line + 1)
    return overrides


def unknown_ids(overrides: dict[str, Override], known_ids: set[str], shown: str) -> list[Problem]:
    """Warn about each override whose id matches no paper, so a typo does not go unnoticed."""
    return [Problem(shown, override.line, f"no paper has the id {pid}; expected an id from papers.json",
                    warning=True)
            for pid, override in overrides.items() if pid not in known_ids]


def link_label(url: str) -> str:
    """Return a label for a bare URL: a known site's name, else its host without "www."."""
    host = (urlsplit(url).hostname or url).removeprefix("www.")
    return _HOST_LABELS.get(host, host)


def _is_null(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:null"


def _override(check: YamlChecker, node: yaml.Node, what: str, topic_slugs: set[str]) -> Override | None:
    """Return one paper's override, reporting each bad field; None when it is not a mapping."""
    found = check.mapping(node, what)
    if found is None:
        return None
    check.unknown_keys(found, list(FIELDS), what)
    title = check.string(found["title"][1], f'"title" of {what}') if "title" in found else None
    return Override(
        title=" ".join(title.split()) if title else None,  # a folded block scalar may keep line breaks
        authors=_authors(check, found["authors"][1], what) if "authors" in found else (),
        year=_year(check, found["year"][1], what) if "year" in found else None,
        links=_links(check, found["links"][1], what) if "links" in found else (),
        topics=_topics(check, found["topics"][1], what, topic_slugs) if "topics" in found else (),
    )


def _authors(check: YamlChecker, node: yaml.Node, what: str) -> tuple[str, ...]:
    if not isinstance(node, yaml.SequenceNode):
        check.fail(node, f'"authors" of {what} is {describe(node)}; expected a list of names, '
                         "like [Ada Lovelace, Alan Turing]")
        return ()
    if not node.value:
        check.fail(node, f'"authors" of {what} is empty; expected a list of names, '
                         "like [Ada Lovelace, Alan Turing]")
        return ()
    names = [check.string(item, f"author {i} of {what}") for i, item in enumerate(node.value, start=1)]
    return tuple(" ".join(n.split()) for n in names if n)


def _year(check: YamlChecker, node: yaml.Node, what: str) -> int | None:
    expected = f"expected a year from {FIRST_YEAR} to {LAST_YEAR}"
    if not isinstance(node, yaml.ScalarNode) or node.tag != "tag:yaml.org,2002:int":
        check.fail(node, f'"year" of {what} is {describe(node)}; {expected}')
        return None
    year = int(yaml.safe_load(node.value))  # YAML ints may be written 0x7e9 or 2_025
    if not FIRST_YEAR <= year <= LAST_YEAR:
        check.fail(node, f'"year" of {what} is {node.value}; {expected}')
        return None
    return year


def _links(check: YamlChecker, node: yaml.Node, what: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(node, yaml.SequenceNode):
        check.fail(node, f'"links" of {what} is {describe(node)}; expected a list of URLs or '
                         "{label: ..., url: ...} pairs")
        return ()
    links = []
    for index, item in enumerate(node.value, start=1):
        link = _link(check, item, f"link {index} of {what}")
        if link is not None:
            links.append(link)
    return tuple(links)


def _link(check: YamlChecker, item: yaml.Node, where: str) -> tuple[str, str] | None:
    """Return one link as (label, url), or None once its problems are reported."""
    written = _written_link(check, item, where)
    if written is None:
        return None
    label, url_node = written
    url = check.string(url_node, f"the URL of {where}")
    if url is None:
        return None
    if not _is_web_url(url):  # javascript: and data: links would run in the reader's browser
        check.fail(url_node, f'the URL of {where} is "{url}"; expected an http:// or https:// address '
                             "without spaces or quotes")
        return None
    return (" ".join(label.split()) if label else link_label(url), url)


def _written_link(check: YamlChecker, item: yaml.Node, where: str) -> tuple[str | None, yaml.Node] | None:
    """Return a link's label, if it has one, and its URL's node: from a bare URL or a pair."""
    if isinstance(item, yaml.MappingNode):
        return _labelled_link(check, item, where)
    if isinstance(item, yaml.ScalarNode) and item.tag == "tag:yaml.org,2002:str":
        return None, item
    check.fail(item, f"{where} is {describe(item)}; expected a URL or a {{label: ..., url: ...}} pair")
    return None


def _labelled_link(check: YamlChecker, item: yaml.MappingNode,
                   where: str) -> tuple[str | None, yaml.Node] | None:
    """Return the label, if any, and the URL's node of a {label: ..., url: ...} pair."""
    found = check.mapping(item, where) or {}
    check.unknown_keys(found, ["label", "url"], where)
    if "url" not in found:
        check.fail(item, f'{where} has no "url"; expected a url and, if you like, a label')
        return None
    label = None
    if "label" in found:
        label = check.string(found["label"][1], f'the label of {where}')
        if label is None:
            return None
    return label, found["url"][1]


def _is_web_url(url: str) -> bool:
    parts = urlsplit(url)
    return (parts.scheme.lower() in ("http", "https") and bool(parts.hostname)
            and not _BAD_URL_CHARS.search(url))


def _topics(check: YamlChecker, node: yaml.Node, what: str, topic_slugs: set[str]) -> tuple[str, ...]:
    if not isinstance(node, yaml.SequenceNode):
        check.fail(node, f'"topics" of {what} is {describe(node)}; expected a list of topic slugs, '
                         "like [training]")
        return ()
    known = ", ".join(sorted(topic_slugs)) or "none: topics.yaml defines no topics"
    slugs = []
    for index, item in enumerate(node.value, start=1):
        slug = check.string(item, f"topic {index} of {what}")
        if slug is None:
            continue
        if slug not in topic_slugs:
            check.fail(item, f'unknown topic "{slug}" in {what}; expected a slug from topics.yaml: {known}')
            continue
        slugs.append(slug)
    return tuple(dict.fromkeys(slugs))  # a slug listed twice is the same topic
