"""site.yaml and topics.yaml: defaults, and one message per mistake a user can make."""

from __future__ import annotations

from pathlib import Path

import pytest

from papercat.content.config import SiteConfig, load_site_config, load_taxonomy
from tests.conftest import BUNDLED


def site(tmp_path: Path, text: str):
    path = tmp_path / "site.yaml"
    path.write_text(text, encoding="utf-8")
    return load_site_config(path, "site.yaml")


def taxonomy(tmp_path: Path, text: str):
    path = tmp_path / "topics.yaml"
    path.write_text(text, encoding="utf-8")
    return load_taxonomy(path, "topics.yaml")


def messages(problems) -> list[str]:
    return [str(p) for p in problems]


def test_missing_site_yaml_means_defaults(tmp_path):
    assert load_site_config(tmp_path / "site.yaml", "site.yaml") == (SiteConfig(), [])


def test_site_yaml_values_are_read(tmp_path):
    config, problems = site(tmp_path, "title: My papers\nlanguage: zh-CN\n")
    assert problems == [] and config.title == "My papers" and config.language == "zh-CN"


def test_bundled_site_yaml_is_valid():
    config, problems = load_site_config(BUNDLED / "site.yaml", "site.yaml")
    assert problems == [] and config.title


@pytest.mark.parametrize("text, message", [
    ("titel: x\n",
     'site.yaml:1: unknown key "titel" in site.yaml; expected one of: title, description, language, base_url'),
    ("title: 3\n", 'site.yaml:1: "title" is 3; expected text'),
    ("title: [a, b]\n", 'site.yaml:1: "title" is a list; expected text'),
    ("title:\n", 'site.yaml:1: "title" is empty; expected text'),
    ("language: english please\n",
     'site.yaml:1: "language" is "english please"; expected a language tag like "en" or "zh-CN"'),
    ("- title\n", "site.yaml:1: site.yaml is a list; expected a mapping of keys to values"),
    ("title: a\ntitle: b\n", 'site.yaml:2: key "title" appears twice in site.yaml; expected each key once'),
    ("title: [unclosed\n", "site.yaml:2: not valid YAML (expected ',' or ']', but got '<stream end>')"),
])
def test_site_yaml_errors(tmp_path, text, message):
    _, problems = site(tmp_path, text)
    assert messages(problems) == [message]


def test_every_site_yaml_problem_is_reported_at_once(tmp_path):
    _, problems = site(tmp_path, "titel: x\ndescription: 5\nlanguage: ''\n")
    assert [p.line for p in problems] == [1, 2, 3]


def test_bundled_taxonomy_loads():
    topics, problems = load_taxonomy(BUNDLED / "topics.yaml", "topics.yaml")
    assert problems == [] and 20 <= len(topics) <= 35
    assert all(t.name.strip() and t.description.strip() and t.keywords for t in topics)


GOOD_TOPIC = "  - name: Graphs\n    slug: graphs\n    description: Graph learning.\n    keywords:\n      graph: 2\n"


def test_taxonomy_keywords_are_lowercased_and_weighted(tmp_path):
    topics, problems = taxonomy(tmp_path, "topics:\n" + GOOD_TOPIC.replace("graph: 2", "Graph  Neural: 2.5"))
    assert problems == [] and topics[0].keywords == (("graph neural", 2.5),)


def test_missing_taxonomy_is_a_warning(tmp_path):
    topics, problems = load_taxonomy(tmp_path / "topics.yaml", "topics.yaml")
    assert topics == () and messages(problems) == [
        "topics.yaml: warning: no topics file, so every paper is in Other; expected a topics.yaml "
        "like the one in the bundled content"]


@pytest.mark.parametrize("text, message", [
    ("topics: 3\n", "topics.yaml:1: expected a 'topics:' list of topics, each with name, slug, "
                    "description, keywords"),
    ("topics:\n" + GOOD_TOPIC.replace("slug: graphs", "slug: Graph Learning"),
     'topics.yaml:3: "slug" of topic 1 is "Graph Learning"; expected lowercase letters and digits '
     'joined by hyphens, like "graph-learning"'),
    ("topics:\n" + GOOD_TOPIC.replace("slug: graphs", "slug: other"),
     'topics.yaml:2: slug "other" is reserved for papers that match no topic; expected another'),
    ("topics:\n" + GOOD_TOPIC + GOOD_TOPIC,
     'topics.yaml:7: slug "graphs" is used by topic 1 too; expected unique slugs'),
    ("topics:\n" + GOOD_TOPIC.replace("graph: 2", "graph: -1"),
     'topics.yaml:6: the weight of "graph" in topic 1 is -1; expected a positive number'),
    ("topics:\n" + GOOD_TOPIC.replace("graph: 2", "graph: lots"),
     'topics.yaml:6: the weight of "graph" in topic 1 is the text "lots"; expected a positive number'),
    ("topics:\n" + GOOD_TOPIC.replace("    description: Graph learning.\n", ""),
     'topics.yaml:2: topic 1 has no "description"; expected name, slug, description and keywords'),
    ("topics:\n" + GOOD_TOPIC.replace("    slug: graphs\n", "    slug: graphs\n    colour: red\n"),
     'topics.yaml:4: unknown key "colour" in topic 1; expected one of: name, slug, description, keywords'),
    ("", "topics.yaml:1: the file is empty; expected a 'topics:' list"),
])
def test_taxonomy_errors(tmp_path, text, message):
    _, problems = taxonomy(tmp_path, text)
    assert messages(problems) == [message]


def test_misspelt_topics_key_says_both_what_is_unknown_and_what_is_missing(tmp_path):
    _, problems = taxonomy(tmp_path, "topic:\n" + GOOD_TOPIC)
    assert messages(problems) == [
        'topics.yaml:1: unknown key "topic" in topics.yaml; expected one of: topics',
        "topics.yaml:1: expected a 'topics:' list of topics, each with name, slug, description, keywords",
    ]
