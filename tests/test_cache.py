"""The build cache: identical output with and without it, reuse, pruning, and damaged files ignored."""

from __future__ import annotations

import gc
import json
import logging
import pickle
import random
import shutil
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from lunr.builder import Builder

from papercat.incremental import memo, memo_file
from papercat import catalog
from papercat.enrich import paper_map
from papercat import search
from papercat.content import listing as listing_module
from papercat.collector import paused_gc
from papercat.incremental.memo import Cache, digest
from papercat.incremental.memo_file import seal
from papercat.cli import main
from papercat.enrich import keyphrases, related
from papercat.enrich import reference_papers as reference_module
from papercat.enrich.abstract import RenderedAbstract
from papercat.pipeline import Paths, build
from papercat.search import chunk_json as chunk_json_module
from papercat.search import chunks as chunks_module
from papercat.search import columns as columns_module
from papercat.search import files as files_module
from papercat.search import format as format_module
from papercat.search import index as index_module
from papercat.search import terms as terms_module
from papercat.search.lunrjs import build_pipeline, search_pipeline
from tests.conftest import ABSTRACT_A, ABSTRACT_B, ABSTRACT_C, tree

BASE_URL = "https://example.org/catalog/"
MORE = [
    ("We introduce RewardBench, a benchmark for reward models that scores chosen and rejected responses "
     "to prompts on chat, reasoning and safety, and find that reward models of $7$B parameters rival "
     "larger ones."),
    ("Sparse autoencoders decompose the activations of language models into interpretable features; we "
     "show that feature splitting follows a power law in the dictionary size. "
     "Code: https://github.com/example/sae"),
    ("Diffusion models generate images by reversing a noising process. We propose a distillation method "
     "that samples in four steps and keeps the image quality of the teacher diffusion model."),
    ("We study in-context learning in transformers trained on linear regression tasks and show that the "
     "attention layers implement gradient descent on the context examples."),
]
NEW = [
    ("Graph transformers struggle with long-range dependencies on molecular graphs; we propose spectral "
     "positional encodings that let graph transformers match message passing networks on molecules."),
    ("We audit the safety of language model agents with GuardAgent-style guardrails and show that "
     "guardrail agents reduce unsafe actions of web agents by half."),
]
STAGES = ["listings", "abstracts", "titles", "topics", "keyphrases", "keyphrase-statistics", "picks", "related", "related-state",
          "names", "search", "site"]
SINGLE = ["keyphrase-statistics", "related-state", "site"]  # one entry each


def listing(header: str, abstracts: list[str]) -> str:
    return header + "\n\n" + "\n\n".join(abstracts) + "\n"


@pytest.fixture
def content(make_content):
    """Return a function making a fresh content folder with the same listings under a new name."""
    def make(name: str, extra: dict[str, str] | None = None) -> Path:
        return make_content({"icml.txt": listing("ICML 2025 Papers", [ABSTRACT_A, ABSTRACT_B, *MORE[:2]]),
                             "iclr.txt": listing("ICLR 2025 Papers", [ABSTRACT_C, *MORE[2:]]),
                             **(extra or {})},
                            name=f"content-{name}")
    return make


def snapshot(folder: Path) -> dict[str, tuple[int, bytes]]:
    return {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in sorted(folder.iterdir())}


def run(content: Path, out: Path, cache: Path | None = None):
    return build(Paths(content=content, out=out, cache=cache), base_url=BASE_URL)


@pytest.fixture
def calls(monkeypatch) -> Counter:
    """Count the calls of every cached computation (each still runs; the counter only wraps it)."""
    counts: Counter = Counter()
    targets = [(listing_module, "parse_listing"), (catalog, "render_abstract"), (catalog, "derive_title"), (catalog, "assign_topics"),
               (related, "analyse_with_terms"), (keyphrases, "pick"), (related, "terms"), (related, "relate_beside"),
               (columns_module, "doc_terms"), (files_module, "_segment_files"), (catalog, "method_names")]
    for module, name in targets:
        monkeypatch.setattr(module, name, _counting(getattr(module, name), name, counts))
    return counts


def _counting(real, name: str, counts: Counter):
    def counted(*args, **kwargs):
        counts[name] += 1
        return real(*args, **kwargs)
    return counted


def entries(folder: Path, name: str, kind: type = object) -> dict[bytes, object]:
    """Return a stage file's entries as a fresh build would read them ({} if it would ignore the file)."""
    stage = Cache(folder).stage(name, kind)
    found = stage._entries()
    assert not stage.rewrite, f"{name}.bin is not a sound cache file"
    return found


# --- the same site with and without the cache ------------------------------------------------------------


def test_uncached_cold_and_warm_builds_are_byte_identical(content, tmp_path):
    run(content("plain"), tmp_path / "plain")
    cached = content("cached")
    cold = run(cached, tmp_path / "cold", tmp_path / "cache")
    warm = run(cached, tmp_path / "warm", tmp_path / "cache")
    assert tree(tmp_path / "plain") == tree(tmp_path / "cold") == tree(tmp_path / "warm")
    assert cold.catalog == warm.catalog
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == sorted(
        [f"{name}.bin" for name in STAGES] + ["CACHEDIR.TAG"])


def test_the_bundled_catalog_is_the_same_from_a_warm_cache(tmp_path):
    from tests.conftest import BUNDLED
    content = tmp_path / "content"
    shutil.copytree(BUNDLED, content)
    run(content, tmp_path / "cold", tmp_path / "cache")
    run(content, tmp_path / "warm", tmp_path / "cache")
    shutil.rmtree(tmp_path / "cache")
    run(content, tmp_path / "plain")
    assert tree(tmp_path / "plain") == tree(tmp_path / "cold") == tree(tmp_path / "warm")


