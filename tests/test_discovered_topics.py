"""Topics papercat discovers: papers no topic matched, grouped by the terms they share and named by their
keyphrases (papercat/enrich/discovered), on their own pages, the same whatever the order or the cache."""

from __future__ import annotations

import html
import json
import random
import re
import shutil
from pathlib import Path

import numpy as np
from scipy import sparse

from papercat.catalog import make_catalog
from papercat.content.folder import read_content
from papercat.enrich import discovered
from papercat.enrich import reference_papers as reference_module
from papercat.enrich.discovered import TermVectors, Unmatched, discover_topics, groups, names
from papercat.model import Topic
from papercat.pipeline import Paths, build
from tests.conftest import tree
from tests.test_workers import fresh_python

BASE_URL = "https://example.org/catalog/"

# Three fields the taxonomy below knows nothing of, eight abstracts each, as their venues write them.
BIOLOGY = [
    "Protein folding proceeds through partially folded intermediates whose structure is hard to observe. "
    "We run microsecond molecular dynamics simulations of three small proteins and identify the folding "
    "intermediates from the contacts between amino acid residues, which agree with hydrogen exchange "
    "experiments.",
    "Molecular dynamics simulations of membrane proteins require force fields that describe lipid and "
    "protein interactions. We compare four force fields on the folding and stability of transmembrane "
    "helices and find that residue contacts in the lipid bilayer differ most between them.",
    "Intrinsically disordered proteins lack a stable folded structure. Using enhanced sampling molecular "
    "dynamics, we map the conformational ensemble of a disordered protein domain and show that transient "
    "helices form at the residues that bind its partner protein.",
    "Allosteric regulation couples distant sites of a protein. We combine molecular dynamics simulations "
    "with mutational scans to trace the network of residue contacts that transmits an allosteric signal "
    "across the kinase domain of the protein.",
    "Misfolded proteins aggregate into amyloid fibrils in neurodegenerative disease. Coarse-grained "
    "molecular dynamics simulations of peptide aggregation reveal that the folding of each peptide into "
    "a beta hairpin precedes fibril growth, and that two residues control the aggregation rate.",
    "Predicting the effect of point mutations on protein stability guides protein engineering. We "
    "compute folding free energies from alchemical molecular dynamics simulations for two hundred "
    "mutations and find that buried residues dominate the change in protein stability.",
    "Chaperones assist the folding of newly made proteins in the cell. We simulate the molecular "
    "dynamics of a substrate protein inside the chaperonin cavity and show that confinement speeds the "
    "folding of the protein by restricting unfolded conformations of its residues.",
    "Cryo-electron microscopy maps often leave flexible loops of a protein unresolved. We refine atomic "
    "protein structures against cryo-EM density with molecular dynamics simulations and recover the "
    "conformations of the missing loop residues in five membrane proteins.",
]
HCI = [
    "Screen reader users navigate web pages one element at a time. We conducted interviews and a user "
    "study with twelve blind participants and designed a browser extension that summarises page "
    "structure; in the user study, participants found content faster with the extension.",
    "Touch screen keyboards are hard to use while walking. In a user study with twenty four "
    "participants, we compared three keyboard interfaces during walking and found that a split keyboard "
    "reduced typing errors, while participants preferred the familiar interface.",
    "Older adults often struggle with smartphone interfaces. Through a participatory design study with "
    "sixteen older adults, we built a simplified home screen interface and evaluated its usability with "
    "participants in a two week field study and interviews.",
    "Voice assistants rarely support users with speech impairments. We interviewed eighteen participants "
    "with dysarthria about their use of voice interfaces, ran a user study of a voice interface that "
    "adapts to their speech, and derive design guidelines for accessible voice interaction.",
    "Designers sketch interface ideas on paper before prototyping. We present a tool that turns paper "
    "sketches of user interfaces into interactive prototypes; a user study with fourteen designers shows "
    "that participants explored more interface designs with the tool.",
    "Notifications interrupt knowledge workers many times a day. We ran a diary study and a field study "
    "with thirty participants to measure how the timing of notifications affects users, and propose "
    "interface design guidelines for deferring notifications.",
    "Augmented reality headsets let users place virtual windows around them. In a user study, twenty "
    "participants arranged virtual windows for office tasks, and we report how the interface layout, "
    "head movement and fatigue shaped the preferences of participants.",
    "Haptic feedback can guide users without visual attention. We designed a wristband interface that "
    "renders directional vibration cues and evaluated it in a user study in which blindfolded "
    "participants navigated a building with the interface.",
]
DATABASES = [
    "Join ordering dominates the cost of complex SQL queries. We present a query optimizer that "
    "enumerates join orders over the query graph and prunes query plans with cardinality bounds, cutting "
    "optimization time for join queries on a standard database workload.",
    "Cardinality estimation errors mislead the query optimizer into slow query plans. We estimate the "
    "cardinality of multi-way join queries from samples of the database tables and show that the chosen "
    "query plans run up to four times faster on the workload.",
    "Secondary indexes speed up selective queries but slow down writes to database tables. We propose an "
    "adaptive index that builds index partitions as queries arrive, lowering query latency on mixed "
    "workloads without the write cost of a full index.",
    "Serializable transactions are expensive in distributed databases. We design a concurrency control "
    "protocol that orders transactions with synchronised clocks and validates reads at commit, raising "
    "transaction throughput of the database on a transactional workload.",
    "Log-structured merge trees trade read performance for write throughput in the storage engines of "
    "databases. We tune the compaction policy of the storage engine per level so that point queries and "
    "range queries become faster on write-heavy database workloads.",
    "Main-memory database systems compile SQL queries to machine code. We describe a query compiler that "
    "generates code for whole query plans and an execution engine that interleaves compilation with "
    "execution, hiding compilation latency for short queries.",
    "Multi-version concurrency control keeps old row versions for concurrent transactions. We present a "
    "garbage collection scheme for database systems that prunes versions no active transaction can read, "
    "which keeps transaction throughput stable under long-running queries.",
    "Range filters let the storage engine of a database skip disk reads for empty key ranges. We propose "
    "a succinct range filter that answers range queries with fewer false positives than prefix Bloom "
    "filters at the same memory, speeding up range queries on database workloads.",
]
FIELDS = {"biology": BIOLOGY, "hci": HCI, "databases": DATABASES}
# Two papers the taxonomy does know: they keep their topic.
KNOWN = [
    "We study reinforcement learning with sparse rewards and propose a reward shaping method that lets "
    "reinforcement learning agents explore long corridors.",
    "Offline reinforcement learning learns a policy from logged rewards; we bound the error of the learned "
    "policy when the rewards are noisy.",
]
TAXONOMY = """topics:
  - name: Reinforcement learning
    slug: reinforcement-learning
    description: Agents that learn from rewards.
    keywords:
      reinforcement learning: 3
      reward: 2
"""


