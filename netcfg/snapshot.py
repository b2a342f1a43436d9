"""Snapshots: raw command output of each device plus `meta.json`, in one of two layouts.

netcfg writes one file per device, `<snapshot>/<device>.jsonl` (JSON Lines, a line per command:
`{"file": "<command>.txt", "output": "..."}`), each written once. It also reads the layout users make
by hand and other tools write, a folder per device of a file per command,
`<snapshot>/<device>/<command>.txt` (or `.json`); `netcfg snapshot convert` turns one into the other.

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

from netcfg import __version__
from netcfg.errors import InputError, OutputError
from netcfg.files import MAX_TEXT_BYTES, list_dir, read_bytes
from netcfg.scratch import Scratch, aside_name, sweep

META_FILE = "meta.json"
# How meta.json writes when a snapshot's collection began (UTC).
CREATED_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
# What a device folder's command outputs are named: netcfg writes `.txt`, collectors also keep `.json`.
OUTPUT_SUFFIXES = (".txt", ".json")
# A device's file of outputs (the layout netcfg writes), and the largest one read: every command's
# output may be as large as a file of its own may be, and a device has tens of commands.
DEVICE_SUFFIX = ".jsonl"
MAX_DEVICE_BYTES = 4 * MAX_TEXT_BYTES
# The layouts a snapshot's devices may have: netcfg's (a file per device), and a folder per device.
DEVICE_FILES, FOLDERS = "device", "folders"
LAYOUTS = (DEVICE_FILES, FOLDERS)
# Raw control characters are kept in a device file's outputs (a device may print a NUL): `not_text`
# names them as that output's problem, as it does for a file per command.
_DECODER = json.JSONDecoder(strict=False)
_WANTED = "expected a new or empty folder, or an earlier netcfg snapshot (replaced only with --overwrite)"


def read_device_outputs(path: Path) -> dict[str, str]:
    """Command outputs of one device keyed by command file name (without `.txt`), from its file of
    outputs (`<device>.jsonl`) or its folder of a file per command.

    A `.json` file is an output too (collectors keep `show ... | json` so, e.g.
    `show_lldp_neighbors_detail.json`); the platform's reader tells JSON from text by what it holds.
    One command saved both ways is refused, naming both: netcfg would have to pick one. Every output
    is read bounded, line ends as `\n`; what is not UTF-8 text (netcfg saves UTF-8, but a device may
    print a NUL) is kept for `files.not_text` to name as that output's problem.
    """
    files = read_device_file(path) if is_device_file(path) else read_device_folder(path)
    return {_stem(name): as_saved(text.removeprefix("\ufeff")) for name, text in files.items()}


def read_device_folder(folder: Path) -> dict[str, str]:
    """A device folder's outputs keyed by file name, each as it is stored (`raw_text`).

    Hidden files (`.DS_Store`, macOS `._*` companions) and other suffixes are not outputs.
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
            outputs[path.name] = raw_text(read_bytes(path, "command output"))
    return outputs


def raw_text(data: bytes) -> str:
    """Stored bytes as text that encodes back to exactly those bytes (`raw_bytes`): a BOM, CRs and
    bytes that are not UTF-8 (as lone surrogates) are all kept."""
    return data.decode("utf-8", "surrogateescape")


def raw_bytes(text: str, where: str) -> bytes:
    """What `raw_text` read; InputError where the text holds what no file held (a lone surrogate a
    JSON escape made)."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as exc:
        raise InputError(
            where, f"character U+{ord(text[exc.start]):04X} at offset {exc.start} is no byte of a file"
        ) from None


def is_device_file(path: Path) -> bool:
    """Whether `path` names a device's file of outputs rather than its folder."""
    return path.name.endswith(DEVICE_SUFFIX) and not path.is_dir()


def _stem(name: str) -> str:
    return name.rpartition(".")[0]


