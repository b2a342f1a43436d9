"""Snapshots: plain folders of raw command output, `<snapshot>/<device>/<command>.txt` + `meta.json`.

Written to a hidden temporary folder beside the target and renamed when complete, so a reader never
sees half a snapshot; the folder a killed collection left is removed by the next one (`scratch`).
netcfg never removes what it did not write: an existing target is used only when it is an empty
folder, or an earlier netcfg snapshot that the caller asked to replace.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
from collections.abc import Collection
from datetime import datetime
from pathlib import Path
from typing import Any

from netcfg.errors import InputError, OutputError
from netcfg.files import decode_output, list_dir, read_bytes
from netcfg.scratch import Scratch, aside_name, sweep

META_FILE = "meta.json"
# How meta.json writes when a snapshot's collection began (UTC).
CREATED_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
# What a device folder's command outputs are named: netcfg writes `.txt`, collectors also keep `.json`.
OUTPUT_SUFFIXES = (".txt", ".json")
_WANTED = "expected a new or empty folder, or an earlier netcfg snapshot (replaced only with --overwrite)"


def read_device_outputs(folder: Path) -> dict[str, str]:
    """Command outputs of one device keyed by command file name (without `.txt`).

    A `.json` file is an output too (collectors keep `show ... | json` so, e.g.
    `show_lldp_neighbors_detail.json`); the platform's reader tells JSON from text by what it holds.
    One command saved both ways is refused, naming both files: netcfg would have to pick one.
    Hidden files (`.DS_Store`, macOS `._*` companions) and other suffixes are not outputs. Every
    output is read bounded, line ends as `\n`; what is not UTF-8 text (netcfg saves UTF-8, but a
    device may print a NUL) is kept for `files.not_text` to name as that output's problem.
    """
    outputs: dict[str, str] = {}
    where: dict[str, Path] = {}
    for path in sorted(list_dir(folder, "device folder of command outputs")):
        if path.suffix in OUTPUT_SUFFIXES and not path.name.startswith("."):
            if path.stem in where:
                raise InputError(
                    str(path), f"the same command as {where[path.stem].name}; expected one file per command"
                )
            where[path.stem] = path
            outputs[path.stem] = as_saved(decode_output(read_bytes(path, "command output")))
    return outputs


def as_saved(text: str) -> str:
    """Output as a snapshot keeps it: line endings as `\n`, which is also how Python reads it back.

    Collection parses what it saves without reading it back: this keeps both texts the same.
    """
    return text.replace("\r\n", "\n").replace("\r", "\n")


def fingerprint(outputs: dict[str, str], counters: Collection[str] = ()) -> str:
    """A digest of one device's outputs, kept in `meta.json`, leaving out the `counters` files.

    Between two audits most devices print exactly what they printed before, apart from their
    counters: drift compares these digests and parses only the devices whose digests differ.
    """
    digest = hashlib.blake2b(digest_size=16)
    for file, text in sorted(outputs.items()):
        if file in counters:
            continue
        digest.update(f"{file}\0{len(text)}\0".encode())
        digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def created_at(meta: dict[str, Any], path: Path) -> datetime | None:
    """When the snapshot whose `meta.json` is `path` was taken; None where it does not say (a hand-made
    snapshot), InputError naming the field where it says something else."""
    created = meta.get("created")
    if created is None:
        return None
    try:
        return datetime.strptime(str(created), "%Y-%m-%dT%H:%M:%S%z")
    except ValueError:
        text = repr(created)
        shown = text if len(text) <= 40 else f"{text[:37]}..."
        raise InputError(
            f"{path}: created", f"{shown}; expected a UTC time as netcfg writes it (2026-01-31T23:59:00Z)"
        ) from None


def snapshot_meta(folder: Path) -> dict[str, Any] | None:
    """The `meta.json` netcfg wrote into `folder` as its last step, or None if it has none.

    A folder without it (a collection that was interrupted, or something netcfg did not write) is
    not a snapshot.
    """
    path = folder / META_FILE
    if path.is_symlink() or not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("netcfg_version"), str):
        return None
    return data if isinstance(data.get("devices"), dict) else None


def _foreign_entry(folder: Path, meta: dict[str, Any]) -> Path | None:
    """The first entry of a snapshot folder that netcfg would not have written, if any."""
    for entry in sorted(folder.iterdir()):
        if entry.name == META_FILE and not entry.is_symlink():
            continue
        if entry.is_symlink() or not entry.is_dir() or entry.name not in meta["devices"]:
            return entry
        for file in entry.iterdir():
            if file.is_symlink() or not file.is_file() or file.suffix != ".txt":
                return file
    return None


def check_target(target: Path, replace: bool) -> None:
    """Refuse a snapshot target that netcfg may not write over (InputError naming it)."""
    if target.is_symlink():
        raise InputError(str(target), f"is a symbolic link; {_WANTED}")
    if not target.exists():
        above = next(p for p in target.parents if p.exists())
        if not above.is_dir():
            raise InputError(str(above), f"is not a folder, so {target} cannot be made in it")
        return
    if not target.is_dir():
        raise InputError(str(target), f"exists and is not a folder; {_WANTED}")
    if not any(target.iterdir()):
        return
    meta = snapshot_meta(target)
    if meta is None:
        raise InputError(
            str(target), f"is a folder that is not a netcfg snapshot (no netcfg {META_FILE}); {_WANTED}"
        )
    if not replace:
        raise InputError(str(target), "is an earlier netcfg snapshot; give --overwrite to replace it")
    foreign = _foreign_entry(target, meta)
    if foreign is not None:
        raise InputError(
            str(foreign),
            "was not written by netcfg, so the snapshot holding it is not replaced (move it away)",
        )


def discard(folder: Path) -> None:
    """Remove a snapshot netcfg wrote in this run: hidden first, so no reader sees it half-removed."""
    hidden = aside_name(folder, "discarded")
    try:
        folder.rename(hidden)
    except OSError:
        return
    shutil.rmtree(hidden, ignore_errors=True)


class SnapshotWriter:
    """Collects device outputs into a temporary sibling folder, then renames it into place.

    Device outputs may be written from many threads (and, through `tmp`, from other processes).
    After `abort` nothing more is written: a late device is discarded with the rest.
    """

    def __init__(self, target: Path, tmp: Path | None = None, *, replace: bool = False) -> None:
        """`tmp` joins a writer another process started (collection sharded over processes).

        `replace` lets `commit` replace an earlier netcfg snapshot at `target`, and nothing else.
        """
        # Absolute, so that `.` or `..` name a real folder (and have a parent for the temporary one);
        # not resolved, which would follow a symbolic link that check_target must refuse.
        self.target = Path(os.path.abspath(target))  # noqa: PTH100
        self.replace = replace
        self._lock = threading.Lock()
        self._closed = False
        self.error: OutputError | None = None
        self._scratch: Scratch | None = None
        if tmp is not None:
            self.tmp = tmp
            return
        check_target(self.target, replace)
        try:
            self.target.parent.mkdir(parents=True, exist_ok=True)
            # What a killed collection left beside its target: device folders of outputs, a meta.json.
            sweep(self.target.parent, (".txt", ".json"))
            self._scratch = Scratch(self.target.parent, self.target.name)
        except OSError as exc:
            raise OutputError.from_os_error(self.target, exc) from None
        self.tmp = self._scratch.path

    def write_device(self, device: str, outputs: dict[str, str], counters: Collection[str] = ()) -> str:
        """Save one device's outputs; returns their fingerprint (without the `counters` files) for
        `meta.json`.

        Raises OutputError when the files cannot be written; the first such error is kept in `error`.
        """
        folder = self.tmp / device
        with self._lock:
            if not self._closed:
                try:
                    folder.mkdir(exist_ok=True)
                    for file, text in outputs.items():
                        (folder / f"{file}.txt").write_text(text, encoding="utf-8")
                except OSError as exc:
                    error = OutputError.from_os_error(self._final(Path(exc.filename or folder)), exc)
                    self.error = self.error or error
                    raise error from None
        return fingerprint(outputs, counters)

    def commit(self, meta: dict[str, Any]) -> Path:
        """Write `meta.json` and move the snapshot into place; on any failure nothing is left behind."""
        try:
            with self._lock:
                self._closed = True
            meta_path = self.tmp / META_FILE
            try:
                meta_path.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")
            except OSError as exc:
                raise OutputError.from_os_error(self._final(meta_path), exc) from None
            self._move_into_place()
        except BaseException:
            self.abort()
            raise
        self._release()
        return self.target

    def _final(self, path: Path) -> Path:
        """Where a file in the temporary folder was meant to go: the path the user knows."""
        return self.target / path.relative_to(self.tmp) if path.is_relative_to(self.tmp) else path

    def _move_into_place(self) -> None:
        # Checked again: the target may have changed while the devices were being collected.
        check_target(self.target, self.replace)
        old = None
        try:
            if self.target.exists() and any(self.target.iterdir()):
                old = aside_name(self.target, "replaced")
                self.target.rename(old)
            try:
                self.tmp.replace(self.target)
            except OSError:
                if old is not None:
                    old.rename(self.target)
                raise
        except OSError as exc:
            raise OutputError.from_os_error(self.target, exc) from None
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)

    def abort(self) -> None:
        """Remove the temporary folder and everything in it; later writes are discarded."""
        with self._lock:
            self._closed = True
        shutil.rmtree(self.tmp, ignore_errors=True)
        self._release()

    def _release(self) -> None:
        if self._scratch is not None:
            self._scratch.release()
