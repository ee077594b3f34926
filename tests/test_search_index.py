"""The search index as built in Python: lunr.js's text pipeline, the chunk split, determinism and
hostile text. Node runs the vendored lunr.js (tests/js) to say what the browser would compute.
"""

from __future__ import annotations

import json
import random
import re
import unicodedata
from dataclasses import astuple, replace

import pytest

import papercat.enrich.names as names_module
from papercat.incremental.memo import Cache, open_cache
from papercat.catalog import make_catalog
from papercat.enrich.abstract import plain_text
from papercat.enrich.names import method_names
from papercat.content.folder import read_content
from papercat.pipeline import Paths, build
from papercat.search import (
    CHUNK_TARGET,
    SearchDoc,
    build_index,
    doc_terms,
    index_of,
    search_docs,
    search_files,
    search_work,
    segment_index,
    serialize,
    split_index,
    terms_cached,
    text_fields,
)
from papercat.search.columns import _analysed
from papercat.search.lunrjs import _SEPARATOR, pipeline_terms, stem, tokenize
from tests.conftest import BUNDLED
from tests.searchnode import node, search

# Words lunr.py and lunr.js treat differently, and text shapes abstracts are full of.
TRICKY = ["key", "deploy", "59.24%", "(0.02", "in-context", "$O(T^2)$", "über", "GPT-4o", "state-of-the-art",
          "Key", "deployment", "keys", "yearly", "(LLMs)", "[1]", "x_i", "—", "«guillemets»", "naïve",
          "ΟΔΟΣ", "İstanbul", "straße", "𝑥-ray", "𝑥ating", "a\u2003b", "a\u00a0b", "a\u200bb",
          "co\u2011op",
          "ǅemal", "1e-5", "10^{-3}", "p<0.05", "it's", "agents'", "O(n log n)", "[CLS]", "e.g.,", "i.e.",
          "tis twas", "the of and", "yyyy", "sky skies", "y", "ye", "eed", "feed agreed", "hopping", "hoping"]


@pytest.fixture(scope="module")
def catalog():
    content, _ = read_content(BUNDLED)
    built, _ = make_catalog(list(content.listings), content.taxonomy)
    return built


