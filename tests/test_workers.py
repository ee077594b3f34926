"""Worker processes give exactly what a loop gives: the same results in order, the same site."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from papercat import workers
from tests.conftest import tree

ROOT = Path(__file__).resolve().parent.parent


def _square_and_pid(n: int) -> tuple[int, int]:
    return n * n, os.getpid()


def fresh_python(code: str, jobs: str = "2") -> str:
    """Run ``code`` in a new interpreter and return its stdout.

    Workers are forked only from a process with no other thread, and the test session has some
    (the browser tests' server and Playwright), so what must use workers runs in a process of its own.
    """
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], check=False, cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PAPERCAT_JOBS": jobs, "PYTHONPATH": str(ROOT)}, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_results_come_back_in_order_from_worker_processes():
    out = json.loads(fresh_python("""
        import json, os, time
        from papercat import workers
        done = []
        def square(n):
            time.sleep(0.001)  # long enough for both workers to take runs of items
            return n * n, os.getpid()
        out = workers.map(square, list(range(1000)), done.append)
        print(json.dumps({"out": out, "done": done, "me": os.getpid()}))
    """))
    assert [square for square, _ in out["out"]] == [n * n for n in range(1000)]
    pids = {pid for _, pid in out["out"]}
    assert out["me"] not in pids and len(pids) == 2, "two forked workers did the work"
    assert sum(out["done"]) == 1000 and len(out["done"]) > 2, "progress is reported run by run"


def test_closures_reach_the_workers_without_pickling():
    out = json.loads(fresh_python("""
        import json, os, threading
        from papercat import workers
        lock = threading.Lock()  # cannot be pickled, but a forked worker has it already
        print(json.dumps(workers.map(lambda n: (n + 1, lock is not None, os.getpid()), list(range(300)))
                         + [workers.submit(lambda: (lock is not None, os.getpid())).result(), os.getpid()]))
    """))
    *out, submitted, me = out
    assert [n[:2] for n in out] == [[n + 1, True] for n in range(300)]
    assert me not in {n[2] for n in out}
    assert submitted[0] and submitted[1] != me


@pytest.mark.parametrize("why", ["one job", "few items", "another thread"])
def test_a_loop_is_used_when_workers_would_not_help_or_be_safe(monkeypatch, why):
    monkeypatch.setenv("PAPERCAT_JOBS", "1" if why == "one job" else "2")
    items = list(range(10 if why == "few items" else 1000))
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    if why == "another thread":
        other.start()
    try:
        out = workers.map(_square_and_pid, items)
        submitted = workers.submit(lambda: os.getpid()).result()
    finally:
        stop.set()
    assert {pid for _, pid in out} == {os.getpid()}
    assert [square for square, _ in out] == [n * n for n in items]
    if why != "few items":
        assert submitted == os.getpid()


def test_few_large_items_may_ask_for_workers():
    out = json.loads(fresh_python("""
        import json, os
        from papercat import workers
        print(json.dumps([os.getpid(), workers.map(lambda n: os.getpid(), [1, 2, 3, 4], min_items=2)]))
    """))
    assert out[0] not in out[1]


def test_an_error_in_a_worker_reaches_the_build_and_no_worker_is_left():
    out = fresh_python("""
        import multiprocessing, os
        from papercat import workers
        me = os.getpid()
        def fail_on_seven(n):
            if n == 7:
                raise ValueError(f"seven, in a worker: {os.getpid() != me}")
            return n
        try:
            workers.map(fail_on_seven, list(range(500)))
        except ValueError as exc:
            print(exc)
        print(len(multiprocessing.active_children()))
    """)
    assert out.splitlines() == ["seven, in a worker: True", "0"]


def test_a_killed_worker_is_reported():
    out = fresh_python("""
        import os, signal
        from papercat import workers
        from papercat.errors import CatalogError
        def die(n):
            if n == 7:
                os.kill(os.getpid(), signal.SIGKILL)
            return n
        try:
            workers.map(die, list(range(500)))
        except CatalogError as exc:
            print(exc)
    """)
    assert out.startswith("a worker process stopped without its result (exit code -9)")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_submitted_call_runs_in_a_worker_while_this_process_works_on(jobs):
    out = json.loads(fresh_python("""
        import json, os, time
        from papercat import workers
        def step():
            start = time.monotonic()
            time.sleep(0.3)
            return start, os.getpid()
        result = workers.submit(step)
        here = time.monotonic()
        time.sleep(0.3)
        start, pid = result.result()
        print(json.dumps({"here": here, "start": start, "pid": pid, "me": os.getpid(), "again": result.result()[1]}))
    """, jobs))
    if jobs == "1":  # no workers: the call runs when its result is asked for
        assert out["pid"] == out["me"] and out["start"] > out["here"] + 0.3
    else:
        assert out["pid"] != out["me"] and out["start"] < out["here"] + 0.3
    assert out["again"] == out["pid"], "the result is computed once"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_error_in_a_submitted_call_reaches_the_build_and_another_call_still_gives_its_result(jobs):
    out = fresh_python("""
        from papercat import workers
        def fail():
            raise ValueError("the first call failed")
        for future in (workers.submit(fail), workers.submit(lambda: 2)):
            try:
                print(future.result())
            except ValueError as exc:
                print(exc)
    """, jobs)
    assert out.splitlines() == ["the first call failed", "2"]


def test_a_submitted_worker_ends_when_its_result_is_ready_not_when_asked_and_a_killed_one_is_reported():
    out = json.loads(fresh_python("""
        import json, multiprocessing, os, signal, time
        from papercat import workers
        from papercat.errors import CatalogError
        result = workers.submit(lambda: list(range(100_000)))  # far more than a pipe holds
        deadline = time.monotonic() + 30
        while multiprocessing.active_children() and time.monotonic() < deadline:
            time.sleep(0.01)
        ended = not multiprocessing.active_children()
        same = result.result() == list(range(100_000))
        result = workers.submit(lambda: time.sleep(60))
        os.kill(multiprocessing.active_children()[0].pid, signal.SIGKILL)
        try:
            result.result()
            killed = "no error"
        except CatalogError as exc:
            killed = str(exc)
        print(json.dumps({"ended": ended, "same": same, "killed": killed}))
    """))
    assert out["ended"] and out["same"]
    assert out["killed"].startswith("a worker process stopped without its result (exit code -9)")


def test_a_bad_jobs_setting_says_what_was_expected(small_content, tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "build.py"), "--content", str(small_content), "--out",
                           str(tmp_path / "site")], check=False, capture_output=True, text=True,
                          env={**os.environ, "PAPERCAT_JOBS": "two"})
    assert done.returncode == 1
    assert "Error: PAPERCAT_JOBS='two'; expected a whole number of worker processes" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_site_built_by_workers_is_byte_identical_to_one_built_by_a_loop(tmp_path):
    content = tmp_path / "content"
    fresh_python(f"""
        import sys
        sys.path.insert(0, "benchmarks")
        from search_index import make_listings
        make_listings(__import__("pathlib").Path({str(content)!r}), 400)  # enough for workers at every step
    """)
    sites = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"site-{jobs}"
        fresh_python(f"""
            from pathlib import Path
            from papercat import workers
            from papercat.enrich.related import neighbours
            from papercat.pipeline import Paths, build
            neighbours.BLOCK_CELLS = 40_000  # related papers in many blocks of rows
            calls = []
            real = workers.map
            def counting(compute, items, done=None, min_items=workers.MIN_ITEMS):
                calls.append(len(items) >= min_items and workers.jobs() > 1 and workers._can_fork())
                return real(compute, items, done, min_items)
            real_submit = workers.submit
            def counting_submit(compute):
                calls.append(workers.jobs() > 1 and workers._can_fork())
                return real_submit(compute)
            workers.map, workers.submit = counting, counting_submit
            build(Paths(Path({str(content)!r}), Path({str(out)!r}), cache=None),
                  base_url="https://example.org/catalog/", record_history=False)
            # abstracts, titles, keyphrases (analysed with the related terms, picked), the keyphrases' keys,
            # related blocks, the topics and coined names, the search terms, pages (the pages' own map runs
            # in the worker that the pages are submitted to)
            assert sum(calls) >= (7 if {jobs!r} == "2" else 0), calls
        """, jobs)
        sites[jobs] = tree(out)
    assert len(sites["1"]) > 400
    assert sites["1"] == sites["2"]


def test_workers_stage_their_pages_into_the_site_as_a_loop_does_and_a_failure_leaves_it_as_it_was(tmp_path):
    out = json.loads(fresh_python(f"""
        import json, os, shutil, sys
        from pathlib import Path
        sys.path.insert(0, "benchmarks")
        from search_index import make_listings
        from papercat.output import writer
        from papercat.errors import CatalogError
        from papercat.pipeline import PROJECT_ROOT, Paths, build
        from tests.conftest import ABSTRACT_A, tree
        tmp = Path({str(tmp_path)!r})
        content, writers = tmp / "content", tmp / "writers"
        make_listings(content, 300)  # enough pages for workers
        writers.mkdir()
        write_new = writer._write_new
        def recorded(path, data, mask):  # which processes write the staged files
            (writers / str(os.getpid())).touch()
            write_new(path, data, mask)
        writer._write_new = recorded
        def sites(templates=PROJECT_ROOT / "templates"):
            done = {{}}
            for jobs in ("2", "1"):
                os.environ["PAPERCAT_JOBS"] = jobs
                result = build(Paths(content, tmp / f"site-{{jobs}}", templates=templates, cache=None),
                               base_url="https://example.org/catalog/", record_history=False)
                done[jobs] = result.changes
            return done
        def mtimes(site):
            return {{p.relative_to(site).as_posix(): p.stat().st_mtime_ns for p in site.rglob("*") if p.is_file()}}
        sites()
        for file in tmp.glob("site-*/**/*"):
            if file.is_file():
                os.utime(file, ns=(10**9, 10**9))  # an old mtime, so a rewrite shows even on a coarse clock
        acl = content / "listings" / "ACL_2024.txt"
        acl.write_text(acl.read_text().rsplit("\\n\\n", 1)[0] + "\\n")  # its last paper leaves
        (content / "listings" / "COLM_2025.txt").write_text(f"COLM 2025 Papers\\n\\n{{ABSTRACT_A}}\\n")
        reports = sites()
        touched = {{jobs: sorted(p for p, t in mtimes(tmp / f"site-{{jobs}}").items() if t != 10**9) for jobs in reports}}
        same = tree(tmp / "site-2") == tree(tmp / "site-1")
        before = tree(tmp / "site-2"), mtimes(tmp / "site-2")
        templates = tmp / "templates"
        shutil.copytree(PROJECT_ROOT / "templates", templates)
        paper = (templates / "paper.html").read_text()
        last = json.loads((tmp / "site-2" / "papers.json").read_text())["papers"][-1]["id"]
        (templates / "paper.html").write_text(paper.replace("{{% block main %}}",
            "{{% block main %}}{{% if paper.id == '" + last + "' %}}{{{{ paper.nope }}}}{{% endif %}}", 1))
        try:
            sites(templates)
            failed = ""
        except CatalogError as exc:
            failed = str(exc)
        print(json.dumps({{
            "reports": {{jobs: [list(r.written), r.unchanged, list(r.removed)] for jobs, r in reports.items()}},
            "touched": touched, "same": same, "failed": failed, "kept": before == (tree(tmp / "site-2"), mtimes(tmp / "site-2")),
            "left": sorted(p.name for p in tmp.iterdir()), "writers": [int(pid) for pid in os.listdir(writers)], "me": os.getpid()}}))
    """))
    written, unchanged, removed = out["reports"]["2"]
    assert out["reports"]["2"] == out["reports"]["1"] and out["same"], "workers and a loop made the same site"
    assert written and unchanged > 200 and removed, "files were written, kept and removed"
    assert out["touched"]["2"] == out["touched"]["1"] == sorted(written), "only the files written changed"
    assert "UndefinedError" in out["failed"] and out["kept"], "a page failing in a worker left the site as it was"
    assert out["left"] == ["content", "site-1", "site-2", "templates", "writers"], "no staging folder left"
    assert out["me"] in out["writers"] and len(out["writers"]) >= 3, "workers staged pages, and so did the build"


@pytest.mark.parametrize("given, expected", [(None, "1"), ("3", "3")])
def test_blas_runs_one_thread_per_process_unless_the_user_says_otherwise(given, expected):
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    code = "import os, papercat.pipeline; print(os.environ.get('OPENBLAS_NUM_THREADS'))"
    done = subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, capture_output=True, text=True,
                          env={**env, "PYTHONPATH": str(ROOT)}, timeout=60)
    assert done.stdout.strip() == expected
