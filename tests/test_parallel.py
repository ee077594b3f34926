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

from papercat.parallel import WORKER_NICENESS, parallel_map
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
        from papercat.parallel import parallel_map
        done = []
        def square(n):
            time.sleep(0.001)  # long enough for both workers to take runs of items
            return n * n, os.getpid()
        out = parallel_map(square, list(range(1000)), done.append)
        print(json.dumps({"out": out, "done": done, "me": os.getpid()}))
    """))
    assert [square for square, _ in out["out"]] == [n * n for n in range(1000)]
    pids = {pid for _, pid in out["out"]}
    assert out["me"] not in pids and len(pids) == 2, "two forked workers did the work"
    assert sum(out["done"]) == 1000 and len(out["done"]) > 2, "progress is reported run by run"


def test_plain_results_come_back_from_worker_processes_as_they_were_made():
    out = json.loads(fresh_python("""
        import json, os, time
        from fractions import Fraction
        from papercat.parallel import Plain, parallel_map
        as_pair = Plain(lambda f: (f.numerator, f.denominator, os.getpid()), lambda p: (Fraction(*p[:2]), p[2]))
        def seventh(n):
            time.sleep(0.001)  # long enough for both workers to take runs of items
            return Fraction(n, 7)  # which marshal cannot write
        done = []
        out = parallel_map(seventh, list(range(600)), done.append, plain=as_pair)
        print(json.dumps({"same": [f for f, _ in out] == [Fraction(n, 7) for n in range(600)],
                          "pids": sorted({pid for _, pid in out}), "me": os.getpid(), "done": done}))
    """))
    assert out["same"] and out["me"] not in out["pids"] and len(out["pids"]) == 2
    assert sum(out["done"]) == 600 and len(out["done"]) > 2, "progress counts items, run by run"


def test_closures_reach_the_workers_without_pickling():
    out = json.loads(fresh_python("""
        import json, os, threading
        from papercat.parallel import parallel_map
        lock = threading.Lock()  # cannot be pickled, but a forked worker has it already
        print(json.dumps(parallel_map(lambda n: (n + 1, lock is not None, os.getpid()), list(range(300))) + [os.getpid()]))
    """))
    *out, me = out
    assert [n[:2] for n in out] == [[n + 1, True] for n in range(300)]
    assert me not in {n[2] for n in out}


@pytest.mark.parametrize("why", ["one job", "few items", "another thread"])
def test_a_loop_is_used_when_workers_would_not_help_or_be_safe(monkeypatch, why):
    monkeypatch.setenv("PAPERCAT_JOBS", "1" if why == "one job" else "2")
    items = list(range(10 if why == "few items" else 1000))
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    if why == "another thread":
        other.start()
    try:
        out = parallel_map(_square_and_pid, items)
    finally:
        stop.set()
    assert {pid for _, pid in out} == {os.getpid()}
    assert [square for square, _ in out] == [n * n for n in items]


def test_few_large_items_may_ask_for_workers():
    out = json.loads(fresh_python("""
        import json, os
        from papercat.parallel import parallel_map
        print(json.dumps([os.getpid(), parallel_map(lambda n: os.getpid(), [1, 2, 3, 4], min_items=2)]))
    """))
    assert out[0] not in out[1]


def test_the_first_items_asked_to_run_alone_are_each_a_run_of_their_own_and_results_stay_in_order():
    out = json.loads(fresh_python("""
        import json, os
        from papercat.parallel import map_beside
        done = []
        out, _ = map_beside(lambda n: (n * n, os.getpid()), list(range(1000)), lambda: None, done.append, alone=5)
        print(json.dumps({"out": out, "done": done}))
    """))
    assert [square for square, _ in out["out"]] == [n * n for n in range(1000)]
    # Two workers take 16 runs each of the 995 others: 31 of 32 items and the 3 left.
    assert sorted(out["done"]) == [1] * 5 + [3] + [32] * 31, "five runs of one item, the rest in runs of equal length"


def test_work_beside_the_workers_runs_in_this_process_while_they_run():
    out = json.loads(fresh_python("""
        import json, os, time
        from papercat.parallel import map_beside
        def slow(n):
            time.sleep(0.002)
            return time.monotonic(), os.getpid()
        def beside():
            start = time.monotonic()
            time.sleep(0.3)
            return start, time.monotonic(), os.getpid()
        out, other = map_beside(slow, list(range(400)), beside)
        print(json.dumps({"out": out, "beside": other, "me": os.getpid()}))
    """))
    start, end, pid = out["beside"]
    assert pid == out["me"] and out["me"] not in {p for _, p in out["out"]}
    assert any(start < t < end for t, _ in out["out"]), "workers finished items while the other work ran"


def test_workers_beside_work_of_this_process_run_at_a_lower_priority_than_it_and_others_at_its_own():
    """The work beside the workers is one piece that cannot be shared: the workers leave it a core of its own,
    so it does not end alone after them (the search index beside the pages). Plain maps keep the build's."""
    out = json.loads(fresh_python("""
        import json, os
        from papercat.parallel import map_beside, parallel_map
        beside, other = map_beside(lambda n: os.nice(0), list(range(400)), lambda: os.nice(0))
        plain = parallel_map(lambda n: (os.nice(0), os.getpid()), list(range(400)))
        print(json.dumps({"beside": beside, "other": other, "plain": plain, "me": [os.nice(0), os.getpid()]}))
    """))
    mine, me = out["me"]
    assert out["other"] == mine and set(out["beside"]) == {mine + WORKER_NICENESS}
    assert {niceness for niceness, _ in out["plain"]} == {mine} and me not in {pid for _, pid in out["plain"]}


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_error_beside_the_workers_reaches_the_build_and_stops_them(jobs):
    out = fresh_python("""
        import threading
        from papercat.parallel import map_beside
        def fail():
            raise ValueError("beside")
        try:
            map_beside(lambda n: n, list(range(500)), fail)
        except ValueError as exc:
            print(exc, threading.active_count())
    """, jobs)
    assert out.split() == ["beside", "1"], "the error, and no pool thread left behind"