def _is_output_name(name: object) -> bool:
    """A command output's file name as a folder of outputs holds it: `<command>.txt` or `.json`, one
    plain printable name."""
    return (
        isinstance(name, str)
        and 0 < len(name.encode("utf-8", "surrogatepass")) <= 255
        and name.endswith(OUTPUT_SUFFIXES)
        and bool(_stem(name))
        and not name.startswith(".")
        and "/" not in name
        and name.isprintable()
    )


def encode_device(files: dict[str, str]) -> bytes:
    """A device's file of outputs: one JSON line per output, `files` keyed by file name
    (`show_version.txt`) holding `raw_text`s. Bytes that were not UTF-8 go back as those bytes."""
    lines = [
        json.dumps({"file": name, "output": text}, ensure_ascii=False) + "\n" for name, text in files.items()
    ]
    return raw_bytes("".join(lines), "device outputs")


def decode_device(data: bytes, where: str) -> dict[str, str]:
    """A device's file of outputs as `encode_device` wrote it, keyed by file name; InputError naming
    the line of anything else (not JSON, another shape, a bad file name, a command twice, a line
    longer than two outputs' bound)."""
    text = raw_text(data.removeprefix(b"\xef\xbb\xbf"))
    files: dict[str, str] = {}
    lines: dict[str, int] = {}
    # Decoded in place, record after record: splitting the text into lines first copies all of it.
    at, end = 0, len(text)
    line, counted = 1, 0
    while True:
        while at < end and text[at] in " \t\r\n":
            at += 1
        if at == end:
            return files
        stop = text.find("\n", at)
        stop = end if stop < 0 else stop
        if stop - at > 2 * MAX_TEXT_BYTES:
            raise _bad_line(
                text,
                at,
                where,
                f"a line of {stop - at:,} characters; expected at most {2 * MAX_TEXT_BYTES:,}",
            )
        try:
            record, after = _DECODER.raw_decode(text, at)
        except ValueError as exc:
            why = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)[:80]
            raise _bad_line(text, at, where, f"not JSON ({why}); {_SHAPE}") from None
        except RecursionError:
            raise _bad_line(text, at, where, f"JSON nested too deeply; {_SHAPE}") from None
        if after != stop and not text[after:stop].isspace():
            raise _bad_line(text, at, where, f"more than one record on the line; {_SHAPE}")
        if type(record) is not dict or len(record) != 2 or type(record.get("output")) is not str:
            raise _bad_line(text, at, where, _SHAPE)
        name = record.get("file")
        if type(name) is not str or (name not in _OUTPUT_NAMES and not _is_output_name(name)):
            shown = repr(name) if len(repr(name)) <= 60 else f"{repr(name)[:57]}..."
            raise _bad_line(
                text,
                at,
                where,
                f"{shown}; expected a command output's name (<command>.txt or .json)",
                ": file",
            )
        _OUTPUT_NAMES.add(name)
        stem = _stem(name)
        if stem in lines:
            raise _bad_line(
                text, at, where, f"{name}: the same command as line {lines[stem]}; expected each once"
            )
        output = record["output"]
        if len(output) > MAX_TEXT_BYTES:
            raise _bad_line(
                text, at, where, f"{name} is {len(output):,} characters; expected at most {MAX_TEXT_BYTES:,}"
            )
        line += text.count("\n", counted, at)
        counted = at
        lines[stem] = line
        files[name] = output
        at = stop


_SHAPE = 'expected {"file": "<command>.txt", "output": "..."} per line, as netcfg writes'
# File names already found to be output names: devices of one platform keep the same ones.
_OUTPUT_NAMES: set[str] = set()


def _bad_line(text: str, at: int, where: str, why: str, field: str = "") -> InputError:
    return InputError(f"{where}:{text.count(chr(10), 0, at) + 1}{field}", why)


def read_device_file(path: Path) -> dict[str, str]:
    """A device's file of outputs (`<device>.jsonl`), keyed by file name, each a `raw_text`."""
    return decode_device(read_bytes(path, "device's file of command outputs", MAX_DEVICE_BYTES), str(path))


