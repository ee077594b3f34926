"""static/search/engine.js in Node against the built bundled site: every paper is found by its own
words, coined names rank their paper first, prefixes, typos and filters work, and the split index
scores exactly as one unsplit index does.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from papercat.catalog import make_catalog
from papercat.enrich.abstract import plain_text
from papercat.content.folder import read_content
from papercat.pipeline import Paths, build
from papercat.search import files as search_module
from papercat.search import search_docs, search_files
from papercat.search.lunrjs import STOP_WORDS, pipeline_terms
from tests.conftest import BUNDLED
from tests.searchnode import search

LIMIT = 100  # more than the bundled catalog holds: a paper found at all is in the results


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("search") / "site"
    build(Paths(content=BUNDLED, out=out))
    return out


@pytest.fixture(scope="module")
def catalog():
    content, _ = read_content(BUNDLED)
    built, _ = make_catalog(list(content.listings), content.taxonomy)
    return built


def search_only_site(catalog, folder: Path, target: int | None) -> Path:
    """Write just the search/ folder of ``catalog`` split at ``target`` (None: one unsplit index)."""
    for rel, data in search_files(catalog, target).items():
        path = folder / "search" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return folder


def searchable(word: str) -> bool:
    """Whether ``word`` leaves a term that is not a stop word once lunr.js's pipeline has run."""
    return any(term for term in pipeline_terms(word.replace("*", "").replace("$", "")))


def words_of(paper, doc, rng: random.Random) -> list[str]:
    """Words a reader might type from a paper's page: numbers, hyphenated, LaTeX-adjacent, any."""
    raw = paper.abstract.split()
    plain = doc.text.split()
    picks: list[str] = []

    def take(candidates, n):
        candidates = [c for c in dict.fromkeys(candidates) if searchable(c) and c not in picks]
        picks.extend(rng.sample(candidates, min(n, len(candidates))))

    take([w for w in raw if re.search(r"\d", w) and "\\" not in w and "http" not in w], 2)
    take([w for w in raw if "-" in w.strip("-") and "\\" not in w and "http" not in w], 2)
    # Beside $ or a LaTeX command: typed as the page shows it ($O(T^2)$) or as it reads (\textbf{x} -> x).
    take([w for w in raw if re.search(r"[$*]", w) and "\\" not in w]
         + [m for w in raw for m in re.findall(r"\\(?:text[a-z]*|emph|underline)\{([A-Za-z][A-Za-z-]+)", w)],
         2)
    take([w for w in plain if re.fullmatch(r"[A-Za-z]*[aeiou]y[.,;:)]*", w)], 1)  # key, deploy, survey
    take([w for w in plain if len(w.strip(".,;:()")) >= 4 and w.lower() not in STOP_WORDS], 3)
    take([w for w in paper.title.split() if len(w) >= 4], 2)
    return picks


def test_every_paper_is_found_by_words_from_its_title_and_abstract(site, catalog):
    rng = random.Random(2025)
    queries, owners = [], []
    for paper, doc in zip(catalog.papers, search_docs(catalog)):
        words = words_of(paper, doc, rng)
        assert len(words) >= 6, (paper.id, words)
        queries += [{"q": w, "limit": LIMIT} for w in words]
        owners += [paper.id] * len(words)
    for phrase in ["key", "deploy", "deployment", "59.24%", "in-context", "state-of-the-art", "$O(T^2)$",
                   "GPT-4"]:
        assert any(phrase in p.abstract for p in catalog.papers), phrase
        queries.append({"q": phrase, "limit": LIMIT})
        owners.append(next(p.id for p in catalog.papers if phrase in p.abstract))
    results = search(site, queries)
    missed = [(q["q"], owner) for q, owner, r in zip(queries, owners, results)
              if owner not in [x["id"] for x in r["results"]]]
    assert not missed, f"{len(missed)} of {len(queries)} searches miss their paper: {missed[:10]}"


@pytest.mark.parametrize("name", ["GuardAgent", "JuICE", "RWKVQuant", "M-STaR", "Liger", "MoEQuant",
                                  "DReaMAD", "guardagent", "rwkvquant", "Paprika", "PoisonBench"])
def test_a_method_name_puts_its_paper_first(site, name):
    found = search(site, [{"q": name, "limit": 5}])[0]
    assert found["results"], name
    assert found["results"][0]["title"].lower().startswith(name.lower() + ":"), found["results"][0]["title"]


