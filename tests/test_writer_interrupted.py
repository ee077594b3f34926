"""The site changes as a whole: real builds interrupted, failing, or run two at once.

Each test copies a project (content, a site from an earlier build and its cache) whose content has
changed since that build, runs ``build.py build`` on it as a process, and checks that the output
folder holds exactly the earlier site or exactly the new one, and that the next build completes
with nothing left beside the site.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from papercat.output.writer import MARKER
from tests.conftest import ABSTRACT_C, BUNDLED, ROOT, tree

ENV = {**os.environ, "SOURCE_DATE_EPOCH": "1764374400", "PYTHONPATH": str(ROOT)}
BESIDE = [".papercat-cache", "content", "site"]  # what a project folder holds after a good build
STAGING = ".site.new-"
# The fallback for systems without renameat2(RENAME_EXCHANGE): the same build, with the call "missing".
NO_EXCHANGE = ("import sys, papercat.output.swap as s; s.exchange = lambda a, b: False; "
               "from papercat.cli import main; sys.argv[0] = 'build.py'; main()")


@dataclass(frozen=True)
class Versions:
    """A project whose content changed since its site was built, and the site before and after."""

    start: Path
    old: dict[str, bytes]
    new: dict[str, bytes]


def _command(project: Path, fallback: bool = False, *options: str) -> list[str]:
    head = [sys.executable, "-c", NO_EXCHANGE] if fallback else [sys.executable, str(ROOT / "build.py")]
    return [*head, "build", "--content", str(project / "content"), "--out", str(project / "site"), "-q",
            *options]


def _build(project: Path, fallback: bool = False) -> subprocess.CompletedProcess[str]:
    return subprocess.run(_command(project, fallback), env=ENV, capture_output=True, text=True, timeout=120)


def _wait_for(project: Path, proc: subprocess.Popen[str], pattern: str = f"{STAGING}*") -> None:
    """Wait until ``proc`` has made a path of ``pattern`` in ``project`` (or ended).

    The staging folder appears before the pages are rendered; the site's marker in it is the last
    file staged before the swap.
    """
    end = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < end and not any(project.glob(pattern)):
        time.sleep(0.0005)


@pytest.fixture(scope="module")
def versions(tmp_path_factory) -> Versions:
    root = tmp_path_factory.mktemp("versions")
    project = root / "project"
    shutil.copytree(BUNDLED, project / "content")
    assert _build(project).returncode == 0
    old = tree(project / "site")
    listing = next(iter(sorted((project / "content" / "listings").iterdir())))
    listing.write_text(listing.read_text(encoding="utf-8") + f"\n{ABSTRACT_C}\n", encoding="utf-8")
    shutil.copytree(project, root / "start", symlinks=True)
    assert _build(project).returncode == 0
    new = tree(project / "site")
    assert new != old
    return Versions(root / "start", old, new)


@pytest.fixture
def project(versions, tmp_path) -> Path:
    """A copy of the changed project, its site as the earlier build left it (mtimes too)."""
    shutil.copytree(versions.start, tmp_path / "project", symlinks=True)
    return tmp_path / "project"


@dataclass(frozen=True)
class Moment:
    """When to interrupt a build: ``delay`` seconds after a path of ``pattern`` appears in the project."""

    pattern: str
    delay: float

    def __str__(self) -> str:
        return f"{'marker' if MARKER in self.pattern else 'staging'}+{self.delay * 1000:g}ms"


def _interrupted(project: Path, sig: signal.Signals, to_group: bool, moment: Moment,
                 fallback: bool = False, *options: str) -> subprocess.CompletedProcess[str]:
    """Run a build (with ``options``) and send it ``sig`` at ``moment``."""
    proc = subprocess.Popen(_command(project, fallback, *options), env=ENV, text=True, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _wait_for(project, proc, moment.pattern)
    time.sleep(moment.delay)
    try:
        os.killpg(proc.pid, sig) if to_group else proc.send_signal(sig)
    except ProcessLookupError:  # the build had ended
        pass
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _assert_next_build_completes(project: Path, versions: Versions, fallback: bool = False) -> None:
    done = _build(project, fallback)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert tree(project / "site") == versions.new
    assert sorted(os.listdir(project)) == BESIDE


SIGNALS = [("SIGINT", True), ("SIGTERM", False), ("SIGKILL", False), ("SIGKILL", True)]
STAGED = f"{STAGING}*"
SWAP = f"{STAGING}*/{MARKER}"
# While the pages are rendered, then about the swap: just before it, and as it and the removal of the
# earlier site go on (a few milliseconds for this site).
MOMENTS = [Moment(STAGED, 0.0), Moment(STAGED, 0.3),
           Moment(SWAP, 0.0), Moment(SWAP, 0.001), Moment(SWAP, 0.003)]


@pytest.mark.parametrize("moment", MOMENTS, ids=str)
@pytest.mark.parametrize(("name", "to_group"), SIGNALS, ids=[f"{n}-{'group' if g else 'process'}"
                                                            for n, g in SIGNALS])
def test_an_interrupted_build_leaves_the_old_site_or_the_new(project, versions, name, to_group, moment):
    _interrupted(project, signal.Signals[name], to_group, moment)
    assert tree(project / "site") in (versions.old, versions.new)
    _assert_next_build_completes(project, versions)


@pytest.mark.parametrize("moment", MOMENTS[2:], ids=str)
@pytest.mark.parametrize("name", ["SIGINT", "SIGKILL"])
def test_without_an_atomic_exchange_the_next_build_completes_an_interrupted_swap(project, versions, name,
                                                                                 moment):
    _interrupted(project, signal.Signals[name], True, moment, fallback=True)
    site = project / "site"
    if site.exists():
        assert tree(site) in (versions.old, versions.new)
    else:  # killed between the two renames: the earlier site waits beside it, whole
        assert tree(project / ".site.old") == versions.old
    _assert_next_build_completes(project, versions, fallback=True)


def test_ctrl_c_prints_no_traceback(versions, tmp_path):
    for attempt in range(5):  # on a busy machine the build may end before the signal lands: try again
        project = tmp_path / f"project-{attempt}"
        shutil.copytree(versions.start, project, symlinks=True)
        # While the pages render: all of them, without the cache, so that the signal lands before the end.
        done = _interrupted(project, signal.SIGINT, True, Moment(STAGED, 0.0), False, "--no-cache")
        if done.returncode != 0:
            break
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr


def test_unchanged_files_keep_their_bytes_inode_and_mtime(project, versions):
    site = project / "site"
    before = {p.relative_to(site).as_posix(): p.stat() for p in site.rglob("*") if p.is_file()}
    assert _build(project).returncode == 0
    after = {p.relative_to(site).as_posix(): p.stat() for p in site.rglob("*") if p.is_file()}
    same = [path for path in versions.new if versions.old.get(path) == versions.new[path]]
    assert len(same) > len(versions.new) // 2
    moved = [p for p in same if (after[p].st_ino, after[p].st_mtime_ns) != (before[p].st_ino, before[p].st_mtime_ns)]
    assert moved == []
    changed = [path for path in versions.new if path in before and versions.old[path] != versions.new[path]]
    assert changed and all(after[p].st_mtime_ns != before[p].st_mtime_ns for p in changed)
    assert tree(site) == versions.new and sorted(os.listdir(project)) == BESIDE


def test_a_second_build_waits_for_the_first_and_says_so_once(project, versions):
    first = subprocess.Popen(_command(project), env=ENV, text=True, stderr=subprocess.PIPE)
    _wait_for(project, first)
    first.send_signal(signal.SIGSTOP)  # holding the site folder until the second build is waiting
    try:
        log = project.parent / "second.err"
        with log.open("w") as err:
            second = subprocess.Popen(_command(project), env=ENV, text=True, stderr=err)
            end = time.monotonic() + 60
            while "another build" not in log.read_text() and second.poll() is None and time.monotonic() < end:
                time.sleep(0.01)
    finally:
        first.send_signal(signal.SIGCONT)
    assert first.wait(timeout=60) == 0 and second.wait(timeout=60) == 0
    message = log.read_text()
    assert message.count("another build is writing") == 1 and "Traceback" not in message, message
    assert str(project / "site") in message
    assert tree(project / "site") == versions.new and sorted(os.listdir(project)) == BESIDE


def test_two_builds_at_once_both_complete(project, versions):
    builds = [subprocess.Popen(_command(project), env=ENV, text=True, stderr=subprocess.PIPE)
              for _ in range(2)]
    errors = [build.communicate(timeout=120)[1] for build in builds]
    assert [build.returncode for build in builds] == [0, 0], errors
    assert not any("Traceback" in err for err in errors)
    assert tree(project / "site") == versions.new and sorted(os.listdir(project)) == BESIDE


@pytest.fixture
def small_disk(tmp_path):
    """A small tmpfs of its own (the test needs root and a system that lets it mount)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(disk)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs: {done.stderr.strip()}")
    yield disk
    subprocess.run(["umount", str(disk)], check=True)


