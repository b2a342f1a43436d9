"""Join the snapshots of a sharded collection (`collect --shard I/N`) into one snapshot.

The merged snapshot is read, checked, drifted and drained as one collected whole, so merge refuses
what would make it lie: a shard missing (its devices would read as absent), a shard given twice or a
device in two shards (which reading wins?), another fabric, a snapshot that is no shard, and shards
collected further apart than the window (counter rates and drift compare readings taken together).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from netcfg import __version__
from netcfg.errors import InputError, OutputError
from netcfg.snapshot import (
    CREATED_FORMAT,
    DEVICE_SUFFIX,
    META_FILE,
    SnapshotWriter,
    created_at,
    device_entries,
    is_device_file,
    read_device_file,
    read_device_folder,
    snapshot_meta,
)

# Array tasks of one collection start within minutes of each other on a busy cluster; readings
# further apart are no longer one picture of the fabric.
DEFAULT_WINDOW_S = 900


def _shard_meta(path: Path) -> dict[str, Any]:
    """The meta.json of a shard (`collect --shard`) or of a host's own reading (`host-check --save`)."""
    meta = snapshot_meta(path)
    if meta is None:
        raise InputError(
            str(path), "not a netcfg snapshot (no meta.json netcfg wrote); expected a shard snapshot"
        )
    if isinstance(meta.get("host_check"), dict):
        return meta
    shard = meta.get("shard")
    if not isinstance(shard, dict) or not all(isinstance(shard.get(k), int) for k in ("index", "count")):
        raise InputError(
            str(path / META_FILE),
            "no shard in meta.json; expected a snapshot of `collect --shard I/N` or `host-check --save`",
        )
    return meta


def _window(path: Path, meta: dict[str, Any]) -> tuple[datetime, datetime]:
    start = created_at(meta, path / META_FILE)
    if start is None:
        raise InputError(f"{path / META_FILE}: created", "missing; expected when the shard was collected")
    seconds = meta.get("seconds", 0)
    if not isinstance(seconds, int | float) or not 0 <= seconds < 86_400:
        raise InputError(f"{path / META_FILE}: seconds", "expected the collection's duration in seconds")
    return start, start + timedelta(seconds=seconds)


def merge_shards(
    paths: Sequence[Path], target: Path, window_s: float = DEFAULT_WINDOW_S, *, replace: bool = False
) -> Path:
    """Write the snapshot that joins the shard snapshots `paths` at `target` (atomically)."""
    read = [(path, _shard_meta(path)) for path in paths]
    fabrics = {meta["fabric"] for _, meta in read}
    if len(fabrics) > 1:
        first = {meta["fabric"]: path for path, meta in read}
        named = ", ".join(f"{f!s} ({first[f]})" for f in sorted(map(str, fabrics)))
        raise InputError(str(paths[0]), f"shards of different fabrics: {named}; expected one fabric")
    shards = [(path, meta) for path, meta in read if "shard" in meta]
    counts = {meta["shard"]["count"] for _, meta in shards}
    if len(counts) > 1:
        raise InputError(
            str(paths[0]), f"shards of splits into {sorted(counts)} parts; expected one N for all"
        )
    selections = {meta["shard"].get("selection", "") for _, meta in shards}
    if len(selections) > 1:
        raise InputError(
            str(paths[0]), f"shards of different selections ({sorted(selections)}); expected one for all"
        )
    # Host readings alone (no switch shard) are whole as they are.
    count = next(iter(counts), 0)
    by_index: dict[int, Path] = {}
    for path, meta in shards:
        index = meta["shard"]["index"]
        if index in by_index:
            raise InputError(
                str(path), f"shard {index}/{count} again (also {by_index[index]}); expected each shard once"
            )
        by_index[index] = path
    metas = dict(read)
    missing = sorted(set(range(count)) - by_index.keys())
    if missing:
        shown = ", ".join(f"{i}/{count}" for i in missing[:8]) + (
            f" and {len(missing) - 8} more" if len(missing) > 8 else ""
        )
        raise InputError(
            str(target), f"shard {shown} missing; expected all {count} shards (re-run the missing ones)"
        )
    owner: dict[str, Path] = {}
    kept: dict[str, Path] = {}
    for path, meta in read:
        entries = device_entries(path, meta["devices"])
        for device, entry in meta["devices"].items():
            if Path(device).name != device or device in (".", ".."):
                raise InputError(str(path / META_FILE), f"device {device[:60]!r} is not a device name")
            if device not in entries and not (isinstance(entry, dict) and entry.get("error")):
                raise InputError(
                    str(path / f"{device}{DEVICE_SUFFIX}"),
                    "listed in meta.json but missing; expected the shard as collected",
                )
            if device in owner:
                raise InputError(
                    str(path),
                    f"device {device} is also in {owner[device]}; expected each device in one shard",
                )
            owner[device] = path
            if device in entries:
                kept[device] = entries[device]
    windows = {path: _window(path, meta) for path, meta in metas.items()}
    earliest = min(windows, key=lambda p: windows[p][0])
    latest = max(windows, key=lambda p: windows[p][1])
    span = (windows[latest][1] - windows[earliest][0]).total_seconds()
    if span > window_s:
        raise InputError(
            str(latest),
            f"collected {span:.0f} s after {earliest} began; "
            f"expected all shards within {window_s:g} s (--window)",
        )
    writer = SnapshotWriter(target, replace=replace)
    try:
        for device, entry in sorted(kept.items()):
            writer.write_raw(
                device, read_device_file(entry) if is_device_file(entry) else read_device_folder(entry)
            )
        meta = {
            "netcfg_version": __version__,
            "fabric": next(iter(fabrics)),
            "created": windows[earliest][0].strftime(CREATED_FORMAT),
            "seconds": round(span, 3),
            "devices": {d: metas[p]["devices"][d] for d, p in sorted(owner.items())},
            "merged_from": [
                {"path": str(by_index[i]), "shard": f"{i}/{count}", "created": metas[by_index[i]]["created"]}
                for i in range(count)
            ]
            + [
                {"path": str(path), "host": meta["host_check"].get("host"), "created": meta["created"]}
                for path, meta in read
                if "host_check" in meta
            ],
        }
    except OSError as exc:
        writer.abort()
        raise OutputError.from_os_error(target, exc) from None
    except BaseException:
        writer.abort()
        raise
    return writer.commit(meta)
