"""One netcfg run at a time in a folder: a lock file held for the run's lifetime.

The lock is an flock on `<folder>/.netcfg.lock`. The kernel releases it when its holder ends, however
it ends (SIGKILL included), so the lock of a dead process is free and simply taken over; no pid is
trusted to tell. The file says who holds it, for the refusal of the next run to name.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path

from netcfg.errors import InputError, OutputError

LOCK_FILE = ".netcfg.lock"
# The holder removes the file as it releases it: a run that opened the old file locks a removed one,
# sees that, and opens the new one. Each retry follows another run's exit, never a wait.
_ATTEMPTS = 5


@contextmanager
def folder_lock(folder: Path, command: str, where: str) -> Iterator[Path]:
    """Hold `folder`'s lock while the block runs (`folder` must exist); `command` is what the lock file
    says holds it. A folder another live run holds is an InputError naming `where` and that run."""
    path = folder / LOCK_FILE
    fd = _acquire(path, where)
    if _read(fd) == {}:
        os.close(fd)
        raise InputError(str(path), "was not written by netcfg; expected netcfg's lock file (move it away)")
    try:
        _claim(fd, path, command)
        yield path
    finally:
        # Removed while still held, so no run can lock the file on its way out.
        with suppress(OSError):
            path.unlink()
        os.close(fd)


def _acquire(path: Path, where: str) -> int:
    for _ in range(_ATTEMPTS):
        fd = _open(path)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise InputError(where, f"is in use by {holder}; stop it first, or use another folder") from None
        if _same_file(path, fd):
            return fd
        os.close(fd)
    raise InputError(where, f"its lock {path} kept changing; expected one netcfg run at a time here")


def _open(path: Path) -> int:
    try:
        # O_NOFOLLOW and O_NONBLOCK: a symbolic link or a FIFO in the lock's place is refused, not followed.
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(str(path), "is a symbolic link; expected netcfg's lock file") from None
        raise OutputError.from_os_error(path, exc) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise InputError(str(path), "is not a regular file; expected netcfg's lock file")
    return fd


def _same_file(path: Path, fd: int) -> bool:
    try:
        now = path.stat()
    except OSError:
        return False
    held = os.fstat(fd)
    return (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino)


def _read(fd: int) -> dict | None:
    """What the lock file says, if netcfg wrote it; None for an empty file."""
    data = os.pread(fd, 4096, 0)
    if not data:
        return None
    try:
        holder = json.loads(data)
    except ValueError:
        return {}
    return holder if isinstance(holder, dict) and holder.get("netcfg") == "lock" else {}


def _holder(fd: int) -> str:
    holder = _read(fd)
    if not holder:
        return "another netcfg run (starting up)"
    return f"netcfg {holder.get('command')} (pid {holder.get('pid')}, started {holder.get('started')})"


def _claim(fd: int, path: Path, command: str) -> None:
    """Say who holds the lock: this run, from now."""
    started = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    text = json.dumps({"netcfg": "lock", "command": command, "pid": os.getpid(), "started": started})
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, (text + "\n").encode(), 0)
    except OSError as exc:
        raise OutputError.from_os_error(path, exc) from None
