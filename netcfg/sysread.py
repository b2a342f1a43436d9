"""What `grep -rH . PATH...` prints, answered from the sysfs and configfs files under a root folder,
read so that a hostile or broken tree cannot hang or flood the check.

A sysfs or configfs attribute is a regular file of at most a page. Anything else met where one is
read (a FIFO, a device, a symbolic-link loop, a file netcfg may not read, a file beyond
MAX_ATTRIBUTE_BYTES) is not answered: it raises Unreadable, naming the file, and the host cannot be
judged. Errors the kernel gives for a real attribute (no such file, EINVAL, EIO) are printed as
grep prints them, for the platform's parser to weigh.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path

from netcfg.deadline import Deadline

# A sysfs attribute is one page (4 KiB, 64 KiB on some arm64 kernels): more is not one.
MAX_ATTRIBUTE_BYTES = 64 * 1024
# What a tree netcfg is given should never answer: the kernel answers these for real attributes.
_REFUSED = {errno.ELOOP, errno.EACCES, errno.EPERM}
_EMPTY_GID = re.compile(r"[0:]*")
_KIND = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device"}


class Unreadable(Exception):
    """A file under the root that is no attribute netcfg can read: `shown: why`."""

    def __init__(self, shown: str, why: str) -> None:
        super().__init__(f"{shown}: {why}")


def grep_files(paths: list[str], root: Path, deadline: Deadline, quiet: bool = False) -> str:
    """`path:line` for every non-empty line of every file, folders walked as grep -r walks them
    (symbolic links given on the command line followed, those met inside a folder not), errors as
    grep words them. `quiet`: as the GID read prints it, without errors and all-zero lines.
    Raises Unreadable, or TimeoutError once the deadline has passed."""
    lines: list[str] = []
    for shown in paths:
        local = root / shown.lstrip("/")
        if local.is_dir():
            for folder, subfolders, files in os.walk(local, onerror=_refuse_folder(local, shown)):
                subfolders.sort()
                for name in sorted(files):
                    path = Path(folder) / name
                    if not path.is_symlink():
                        _grep_file(path, shown + str(path)[len(str(local)) :], lines, quiet, deadline)
        else:
            _grep_file(local, shown, lines, quiet, deadline)
    return "".join(f"{line}\n" for line in lines)


def _refuse_folder(local: Path, shown: str) -> Callable[[OSError], None]:
    """os.walk's onerror: a folder it cannot list is refused, where os.walk would skip it."""

    def refuse(exc: OSError) -> None:
        where = shown + str(exc.filename or local)[len(str(local)) :]
        raise Unreadable(where, f"a folder netcfg can list, not: {os.strerror(exc.errno or 0)}")

    return refuse


def _grep_file(path: Path, shown: str, lines: list[str], quiet: bool, deadline: Deadline) -> None:
    if deadline.passed():
        raise TimeoutError(deadline.why(f"reading {shown}"))
    try:
        text = read_attribute(path, shown).decode("utf-8", "replace")
    except OSError as exc:
        if not quiet:
            lines.append(f"grep: {shown}: {os.strerror(exc.errno) if exc.errno else exc}")
        return
    lines.extend(
        f"{shown}:{line}" for line in text.splitlines() if line and not (quiet and _EMPTY_GID.fullmatch(line))
    )


def read_attribute(path: Path, shown: str) -> bytes:
    """The file's bytes, if it is a regular file of at most MAX_ATTRIBUTE_BYTES. Its type is known
    before it is opened (opening a FIFO waits for a writer; opening a device can act on it), and it
    is opened non-blocking all the same, in case it was swapped in between."""
    try:
        kind = path.stat().st_mode
        if not stat.S_ISREG(kind):
            raise Unreadable(shown, f"a regular file, not {_KIND.get(stat.S_IFMT(kind), 'a socket')}")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno in _REFUSED:
            raise Unreadable(shown, f"a readable file, not: {os.strerror(exc.errno or 0)}") from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Unreadable(shown, "a regular file, replaced while it was read")
        data = os.read(fd, MAX_ATTRIBUTE_BYTES + 1)
        while data and len(data) <= MAX_ATTRIBUTE_BYTES and (more := os.read(fd, MAX_ATTRIBUTE_BYTES)):
            data += more
    finally:
        os.close(fd)
    if len(data) > MAX_ATTRIBUTE_BYTES:
        raise Unreadable(shown, f"an attribute of at most {MAX_ATTRIBUTE_BYTES // 1024} KiB, not more")
    return data
