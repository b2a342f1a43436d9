"""Reading input files safely: regular files only, bounded in size, UTF-8, never blocking.

Inventories, policies, cabling exports, config files and snapshots come from users and repositories.
A FIFO, `/dev/zero`, a symlink loop, a 10 GB file or a Latin-1 export must each be one clear error
naming the file (and the line), never a hang, an unbounded read or a traceback.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from netcfg.errors import InputError

MiB = 1024 * 1024
# Large enough for the running config of a 512-port switch many times over.
MAX_TEXT_BYTES = 64 * MiB
_BOM = b"\xef\xbb\xbf"
_KINDS = {
    stat.S_IFDIR: "a folder",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


def read_bytes(path: Path, what: str, max_bytes: int = MAX_TEXT_BYTES) -> bytes:
    """The bytes of a regular file of at most `max_bytes`; InputError naming the file otherwise."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise InputError(str(path), f"{what} not found") from None
    except OSError as exc:
        raise _unreadable(path, what, exc) from None
    if not stat.S_ISREG(info.st_mode):
        kind = _KINDS.get(stat.S_IFMT(info.st_mode), "not a regular file")
        raise InputError(str(path), f"is {kind}; expected {what} as a regular file")
    if info.st_size > max_bytes:
        raise InputError(str(path), f"{what} is {info.st_size:,} bytes; expected at most {max_bytes:,}")
    try:
        # O_NONBLOCK: a FIFO put in the file's place after the check must not block the open; the
        # fstat then refuses it before anything is read.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise InputError(str(path), f"changed while being read; expected {what} as a regular file")
            # Sized to the file: a read of `max_bytes` allocates that much first, for every file.
            data = fh.read(info.st_size + 1)
            if len(data) > info.st_size:
                # Grown since the stat, or a file whose size the kernel does not report (procfs).
                data += fh.read(max_bytes + 1 - len(data))
    except PermissionError:
        raise InputError(str(path), f"cannot read {what}: permission denied") from None
    except OSError as exc:
        raise _unreadable(path, what, exc) from None
    if len(data) > max_bytes:
        raise InputError(str(path), f"{what} is larger than {max_bytes:,} bytes")
    return data


def _unreadable(path: Path, what: str, exc: OSError) -> InputError:
    return InputError(str(path), f"cannot read {what} ({exc.strerror or exc.__class__.__name__})")


def decode_text(data: bytes, where: str, what: str) -> str:
    """UTF-8 text (a leading BOM, as spreadsheet tools write, is dropped); the bad line is named."""
    data = data.removeprefix(_BOM)
    nul = data.find(b"\0")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise InputError(f"{where}:{line}", f"NUL byte in {what}; expected UTF-8 text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            f"{where}:{line}", f"byte 0x{data[exc.start]:02x} is not UTF-8; expected UTF-8 text ({what})"
        ) from None


def decode_output(data: bytes) -> str:
    """A device's saved output as text, whatever it holds: what is not UTF-8 is kept, each bad byte
    as a lone surrogate (`surrogateescape`), for `not_text` to name. One device that printed a
    stray byte is that device's unreadable output, not an unreadable snapshot."""
    data = data.removeprefix(_BOM)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("utf-8", "surrogateescape")


# A NUL, or a byte `decode_output` could not read.
_NOT_TEXT = re.compile("[\x00\udc80-\udcff]")


def not_text(text: str) -> tuple[int, str] | None:
    """(line, why) of the first character of `text` that no text output holds, said as `decode_text`
    says it."""
    # A string knows whether it is all ASCII; a lone surrogate is not ASCII, and a NUL is a byte search.
    if text.isascii() and "\0" not in text:
        return None
    found = _NOT_TEXT.search(text)
    if found is None:
        return None
    line = text.count("\n", 0, found.start()) + 1
    char = found.group()
    if char == "\0":
        return line, "NUL byte; expected UTF-8 text"
    return line, f"byte 0x{ord(char) - 0xDC00:02x} is not UTF-8; expected UTF-8 text"


def read_text(path: Path, what: str, max_bytes: int = MAX_TEXT_BYTES) -> str:
    """A regular UTF-8 text file of bounded size, or one InputError naming the file and line."""
    return decode_text(read_bytes(path, what, max_bytes), str(path), what)


def list_dir(path: Path, what: str) -> list[Path]:
    """The entries of a folder, sorted; InputError when it is missing or cannot be listed."""
    try:
        return sorted(path.iterdir())
    except FileNotFoundError:
        raise InputError(str(path), f"{what} not found") from None
    except NotADirectoryError:
        raise InputError(str(path), f"is not a folder; expected {what}") from None
    except OSError as exc:
        raise InputError(
            str(path), f"cannot list {what} ({exc.strerror or exc.__class__.__name__})"
        ) from None