def compact(value) -> bytes:
    """The one serialization of search files: sorted keys, compact separators, UTF-8."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()


def bundled_texts(catalog) -> list[str]:
    """Every text the index sees, and the raw abstracts people copy words from."""
    docs = search_docs(catalog)
    return ([p.abstract for p in catalog.papers] + [p.title for p in catalog.papers] + [d.text for d in docs]
            + [d.names for d in docs])


# --- lunr.js's pipeline, ported --------------------------------------------------------------------


def test_pipeline_matches_lunr_js_for_every_bundled_token_and_tricky_words(catalog):
    tokens = sorted({t for text in bundled_texts(catalog) for t in text.split()})
    inputs = tokens + TRICKY + bundled_texts(catalog)
    expected = node("lunr_pipeline.js", {"mode": "pipeline", "inputs": inputs})
    wrong = [(text, want, pipeline_terms(text)) for text, want in zip(inputs, expected)
             if pipeline_terms(text) != want]
    assert not wrong, f"{len(wrong)} of {len(inputs)} inputs differ from lunr.js, e.g. {wrong[:5]}"
    assert len(tokens) > 3000


@pytest.mark.parametrize(("text", "terms"), [
    ("key", ["key"]), ("deploy", ["deploy"]), ("59.24%", ["59.24"]), ("(0.02", ["0.02"]),
    ("in-context", ["context"]), ("$O(T^2)$", ["o(t^2"]), ("über", ["ber"]), ("GPT-4o", ["gpt", "4o"]),
    ("state-of-the-art", ["state", "art"]),
])
def test_pipeline_keeps_lunr_js_spellings(text, terms):
    # lunr.py would give "kei", "deploi", "59.24%", "(0.02" and "über": never what the browser asks for.
    assert pipeline_terms(text) == terms


def test_stemmer_matches_lunr_js_on_generated_words():
    rng = random.Random(7)
    letters = "aeiouyybcdgllmnprssttwxz" + "é\U0001d465"
    endings = ["", "s", "es", "ies", "ed", "eed", "ing", "y", "e", "ll", "ational", "ization", "iveness",
               "ement", "ness", "ical", "ful", "ion", "sion", "tion", "ate", "ous", "bli", "logi", "alli",
               "izer"]
    words = sorted({"".join(rng.choice(letters) for _ in range(rng.randint(0, 9))) + rng.choice(endings)
                    for _ in range(20000)} - {""})
    expected = node("lunr_pipeline.js", {"mode": "stem", "inputs": words})
    wrong = [(w, want, stem(w)) for w, want in zip(words, expected) if stem(w) != want]
    assert not wrong, f"{len(wrong)} stems differ from lunr.js, e.g. {wrong[:5]}"


def test_separators_and_lower_case_agree_with_javascript_over_all_of_unicode():
    js = node("lunr_pipeline.js", {"mode": "unicode"})
    ours = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF and _SEPARATOR.fullmatch(chr(cp))]
    assert ours == js["separators"]
    js_lower = {int(cp): low for cp, low in js["lower"].items()}
    differ = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF
              and js_lower.get(cp, chr(cp)) != chr(cp).lower()]
    # Node knows a newer Unicode than Python; only characters Python does not know yet may differ.
    known = [f"U+{cp:04X}" for cp in differ if unicodedata.category(chr(cp)) != "Cn"]
    assert not known, f"lower-casing differs from JavaScript for {known[:20]}"


def test_tokenize_cuts_where_lunr_js_separator_does(catalog):
    # tokenize splits with str.split where Python's white space agrees with JavaScript's.
    spaces = [chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF
              and (chr(cp).isspace() or _SEPARATOR.fullmatch(chr(cp)))]
    texts = [f"{a}Ab{a}{b}c-d{b}" for a in spaces for b in [*spaces, "x"]] + bundled_texts(catalog)
    wrong = [t for t in texts if tokenize(t) != [w for w in _SEPARATOR.split(t.lower()) if w]]
    assert not wrong, wrong[:5]


def test_lower_casing_lower_case_text_changes_nothing():
    # search.doc_terms skips lunr.py's second lower-casing of the tokens, which this makes a no-op
    # (Python's only context-dependent mapping, of capital sigma, cannot meet lower-case text).
    changed = [f"U+{cp:04X}" for cp in range(0x110000) if chr(cp).lower().lower() != chr(cp).lower()]
    assert not changed


# --- what gets indexed -----------------------------------------------------------------------------


@pytest.mark.parametrize(("raw", "plain"), [
    (r"this paper presents \textbf{Liger}, short for \underline{\textbf{Li}}nearizing LLMs",
     "this paper presents Liger, short for Linearizing LLMs"),
    (r"recovers 93\% of the performance", "recovers 93% of the performance"),
    ("we propose M-STaR (**M**ultimodal **S**elf-evolving)", "we propose M-STaR (Multimodal Self-evolving)"),
    ("complexity is $O(T^2)$ when $T^{O(K)}$", "complexity is O(T^2) when T^O(K)"),
    ("three factors: $\\textit{Training Method}$, and *ordinal feedback*",
     "three factors: Training Method, and ordinal feedback"),
    ("a $\\times$ speed-up", "a × speed-up"),
    ("Project page: https://guardagent.github.io/ and code.", "Project page: and code."),
])
def test_plain_text_drops_markup_and_urls(raw, plain):
    assert plain_text(raw) == plain


def test_method_names_are_the_coined_words(catalog):
    names = {d.title.split(":")[0]: d.names for d in search_docs(catalog)}
    for name in ["GuardAgent", "JuICE", "RWKVQuant", "M-STaR", "Liger", "MoEQuant", "DReaMAD"]:
        assert name in names[name].split(" ; "), (name, names[name])
    plain = "We use GPT-4o and Mind2Web-SC with Llama but not LLM or Model."
    assert method_names("A study of things", plain) == ["GPT-4o", "Mind2Web-SC"]


def test_ascii_candidate_names_are_the_patterns_words():
    rng = random.Random(7)
    alphabet = [chr(c) for c in range(128)] + ["word", "Word", "x1", "GPT-4o", "_", "-", "+", ".", " "]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        expected = [w for w in dict.fromkeys(names_module._WORD.findall(text))
                    if len(w) >= 3 and not (w.islower() and w.isalpha())]
        assert list(dict.fromkeys(names_module._candidates(text))) == expected, repr(text)
    assert names_module._candidates("naïve Mind2Web-SC, ²xY abc") == ["Mind2Web-SC", "²xY"]


def test_fields_left_empty_by_the_pipeline_are_fine():
    # A title of stop words, a names field of punctuation, an abstract that was only a URL.
    docs = [SearchDoc("0", "a1", "The Of", "papers/a1.html", ("v",), ("t",), "", " ; "),
            SearchDoc("1", "b2", "Graph networks", "papers/b2.html", ("v",), ("t",), "graph message passing", "GNN")]
    index = build_index(docs)
    chunks = split_index(index, 1)
    assert sorted(t for c in chunks for t in c.terms) == ["gnn", "graph", "messag", "network", "pass"]
    # So too with the fields worked out beside the catalog, and with no term at all.
    fields = replace(text_fields([d.title for d in docs], [d.text for d in docs]), ids=("a1", "b2"))
    assert astuple(fields.columns(docs)) == astuple(_analysed([doc_terms(d) for d in docs]))
    assert astuple(fields.columns(docs[:1])) == astuple(_analysed([doc_terms(docs[0])]))


def test_index_holds_lunr_js_terms_and_names_its_stemmer(catalog):
    index = serialize(build_index(search_docs(catalog)))
    assert index["pipeline"] == ["stemmer"]
    assert index["version"] == "2.3.9"
    assert index["fields"] == ["title", "names", "abstract"]
    terms = {t for t, _ in index["invertedIndex"]}
    assert {"key", "guardag", "juic", "rwkvquant", "59.24"} <= terms
    assert not {"kei", "deploi", "", "the"} & terms


# --- the split -------------------------------------------------------------------------------------


def merged(files: dict[str, bytes]) -> tuple[dict, dict]:
    """Merge every chunk of a build back: the inverted index and each field vector as dicts."""
    manifest = json.loads(files["manifest.json"])
    inverted: dict = {}
    vectors: dict = {}
    for name, _ in manifest["chunkFiles"]:
        chunk = json.loads(files[name])
        assert not inverted.keys() & dict(chunk["invertedIndex"]).keys(), "a term is in two chunks"
        inverted.update(dict(chunk["invertedIndex"]))
        for ref, elements in chunk["fieldVectors"]:
            vectors.setdefault(ref, []).extend(zip(elements[::2], elements[1::2]))
    return inverted, {ref: sorted(pairs) for ref, pairs in vectors.items()}


@pytest.mark.parametrize("target", [None, 2000, 20000, CHUNK_TARGET])
def test_chunks_together_are_exactly_the_global_index(catalog, target):
    index = serialize(build_index(search_docs(catalog)))
    files = search_files(catalog, target)
    inverted, vectors = merged(files)
    assert inverted == dict(index["invertedIndex"])
    assert vectors == {ref: list(zip(el[::2], el[1::2])) for ref, el in index["fieldVectors"]}
    for name, size in json.loads(files["manifest.json"])["chunkFiles"]:
        chunk = json.loads(files[name])
        assert sorted(chunk) == ["fieldVectors", "fields", "invertedIndex", "pipeline", "version"]
        assert chunk["pipeline"] == ["stemmer"] and size == len(files[name])
        assert re.fullmatch(r"t/0/(root|[0-9a-f]+)\.json", name)


def test_an_index_of_the_later_documents_makes_their_segments_as_the_whole_index_does(catalog):
    docs = search_docs(catalog)
    refs, columns = [d.ref for d in docs], _analysed([doc_terms(d) for d in docs])
    whole = index_of(refs, columns, reference=len(docs) - 10)
    for first in (0, 7, len(docs) // 2):
        later = index_of(refs, columns, reference=len(docs) - 10, first=first)
        assert later.refs == whole.refs[first:]
        for start, stop in [(first, first + 7), (first + 7, len(docs)), (first, len(docs))]:
            assert serialize(segment_index(later, start, stop)) == serialize(segment_index(whole, start, stop))


def test_small_target_makes_many_chunks_each_near_the_target(catalog):
    index = build_index(search_docs(catalog))
    chunks = split_index(index, 20000)
    assert len(chunks) > 5
    files = search_files(catalog, 20000)
    sizes = {c.file: len(files["t/0/" + c.file.removeprefix("t/")]) for c in chunks}  # the one segment's
    # A chunk may pass the target only when it holds one term (a word in most abstracts).
    assert all(sizes[c.file] <= 20000 * 1.3 or len(c.terms) == 1 for c in chunks), sizes


@pytest.mark.parametrize("target", [2000, CHUNK_TARGET])
def test_lunr_js_loads_every_chunk_and_the_chunk_map_finds_every_term(catalog, tmp_path, target):
    site = tmp_path / "site"
    for rel, data in search_files(catalog, target).items():
        (site / "search" / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / "search" / rel).write_bytes(data)
    checked = node("chunks.js", {"site": str(site)})
    assert checked["errors"] == []
    assert checked["terms"] == len(build_index(search_docs(catalog)).terms)


def test_search_files_are_deterministic(catalog, tmp_path):
    assert search_files(catalog) == search_files(catalog)
    assert search_files(catalog, 3000) == search_files(catalog, 3000)
    build(Paths(content=BUNDLED, out=tmp_path / "one"))
    build(Paths(content=BUNDLED, out=tmp_path / "two"))
    one, two = ({p.relative_to(tmp_path / n): p.read_bytes()
                 for p in (tmp_path / n / "search").rglob("*.json")} for n in ("one", "two"))
    assert one == two and len(one) > 3


def test_search_files_are_compact_sorted_json(catalog):
    for name, data in search_files(catalog).items():
        value = json.loads(data)
        assert data == compact(value), name


def test_manifest_lists_fields_chunks_shards_venues_and_topics(catalog):
    files = search_files(catalog)
    manifest = json.loads(files["manifest.json"])
    assert manifest["fields"] == [["title", 10], ["names", 5], ["abstract", 1]]
    assert manifest["docs"] == 57 and manifest["docShardSize"] == 50
    assert manifest["venues"] == [["iclr-2025", "ICLR 2025"], ["icml-2025", "ICML 2025"]]
    assert [t[0] for t in manifest["topics"]] == [t.slug for t in catalog.topics]
    assert sorted(f for f in files if f.startswith("docs/")) == ["docs/0.json", "docs/1.json"]
    shard = json.loads(files["docs/1.json"])
    assert len(shard) == 7 and sorted(shard[0]) == ["id", "text", "title", "topics", "url", "venues"]
    assert shard[0]["url"] == f"papers/{shard[0]['id']}.html"
    facets = json.loads(files["facets.json"])
    assert len(facets["venues"]) == len(facets["topics"]) == 57


# --- hostile text ----------------------------------------------------------------------------------

HOSTILE = ("We propose EvilNet, a model whose abstract says <img src=x onerror=alert(1)> and "
           "links javascript:alert(1) while studying </script><script>alert(2)</script> injection.")


def test_hostile_abstract_is_only_ever_json_string_data(make_content, tmp_path):
    content = make_content({"a.txt": f"ICML 2025 Papers\n\n{HOSTILE}\n\nA second abstract about graph neural "
                                      "networks and message passing.\n"})
    site = tmp_path / "site"
    build(Paths(content=content, out=site))
    for path in sorted((site / "search").rglob("*.json")):
        data = path.read_bytes()
        value = json.loads(data)  # valid JSON: the text is data, not markup
        assert data == compact(value)
    shard = json.loads((site / "search" / "docs" / "0.json").read_bytes())
    assert any("<img src=x onerror=alert(1)>" in d["text"] and "javascript:alert(1)" in d["text"]
               for d in shard)
    text = next(d["text"] for d in shard if "EvilNet" in d["text"])
    found = search(site, [{"q": "onerror"}, {"q": "javascript"}, {"q": "script injection"}])
    for result, piece in zip(found, ["<img src=x onerror=alert(1)>", "javascript:alert(1)",
                                     "</script><script>alert(2)</script>"]):
        assert result["total"] == 1
        segments = result["results"][0]["snippet"]
        assert all(set(s) == {"text", "hit"} and isinstance(s["text"], str) for s in segments)
        quoted = "".join(s["text"] for s in segments)
        assert piece in quoted and quoted.strip("…") in text
    assert [s["text"] for s in found[0]["results"][0]["snippet"] if s["hit"]] == ["onerror=alert(1)"]
    page = (site / found[0]["results"][0]["url"]).read_text(encoding="utf-8")
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page


def test_chunk_files_are_named_by_their_first_prefix(catalog):
    manifest = json.loads(search_files(catalog, 3000)["manifest.json"])
    first: dict[int, str] = {}
    for key, _, n in manifest["chunks"]:  # sorted by prefix
        first.setdefault(n, key)
    for n, (name, _) in enumerate(manifest["chunkFiles"]):
        assert name == (f"t/0/{first[n].encode().hex()}.json" if first[n] else "t/0/root.json")


def test_title_and_abstract_fields_worked_out_beside_the_catalog_make_the_documents_own_terms(catalog):
    """A worker works out the papers' title and abstract fields while the catalog is made (text_fields);
    the documents' terms made of them, their names counted then, are those of each one's ``doc_terms``:
    for any order of the documents. Without a paper's fields there are none."""
    docs = search_docs(catalog)
    papers = catalog.papers
    fields = replace(text_fields([p.title for p in papers], [p.text for p in papers]), ids=tuple(p.id for p in papers))
    shuffled = random.Random(4).sample(docs, len(docs))
    for order in (docs, shuffled, docs[5:]):
        assert astuple(fields.columns(order)) == astuple(_analysed([doc_terms(doc) for doc in order]))
    assert replace(fields, ids=fields.ids[1:]).columns(docs) is None
    assert len(fields.columns(docs).terms) > 1000


def test_the_catalog_made_with_its_search_fields_gives_the_same_search_files(tmp_path):
    """make_catalog adds the fields it worked out beside its steps; the index made with them is the same."""
    content, _ = read_content(BUNDLED)
    fields = []
    made, _ = make_catalog(list(content.listings), content.taxonomy, search_fields=fields)
    assert len(fields) == 1 and set(fields[0].ids) == {p.id for p in made.papers}
    assert search_work(made, fields=fields[0]).files() == search_work(made).files()


def test_the_fields_are_worked_out_beside_the_catalog_only_when_the_cache_has_no_terms(small_content, tmp_path):
    """Once the cache holds the last build's terms, they serve (and a new listing's are few)."""
    folder = tmp_path / "cache"
    assert not terms_cached(Cache()) and not terms_cached(open_cache(folder))
    build(Paths(content=small_content, out=tmp_path / "site", cache=folder))
    assert terms_cached(open_cache(folder))