def test_a_full_disk_leaves_the_old_site(versions, tmp_path, small_disk):
    shutil.copytree(versions.start / "content", tmp_path / "content")
    shutil.copytree(versions.start / "site", small_disk / "site")  # the cache stays off the small disk
    command = [sys.executable, str(ROOT / "build.py"), "build", "--content", str(tmp_path / "content"),
               "--out", str(small_disk / "site"), "--no-cache", "-q"]
    filler = small_disk / "filler"
    # The disk full but for a few pages. Unbuffered: a buffered file that could not write all its bytes
    # raises again when it is closed.
    with filler.open("wb", buffering=0) as file:
        try:
            while True:
                file.write(b"\0" * 65536)
        except OSError:
            pass
    os.truncate(filler, filler.stat().st_size - 32768)
    done = subprocess.run(command, env=ENV, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "No space left on device" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert tree(small_disk / "site") == versions.old
    assert sorted(os.listdir(small_disk)) == ["filler", "site"]
    filler.unlink()
    assert subprocess.run(command, env=ENV, capture_output=True, timeout=120).returncode == 0
    assert tree(small_disk / "site") == versions.new and os.listdir(small_disk) == ["site"]


def _chattr(flag: str, path: Path) -> None:
    done = subprocess.run(["chattr", flag, str(path)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot make {path} immutable here: {done.stderr.strip()}")


def test_a_site_folder_that_cannot_be_replaced_is_left_as_it_was(project, versions):
    site = project / "site"
    _chattr("+i", site)
    try:
        done = _build(project)
    finally:
        _chattr("-i", site)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert str(site) in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert tree(site) == versions.old and sorted(os.listdir(project)) == BESIDE
    _assert_next_build_completes(project, versions)


def test_a_file_that_cannot_be_replaced_does_not_stop_the_site_changing_whole(project, versions):
    site = project / "site"
    stuck = next(path for path, data in versions.new.items() if versions.old.get(path, data) != data)
    _chattr("+i", site / stuck)
    try:
        done = _build(project)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        assert tree(site) == versions.new
        assert "could not remove" in done.stderr  # the earlier site, which holds the immutable file
    finally:
        for left in [site / stuck, *project.glob(f"{STAGING}*/{stuck}")]:
            if left.exists():
                _chattr("-i", left)
    _assert_next_build_completes(project, versions)