def test_an_error_in_a_worker_reaches_the_build():
    out = fresh_python("""
        import os
        from papercat.parallel import parallel_map
        me = os.getpid()
        def fail_on_seven(n):
            if n == 7:
                raise ValueError(f"seven, in a worker: {os.getpid() != me}")
            return n
        try:
            parallel_map(fail_on_seven, list(range(500)))
        except ValueError as exc:
            print(exc)
    """)
    assert out.strip() == "seven, in a worker: True"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_started_step_runs_in_a_worker_while_this_process_works_on(jobs):
    out = json.loads(fresh_python("""
        import json, os, time
        from papercat.parallel import started
        def step():
            start = time.monotonic()
            time.sleep(0.3)
            return start, os.getpid()
        with started(step) as result:
            here = time.monotonic()
            time.sleep(0.3)
            start, pid = result()
            print(json.dumps({"here": here, "start": start, "pid": pid, "me": os.getpid(), "again": result()[1]}))
    """, jobs))
    if jobs == "1":  # no workers: the step runs when its result is asked for
        assert out["pid"] == out["me"] and out["start"] > out["here"] + 0.3
    else:
        assert out["pid"] != out["me"] and out["start"] < out["here"] + 0.3
    assert out["again"] == out["pid"], "the result is computed once"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_bytes_made_beside_come_from_a_worker_that_is_not_waited_for_and_a_failed_one_is_an_oserror(jobs):
    out = json.loads(fresh_python("""
        import json, os, time
        from papercat.parallel import made_beside
        def make():
            time.sleep(0.3)
            return str(os.getpid()).encode() * 100_000  # more than a pipe holds
        started = time.monotonic()
        result = made_beside(make)
        returned = time.monotonic() - started
        made = result()
        def fail():
            raise ValueError("no bytes")
        try:
            made_beside(fail)()
            failed = "no error"
        except OSError as exc:
            failed = str(exc)
        except ValueError as exc:
            failed = "in this process: " + str(exc)
        print(json.dumps({"returned": returned, "pid": made[:len(str(os.getpid()))].decode(), "me": os.getpid(),
                          "size": len(made), "again": result() is made, "failed": failed}))
    """, jobs))
    assert out["size"] == 100_000 * len(str(out["me"])) or out["pid"] != str(out["me"])
    assert out["again"], "the bytes are read once"
    if jobs == "1":  # no workers: made at once, here
        assert out["pid"] == str(out["me"]) and out["returned"] >= 0.3
        assert out["failed"] == "in this process: no bytes"
    else:
        assert out["pid"] != str(out["me"]) and out["returned"] < 0.3
        assert "a worker process stopped without its result (exit code 1)" in out["failed"]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_steps_started_one_after_another_give_each_result_once_it_is_done(jobs):
    """A later step does not hold up an earlier one's result: the worker goes on with it meanwhile."""
    out = json.loads(fresh_python("""
        import json, os, time
        from papercat.parallel import started_steps
        def first():
            return time.monotonic(), os.getpid()
        def second():
            time.sleep(1.0)
            return time.monotonic(), os.getpid()
        with started_steps([first, second]) as (one, two):
            time.sleep(0.2)
            asked = time.monotonic()
            got, pid = one()
            answered = time.monotonic()
            print(json.dumps({"asked": asked, "answered": answered, "one": [got, pid], "two": two(),
                              "done": time.monotonic(), "me": os.getpid()}))
    """, jobs))
    (one_at, one_pid), (two_at, two_pid) = out["one"], out["two"]
    assert one_at < two_at < out["done"]
    if jobs == "1":  # each step runs when its result is asked for
        assert one_pid == two_pid == out["me"]
    else:
        assert one_pid == two_pid != out["me"]
        assert out["answered"] - out["asked"] < 0.5, "the first result came before the second step was done"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_error_in_a_started_step_reaches_the_build_and_the_other_steps_still_give_theirs(jobs):
    out = fresh_python("""
        from papercat.parallel import started_steps
        def fail():
            raise ValueError("the first step failed")
        with started_steps([fail, lambda: 2]) as (one, two):
            for result in (one, two):
                try:
                    print(result())
                except ValueError as exc:
                    print(exc)
    """, jobs)
    assert out.splitlines() == ["the first step failed", "2"]