def test_a_prefix_finds_the_words_it_begins(site):
    found = search(site, [{"q": "transf", "limit": LIMIT}, {"q": "Transf", "limit": LIMIT}])
    assert found[0]["total"] >= 5 and found[0]["results"] == found[1]["results"]
    hits = {s["text"].lower() for r in found[0]["results"] for s in r["snippet"] if s["hit"]}
    assert {"transformer", "transformers"} <= hits


def test_a_typo_still_finds_the_word(site):
    typo, right = search(site, [{"q": "reinforcment", "limit": LIMIT},
                                {"q": "reinforcement", "limit": LIMIT}])
    assert typo["total"] >= 3
    assert {r["id"] for r in right["results"]} <= {r["id"] for r in typo["results"]}
    assert search(site, [{"q": "guardrial", "limit": 3}])[0]["results"][0]["title"].startswith("GuardAgent")


def test_papers_matching_every_word_rank_above_papers_matching_some(site, catalog):
    docs = {d.id: set(pipeline_terms(f"{d.title} {d.names} {d.text}")) for d in search_docs(catalog)}
    query = "safety agents"  # no indexed word starts with "safety" or "agents" but these two
    found = search(site, [{"q": query, "limit": LIMIT}], typos=False)[0]["results"]
    words = pipeline_terms(query)
    covered = [sum(w in docs[r["id"]] for w in words) for r in found]
    assert covered[0] == len(words) and covered == sorted(covered, reverse=True), covered
    scores = [r["score"] for r in found if sum(w in docs[r["id"]] for w in words) == 1]
    assert scores == sorted(scores, reverse=True)


def test_filters_restrict_results_and_total(site, catalog):
    queries = [{"q": "language models", "limit": LIMIT},
               {"q": "language models", "venue": "iclr-2025", "limit": LIMIT},
               {"q": "language models", "topic": "safety", "limit": LIMIT},
               {"q": "language models", "venue": "icml-2025", "topic": "safety", "limit": 2},
               {"q": "language models", "venue": "no-such-venue", "limit": LIMIT}]
    every, venue, topic, both, unknown = search(site, queries)
    assert venue["results"] and all("iclr-2025" in r["venues"] for r in venue["results"])
    assert venue["total"] == sum("iclr-2025" in r["venues"] for r in every["results"])
    assert topic["results"] and all("safety" in r["topics"] for r in topic["results"])
    assert topic["total"] == sum("safety" in r["topics"] for r in every["results"])
    assert len(both["results"]) == 2 and both["total"] == sum(
        "safety" in r["topics"] and "icml-2025" in r["venues"] for r in every["results"])
    assert (unknown["total"], unknown["results"]) == (0, [])
    # Filtering keeps the order of the unfiltered results.
    assert [r["id"] for r in venue["results"]] == \
        [r["id"] for r in every["results"] if "iclr-2025" in r["venues"]]


def test_results_carry_display_data_and_plain_text_snippets(site, catalog):
    found = search(site, [{"q": "guardrail agents", "limit": 3}])[0]
    first = found["results"][0]
    paper = next(p for p in catalog.papers if p.id == first["id"])
    assert sorted(first) == ["id", "score", "snippet", "title", "topics", "url", "venues"]
    assert (first["title"], first["url"], first["venues"], first["topics"]) == \
        (paper.title, f"papers/{paper.id}.html", list(paper.venues), list(paper.topic_slugs))
    assert (site / first["url"]).is_file()
    text = "".join(s["text"] for s in first["snippet"])
    assert 150 <= len(text) <= 300 and text.strip("…") in plain_text(paper.abstract)
    hits = [s["text"] for s in first["snippet"] if s["hit"]]
    assert hits and {h.lower() for h in hits} <= {"guardrail", "agents", "agent", "guardagent"}


def test_facets_come_from_the_manifest_alone(site, catalog):
    (found,) = search(site, [{"facets": True}], fresh=True)
    assert found["facets"] == {"venues": [[v.slug, v.label] for v in catalog.venues],
                               "topics": [[t.slug, t.name] for t in catalog.topics]}
    manifest = site / "search" / "manifest.json"
    assert found["fetched"] == ["manifest.json"] and found["bytes"] == manifest.stat().st_size


def test_empty_and_stop_word_queries_find_nothing(site):
    for found in search(site, [{"q": ""}, {"q": "the of and"}, {"q": "   "}, {"q": "***"}]):
        assert (found["total"], found["results"]) == (0, [])