def device_entries(folder: Path, devices: Collection[str] = ()) -> dict[str, Path]:
    """Device name -> where a snapshot keeps its outputs: `<device>.jsonl` or the folder `<device>/`.

    Hidden entries and other files (`meta.json`, a README) are not devices, except a file named as
    one of `devices` (refused: a device's folder was expected). A device file that is a symbolic
    link, or a device kept both ways, is refused, naming it.
    """
    found: dict[str, Path] = {}
    for path in list_dir(folder, "snapshot folder (<snapshot>/<device>.jsonl or <device>/<command>.txt)"):
        name = path.name
        if name.startswith("."):
            continue
        if name.endswith(DEVICE_SUFFIX) and not path.is_dir():
            if path.is_symlink():
                raise InputError(str(path), "is a symbolic link; expected the device's file of outputs")
            device = name.removesuffix(DEVICE_SUFFIX)
        elif path.is_dir():
            device = name
        elif name in devices:
            raise InputError(str(path), "is not a folder; expected the device's folder of command outputs")
        else:
            continue
        if device in found:
            raise InputError(
                str(path),
                f"device {device} is also kept as {found[device].name}; expected one of "
                f"{device}{DEVICE_SUFFIX} or {device}/",
            )
        found[device] = path
    return found


def as_saved(text: str) -> str:
    """Output as a snapshot keeps it: line endings as `\n`, which is also how Python reads it back.

    Collection parses what it saves without reading it back: this keeps both texts the same.
    """
    # Most outputs hold no CR: one scan for it instead of two replacing nothing.
    if "\r" not in text:
        return text
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
        if entry.name.endswith(DEVICE_SUFFIX) and entry.name.removesuffix(DEVICE_SUFFIX) in meta["devices"]:
            if entry.is_symlink() or not entry.is_file():
                return entry
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


def meta_text(meta: dict[str, Any]) -> str:
    """`meta.json` as netcfg writes it: a key a line, and each device's entry on a line of its own.

    Indented JSON is encoded in pure Python (json's C encoder takes no indent): for 1,000 devices
    that was a quarter of a second at the end of every collection, with no device answering.
    """
    lines = []
    for key in sorted(meta):
        value = meta[key]
        if isinstance(value, dict) and key == "devices" and value:
            entries = ",\n".join(
                f"    {json.dumps(name)}: {json.dumps(entry, sort_keys=True)}"
                for name, entry in sorted(value.items())
            )
            lines.append(f"  {json.dumps(key)}: {{\n{entries}\n  }}")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, sort_keys=True)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


class SnapshotWriter:
    """Collects device outputs into a temporary sibling folder, then renames it into place.

    Device outputs may be written from many threads (and, through `tmp`, from other processes).
    After `abort` nothing more is written: a late device is discarded with the rest.
    """

    def __init__(
        self, target: Path, tmp: Path | None = None, *, replace: bool = False, layout: str = DEVICE_FILES
    ) -> None:
        """`tmp` joins a writer another process started (collection sharded over processes).

        `replace` lets `commit` replace an earlier netcfg snapshot at `target`, and nothing else.
        `layout`: a file per device (`DEVICE_FILES`, what netcfg writes) or a folder of a file per
        command (`FOLDERS`, for tools that want those).
        """
        if layout not in LAYOUTS:
            raise ValueError(f"layout {layout!r}; expected one of {LAYOUTS}")
        self.layout = layout
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
            sweep(self.target.parent, (".txt", ".json", DEVICE_SUFFIX))
            self._scratch = Scratch(self.target.parent, self.target.name)
        except OSError as exc:
            raise OutputError.from_os_error(self.target, exc) from None
        self.tmp = self._scratch.path

    def write_device(self, device: str, outputs: dict[str, str], counters: Collection[str] = ()) -> str:
        """Save one device's outputs; returns their fingerprint (without the `counters` files) for
        `meta.json`.

        Raises OutputError when the files cannot be written; the first such error is kept in `error`.
        """
        self.write_raw(device, {f"{file}.txt": text for file, text in outputs.items()})
        return fingerprint(outputs, counters)

    def write_raw(self, device: str, files: dict[str, str]) -> None:
        """Save one device's outputs keyed by file name (`show_version.txt`), each a `raw_text`: as
        one file, written once, or as a folder of a file per command."""
        with self._lock:
            if self._closed:
                return
            if self.layout == DEVICE_FILES:
                path = self.tmp / f"{device}{DEVICE_SUFFIX}"
                data = encode_device(files)
                try:
                    path.write_bytes(data)
                except OSError as exc:
                    self._failed(exc, path)
                return
            folder = self.tmp / device
            try:
                folder.mkdir(exist_ok=True)
                for file, text in files.items():
                    (folder / file).write_bytes(raw_bytes(text, f"{device}/{file}"))
            except OSError as exc:
                self._failed(exc, Path(exc.filename or folder))

    def _failed(self, exc: OSError, path: Path) -> None:
        error = OutputError.from_os_error(self._final(path), exc)
        self.error = self.error or error
        raise error from None

    def commit(self, meta: dict[str, Any]) -> Path:
        """Write `meta.json` and move the snapshot into place; on any failure nothing is left behind."""
        try:
            with self._lock:
                self._closed = True
            meta_path = self.tmp / META_FILE
            try:
                meta_path.write_text(meta_text(meta), encoding="utf-8")
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