def listing(header: str, abstracts: list[str]) -> str:
    return header + "\n\n" + "\n\n".join(abstracts) + "\n"


def field_listings(fields: tuple[str, ...] = ("biology", "hci", "databases")) -> dict[str, str]:
    """Return a listing per field, each of its own venue, and one of papers the taxonomy knows."""
    venues = {"biology": "ISMB 2025 Papers", "hci": "CHI 2025 Papers", "databases": "VLDB 2025 Papers"}
    return {"ml.txt": listing("ICML 2025 Papers", KNOWN),
            **{f"{field}.txt": listing(venues[field], FIELDS[field]) for field in fields}}


def field_of(abstract: str) -> str:
    return next((field for field, texts in FIELDS.items() if abstract in texts), "known")


def catalog_of(folder: Path):
    content, problems = read_content(folder)
    assert not [p for p in problems if not p.warning], problems
    return make_catalog(list(content.listings), content.taxonomy, content.overrides)[0]


def grouped(catalog) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Return each discovered topic's slug -> (name, its papers' ids, sorted)."""
    return {t.slug: (t.name, tuple(sorted(p.id for p in catalog.by_topic[t.slug])))
            for t in catalog.topics if t.discovered}


# --- the headline case: a listing from fields the taxonomy does not know -----------------------------------


def test_papers_of_fields_the_taxonomy_does_not_know_get_a_discovered_topic_per_field(make_content):
    catalog = catalog_of(make_content(field_listings(), topics=TAXONOMY))
    found = [t for t in catalog.topics if t.discovered]
    assert found, "some papers are grouped"
    by_field: dict[str, list[int]] = {field: [] for field in FIELDS}
    for topic in found:
        fields = {field_of(p.abstract) for p in catalog.by_topic[topic.slug]}
        assert len(fields) == 1, f"{topic.name} mixes {fields}"
        by_field[fields.pop()].append(len(catalog.by_topic[topic.slug]))
    for field, sizes in by_field.items():
        assert sizes and max(sizes) >= 5, f"{field}: {sizes}"
    for paper in catalog.papers:  # the papers the taxonomy knows keep their topic, the others leave Other
        if field_of(paper.abstract) == "known":
            assert paper.topic_slugs == ("reinforcement-learning",)
    assert sum(len(sizes) for sizes in by_field.values()) == len(found)
    assert len(catalog.by_topic.get("other", ())) <= 6


def test_discovered_topics_are_named_by_shared_keyphrases_readable_and_unique(make_content):
    catalog = catalog_of(make_content(field_listings(), topics=TAXONOMY))
    found = [t for t in catalog.topics if t.discovered]
    topic_names = [t.name for t in catalog.topics]
    assert len({n.casefold() for n in topic_names}) == len(topic_names)
    assert len({t.slug for t in catalog.topics}) == len(catalog.topics)
    for topic in found:
        assert topic.name[0].isupper() and re.fullmatch(r"[\w' -]+(?: & [\w' -]+)?", topic.name), topic.name
        assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", topic.slug)
        assert topic.description.startswith("Papers that share “")
        for phrase in re.split(r" & ", topic.name):  # each part of the name is in most of its papers
            words = [w.lower()[:5] for w in re.split(r"[\s-]+", phrase)]
            users = [p for p in catalog.by_topic[topic.slug]
                     if all(w in p.text.lower() for w in words)]
            assert 2 * len(users) >= len(catalog.by_topic[topic.slug]), (topic.name, phrase)
    by_name = {t.name.split(" & ")[0].lower(): t for t in found}
    assert any("protein" in n for n in by_name), by_name
    assert any("database" in n or "quer" in n for n in by_name), by_name


def test_a_discovered_paper_says_why_and_its_topic_has_a_page_marked_discovered(make_content, tmp_path):
    folder = make_content(field_listings(), topics=TAXONOMY)
    result = build(Paths(content=folder, out=tmp_path / "site", cache=None), base_url=BASE_URL)
    site = tmp_path / "site"
    found = [t for t in result.catalog.topics if t.discovered]
    index = (site / "topics" / "index.html").read_text()
    assert '<h2 id="discovered">Discovered topics</h2>' in index
    assert index.index("Reinforcement learning") < index.index("Discovered topics")
    home = (site / "index.html").read_text()
    assert "Discovered topics" in home
    for topic in found:
        page = (site / "topics" / f"{topic.slug}.html").read_text()
        assert f"<h1>{html.escape(topic.name)}</h1>" in page
        assert '<span class="badge">Discovered topic</span>' in page and "grouped them automatically" in page
        assert f'href="{topic.slug}.html"' in index and html.escape(topic.name) in home
        assert (site / "feeds" / "topics" / f"{topic.slug}.xml").exists()
    paper = result.catalog.by_topic[found[0].slug][0]
    page = (site / "papers" / f"{paper.id}.html").read_text()
    assert "grouped automatically with papers it resembles" in page
    records = {r["id"]: r for r in json.loads((site / "papers.json").read_text())["papers"]}
    assert records[paper.id]["topics"] == [found[0].slug]
    known = (site / "topics" / "reinforcement-learning.html").read_text()
    assert "Discovered topic" not in known


def test_a_pair_of_alike_papers_is_no_topic(make_content):
    catalog = catalog_of(make_content({"bio.txt": listing("ISMB 2025 Papers", BIOLOGY[:2]),
                                       "db.txt": listing("VLDB 2025 Papers", DATABASES)}, topics=TAXONOMY))
    in_other = [field_of(p.abstract) for p in catalog.by_topic.get("other", ())]
    assert in_other.count("biology") == 2
    found = [p for t in catalog.topics if t.discovered for p in catalog.by_topic[t.slug]]
    assert found and all(field_of(p.abstract) == "databases" for p in found)


def test_papers_given_topics_in_papers_yaml_are_not_grouped(make_content):
    folder = make_content(field_listings(("biology",)), topics=TAXONOMY)
    plain = catalog_of(folder)
    given = [p for p in plain.papers if field_of(p.abstract) == "biology"][:6]
    given_topics = "".join(f"  {p.id}:\n    topics: [reinforcement-learning]\n" for p in given)
    (folder / "papers.yaml").write_text("papers:\n" + given_topics)
    catalog = catalog_of(folder)
    assert not [t for t in catalog.topics if t.discovered], "two papers left: no group of three"
    assert {p.id for p in given} <= {p.id for p in catalog.by_topic["reinforcement-learning"]}


def test_a_discovered_topic_takes_no_slug_or_name_of_the_taxonomy(make_content):
    first = catalog_of(make_content(field_listings(), topics=TAXONOMY, name="first"))
    taken = [t for t in first.topics if t.discovered]
    clashing = TAXONOMY + "".join(
        f"  - name: {t.name}\n    slug: {t.slug}\n    description: Taken.\n    keywords:\n      zqxv: 3\n"
        for t in taken)
    catalog = catalog_of(make_content(field_listings(), topics=clashing, name="second"))
    found = [t for t in catalog.topics if t.discovered]
    taxonomy = {t.slug for t in catalog.topics if not t.discovered}
    assert len(found) == len(taken) and not taxonomy & {t.slug for t in found}
    assert not {t.name.casefold() for t in taken} & {t.name.casefold() for t in found}
    assert all(not catalog.by_topic[t.slug] for t in catalog.topics if t.slug in {x.slug for x in taken})


# --- the same topics, whatever the order, the workers or the cache ------------------------------------


def test_the_same_content_in_another_order_gives_the_same_topics(make_content):
    files = field_listings()
    renamed = {f"{n}-{name}": text for n, (name, text) in enumerate(reversed(files.items()))}
    shuffled = dict(files)
    rng = random.Random(7)
    for field in FIELDS:  # each listing's papers in another order too
        abstracts = list(FIELDS[field])
        rng.shuffle(abstracts)
        shuffled[f"{field}.txt"] = listing(files[f"{field}.txt"].split("\n", 1)[0], abstracts)
    first = grouped(catalog_of(make_content(files, topics=TAXONOMY, name="a")))
    assert first == grouped(catalog_of(make_content(files, topics=TAXONOMY, name="b")))
    assert first == grouped(catalog_of(make_content(renamed, topics=TAXONOMY, name="c")))
    assert first == grouped(catalog_of(make_content(shuffled, topics=TAXONOMY, name="d")))


def test_discover_topics_is_the_same_for_papers_given_in_any_order_and_columns_numbered_any_way():
    rng = random.Random(3)
    rows = [[(field * 10 + w, 1.0 + rng.random()) for w in rng.sample(range(10), 6)] for field in range(3)
            for _ in range(6)]  # three fields of six papers, each using six of its field's ten words
    papers = [Unmatched(n, f"id{n:02d}", (f"w{rows[n][0][0]}", f"w{rows[n][1][0]}"), "") for n in range(18)]
    first = discover_topics(papers, _vectors(rows, list(range(18)), list(range(30))), [])
    assert len(first.topics) == 3 and len(first.matches) == 18
    for seed in range(3):
        shuffle = random.Random(seed).sample
        order, columns = shuffle(range(18), 18), shuffle(range(30), 30)  # rows and columns moved
        vectors = _vectors([rows[n] for n in order], order, columns)
        assert discover_topics(shuffle(papers, 18), vectors, []) == first


def _vectors(rows: list[list[tuple[int, float]]], order: list[int], columns: list[int]) -> TermVectors:
    """Return the l2-normalised ``rows`` of words (word n at column ``columns[n]``), of the papers at
    ``order``, as TermVectors whose keyphrases are the words."""
    r, c, v = zip(*[(r, columns[word], value) for r, row in enumerate(rows) for word, value in row])
    matrix = sparse.csr_matrix((v, (r, c)), shape=(len(rows), len(columns)))
    matrix = sparse.csr_matrix(matrix.multiply(1 / np.sqrt(matrix.multiply(matrix).sum(axis=1))))
    keys: list[tuple[str, ...]] = [()] * len(columns)
    for word, column in enumerate(columns):
        keys[column] = (f"w{word}",)
    return TermVectors(matrix, order, keys, [k[0] for k in keys], [True] * len(keys),
                       {k: n for n, k in enumerate(keys)}, {k[0]: k for k in keys})


def test_past_max_grouped_the_later_papers_join_the_group_they_are_most_like(monkeypatch, make_content):
    """The listings are read biology, databases, hci, ml: the 15 oldest papers no topic matched are the
    biology ones and seven of databases. The eighth joins their group; the later HCI papers form none."""
    monkeypatch.setattr(groups, "MAX_GROUPED", 15)
    folder = make_content(field_listings(), topics=TAXONOMY)
    capped = catalog_of(folder)
    found = [t for t in capped.topics if t.discovered]
    fields = [{field_of(p.abstract) for p in capped.by_topic[t.slug]} for t in found]
    assert sorted(f.pop() for f in fields if len(f) == 1) == ["biology", "databases"] and len(fields) == 2
    last = next(p for p in capped.papers if p.abstract == DATABASES[-1])
    assert capped.by_topic[last.topic_slugs[0]][0].abstract in DATABASES and last.topic_slugs != ("other",)
    assert all(p.topic_slugs == ("other",) for p in capped.papers if field_of(p.abstract) == "hci")
    assert capped == catalog_of(folder)


def test_one_worker_and_many_build_the_same_site_with_discovered_topics(tmp_path):
    out = json.loads(fresh_python(f"""
        import json, os, sys
        from pathlib import Path
        sys.path.insert(0, "benchmarks")
        from search_index import make_listings
        from papercat.pipeline import Paths, build
        from tests.conftest import tree
        from tests.test_discovered_topics import TAXONOMY, field_listings
        tmp = Path({str(tmp_path)!r})
        content = tmp / "content"
        make_listings(content, 300)  # enough papers for workers
        (content / "topics.yaml").write_text(TAXONOMY)
        for name, text in field_listings().items():
            (content / "listings" / name).write_text(text)
        sites = {{}}
        for jobs in ("2", "1"):
            os.environ["PAPERCAT_JOBS"] = jobs
            result = build(Paths(content, tmp / f"site-{{jobs}}", cache=None),
                           base_url="https://example.org/")
            sites[jobs] = tree(tmp / f"site-{{jobs}}")
        print(json.dumps([sites["1"] == sites["2"], sum(t.discovered for t in result.catalog.topics)]))
    """))
    assert out[0], "PAPERCAT_JOBS=1 and 2 build the same site"
    assert out[1] >= 3


def test_adding_a_listing_to_a_cached_build_gives_the_site_of_a_clean_build(make_content, tmp_path):
    folder = make_content(field_listings(("biology", "hci")), topics=TAXONOMY)
    first = build(Paths(content=folder, out=tmp_path / "site", cache=tmp_path / "cache"), base_url=BASE_URL)
    (folder / "listings" / "databases.txt").write_text(field_listings()["databases.txt"], encoding="utf-8")
    after = build(Paths(content=folder, out=tmp_path / "site", cache=tmp_path / "cache"), base_url=BASE_URL)
    assert len(grouped(after.catalog)) > len(grouped(first.catalog))
    plain = make_content({}, topics=None, name="content-plain")
    shutil.copytree(folder, plain, dirs_exist_ok=True)  # its history.yaml too: papers arrive in one order
    clean = build(Paths(content=plain, out=tmp_path / "plain", cache=None), base_url=BASE_URL)
    assert grouped(clean.catalog) == grouped(after.catalog)
    assert tree(tmp_path / "plain") == tree(tmp_path / "site")


def test_past_the_reference_a_listing_extends_the_matrix_and_the_topics_are_a_clean_builds(
        make_content, tmp_path, monkeypatch):
    """From REFERENCE_MIN papers on, a new listing's rows are added to the cached matrix
    (related.extend): the topics found from it are those of a build without a cache."""
    monkeypatch.setattr(reference_module, "REFERENCE_MIN", 4)
    folder = make_content(field_listings(("biology", "hci")), topics=TAXONOMY)
    build(Paths(content=folder, out=tmp_path / "site", cache=tmp_path / "cache"), base_url=BASE_URL)
    (folder / "listings" / "databases.txt").write_text(field_listings()["databases.txt"], encoding="utf-8")
    after = build(Paths(content=folder, out=tmp_path / "site", cache=tmp_path / "cache"), base_url=BASE_URL)
    plain = make_content({}, topics=None, name="content-plain")
    shutil.copytree(folder, plain, dirs_exist_ok=True)
    clean = build(Paths(content=plain, out=tmp_path / "plain", cache=None), base_url=BASE_URL)
    assert grouped(after.catalog) and grouped(clean.catalog) == grouped(after.catalog)
    assert tree(tmp_path / "plain") == tree(tmp_path / "site")


# --- naming ------------------------------------------------------------------------------------------


def phrase(spelling: str, papers: int = 4, picked: int = 2, score: float = 1.0,
           column: int = 0) -> names.Phrase:
    return names.Phrase(column, tuple(w.lower() for w in re.split(r"[\s-]+", spelling)), spelling, papers,
                        picked, score)


def test_a_phrase_is_spelt_as_the_abstracts_write_it_inside_sentences_plurals_first():
    texts = ["Gaussian processes (GPs) are flexible. We fit Gaussian process regression to data.",
             "Sparse Gaussian processes scale; a Gaussian process prior helps.",
             "Gaussian Processes are popular. We study Ordinary Differential Equations (ODEs) and ordinary "
             "differential equations again."]
    assert names.spellings([phrase("gaussian process")], texts) == {0: "Gaussian processes"}
    assert names._spelt(phrase("ordinary differential equation"), texts) == "ordinary differential equations"
    assert names._spelt(phrase("k-mean"), ["We study k-means clustering and k-means."]) == "k-means"
    assert names._spelt(phrase("strategy"), ["Two strategies and one strategy."]) == "strategies"
    assert names._spelt(phrase("absent phrase"), texts) == "absent phrase"
    assert names.capitalised("fMRI scans") == "fMRI scans" and names.capitalised("k-means") == "K-means"


def test_a_name_leaves_out_pieces_of_longer_terms_acronyms_of_its_words_and_lone_words_few_picked():
    assert names._is_piece(phrase("chain monte carlo", papers=6), [(("markov", "chain", "monte"), 6)])
    assert not names._is_piece(phrase("chain monte carlo", papers=6), [(("markov", "chain", "monte"), 2)])
    gp, gaussian = phrase("GP", score=1.0), phrase("gaussian process", score=0.9)
    assert names.name_parts([gp, gaussian], 4) == [gaussian], "an acronym gives way to what it abbreviates"
    flows, density = phrase("normalizing flow", score=1.0), phrase("density estimation", score=0.7)
    assert names.name_parts([flows, density], 4) == [flows, density]
    assert names.name_parts([flows, phrase("density estimation", score=0.5)], 4) == [flows]
    lone = phrase("formulation", papers=3, picked=1)
    assert names.name_parts([lone], 3) == [], "a word few papers picked names no group"
    assert names.name_parts([phrase("participant", papers=5, picked=1)], 5) == [phrase("participant", 5, 1)]
    assert names.ranked_phrases  # used by discover_topics


def test_names_and_slugs_are_numbered_when_another_topic_has_them():
    assert names.unique_name(["proteins", "folding"], [], set()) == "Proteins & folding"
    assert names.unique_name(["proteins"], ["folding"], {"proteins"}) == "Proteins & folding"
    assert names.unique_name(["proteins"], [], {"proteins", "proteins (2)"}) == "Proteins (3)"
    assert names.unique_slug("Proteins & folding", {"proteins-folding"}) == "proteins-folding-2"
    assert names.unique_slug("ß∂", set()) == "topic"


def test_the_taxonomy_topics_keep_their_record_and_discovered_ones_say_so():
    assert not Topic("a", "A", "").discovered
    assert discovered.MIN_PAPERS == 3


def test_a_phrase_every_paper_of_the_field_uses_names_no_group():
    # Real NeurIPS 2020: three papers grouped as "Machine learning models".
    assert names._is_broad(("machine", "learning", "model"))
    assert names._is_broad(("deep", "neural", "network"))
    assert not names._is_broad(("neural", "network", "pruning"))
    assert not names._is_broad(("symmetry",))
