"""Writing what netcfg produces (reports, the starter inventory): whole or not at all, never over a
file netcfg did not write, and every failure one line naming the file."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from netcfg.errors import InputError, OutputError
from netcfg.scratch import sweep_files, temp_file_name

# The disk or device failed the write: not something the user typed wrong.
_WRITE_FAILURES = {errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EFBIG}


def write_report(path: Path, text: str, option: str = "--output") -> None:
    """Write `text` to `path`: a regular file is replaced atomically (a failed write leaves the old
    one as it was); a device or pipe (/dev/stdout) is written directly."""
    where = f"{option} {path}"
    try:
        existing = path.stat()
    except FileNotFoundError:
        existing = None
    except OSError as exc:
        raise write_error(where, path, exc) from None
    if existing is not None and stat.S_ISDIR(existing.st_mode):
        raise InputError(where, "is a folder; expected a file name to write the report to")
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        _write(where, path, text, os.O_WRONLY | os.O_TRUNC)
        return
    # What a killed earlier write of this file left beside it (its writer gone) goes first.
    sweep_files(path.parent, {path.name})
    temp = temp_file_name(path)
    _write(where, temp, text, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    try:
        temp.replace(path)
    except OSError as exc:
        temp.unlink(missing_ok=True)
        raise write_error(where, path, exc) from None


def write_new_file(path: Path, text: str) -> None:
    """Create `path` with `text`; a file already there (even one that appeared a moment ago) is
    refused, never overwritten."""
    try:
        _write(str(path), path, text, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    except FileExistsError:
        raise InputError(str(path), "already exists; netcfg does not overwrite it") from None


def _write(where: str, path: Path, text: str, flags: int) -> None:
    try:
        fd = os.open(path, flags | os.O_CLOEXEC, 0o666)
    except FileExistsError:
        raise
    except OSError as exc:
        raise write_error(where, path, exc) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        if flags & os.O_CREAT:
            path.unlink(missing_ok=True)
        raise write_error(where, path, exc) from None


def write_error(where: str, path: Path, exc: OSError) -> InputError | OutputError:
    """A failed write as the CLI reports it: a full or failing disk exits 4, a wrong place exits 2."""
    reason = exc.strerror or exc.__class__.__name__
    if exc.errno in _WRITE_FAILURES:
        return OutputError(where, reason)
    if exc.errno == errno.ENOENT:
        return InputError(where, f"folder {path.parent} does not exist; expected an existing folder")
    if exc.errno == errno.ENOTDIR:
        return InputError(where, f"{path.parent} is not a folder; expected an existing folder")
    return InputError(where, f"cannot write here ({reason}); expected a writable folder")