def test_a_warm_rebuild_computes_nothing_and_writes_no_cache_file(content, tmp_path, calls):
    folder = content("c")
    run(folder, tmp_path / "site", tmp_path / "cache")
    assert calls["render_abstract"] == 7 and calls["pick"] == 1 and calls["_segment_files"] == 1
    before = snapshot(tmp_path / "cache")
    calls.clear()
    run(folder, tmp_path / "site", tmp_path / "cache")
    assert sum(calls.values()) == 0, calls
    assert snapshot(tmp_path / "cache") == before


def test_a_rebuild_of_a_touched_site_takes_the_map_and_related_papers_from_the_cache(content, tmp_path, calls,
                                                                                   monkeypatch):
    folder = content("c")
    run(folder, tmp_path / "site", tmp_path / "cache")
    for path in (tmp_path / "site").rglob("*.html"):  # so the up-to-date check finds the site changed
        path.write_bytes(path.read_bytes() + b" ")
    layouts = Counter()
    monkeypatch.setattr(paper_map, "principal_components", _counting(paper_map.principal_components, "pca",
                                                                     layouts))
    calls.clear()
    run(folder, tmp_path / "site", tmp_path / "cache")
    assert layouts["pca"] == calls["terms"] == calls["relate_beside"] == 0, (layouts, calls)
    shutil.rmtree(tmp_path / "cache")
    run(folder, tmp_path / "plain")
    assert tree(tmp_path / "plain") == tree(tmp_path / "site")


def test_adding_a_listing_analyses_only_the_new_papers(content, tmp_path, calls):
    folder, plain = content("c"), content("plain")  # the same builds without a cache, for comparison
    run(folder, tmp_path / "site", tmp_path / "cache")
    run(plain, tmp_path / "plain")
    calls.clear()
    (folder / "listings" / "new.txt").write_text(listing("NeurIPS 2024 Papers", NEW), encoding="utf-8")
    result = run(folder, tmp_path / "site", tmp_path / "cache")
    assert len(result.catalog.papers) == 9
    for name in ("render_abstract", "derive_title", "assign_topics", "analyse_with_terms", "method_names"):
        assert calls[name] == 2, (name, calls)
    assert calls["parse_listing"] == 1  # the unchanged listings are taken from the cache
    assert calls["terms"] == 0  # the new papers' terms are counted as they are analysed
    # The catalog-wide steps run again, once; a search document is analysed again only when its text
    # changed (a new paper, or keyphrases moved by the new papers' word counts).
    assert calls["pick"] == calls["relate_beside"] == calls["_segment_files"] == 1
    assert 2 <= calls["doc_terms"] <= 9
    (plain / "listings" / "new.txt").write_text(listing("NeurIPS 2024 Papers", NEW), encoding="utf-8")
    run(plain, tmp_path / "plain")
    assert tree(tmp_path / "plain") == tree(tmp_path / "site")


def test_a_listing_with_problems_is_parsed_again_and_reported_every_build(content, tmp_path, calls):
    short = listing("NeurIPS 2024 Papers", [NEW[0], "Too short to count.", NEW[1]])
    folder = content("c", {"short.txt": short})
    first = run(folder, tmp_path / "site", tmp_path / "cache")
    assert len(first.warnings) == 1 and str(first.warnings[0]).endswith(
        'listings/short.txt:5: warning: skipped "Too short to count.": 4 words is too short for an abstract; '
        "expected at least 5")
    calls.clear()
    (folder / "listings" / "icml.txt").write_text(listing("ICML 2025 Papers", [ABSTRACT_A, *MORE[:2]]),
                                                  encoding="utf-8")
    again = run(folder, tmp_path / "site", tmp_path / "cache")
    assert calls["parse_listing"] == 2  # the changed listing and the one with a warning; not iclr.txt
    assert again.warnings == first.warnings and len(again.warnings) == 1


def test_a_cached_listing_is_the_parsed_one_wherever_it_lies(content, tmp_path):
    from papercat.content.folder import read_content
    folder = content("c")
    cache = Cache(tmp_path / "cache")
    parsed, problems = read_content(folder, cache)
    cache.save()
    (folder / "listings" / "sub").mkdir()
    (folder / "listings" / "iclr.txt").rename(folder / "listings" / "sub" / "iclr.txt")
    cached, again = read_content(folder, Cache(tmp_path / "cache"))
    fresh, plain = read_content(folder)
    assert problems == again == plain == []
    assert cached.listings == fresh.listings and [x.path for x in cached.listings] == [
        "listings/icml.txt", "listings/sub/iclr.txt"]
    assert cached.listings[0] == parsed.listings[1]


def zipf_abstracts(n: int, seed: int) -> list[str]:
    """Return n abstracts of made-up words drawn by Zipf's law: every paper weakly like many others."""
    rng = random.Random(seed)
    words = [f"{a}{b}{c}" for a in ("ka", "lo", "mi", "nu", "po") for b in ("ra", "se", "ti", "vo")
             for c in ("n", "m", "l", "x", "z")]  # 100 words
    weights = [1 / (rank + 2) for rank in range(len(words))]
    return [". ".join(" ".join(rng.choices(words, weights, k=9)).capitalize() for _ in range(4)) + "."
            for _ in range(n)]