def test_a_rare_word_loads_only_its_own_chunk(catalog, tmp_path):
    folder = search_only_site(catalog, tmp_path / "small", 4000)
    found = search(folder, [{"q": "gaslighting", "limit": 10}], fresh=True)[0]
    chunks = [f for f in found["fetched"] if f.startswith("t/")]
    manifest = json.loads((folder / "search" / "manifest.json").read_text())
    assert found["total"] >= 1 and 1 <= len(chunks) <= 2 < len(manifest["chunkFiles"])


QUERIES = ["agents", "transformer attention", "transf", "reward model preference", "GuardAgent",
           "in-context learning", "59.24%", "graph", "length generalization", "reinforcement learning",
           "quantization LLMs", "theory mind", "safety alignment", "gra", "lay"]


@pytest.mark.parametrize("target", [3000, 20000])
def test_split_index_scores_exactly_as_one_unsplit_index(catalog, tmp_path, target):
    # Typo matches are left out: they are looked for only in the chunks a query loads (docs/search.md).
    split = search_only_site(catalog, tmp_path / "split", target)
    single = search_only_site(catalog, tmp_path / "single", None)
    queries = [{"q": q, "limit": LIMIT} for q in QUERIES]
    ours, theirs = search(split, queries, fresh=True, typos=False), search(single, queries, typos=False)
    chunk_counts = []
    for q, a, b in zip(QUERIES, ours, theirs):
        assert a["total"] == b["total"] > 0, q
        assert [(r["id"], r["score"]) for r in a["results"]] == \
            [(r["id"], r["score"]) for r in b["results"]], q
        assert a["results"] == b["results"], q
        chunk_counts.append(sum(f.startswith("t/") for f in a["fetched"]))
    assert max(chunk_counts) > 2  # some queries did merge several chunks


@pytest.mark.parametrize("target", [3000, None])
def test_segments_score_exactly_as_one_unsegmented_index(catalog, tmp_path, monkeypatch, target):
    # Segments of 10 documents (the bundled catalog is its own reference: the weights are the same).
    single = search_only_site(catalog, tmp_path / "single", None)
    with monkeypatch.context() as patched:
        patched.setattr(search_module, "SEGMENT_DOCS", 10)
        segmented = search_only_site(catalog, tmp_path / "segmented", target)
    manifest = json.loads((segmented / "search" / "manifest.json").read_text())
    assert len(manifest["segments"]) == 6
    queries = [{"q": q, "limit": LIMIT} for q in QUERIES]
    ours, theirs = search(segmented, queries, fresh=True, typos=False), search(single, queries, typos=False)
    for q, a, b in zip(QUERIES, ours, theirs):
        assert a["total"] == b["total"] > 0, q
        assert a["results"] == b["results"], q
        assert len({f.split("/")[1] for f in a["fetched"] if f.startswith("t/")}) > 1, q  # several segments read
    # Typo matches too, when every chunk is loaded (a single chunk per segment).
    if target is None:
        typed = zip(search(segmented, queries, fresh=True), search(single, queries))
        assert all((a["total"], a["results"]) == (b["total"], b["results"]) for a, b in typed)


def test_typo_matches_come_from_the_loaded_chunks_only(catalog, tmp_path):
    split = search_only_site(catalog, tmp_path / "split", 3000)
    single = search_only_site(catalog, tmp_path / "single", None)
    query = [{"q": "reinforcment", "limit": LIMIT}]
    (ours,), (theirs,) = search(split, query), search(single, query)
    assert ours["total"] > 0 and {r["id"] for r in ours["results"]} <= {r["id"] for r in theirs["results"]}


def test_a_query_over_the_chunk_budget_leaves_out_the_words_of_its_biggest_chunks(catalog, tmp_path):
    split = search_only_site(catalog, tmp_path / "split", 3000)
    manifest = json.loads((split / "search" / "manifest.json").read_text())
    sizes = {name: size for name, size in manifest["chunkFiles"]}
    words = ["models", "gaslighting"]
    both, *alone = search(split, [{"q": q, "limit": LIMIT} for q in ["models gaslighting", *words]],
                          fresh=True, chunkBudget=1)
    chunks = {word: [f for f in found["fetched"] if f.startswith("t/")] for word, found in zip(words, alone)}
    smaller = min(chunks, key=lambda word: sizes[chunks[word][0]])
    assert [f for f in both["fetched"] if f.startswith("t/")] == chunks[smaller]
    assert both["results"] == alone[words.index(smaller)]["results"]
    # Within the default budget both words count.
    together = search(split, [{"q": "models gaslighting", "limit": LIMIT}])[0]
    assert together["total"] > min(a["total"] for a in alone)
