"""Files netcfg writes into a user's folder, with a manifest of them, so it never replaces an edit.

`<folder>/.netcfg-written.json` keeps a digest of every file netcfg wrote there. A file already there
is replaced only if it still holds what netcfg last wrote (or exactly what it writes now), unless
the caller asks to overwrite. Every file and the manifest are written to a new hidden file and
renamed into place: a reader sees the old file or the new one, never half of one.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from netcfg import __version__
from netcfg.errors import InputError, OutputError
from netcfg.files import read_bytes, read_text
from netcfg.scratch import sweep_files, temp_file_name

MANIFEST = ".netcfg-written.json"
_WANTED = 'expected {"netcfg_version": ..., "files": {name: sha256}} as netcfg writes it (move it away)'


def write_owned(folder: Path, files: dict[str, str], *, overwrite: bool, where: str) -> None:
    """Write `files` (name -> text) into `folder`; `where` names the folder option in refusals.

    Everything is checked before anything is written: a refused file leaves the folder as it was.
    """
    _check_folder(folder, where)
    manifest = _read_manifest(folder / MANIFEST)
    # What a killed earlier write left: its hidden temporary files, of names netcfg writes here.
    sweep_files(folder, {*manifest, *files, MANIFEST})
    data = {name: text.encode("utf-8") for name, text in files.items()}
    for name, content in data.items():
        _check_replace(folder / name, manifest.get(name), content, overwrite)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError.from_os_error(exc.filename or folder, exc) from None
    for name, content in data.items():
        _write_atomic(folder / name, content)
        manifest[name] = _digest(content)
    text = json.dumps({"netcfg_version": __version__, "files": manifest}, indent=2, sort_keys=True)
    _write_atomic(folder / MANIFEST, (text + "\n").encode())


def _check_folder(folder: Path, where: str) -> None:
    if folder.exists():
        if not folder.is_dir():
            raise InputError(where, "exists and is not a folder; expected a folder to write into")
        return
    above = next((p for p in folder.parents if p.exists()), None)
    if above is not None and not above.is_dir():
        raise InputError(where, f"{above} is not a folder, so {folder} cannot be made in it")


def _read_manifest(path: Path) -> dict[str, str]:
    if not os.path.lexists(path):
        return {}
    if path.is_symlink():
        raise InputError(str(path), f"is a symbolic link; {_WANTED}")
    try:
        data = json.loads(read_text(path, "netcfg's manifest of written files"))
    except ValueError:
        raise InputError(str(path), f"is not JSON; {_WANTED}") from None
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        raise InputError(str(path), _WANTED)
    return files


def _check_replace(path: Path, recorded: str | None, content: bytes, overwrite: bool) -> None:
    """Refuse to replace what netcfg did not write there, or what was changed since it did."""
    if not os.path.lexists(path):
        return
    if path.is_symlink():
        raise InputError(str(path), "is a symbolic link; netcfg writes only regular files it can replace")
    current = _digest(read_bytes(path, "file netcfg would replace"))
    if current in (recorded, _digest(content)) or overwrite:
        return
    if recorded is None:
        raise InputError(
            str(path), f"was not written by netcfg (not in {MANIFEST}); give --overwrite to replace it"
        )
    raise InputError(
        str(path), "differs from what netcfg last wrote there (edited since?); give --overwrite to replace it"
    )


def _write_atomic(path: Path, content: bytes) -> None:
    tmp = temp_file_name(path)
    try:
        # O_EXCL: a new file of this run's own, never one someone put there; mode as umask allows.
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(content)
            tmp.replace(path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise OutputError.from_os_error(path, exc) from None


def _digest(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()
