"""Replace a site's folder whole: one build at a time, an atomic swap, and what a stopped build left.

The new site is staged in a folder beside the site, named ``.<site>.new-<random>``; ``swap``
exchanges the two folders in one step. Where the system cannot exchange two folders, the swap
takes two renames, the earlier site waiting at ``.<site>.old`` between them. A build that stops
anywhere leaves the site whole, as it was or as the new build made it, and at worst missing with
the earlier one aside: the next build puts that back and removes the rest (``clear_leftovers``).
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import functools
import logging
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

log = logging.getLogger(__name__)

STAGING = ".new-"  # a staging folder is named .<site>.new-<random>, beside the site
ASIDE = ".old"  # where a swap in two renames puts the earlier site between them: .<site>.old
_RENAME_EXCHANGE = 2  # from linux/fs.h
_AT_FDCWD = -100
_REMOVERS = 8  # threads unlinking the earlier site's files: they wait on the disk, not on Python
_RUN = 256  # files per run handed to a thread


def lock_beside(folder: Path, shown: Path, wait: bool = True) -> int | None:
    """Return an open descriptor of ``folder`` (the site's parent) holding its exclusive lock, once any other
    build that holds it has ended (saying, once, that it waits for ``shown``); unless ``wait``, None then.

    The lock is on the parent folder: it is always there (the site may not be yet), it keeps its
    inode while the site is swapped (a lock on the site's folder would not keep out a build that
    opened the new one), and it leaves no file beside the site. The cost: builds into two sites of
    one folder take turns. Worker processes forked by the build inherit the descriptor, so a build
    killed alone holds the lock until its workers have ended too: none still writes into a staging
    folder when the next build removes it.
    """
    said = False
    while True:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not wait:
                os.close(fd)
                return None
            if not said:
                log.warning("%s: another build is writing this folder; waiting for it to finish", shown)
                said = True
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except BaseException:
                os.close(fd)
                raise
        # A build that failed meanwhile may have removed the folder it made, and another made it again.
        if os.path.samestat(os.fstat(fd), os.stat(folder)):
            return fd
        os.close(fd)


def clear_beside(out_dir: Path) -> None:
    """Clear what a stopped build left beside ``out_dir`` (``clear_leftovers``), unless one is writing."""
    site = os.path.realpath(out_dir)
    try:
        fd = lock_beside(Path(site).parent, out_dir, wait=False)
        if fd is None:  # a build is writing: it clears them
            return
        try:
            clear_leftovers(site)
        finally:
            os.close(fd)
    except OSError as exc:
        log.warning("%s: could not clear what a stopped build left (%s)", exc.filename or site, exc.strerror)


def clear_leftovers(site: str) -> None:
    """Undo or remove what a stopped build left beside ``site``: put back the earlier site that a swap in
    two renames had moved aside before the new one was in place; remove staging folders and an earlier
    site."""
    parent, name = os.path.split(site)
    aside = os.path.join(parent, f".{name}{ASIDE}")
    if os.path.lexists(aside):
        if os.path.lexists(site):
            remove_tree(aside)
        else:
            os.rename(aside, site)
            log.info("%s: put back the earlier site, which a build that stopped had moved aside", site)
    with os.scandir(parent) as entries:
        left = [entry.path for entry in entries if entry.name.startswith(f".{name}{STAGING}")]
    for path in left:
        remove_tree(path)


def swap(staging: str, site: str, fresh: bool) -> str | None:
    """Put the folder ``staging`` at ``site`` in one step; return where the earlier site is now (None if
    ``fresh``: there was none).

    Without an exchange of two folders (an old kernel, a file system that lacks it), the earlier
    site is moved aside first; a build stopped between the two renames leaves it there, whole,
    for the next build to put back (``clear_leftovers``).
    """
    if fresh:
        os.rename(staging, site)
        return None
    if exchange(staging, site):
        return staging
    aside = os.path.join(os.path.dirname(site), f".{os.path.basename(site)}{ASIDE}")
    os.rename(site, aside)
    os.rename(staging, site)
    return aside


def exchange(first: str, second: str) -> bool:
    """Exchange two paths atomically (Linux's renameat2 with RENAME_EXCHANGE); return False where the
    system or the file system has no such call."""
    renameat2 = _renameat2()
    if renameat2 is None:
        return False
    if renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), second)


@functools.cache
def _renameat2() -> Callable[..., int] | None:
    """Return libc's renameat2, or None where there is none (glibc before 2.28, macOS, older musl)."""
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError, TypeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    function.restype = ctypes.c_int
    return function


def remove_tree(folder: str) -> None:
    """Remove ``folder`` and all in it; a failure is logged, for the next build to try again.

    The files are unlinked by a few threads: most of an unlink's time is the file system freeing
    the file's blocks, outside the folder's lock, so that several go on at once. The threads have
    all ended when this returns (workers.py forks only when no other thread runs).
    """
    try:
        files, folders = _tree(folder)
        runs = [files[start:start + _RUN] for start in range(0, len(files), _RUN)]
        with ThreadPoolExecutor(_REMOVERS, thread_name_prefix="papercat-remove") as pool:
            list(pool.map(lambda run: [os.unlink(path) for path in run], runs))
        for path in reversed(folders):  # the folders in a folder before it
            os.rmdir(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        log.warning("%s: could not remove it (%s); the next build tries again", exc.filename or folder,
                    exc.strerror)


def _tree(folder: str) -> tuple[list[str], list[str]]:
    """Return the paths of the files below ``folder`` (symbolic links among them), and of the folders, each
    after the folder it is in (``folder`` first)."""
    files, folders, pending = [], [folder], [folder]
    while pending:
        with os.scandir(pending.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    folders.append(entry.path)
                    pending.append(entry.path)
                else:
                    files.append(entry.path)
    return files, folders