def test_a_listing_added_past_the_reference_is_compared_with_the_catalog_alone(make_content, tmp_path, calls,
                                                                               monkeypatch):
    """Once a catalog weighs words by its oldest papers (here 16 of 20), a new listing's papers alone are
    picked and compared: the earlier papers keep their keyphrases and scores, and the site is the one a
    build without a cache makes."""
    monkeypatch.setattr(reference_module, "REFERENCE_MIN", 4)
    monkeypatch.setattr(related, "extend", _counting(related.extend, "extend", calls))
    monkeypatch.setattr(paper_map, "_components", _counting(paper_map._components, "svd", calls))
    old, new = zipf_abstracts(20, 1), zipf_abstracts(6, 2)
    folder = make_content({"a.txt": listing("ICML 2025 Papers", old)})
    run(folder, tmp_path / "site", tmp_path / "cache")
    before = run(folder, tmp_path / "before")
    (folder / "listings" / "0-new.txt").write_text(listing("ICLR 2026 Papers", new), encoding="utf-8")  # read first
    for more in range(2):  # a second listing extends what the first extended
        calls.clear()
        after = run(folder, tmp_path / "site", tmp_path / "cache")
        assert calls["pick"] == calls["extend"] == 1 and calls["relate_beside"] == 0, calls
        assert calls["analyse_with_terms"] == len(new)
        assert calls["svd"] == 0, "the new papers are placed on the map's axes kept in the cache"
        plain = make_content({}, name=f"content{more}")
        shutil.copytree(folder, plain, dirs_exist_ok=True)  # its history.yaml too: papers arrive in one order
        run(plain, tmp_path / f"plain{more}")
        assert tree(tmp_path / f"plain{more}") == tree(tmp_path / "site")
        (folder / "listings" / "1-more.txt").write_text(listing("COLM 2026 Papers", zipf_abstracts(3, 3)),
                                                        encoding="utf-8")
        new = zipf_abstracts(3, 3)
    earlier = {p.id: p for p in before.catalog.papers}
    later = {p.id: p for p in after.catalog.papers}
    assert all(later[pid].keyphrases == earlier[pid].keyphrases for pid in earlier)
    gained = 0
    for pid, paper in earlier.items():
        kept = [r for r in later[pid].related if r.id in earlier]
        assert kept == list(paper.related[:len(kept)]), "an earlier pair keeps its score and place"
        gained += len(kept) < len(later[pid].related)
    assert gained, "some earlier paper is now related to a new one"


def test_a_new_paper_that_renames_an_earlier_ones_title_leaves_the_earlier_papers_as_they_were(
        make_content, tmp_path, calls, monkeypatch):
    """A new paper whose derived title is an earlier paper's makes both titles longer (unique_titles), but
    the keyphrases and related papers read each paper's own title: past the reference, the new papers
    alone are analysed, picked and compared, and the site is the one a build without a cache makes."""
    monkeypatch.setattr(reference_module, "REFERENCE_MIN", 4)
    picked: list[int] = []
    real_pick = keyphrases.pick
    monkeypatch.setattr(keyphrases, "pick", lambda papers, **kw: picked.append(len(papers)) or real_pick(papers, **kw))
    old = zipf_abstracts(20, 1)
    twin = old[0].rsplit(". ", 1)[0] + ". Kazen lomix tirax."  # the same first sentence: the same derived title
    new = [twin, *zipf_abstracts(5, 2)]
    folder = make_content({"a.txt": listing("ICML 2025 Papers", old)})
    before = run(folder, tmp_path / "site", tmp_path / "cache")
    (folder / "listings" / "b.txt").write_text(listing("ICLR 2026 Papers", new), encoding="utf-8")
    calls.clear()
    picked.clear()
    after = run(folder, tmp_path / "site", tmp_path / "cache")
    earlier = {p.id: p for p in before.catalog.papers}
    later = {p.id: p for p in after.catalog.papers}
    assert sum(later[pid].title != paper.title for pid, paper in earlier.items()) == 1, "the situation arises"
    assert calls["analyse_with_terms"] == len(new) and picked == [len(new)]
    assert calls["relate_beside"] == 0 and calls["terms"] == 0
    assert all(later[pid].keyphrases == paper.keyphrases for pid, paper in earlier.items())
    plain = make_content({}, name="content-plain")
    shutil.copytree(folder, plain, dirs_exist_ok=True)  # its history.yaml too: papers arrive in one order
    run(plain, tmp_path / "plain")
    assert tree(tmp_path / "plain") == tree(tmp_path / "site")


@pytest.mark.parametrize("kept", ["keyphrases", "related"])
def test_papers_cached_in_one_per_paper_stage_only_give_the_same_site(content, tmp_path, calls, kept):
    folder, plain = content("c"), content("plain")  # the same builds without a cache, for comparison
    run(folder, tmp_path / "site", tmp_path / "cache")
    run(plain, tmp_path / "plain")
    # Keyphrases and terms are counted in one pass when a paper is analysed; here only one of the
    # two per-paper stages still knows the old papers, and the catalog-wide steps run again.
    for name in {"keyphrases", "related"} - {kept} | {"keyphrase-statistics", "picks", "related-state"}:
        (tmp_path / "cache" / f"{name}.bin").unlink()
    calls.clear()
    for listings in (folder, plain):
        (listings / "listings" / "new.txt").write_text(listing("NeurIPS 2024 Papers", NEW), encoding="utf-8")
    result = run(folder, tmp_path / "site", tmp_path / "cache")
    assert (calls["analyse_with_terms"], calls["terms"]) == ((2, 7) if kept == "keyphrases" else (9, 0))
    docs = {digest(p.title, p.text) for p in result.catalog.papers}
    for name in ("keyphrases", "related"):
        assert set(entries(tmp_path / "cache", name)) == docs
    run(plain, tmp_path / "plain")
    assert tree(tmp_path / "plain") == tree(tmp_path / "site")


