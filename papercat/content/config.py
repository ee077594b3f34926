"""Load and validate content/site.yaml and content/topics.yaml; every problem reported at once."""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from pathlib import Path

import yaml

from ..errors import Problem
from ..model import Topic
from ..site.urls import BASE_URL, normalise_base_url
from .yamlcheck import YamlChecker, compose, read_mapping

SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
LANGUAGE = re.compile(r"^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$")
_PATTERNS = {
    "language": (LANGUAGE, 'a language tag like "en" or "zh-CN"'),
    "base_url": (BASE_URL, 'an http(s) URL with no query or fragment, like "https://user.github.io/repo/"'),
}


@dataclass(frozen=True)
class SiteConfig:
    """Site settings from content/site.yaml; every key is optional."""

    title: str = "Paper catalog"
    description: str = "Research papers, browsable by venue and topic."
    language: str = "en"
    # Where the site is published, e.g. "https://user.github.io/repo/"; None for a local build.
    # Sitemap, feeds, canonical and Open Graph URLs need it; --base-url overrides it.
    base_url: str | None = None


def load_site_config(path: Path, shown: str) -> tuple[SiteConfig, list[Problem]]:
    """Read site.yaml (missing means defaults) and report unknown keys and wrong types."""
    check, _, found = read_mapping(path, shown, "site.yaml")
    values = {}
    if found is not None:
        allowed = [f.name for f in fields(SiteConfig)]
        check.unknown_keys(found, allowed, "site.yaml")
        for name in allowed:
            if name in found:
                pattern, example = _PATTERNS.get(name, (None, ""))
                value = check.string(found[name][1], f'"{name}"', pattern, example)
                if value is not None and name == "base_url":
                    value = normalise_base_url(value)
                if value is not None:
                    values[name] = value
    return SiteConfig(**values), check.problems


def load_taxonomy(path: Path, shown: str) -> tuple[tuple[Topic, ...], list[Problem]]:
    """Read topics.yaml: a list of topics with name, slug, description and weighted keywords."""
    if not path.exists():
        return (), [Problem(shown, 0, "no topics file, so every paper is in Other; expected a "
                                      "topics.yaml like the one in the bundled content", warning=True)]
    root, problems = compose(path, shown)
    if problems or root is None:
        return (), problems or [Problem(shown, 1, "the file is empty; expected a 'topics:' list")]
    check = YamlChecker(shown)
    node = _topics_list(check, root)
    if node is None:
        return (), check.problems
    return _unique_topics(check, node), check.problems


def _topics_list(check: YamlChecker, root: yaml.Node) -> yaml.SequenceNode | None:
    """Return the 'topics:' list of topics.yaml, or None once its absence is reported."""
    top = check.mapping(root, "topics.yaml")
    if top is None:
        return None
    check.unknown_keys(top, ["topics"], "topics.yaml")
    node = top["topics"][1] if "topics" in top else None
    if not isinstance(node, yaml.SequenceNode):
        check.fail(node if node is not None else root,
                   "expected a 'topics:' list of topics, each with name, slug, description, keywords")
        return None
    return node


def _unique_topics(check: YamlChecker, node: yaml.SequenceNode) -> tuple[Topic, ...]:
    """Return the valid topics of the list, reporting reserved and repeated slugs."""
    topics, seen = [], {}
    for index, item in enumerate(node.value, start=1):
        topic = _topic(check, item, f"topic {index}")
        if topic is None:
            continue
        if topic.slug == "other":
            check.fail(item, 'slug "other" is reserved for papers that match no topic; expected another')
        elif topic.slug in seen:
            check.fail(item, f'slug "{topic.slug}" is used by {seen[topic.slug]} too; expected unique slugs')
        else:
            seen[topic.slug] = f"topic {index}"
            topics.append(topic)
    return tuple(topics)


_TOPIC_KEYS = ("name", "slug", "description", "keywords")
# The text keys of a topic, each with the pattern its value must match and an example of it.
_TOPIC_TEXTS = (
    ("name", ()), ("description", ()),
    ("slug", (SLUG, "lowercase letters and digits joined by hyphens, like \"graph-learning\"")),
)


def _topic(check: YamlChecker, node: yaml.Node, what: str) -> Topic | None:
    """Return the topic ``node`` describes, or None once its problems are reported."""
    found = check.mapping(node, what)
    if found is None:
        return None
    check.unknown_keys(found, list(_TOPIC_KEYS), what)
    _report_missing(check, node, found, what)
    values = {
        name: check.string(found[name][1], f'"{name}" of {what}', *extra)
        for name, extra in _TOPIC_TEXTS
        if name in found
    }
    keywords = _keywords(check, found["keywords"][1], what) if "keywords" in found else []
    if len(values) < 3 or None in values.values() or not keywords:
        return None
    return Topic(slug=values["slug"], name=values["name"], description=values["description"],
                 keywords=tuple(keywords))


def _report_missing(check: YamlChecker, node: yaml.Node, found: dict, what: str) -> None:
    """Report each key a topic must have but does not."""
    for name in _TOPIC_KEYS:
        if name not in found:
            check.fail(node, f'{what} has no "{name}"; expected name, slug, description and keywords')


def _keywords(check: YamlChecker, node: yaml.Node, what: str) -> list[tuple[str, float]]:
    """Return a topic's keywords as (phrase with its spaces collapsed, weight) pairs."""
    keywords = []
    words = check.mapping(node, f'"keywords" of {what}') or {}
    for phrase, (key, value) in words.items():
        weight = check.number(value, f'the weight of "{phrase}" in {what}')
        if weight is not None:
            keywords.append((" ".join(phrase.casefold().split()), weight))
    if not words:
        check.fail(node, f'"keywords" of {what} is empty; expected phrase: weight pairs')
    return keywords