def convert_snapshot(
    source: Path, target: Path, layout: str | None = None, *, replace: bool = False
) -> tuple[Path, str, int]:
    """Write the snapshot `source` again at `target` in `layout` (default: the one `source` is not
    in); returns (target, layout, devices). Every output keeps every byte; `meta.json` is kept as it
    is (a hand-made snapshot without one gets one naming its devices).

    Refused, naming the entry: a `meta.json` netcfg did not write, a source with no device or with
    both layouts (unless `layout` says which to write), a symbolic link where an output or a device
    folder belongs, and whatever reading the snapshot refuses. Other files in device folders (notes,
    hidden files) are not outputs and are not converted.
    """
    source = Path(os.path.abspath(source))  # noqa: PTH100
    meta = None
    if (source / META_FILE).exists() or (source / META_FILE).is_symlink():
        meta = snapshot_meta(source)
        if meta is None:
            raise InputError(
                str(source / META_FILE),
                "is not a meta.json netcfg wrote; expected a netcfg snapshot's meta.json, or none",
            )
    entries = device_entries(source, meta["devices"] if meta else ())
    if not entries:
        raise InputError(
            str(source), f"holds no device; expected <device>{DEVICE_SUFFIX} files or <device>/ folders"
        )
    found = {DEVICE_FILES if is_device_file(path) else FOLDERS for path in entries.values()}
    if layout is None:
        if len(found) > 1:
            raise InputError(
                str(source), "holds both device files and device folders; give --to device or folders"
            )
        layout = FOLDERS if found == {DEVICE_FILES} else DEVICE_FILES
    if Path(os.path.abspath(target)) == source:  # noqa: PTH100
        raise InputError(str(target), "is the snapshot being converted; expected another folder")
    writer = SnapshotWriter(target, replace=replace, layout=layout)
    try:
        for device, path in sorted(entries.items()):
            writer.write_raw(
                device, read_device_file(path) if is_device_file(path) else _folder_to_convert(path)
            )
        if meta is None:
            meta = {
                "netcfg_version": __version__,
                "source": f"netcfg snapshot convert of {source}",
                "devices": {device: {} for device in sorted(entries)},
            }
    except BaseException:
        writer.abort()
        raise
    return writer.commit(meta), layout, len(entries)


def _folder_to_convert(folder: Path) -> dict[str, str]:
    """A device folder's outputs, refusing a symbolic link in the place of the folder or of an
    output: a copy would take in whatever file it points at."""
    if folder.is_symlink():
        raise InputError(str(folder), "is a symbolic link; expected the device's folder of command outputs")
    for path in list_dir(folder, "device folder of command outputs"):
        if path.suffix in OUTPUT_SUFFIXES and not path.name.startswith(".") and path.is_symlink():
            raise InputError(str(path), "is a symbolic link; expected a command output as a regular file")
    return read_device_folder(folder)