def test_entries_of_removed_papers_are_pruned(content, tmp_path):
    folder = content("c", {"new.txt": listing("NeurIPS 2024 Papers", NEW)})
    run(folder, tmp_path / "site", tmp_path / "cache")
    assert len(entries(tmp_path / "cache", "abstracts")) == 9
    (folder / "listings" / "new.txt").unlink()
    result = run(folder, tmp_path / "site", tmp_path / "cache")
    abstracts = [p.abstract for p in result.catalog.papers]
    assert set(entries(tmp_path / "cache", "abstracts")) == {digest(a) for a in abstracts}
    docs = {digest(p.title, p.text) for p in result.catalog.papers}
    for name in ("keyphrases", "related"):
        assert set(entries(tmp_path / "cache", name)) == docs
    for name in ("titles", "topics", "names", "picks"):
        assert len(entries(tmp_path / "cache", name)) == 7
    # The search documents' terms are one entry, in columns: the documents of this build only.
    (terms,) = entries(tmp_path / "cache", "search").values()
    assert terms.doc_keys() == [search.doc_key(d) for d in search.search_docs(result.catalog)]
    for name in ("keyphrase-statistics", "related-state"):
        assert len(entries(tmp_path / "cache", name)) == 1


def test_the_cache_folder_may_be_deleted_between_builds(content, tmp_path):
    folder = content("c")
    run(folder, tmp_path / "one", tmp_path / "cache")
    shutil.rmtree(tmp_path / "cache")
    run(folder, tmp_path / "two", tmp_path / "cache")
    assert tree(tmp_path / "one") == tree(tmp_path / "two")
    assert len(entries(tmp_path / "cache", "abstracts")) == 7


def test_a_build_without_a_cache_and_a_check_write_no_cache(content, tmp_path):
    run(content("c"), tmp_path / "site")
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".bin") or p.name == "CACHEDIR.TAG"]
    build(Paths(content=content("d"), out=tmp_path / "unused", cache=tmp_path / "cache"), write=False)
    assert not (tmp_path / "cache").exists() and not (tmp_path / "unused").exists()


def test_a_failed_build_leaves_the_cache_alone(content, tmp_path):
    from papercat.errors import ContentError
    folder = content("c")
    run(folder, tmp_path / "site", tmp_path / "cache")
    before = snapshot(tmp_path / "cache")
    (folder / "listings" / "bad.txt").write_text("no header here\n\n" + NEW[0] + "\n", encoding="utf-8")
    with pytest.raises(ContentError):
        run(folder, tmp_path / "site", tmp_path / "cache")
    assert snapshot(tmp_path / "cache") == before


# --- damaged, stale and foreign cache files ----------------------------------------------------------------


class Foreign:
    def __reduce__(self):
        return (shutil.rmtree, ("/nonexistent-papercat-test",))


def _resealed(data: bytes, name: str, change) -> bytes:
    """Return a stage file whose payload is ``change(payload)``, with a valid header and checksum."""
    payload = data[len(memo_file.MAGIC) + memo_file.HEADER.size:]
    return seal(name, change(payload))


