"""A floor under what papercat derives from real abstracts (benchmarks/quality.py on ../shared/real-dev):
titles, topics, math and keyphrases cannot silently get worse. Skipped where real-dev is absent."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import quality  # noqa: E402
import realtext  # noqa: E402

# (figure, the least or most it may be): a little short of the figures measured, so that a real
# regression fails and a rounding does not.
AT_LEAST = {"name recall": 0.80, "ROUGE-L": 0.26}
AT_MOST = {"broken": 0.002, "debris": 0.003, "under four words": 0.03, "sentence-like": 0.05,
           "dangling": 0.01, "papers sharing a title": 0, "only in Other": 0.10, "math shown as source": 0.01,
           "names only compared with": 0.005, "likely typos": 0.005}
TOPIC_RECALL = 0.75


@pytest.fixture(scope="module")
def figures() -> dict[str, float]:
    try:
        folder = realtext.find_real_dev()
    except realtext.RealDevMissing as missing:
        pytest.skip(str(missing))
    catalog, judged, _ = quality.load(folder, None)
    return quality.all_figures(catalog, judged)


@pytest.mark.parametrize("name", AT_LEAST)
def test_real_titles_hold_at_least(figures, name):
    assert figures[name] >= AT_LEAST[name], f"{name}: {figures[name]:.4f}"


@pytest.mark.parametrize("name", AT_MOST)
def test_real_failures_stay_at_most(figures, name):
    assert figures[name] <= AT_MOST[name], f"{name}: {figures[name]:.4f}"


def test_every_topic_finds_most_papers_its_phrases_name(figures):
    recalls = {name: value for name, value in figures.items() if name.startswith("recall, ")}
    assert len(recalls) >= 20
    assert {name: value for name, value in recalls.items() if value < TOPIC_RECALL} == {}