def test_a_step_started_for_idle_time_runs_at_the_lowest_priority_and_leaves_the_build_its_own():
    out = json.loads(fresh_python("""
        import json, os
        from papercat.parallel import started
        with started(lambda: (os.nice(0), os.getpid()), idle=True) as idle, started(lambda: os.nice(0)) as plain:
            print(json.dumps({"idle": idle(), "plain": plain(), "me": [os.nice(0), os.getpid()]}))
    """))
    (niceness, pid), (mine, me) = out["idle"], out["me"]
    assert pid != me and niceness == 19 and out["plain"] == mine < 19


def test_a_started_worker_ends_when_its_result_is_ready_not_when_asked_and_a_killed_one_is_reported():
    out = json.loads(fresh_python("""
        import json, multiprocessing, os, signal, time
        from papercat.errors import CatalogError
        from papercat.parallel import started
        with started(lambda: list(range(100_000))) as result:  # far more than a pipe holds
            deadline = time.monotonic() + 30
            while multiprocessing.active_children() and time.monotonic() < deadline:
                time.sleep(0.01)
            ended = not multiprocessing.active_children()
            same = result() == list(range(100_000))
        with started(lambda: time.sleep(60)) as result:
            os.kill(multiprocessing.active_children()[0].pid, signal.SIGKILL)
            try:
                result()
                killed = "no error"
            except CatalogError as exc:
                killed = str(exc)
        print(json.dumps({"ended": ended, "same": same, "killed": killed}))
    """))
    assert out["ended"] and out["same"]
    assert out["killed"].startswith("a worker process stopped without its result (exit code -9)")


@pytest.mark.parametrize("ask", [True, False])
def test_an_error_in_a_started_step_reaches_the_build_and_a_worker_not_asked_is_stopped(ask):
    out = fresh_python(f"""
        import multiprocessing, time
        from papercat.parallel import started
        def fail():
            raise ValueError("started")
        try:
            with started(fail if {ask} else lambda: time.sleep(60)) as result:
                if {ask}:
                    result()
        except ValueError as exc:
            print(exc)
        print(len(multiprocessing.active_children()))
    """)
    assert out.split() == (["started", "0"] if ask else ["0"])


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
            from papercat import parallel
            from papercat.enrich.related import neighbours
            from papercat.pipeline import Paths, build
            neighbours.BLOCK_CELLS = 40_000  # related papers in many blocks of rows
            calls = []
            real, real_beside = parallel.parallel_map, parallel.map_beside
            def forks(items, min_items):
                calls.append(len(items) >= min_items and parallel.jobs() > 1 and parallel._can_fork())
            def counting(compute, items, done=None, min_items=parallel.MIN_ITEMS, plain=None):
                forks(items, min_items)
                return real(compute, items, done, min_items, plain)
            def counting_beside(compute, items, beside, done=None, min_items=parallel.MIN_ITEMS, plain=None, alone=0):
                forks(items, min_items)
                return real_beside(compute, items, beside, done, min_items, plain, alone)
            import papercat.cache, papercat.enrich.keyphrases.ranking, papercat.pipeline
            for module in (papercat.cache, neighbours, papercat.enrich.keyphrases.ranking):
                module.parallel_map = counting
            papercat.pipeline.map_beside = neighbours.map_beside = counting_beside
            build(Paths(Path({str(content)!r}), Path({str(out)!r}), cache=None),
                  base_url="https://example.org/catalog/", record_history=False)
            # abstracts, titles, keyphrases (analysed with the related terms, picked), the keyphrases' keys,
            # related blocks, pages (the topics and coined names are found by a worker of their own, at the
            # lowest priority; the search terms are counted beside the pages)
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
        from papercat import writer
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