CORRUPTIONS = {
    "empty": lambda data, name: b"",
    "truncated": lambda data, name: data[:len(data) // 2],
    "header only": lambda data, name: data[:len(memo_file.MAGIC) + memo_file.HEADER.size],
    "random bytes": lambda data, name: random.Random(1).randbytes(len(data)),
    "a flipped payload byte": lambda data, name: data[:-1] + bytes([data[-1] ^ 1]),
    "another code fingerprint": lambda data, name: seal(
        name, data[len(memo_file.MAGIC) + memo_file.HEADER.size:], fingerprint=digest("other code")),
    "another format version": lambda data, name: data.replace(
        memo_file.MAGIC + memo_file.FORMAT_VERSION.to_bytes(4, "big"),
        memo_file.MAGIC + (99).to_bytes(4, "big"), 1),
    "a list, checksum valid": lambda data, name: _resealed(data, name, lambda p: pickle.dumps([1, 2, 3])),
    "entries of the wrong type, checksum valid": lambda data, name: _resealed(
        data, name, lambda p: pickle.dumps({b"k" * 32: b"not a result"})),
    "short keys, checksum valid": lambda data, name: _resealed(
        data, name, lambda p: pickle.dumps(dict.fromkeys([b"k"], next(iter(pickle.loads(p).values()))))),
    "a pickle that calls a function, checksum valid": lambda data, name: _resealed(
        data, name, lambda p: pickle.dumps({b"k" * 32: Foreign()})),
    "not a pickle, checksum valid": lambda data, name: _resealed(data, name, lambda p: b"\x80\x05garbage"),
}


@pytest.mark.parametrize("damage", sorted(CORRUPTIONS))
def test_a_damaged_cache_file_is_ignored_and_rewritten(content, tmp_path, caplog, damage):
    folder = content("c")
    run(folder, tmp_path / "cold", tmp_path / "cache")
    for path in sorted((tmp_path / "cache").glob("*.bin")):
        path.write_bytes(CORRUPTIONS[damage](path.read_bytes(), path.stem))
    caplog.set_level(logging.INFO, logger="papercat.incremental.memo")
    run(folder, tmp_path / "again", tmp_path / "cache")
    assert tree(tmp_path / "again") == tree(tmp_path / "cold")
    noted = {r.getMessage().split()[2] for r in caplog.records if r.name == "papercat.incremental.memo"}
    # Every stage file was read (none hit before the catalog-wide ones missed) and every one was noted,
    # but for a single-entry stage whose sound header names another key than the build looks up: a
    # miss, read no further. The up-to-date record is of another output folder; a resealed payload has no key.
    keeps_header = damage in ("a flipped payload byte", "header only", "truncated")
    unread = {"site"} if keeps_header else set(SINGLE) if "checksum valid" in damage else set()
    assert noted == {str(tmp_path / "cache" / f"{name}.bin") for name in STAGES if name not in unread}
    for name in STAGES:
        assert entries(tmp_path / "cache", name), name  # rewritten, and sound again
    assert not Path("/nonexistent-papercat-test").exists()


def test_a_folder_in_place_of_a_cache_file_does_not_fail_the_build(content, tmp_path, caplog):
    folder = content("c")
    run(folder, tmp_path / "cold", tmp_path / "cache")
    (tmp_path / "cache" / "abstracts.bin").unlink()
    (tmp_path / "cache" / "abstracts.bin").mkdir()
    run(folder, tmp_path / "again", tmp_path / "cache")
    assert tree(tmp_path / "again") == tree(tmp_path / "cold")
    assert any("abstracts.bin" in r.getMessage() for r in caplog.records)


def test_a_file_in_place_of_the_cache_folder_does_not_fail_the_build(content, tmp_path, caplog):
    (tmp_path / "cache").write_text("not a folder")
    run(content("c"), tmp_path / "site", tmp_path / "cache")
    assert (tmp_path / "cache").read_text() == "not a folder"
    assert any("is a file" in r.getMessage() for r in caplog.records)


def test_the_cache_off_computes_everything_and_saves_nothing():
    stage = Cache().stage("abstracts", RenderedAbstract)
    assert stage.map(len, ["ab", "c"], digest) == [2, 1]
    assert stage.get(digest("ab")) is None
    assert Cache().save() == []


@pytest.mark.parametrize("changed", [True, False])
def test_a_closed_stage_reopens_with_everything_it_held(tmp_path, changed):
    seed = Cache(tmp_path / "cache")
    seed.stage("titles", str).map(str.upper, ["a", "b"], digest)
    seed.save()
    cache = Cache(tmp_path / "cache")
    stage = cache.stage("titles", str)
    assert stage.map(str.upper, ["a", "b", "c"] if changed else ["a", "b"], digest)[0] == "A"
    stage.close()
    assert stage.used == {} and (stage.sealed is not None) == changed
    assert stage.map(str.upper, ["b", "d"], digest) == ["B", "D"]
    assert cache.save() == ["titles"]
    expected = {digest(x): x.upper() for x in (["a", "b", "c", "d"] if changed else ["a", "b", "d"])}
    assert entries(tmp_path / "cache", "titles") == expected


def _titles_build(folder: Path, words: list[str]) -> Cache:
    cache = Cache(folder)
    cache.stage("titles", str).map(str.upper, words, digest)
    cache.save()
    return cache


def test_entries_added_to_a_stage_are_appended_to_its_file(tmp_path):
    folder = tmp_path / "cache"
    _titles_build(folder, ["a", "b"])
    first = (folder / "titles.bin").read_bytes()
    _titles_build(folder, ["a", "b", "c"])
    second = (folder / "titles.bin").read_bytes()
    assert second.startswith(first) and len(second) > len(first), "the old entries are not pickled again"
    assert entries(folder, "titles") == {digest(x): x.upper() for x in "abc"}
    _titles_build(folder, ["b", "c", "d"])  # "a" is no longer used: the file holds only what was used
    assert not (folder / "titles.bin").read_bytes().startswith(second)
    assert entries(folder, "titles") == {digest(x): x.upper() for x in "bcd"}


def test_a_stage_file_of_many_additions_is_written_whole_again(tmp_path):
    folder = tmp_path / "cache"
    words = ["w0"]
    _titles_build(folder, words)
    sizes = []
    for n in range(1, memo.MAX_PARTS + 1):
        words.append(f"w{n}")
        _titles_build(folder, words)
        sizes.append((folder / "titles.bin").stat().st_size)
    assert sizes[-1] < sizes[-2], "the last build wrote one part instead of appending a seventeenth"
    assert entries(folder, "titles") == {digest(w): w.upper() for w in words}


def test_damage_to_an_appended_part_makes_the_whole_file_untrusted(tmp_path, caplog):
    folder = tmp_path / "cache"
    _titles_build(folder, ["a", "b"])
    _titles_build(folder, ["a", "b", "c"])
    data = (folder / "titles.bin").read_bytes()
    (folder / "titles.bin").write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    stage = Cache(folder).stage("titles", str)
    assert stage.get(digest("a")) is None and stage.rewrite
    assert any("fails its checksum" in r.getMessage() for r in caplog.records)


def test_a_single_entry_stage_misses_on_its_header_alone(tmp_path, caplog):
    folder = tmp_path / "cache"
    seed = Cache(folder)
    seed.stage("map", list, single=True).put(digest("old"), [1, 2])
    seed.save()
    data = (folder / "map.bin").read_bytes()
    (folder / "map.bin").write_bytes(data[:-1] + bytes([data[-1] ^ 1]))  # damage the payload alone
    caplog.set_level(logging.INFO, logger="papercat.incremental.memo")
    stage = Cache(folder).stage("map", list, single=True)
    assert stage.get(digest("new")) is None
    assert not caplog.records, "the payload of another key's entry is not read"
    assert Cache(folder).stage("map", list, single=True).get(digest("old")) is None
    assert any("fails its checksum" in r.getMessage() for r in caplog.records)


def test_search_files_twice_with_one_cache(bundled_catalog, tmp_path):
    cache = Cache(tmp_path / "cache")
    assert search.search_files(bundled_catalog, cache=cache) == search.search_files(bundled_catalog)
    assert search.search_files(bundled_catalog, 3000, cache=cache) == search.search_files(
        bundled_catalog, 3000)
    assert search.search_files(bundled_catalog, cache=cache) == search.search_files(bundled_catalog)


def test_a_stage_refuses_to_cache_a_value_of_another_type(tmp_path):
    with pytest.raises(TypeError):
        Cache(tmp_path).stage("titles", str).put(digest("x"), 3)


# --- the command line ----------------------------------------------------------------------------------


def test_cli_cache_goes_beside_the_content_folder_unless_told(content, tmp_path):
    folder = content("c")
    result = CliRunner().invoke(main, ["build", "--content", str(folder), "--out", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    assert (folder.parent / ".papercat-cache" / "abstracts.bin").is_file()
    result = CliRunner().invoke(main, ["build", "--content", str(folder), "--out", str(tmp_path / "site"),
                                       "--cache", str(tmp_path / "elsewhere")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "elsewhere" / "abstracts.bin").is_file()


def test_cli_no_cache_reads_and_writes_none(content, tmp_path):
    folder = content("c")
    result = CliRunner().invoke(main, ["build", "--content", str(folder), "--out", str(tmp_path / "site"),
                                       "--no-cache"])
    assert result.exit_code == 0, result.output
    assert not (folder.parent / ".papercat-cache").exists()


# --- the search index assembled from cached document terms is lunr.py's ------------------------------------


def lunr_index(docs: list[search.SearchDoc]) -> dict:
    """Return the index as lunr.py's Builder makes it, re-tokenising every document (the reference)."""
    builder = Builder()
    builder.pipeline = build_pipeline()
    builder.search_pipeline = search_pipeline()
    builder.ref("ref")
    for name, boost in search.FIELDS:
        builder.field(name, boost)
    for doc in docs:
        builder.add({"ref": doc.ref,
                     "title": terms_module.tokenize(terms_module._indexed(terms_module.plain_text(doc.title))),
                     "names": terms_module.tokenize(doc.names),
                     "abstract": terms_module.tokenize(terms_module._indexed(doc.text))})
    return builder.build().serialize()


def test_the_assembled_index_is_lunr_builders_to_the_byte(bundled_catalog, calls):
    import json
    docs = search.search_docs(bundled_catalog)
    rng = random.Random(5)
    words = " ".join(d.text for d in docs).split()
    # Odd documents too: no names, stop words only, punctuation only, one word repeated, non-ASCII.
    odd = ["", "the of and a", "— – ***", "graph " * 40, "Über naïve façade Straße 𝑥-ray"]
    for n, text in enumerate(odd + [" ".join(rng.choices(words, k=rng.randint(1, 200))) for _ in range(60)]):
        docs.append(search.SearchDoc(str(len(docs)), f"x{n}", text[:40], "u", (), (), text,
                                     "" if n % 3 else " ; ".join(rng.choices(words, k=3))))
    expected = lunr_index(docs)
    assert json.dumps(search.serialize(search.build_index(docs))) == json.dumps(expected)
    # and from a warm cache
    cache = Cache(Path("/nonexistent-cache-folder-never-written"))
    stage = cache.stage("search", search.TermColumns)
    stage.loaded = {columns_module._TERMS_KEY: replace(search.term_columns(docs),
                                               keys=b"".join(search.doc_key(d) for d in docs))}
    calls.clear()
    assert json.dumps(search.serialize(search.build_index(docs, cache))) == json.dumps(expected)
    assert stage.hits == 1 and stage.misses == 0 and calls["doc_terms"] == 0


def test_the_index_from_the_last_builds_terms_is_the_one_made_afresh(bundled_catalog, tmp_path, calls):
    """Documents added, changed in the middle, removed and reordered: the documents the last build had
    are not analysed again, and the index is the one a build without a cache makes."""
    import json
    docs = search.search_docs(bundled_catalog)
    words = " ".join(d.text for d in docs).split()

    def made(n: int) -> search.SearchDoc:  # a document of new words too: terms the last build did not number
        text = " ".join(random.Random(n).choices(words, k=30) + [f"zeta{n}x", f"omega{n}y"])
        return search.SearchDoc("", f"n{n}", text[:30], "u", (), (), text, f"name{n}")

    def changed(doc: search.SearchDoc) -> search.SearchDoc:
        return replace(doc, text=doc.text + " a novel sentence about quokkas")

    middle = len(docs) // 2
    steps = [  # each build's documents, and how many of them the last build did not have
        (docs, len(docs)),
        (docs + [made(n) for n in range(5)], 5),  # a new listing: its documents come last
        (docs + [made(n) for n in range(8)], 3),
        (docs[:middle] + [changed(docs[middle])] + docs[middle + 1:] + [made(n) for n in range(8)], 1),
        (docs[:3] + docs[4:middle] + docs[middle + 1:], 0),  # documents removed: the rest are renumbered
        (docs[:3] + docs[4:middle] + docs[middle + 1:], 0),  # no change
        (list(reversed(docs[5:])) + [made(9)], 2),  # reordered, and docs[middle] back
        ([made(n) for n in range(10, 14)], 4),  # none of the last build's
        (docs[:1], 1),
        ([], 0),
        (docs[:2], 2),
    ]
    for n, (step, new) in enumerate(steps):
        step = [replace(d, ref=str(i)) for i, d in enumerate(step)]
        calls.clear()
        cache = Cache(tmp_path / "cache")
        index = search.build_index(step, cache)
        cache.save()
        assert calls["doc_terms"] == new, n
        calls.clear()
        assert json.dumps(search.serialize(index)) == json.dumps(search.serialize(search.build_index(step))), n
    (columns,) = entries(tmp_path / "cache", "search").values()
    assert columns.doc_keys() == [search.doc_key(d) for d in docs[:2]]


def test_search_terms_from_a_damaged_or_foreign_cache_entry_are_analysed_again(bundled_catalog, tmp_path,
                                                                             calls):
    import json
    docs = search.search_docs(bundled_catalog)
    expected = json.dumps(search.serialize(search.build_index(docs)))
    cache = Cache(tmp_path / "cache")
    search.build_index(docs, cache)
    cache.save()
    path = tmp_path / "cache" / "search.bin"
    sound = path.read_bytes()
    (columns,) = entries(tmp_path / "cache", "search").values()
    payloads = [pickle.dumps({columns_module._TERMS_KEY: replace(columns, counts=columns.counts[:-4])}),  # disagreeing
                pickle.dumps({columns_module._TERMS_KEY: {"not": "columns"}})]
    for data in [sound[:-10], sound[:-1] + bytes([sound[-1] ^ 1])] + [seal("search", p) for p in payloads]:
        path.write_bytes(data)
        calls.clear()
        assert json.dumps(search.serialize(search.build_index(docs, Cache(tmp_path / "cache")))) == expected
        assert calls["doc_terms"] == len(docs)


def test_chunk_files_and_term_sizes_are_what_the_plain_serialization_gives(bundled_catalog):
    import json
    index = search.build_index(search.search_docs(bundled_catalog))
    plain = search.serialize(index)
    for target in (None, 500, 5000, search.CHUNK_TARGET):
        chunks = search.split_index(index, target)
        postings = dict(plain["invertedIndex"])
        owner = {postings[t]["_index"]: n for n, c in enumerate(chunks) for t in c.terms}
        parts: list[list] = [[] for _ in chunks]
        for field_ref, elements in plain["fieldVectors"]:
            kept: dict[int, list] = {}
            for i in range(0, len(elements), 2):
                kept.setdefault(owner[elements[i]], []).extend(elements[i:i + 2])
            for n, found in kept.items():
                parts[n].append([field_ref, found])
        expected = [json.dumps({"version": plain["version"], "fields": plain["fields"],
                                "fieldVectors": parts[n], "pipeline": plain["pipeline"],
                                "invertedIndex": [[t, postings[t]] for t in c.terms]},
                               **format_module._JSON).encode()
                    for n, c in enumerate(chunks)]
        assert chunk_json_module._chunk_data(index, chunks) == expected, target
    sizes: dict[int, int] = {}
    for field_ref, elements in plain["fieldVectors"]:
        header = (len(field_ref) + 8) * 2 // max(len(elements), 2)
        for i in range(0, len(elements), 2):
            sizes[elements[i]] = sizes.get(elements[i], 0) + header + len(f"{elements[i]},{elements[i + 1]},")
    assert chunks_module._term_sizes(index) == {
        term: len(json.dumps([term, posting], **format_module._JSON)) + 1 + sizes.get(posting["_index"], 0)
        for term, posting in plain["invertedIndex"]}


def test_an_empty_catalog_has_an_empty_index():
    index = search.build_index([])
    assert search.serialize(index)["invertedIndex"] == [] and search.serialize(index)["fieldVectors"] == []
    assert len(chunk_json_module._chunk_data(index, search.split_index(index))) == 1


@pytest.fixture(scope="module")
def bundled_catalog():
    from papercat.catalog import make_catalog
    from papercat.content.folder import read_content
    from tests.conftest import BUNDLED
    loaded, _ = read_content(BUNDLED)
    found, _ = make_catalog(list(loaded.listings), loaded.taxonomy)
    return found


def test_weights_round_to_three_places_as_pythons_round_does():
    import numpy as np
    rng = random.Random(7)
    # Halves that are exact in binary (0.0625), decimals just off a half (2.675), and ordinary weights.
    values = [k / 16 for k in range(400)] + [k / 1000 + 0.0005 for k in range(20000)]
    values += [rng.uniform(0, 60) for _ in range(20000)] + [0.0, 1e-9, 0.0004999999999, 59.9995]
    expected = [round(round(v, 3) * 1000) for v in values]
    assert index_module._thousandths(np.array(values)).tolist() == expected
    assert [repr(n / 1000) for n in expected] == [repr(round(v, 3)) for v in values]


def test_paused_gc_leaves_what_the_step_kept_to_the_oldest_generation():
    """The next young collections do not walk it all again; the collector runs again as before."""
    thresholds = gc.get_threshold()
    gc.set_threshold(1 << 30)  # no collection meanwhile moves anything on
    try:
        with paused_gc():
            kept = [[n] for n in range(1000)]
        assert gc.isenabled()
        young = {id(x) for generation in (0, 1) for x in gc.get_objects(generation)}
        oldest = {id(x) for x in gc.get_objects(2)}
    finally:
        gc.set_threshold(*thresholds)
    assert not any(id(x) in young for x in kept)
    assert all(id(x) in oldest for x in kept)


def test_paused_gc_inside_a_step_that_froze_the_objects_before_it_leaves_them_frozen():
    """As a worker process freezes the objects it shares with the build (workers.py), a paused step in it
    leaves them frozen, and what it kept too: the next collection of the oldest generation does not walk
    them all."""
    gc.freeze()
    try:
        earlier = gc.get_freeze_count()
        with paused_gc():
            kept = [[n] for n in range(1000)]
        assert gc.isenabled() and gc.get_freeze_count() >= earlier + len(kept)
        assert not any(id(x) in {id(y) for y in gc.get_objects(2)} for x in kept[:10])
    finally:
        gc.unfreeze()
    assert gc.get_freeze_count() == 0


def test_the_write_step_runs_with_the_collector_paused(content, tmp_path, monkeypatch):
    from papercat.incremental import manifest as uptodate
    seen = []
    real = uptodate.site_files

    def watched(out):
        seen.append(gc.isenabled())
        return real(out)

    monkeypatch.setattr(uptodate, "site_files", watched)
    run(content("c"), tmp_path / "site", tmp_path / "cache")
    assert seen == [False] and gc.isenabled()


def test_a_closed_stage_waits_in_a_temporary_file_and_is_saved_as_it_would_have_been(content, tmp_path, monkeypatch):
    spills = []
    real = Cache.spilled

    def watched(self, part):
        spilled = real(self, part)
        spills.append((self, spilled))
        return spilled

    def two_builds(name: str) -> dict[str, bytes]:
        folder = content(name)
        run(folder, tmp_path / f"site-{name}", tmp_path / name)
        (folder / "listings" / "new.txt").write_text(listing("NeurIPS 2024 Papers", NEW), encoding="utf-8")
        run(folder, tmp_path / f"site-{name}", tmp_path / name)
        # site.bin, the up-to-date record, names the content folder
        return {p.name: p.read_bytes() for p in (tmp_path / name).iterdir() if p.name != "site.bin"}

    monkeypatch.setattr(Cache, "spilled", watched)
    spilling = two_builds("spilling")
    assert spills and all(isinstance(part.payload, memo_file.Spilled) for _, part in spills)
    assert all(owner._spill is None for owner, _ in spills), "the temporary file is closed once saved"
    monkeypatch.setattr(Cache, "spilled", lambda self, part: part)  # the payloads held in memory instead
    assert spilling == two_builds("holding")
    assert tree(tmp_path / "site-spilling") == tree(tmp_path / "site-holding")


def test_adding_a_listing_changes_only_the_search_segments_it_reaches(content, tmp_path, monkeypatch):
    # Segments of 3 documents, weighted by the first 6: the 7 papers fill segments 0-2, the 2 new ones
    # join segment 2 and leave segments 0 and 1 (and the weights) as they were.
    monkeypatch.setattr(files_module, "SEGMENT_DOCS", 3)
    monkeypatch.setattr(reference_module, "reference_count", lambda docs: min(docs, 6))  # the search index weighs by it too
    folder, plain = content("c"), content("plain")
    run(folder, tmp_path / "site", tmp_path / "cache")
    run(plain, tmp_path / "plain")
    chunks = tmp_path / "site" / "search" / "t"

    def files(segment: str) -> dict[str, tuple[int, bytes]]:
        return {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in (chunks / segment).iterdir()}

    before = {segment: files(segment) for segment in ("0", "1", "2")}
    (folder / "listings" / "new.txt").write_text(listing("NeurIPS 2024 Papers", NEW), encoding="utf-8")
    result = run(folder, tmp_path / "site", tmp_path / "cache")
    assert files("0") == before["0"] and files("1") == before["1"]  # same bytes, same modification times
    assert files("2") != before["2"]
    assert not any(path.startswith(("search/t/0/", "search/t/1/")) for path in result.changes.written)
    manifest = json.loads((tmp_path / "site" / "search" / "manifest.json").read_text(encoding="utf-8"))
    assert [s["docs"] for s in manifest["segments"]] == [[0, 3], [3, 6], [6, 9]]
    (plain / "listings" / "new.txt").write_text(listing("NeurIPS 2024 Papers", NEW), encoding="utf-8")
    run(plain, tmp_path / "plain")
    # The search files only: the map lays small catalogs out whole, whatever the patched reference.
    assert tree(tmp_path / "plain" / "search") == tree(tmp_path / "site" / "search")


def test_reference_weights_leave_the_earlier_documents_weights_as_they_were(bundled_catalog):
    docs = search.search_docs(bundled_catalog)

    def weights(size: int, reference: int | None) -> dict[str, list[tuple[str, float]]]:
        part = docs[:size]
        index = search.index_of([d.ref for d in part], search.term_columns(part), reference)
        out, start = {}, 0
        for v, length in enumerate(index.lengths.tolist()):
            out[f"{v}"] = [(index.terms[t], float(index.weights[w])) for t, w in
                           zip(index.term[start:start + length].tolist(), index.weight[start:start + length].tolist())]
            start += length
        return out

    earlier = weights(40, 30)
    later = weights(len(docs), 30)
    assert all(later[v] == earlier[v] for v in earlier)  # the first 40 documents' vectors
    assert weights(len(docs), None) == weights(len(docs), len(docs))
    assert weights(len(docs), None) != later, "a reference other than the whole catalog weighs otherwise"


def test_the_code_fingerprint_covers_the_word_lists_the_modules_read():
    # An edited word list changes keyphrases and titles: the cache and the up-to-date check must see it.
    import papercat
    package = Path(papercat.__file__).resolve().parent
    lists = sorted(package.rglob("data/*.txt"))
    assert lists, "expected word lists in data/ folders of the package"
    covered = set(memo_file.code_files(package))
    assert all(path in covered for path in lists)
    assert all(path in covered for path in package.rglob("*.py"))
