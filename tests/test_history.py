"""content/history.yaml: reading it back, updating it, and every error a user can see in it."""

from __future__ import annotations

import pytest

from papercat.content.history import (
    Arrival,
    History,
    dump_history,
    load_history,
    make_news,
    source_date,
    update_history,
)


def roundtrip(history: History, tmp_path) -> History:
    path = tmp_path / "history.yaml"
    path.write_bytes(dump_history(history))
    loaded, problems = load_history(path, "content/history.yaml")
    assert problems == []
    return loaded


def test_dump_and_load_give_back_the_same_history(tmp_path):
    history = History((Arrival("listings/a.txt", 1, "00ff", 3), Arrival("listings/odd: name #1.txt", 2, "a1", 1,
                                                                       "2026-11-29"),
                       Arrival("listings/论文.txt", 2, "b2", 7)))
    assert roundtrip(history, tmp_path) == history


def test_new_listings_of_one_build_arrive_together_after_the_known_ones():
    one = update_history(History(), [("listings/b.txt", "icml-2025", ["1"]), ("listings/a.txt", "icml-2025", ["2"])],
                         None)
    assert [(a.file, a.arrived) for a in one.arrivals] == [("listings/a.txt", 1), ("listings/b.txt", 1)]
    two = update_history(one, [("listings/a.txt", "icml-2025", ["2", "3"]), ("listings/b.txt", "icml-2025", ["1"]),
                               ("listings/c.txt", "iclr-2025", ["4"])], "2026-01-02")
    assert [(a.file, a.arrived, a.papers, a.date) for a in two.arrivals] == [
        ("listings/a.txt", 1, 2, None), ("listings/b.txt", 1, 1, None), ("listings/c.txt", 2, 1, "2026-01-02")]
    assert update_history(two, [("listings/c.txt", "iclr-2025", ["4"])], None).arrivals == (two.arrivals[2],), \
        "listings that are gone are forgotten"


def test_a_renamed_listing_keeps_its_arrival_and_an_edited_one_too():
    first = update_history(History(), [("listings/a.txt", "x", ["1", "2"])], "2025-01-01")
    renamed = update_history(first, [("listings/z.txt", "x", ["1", "2"])], "2026-01-01")
    assert [(a.file, a.arrived, a.date) for a in renamed.arrivals] == [("listings/z.txt", 1, "2025-01-01")]
    edited = update_history(renamed, [("listings/z.txt", "x", ["1", "2", "3"])], "2026-01-01")
    assert [(a.file, a.arrived, a.papers) for a in edited.arrivals] == [("listings/z.txt", 1, 3)]


def test_news_puts_the_newest_listing_first_and_a_paper_under_its_first_listing():
    history = update_history(History(), [("listings/old.txt", "a", ["p1", "p2"])], None)
    history = update_history(history, [("listings/old.txt", "a", ["p1", "p2"]),
                                       ("listings/new.txt", "b", ["p3", "p1"])], None)
    news = make_news(history, [("listings/old.txt", "a", ["p1", "p2"]), ("listings/new.txt", "b", ["p3", "p1"])])
    assert news.order == ("p3", "p1", "p2")
    assert [(a.file, venue, ids) for a, venue, ids in news.latest] == [
        ("listings/new.txt", "b", ("p3",)), ("listings/old.txt", "a", ("p1", "p2"))]


@pytest.mark.parametrize("value, expected", [("1764374400", "2025-11-29"), ("", None), ("soon", None), (" 0 ", "1970-01-01")])
def test_source_date_epoch(value, expected):
    assert source_date({"SOURCE_DATE_EPOCH": value}) == expected


@pytest.mark.parametrize("text, message", [
    ("listings: {}\n", "content/history.yaml:1: expected a 'listings:' list; delete the file to start the history anew"),
    ("listing: []\n", 'content/history.yaml:1: unknown key "listing" in history.yaml; expected one of: listings'),
    ("listings:\n- file: listings/a.txt\n  arrived: 1\n  papers: 2\n",
     "content/history.yaml:2: entry 1 of listings has no fingerprint; expected file, arrived, papers and fingerprint"),
    ("listings:\n- file: listings/a.txt\n  arrived: first\n  papers: 2\n  fingerprint: ab\n",
     'content/history.yaml:3: "arrived" of entry 1 of listings is first; expected a whole number'),
    ("listings:\n- file: listings/a.txt\n  arrived: 1\n  papers: 2\n  fingerprint: ab\n  date: 2026-13-01\n",
     'content/history.yaml:6: "date" of entry 1 of listings is "2026-13-01"; expected a date like 2026-11-29'),
    (("listings:\n- {file: a.txt, arrived: 1, papers: 1, fingerprint: ab}\n"
     "- {file: a.txt, arrived: 2, papers: 1, fingerprint: cd}\n"),
     'content/history.yaml:3: "a.txt" is listed twice; expected each listing file once'),
    ("listings:\n- {file: a.txt, arrived: 1, papers: 1, fingerprint: ab, when: today}\n",
     ('content/history.yaml:2: unknown key "when" in entry 1 of listings; expected one of: file, arrived, date, '
     'papers, fingerprint')),
])
def test_history_errors_name_the_line(tmp_path, text, message):
    path = tmp_path / "history.yaml"
    path.write_text(text, encoding="utf-8")
    _, problems = load_history(path, "content/history.yaml")
    assert message in [str(p) for p in problems]
