"""netcfg's hidden working folders: made beside what they become, locked while their writer lives,
and removed by the next run that finds one whose writer is gone.

A working folder is `.<label>.netcfg-<pid>-<random>`. Its writer holds an flock on it while it works
there; the kernel drops that lock when the process ends, however it ends (SIGKILL included), so a
folder nobody locks, of a process that no longer runs, is a leftover. The same name with `.replaced`
(a snapshot moved aside for its successor) or `.discarded` (one being removed) is a leftover on the
same terms. It is removed only if it holds nothing but what netcfg writes there: a user's folder
that happens to look like one is kept.

A file written atomically into a user's folder goes first to `.<name>.netcfg-<pid>-<8 hex>`; one of a
process that no longer runs, for a name netcfg writes in that folder, is a leftover too.
"""

from __future__ import annotations

import fcntl
import os
import re
import secrets
import shutil
import tempfile
from collections.abc import Collection
from pathlib import Path

_NAME = re.compile(r"\..+\.netcfg-(?P<pid>\d+)-[A-Za-z0-9_]+(?:\.replaced|\.discarded)?")
_FILE = re.compile(r"\.(?P<name>.+)\.netcfg-(?P<pid>\d+)-[0-9a-f]{8}")


def aside_name(path: Path, why: str) -> Path:
    """Where this process moves `path` aside (`why`: "replaced" or "discarded"), as `sweep` knows it."""
    return path.with_name(f".{path.name}.netcfg-{os.getpid()}-{secrets.token_hex(4)}.{why}")


def temp_file_name(path: Path) -> Path:
    """The hidden file this process writes before renaming it to `path`, as `sweep_files` knows it."""
    return path.with_name(f".{path.name}.netcfg-{os.getpid()}-{secrets.token_hex(4)}")


class Scratch:
    """A new working folder in `parent`, locked by this process until `release`.

    Forked collector processes inherit the lock with the descriptor: it is free only once every
    process that writes into the folder has ended. Raises OSError when the folder cannot be made.
    """

    def __init__(self, parent: Path, label: str) -> None:
        self.path = Path(tempfile.mkdtemp(prefix=f".{label}.netcfg-{os.getpid()}-", dir=parent))
        self._fd: int | None = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        # A folder this process just made: no one else can hold its lock. Between mkdtemp and here
        # `sweep` leaves it alone too, because its pid is alive.
        fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def release(self) -> None:
        """Drop the lock (the folder is renamed into place, or removed, by the caller)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def sweep(parent: Path, suffixes: Collection[str]) -> list[Path]:
    """Remove the working folders in `parent` whose writer is gone and that hold only files ending in
    one of `suffixes` (at most one folder deep); returns those removed.

    Anything else is left as it is: a live writer's folder, a folder holding a file netcfg would not
    have written, a folder this user may not remove (a read-only install, another user's run).
    """
    removed = []
    try:
        entries = sorted(parent.iterdir())
    except OSError:
        return removed
    for entry in entries:
        found = _NAME.fullmatch(entry.name)
        if found is None or entry.is_symlink() or not entry.is_dir() or _alive(int(found["pid"])):
            continue
        try:
            fd = os.open(entry, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if _only(entry, suffixes, depth=1):
                shutil.rmtree(entry)
                removed.append(entry)
        except OSError:
            continue  # locked (a writer lives after all), or not ours to remove
        finally:
            os.close(fd)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it runs, as another user
        return True
    return True


def _only(folder: Path, suffixes: Collection[str], depth: int) -> bool:
    """Whether `folder` holds only regular files ending in `suffixes`, and folders of them."""
    for entry in folder.iterdir():
        if entry.is_symlink():
            return False
        if entry.is_dir():
            if depth == 0 or not _only(entry, suffixes, depth - 1):
                return False
        elif not entry.is_file() or not entry.name.endswith(tuple(suffixes)):
            return False
    return True


def sweep_files(folder: Path, names: Collection[str]) -> list[Path]:
    """Remove the hidden files a killed write left in `folder` for one of `names` (the files netcfg
    writes there) whose writer is gone; returns those removed. Any other file stays."""
    removed = []
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return removed
    for entry in entries:
        found = _FILE.fullmatch(entry.name)
        if found is None or found["name"] not in names or _alive(int(found["pid"])):
            continue
        if entry.is_symlink() or not entry.is_file() or entry.lstat().st_uid != os.geteuid():
            continue
        try:
            entry.unlink()
        except OSError:
            continue
        removed.append(entry)
    return removed
