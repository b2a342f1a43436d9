"""Where DeviceStates come from: rendered intent, config files in a repository, or a snapshot."""

from __future__ import annotations

import itertools
import json
import mmap
import os
import pickle
import tempfile
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO

from netcfg.checks.catalogue import RULES
from netcfg.errors import InputError
from netcfg.files import list_dir, not_text, read_text
from netcfg.gcpause import paused_gc
from netcfg.model import Device, DeviceState, Fabric
from netcfg.platforms import Platform, get_platform
from netcfg.platforms.routes import read_routes
from netcfg.plausible import implausible_counter, implausible_setting, overlong_number
from netcfg.policy import Policy
from netcfg.processes import ChildProcesses, process_context
from netcfg.shapes import parsed_intents
from netcfg.snapshot import (
    CREATED_FORMAT,
    DEVICE_SUFFIX,
    META_FILE,
    created_at,
    device_entries,
    read_device_outputs,
)


def intent_states(fabric: Fabric, policy: Policy) -> dict[str, DeviceState]:
    """The rendered intent, parsed back: the checks then see exactly what would be deployed (each
    shape of device rendered and parsed once, `netcfg.shapes`)."""
    return parsed_intents(fabric, policy)


def config_states(fabric: Fabric, folder: Path) -> dict[str, DeviceState]:
    """States from `<device><suffix>` config files, as a repository keeps them for pre-merge checks.

    Only files named like the config of a platform the inventory uses (`*.cfg`, `*.sh`, `*.json` for
    SONiC) are devices: a README, or a JSON export beside EOS configs, is not, and is left alone. A
    file that its platform cannot read is one InputError naming the file (and the line, where the
    platform knows it)."""
    used = {device.platform for device in fabric.devices.values()}
    suffixes = {get_platform(name).config_suffix for name in used}
    files = [
        p for p in list_dir(folder, "configs folder") if p.suffix in suffixes and not p.name.startswith(".")
    ]
    if not files:
        names = " or ".join(f"<device>{s}" for s in sorted(suffixes))
        raise InputError(str(folder), f"configs folder is empty (expected {names} files)")
    states = {}
    for path in files:
        device = fabric.devices.get(path.stem)
        if device is None:
            raise InputError(str(path), f"device {path.stem!r} is not in the inventory {fabric.source}")
        platform = get_platform(device.platform)
        if path.suffix != platform.config_suffix:
            raise InputError(
                str(path),
                f"expected a {platform.description} config named {path.stem}{platform.config_suffix}",
            )
        text = read_text(path, f"{platform.description} config")
        if overlong := overlong_number(text):
            line, digits = overlong
            raise InputError(
                f"{path}:{line}", f"a number of {digits:,} digits; expected a {platform.description} config"
            )
        state = withhold_secrets(platform, platform.parse_config(text, device))
        state.source_file = str(path)
        if state.unparsed:
            # Platforms note where in the text an unreadable part starts under the same key.
            what, why = next(iter(state.unparsed.items()))
            line = state.locations.get(what)
            where = f"{path}:{line}" if line else str(path)
            raise InputError(where, f"cannot read {what}: {why}; expected a {platform.description} config")
        if wrong := implausible_setting(state):
            port, setting, value = wrong
            line = state.line_of(port, (setting.partition("[")[0],))
            raise InputError(
                f"{path}:{line}" if line else str(path),
                f"{port} {setting} reads {value}; expected a whole number below 2^32",
            )
        states[device.name] = state
    return states


def missing_configs(fabric: Fabric, states: dict[str, DeviceState], folder: Path) -> None:
    """Refuse a config folder that leaves out devices of the inventory: a pre-merge check that read
    configs of some devices only (others renamed `.txt`, or never committed) would pass while
    checking nothing of them. One line names the first few and the file names looked for."""
    missing = sorted(set(fabric.devices) - set(states))
    if not missing:
        return
    shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
    suffixes = sorted({get_platform(fabric.devices[name].platform).config_suffix for name in missing})
    names = " or ".join(f"<device>{s}" for s in suffixes)
    raise InputError(
        str(folder),
        f"no config for {len(missing)} of the {len(fabric.devices)} devices of the inventory: {shown} "
        f"(looked for {names}); give --allow-missing to check the others only",
    )


def snapshot_states(
    fabric: Fabric, folder: Path, skip: Collection[str] = frozenset(), *, counters_only: bool = False
) -> dict[str, DeviceState]:
    """States from raw command outputs saved as `<snapshot>/<device>.jsonl` (netcfg's file per
    device) or `<snapshot>/<device>/<command>.txt` (a folder per device, made by hand or by another
    tool).

    Devices named in `skip` are left out (drift skips the devices whose outputs did not change).
    `counters_only`: an earlier reading, which rules judge by its counters alone: each state holds
    its counters and facets only (`Platform.parse_counters`).
    Hidden entries and files (`meta.json`, a README, `.DS_Store`) are not devices; an entry that is
    not a device of the inventory is refused, and so is a device's entry that is neither its file of
    outputs nor a folder.
    """
    reading = _Reading.of(fabric, folder, counters_only)
    shared: dict[tuple, object] = {}
    states = {}
    # Thousands of states are built here and all of them live on: a collection of the young
    # generation finds nothing to free, and walks every one of them.
    with paused_gc(keep=True) as kept:
        for name in reading.entries:
            if name not in skip:
                states[name] = reading.state(fabric, name, shared)
                kept.one_more()
    return states


@dataclass(frozen=True)
class _Reading:
    """One snapshot to read: where each device's outputs are, and what `meta.json` says of it."""

    folder: Path
    entries: dict[str, Path]
    meta: dict[str, dict]
    counters_only: bool

    @classmethod
    def of(cls, fabric: Fabric, folder: Path, counters_only: bool) -> _Reading:
        entries = device_entries(folder, fabric.devices)
        if not entries:
            expected = f"a <device>{DEVICE_SUFFIX} file or folder per device"
            raise InputError(str(folder), f"snapshot is empty (expected {expected})")
        return cls(folder, entries, _meta_devices(folder), counters_only)

    def state(self, fabric: Fabric, name: str, shared: dict[tuple, object]) -> DeviceState:
        """Device `name`'s state, its tables shared with equal ones in `shared` (`share_equal`)."""
        path = self.entries[name]
        device = fabric.devices.get(name)
        if device is None:
            raise InputError(str(path), f"device {name!r} is not in the inventory {fabric.source}")
        entry = self.meta.get(name, {})
        error = entry.get("error")
        if error:
            return device_state(device, {}, (error["kind"], error["message"]))
        outputs = read_device_outputs(path)
        state = share_equal(device_state(device, outputs, None, counters_only=self.counters_only), shared)
        state.read_at = entry.get("read_at")
        return state


class SnapshotReadings:
    """A check's `--snapshot` and its earlier readings (`--previous`, `--baseline`; each refused as
    `check_earlier` refuses it, else read for its counters, `snapshot_states(counters_only=True)`).

    `current` gives the snapshot's states and `states` each earlier reading's, or raise what reading
    them raised, in the order reading them one after the other raises it. Started by
    `snapshot_readings`, where the machine has a core to spare they are read by two processes,
    device by device (every reading of a device by one of them, `_Claims`).
    """

    def __init__(self, fabric: Fabric, snapshot: Path, earlier: Sequence[tuple[str, Path]]) -> None:
        self.fabric, self.snapshot, self.earlier = fabric, snapshot, list(earlier)
        self._worker: tuple[ChildProcesses, IO[bytes], list[_Reading], _Claims] | None = None
        self._current: dict[str, DeviceState] | None = None
        self._read: dict[str, dict[str, DeviceState]] | None = None

    def current(self) -> dict[str, DeviceState]:
        if self._current is None:
            found = self._split() if self._worker is not None else None
            if found is None:
                # Read one after the other: also how a broken reading is named as it would be then.
                self._current = snapshot_states(self.fabric, self.snapshot)
            else:
                self._current, *earlier = found
                self._read = dict(zip((o for o, _ in self.earlier), earlier, strict=True))
        return self._current

    def states(self, option: str) -> dict[str, DeviceState]:
        self.current()
        if self._read is None:
            found = _read_earlier(self.fabric, self.snapshot, self.earlier)
            self._read = dict(zip((o for o, _ in self.earlier), found, strict=True))
        return self._read[option]

    def _split(self) -> list[dict[str, DeviceState]] | None:
        """Every reading's states, the devices this process claimed read here and the worker's
        unpickled once it is done; None where either process failed (a broken reading, a full
        disk)."""
        assert self._worker is not None
        workers, spool, readings, claims = self._worker
        got: list[dict[str, DeviceState]] = [{} for _ in readings]
        try:
            _read_share(self.fabric, readings, iter(claims.last, None), got)
            (spooled,) = workers.results()
        except Exception:  # read again one after the other, which raises it in order
            return None
        if not spooled:
            return None
        spool.seek(0)
        # Unpickled states live on, as parsed ones do (see `paused_gc`). Only now, with the worker
        # gone: unpickled beside it, the states of both would be in memory at once.
        with paused_gc(keep=True) as kept:
            while True:
                try:
                    # An unpickler per batch: each was pickled with a memo of its own. Written by
                    # this run's own worker into a file no other process can open.
                    batch = pickle.load(spool)
                except EOFError:
                    break
                for index, name, state in batch:
                    got[index][name] = state
                kept.one_more()
        # In the order reading each snapshot whole gives its states.
        return [{n: found[n] for n in r.entries} for r, found in zip(readings, got, strict=True)]


class _Claims:
    """The devices two processes read, each device claimed by one: the worker takes them from the
    front, this process from the back, till the two meet. Neither waits for the other at the end,
    however the machine's other work slows either of them.

    Forked with the worker: the two ends are in memory both processes share, under a lock.
    """

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)
        self._memory = mmap.mmap(-1, 16)
        self._ends = memoryview(self._memory).cast("q")
        self._ends[0], self._ends[1] = 0, len(self.names)
        self._lock = process_context().Lock()

    def first(self) -> str | None:
        """The worker's next device; None when none is left."""
        with self._lock:
            front = self._ends[0]
            if front >= self._ends[1]:
                return None
            self._ends[0] = front + 1
        return self.names[front]

    def last(self) -> str | None:
        """This process's next device; None when none is left."""
        with self._lock:
            back = self._ends[1] - 1
            if back < self._ends[0]:
                return None
            self._ends[1] = back
        return self.names[back]


def _devices(readings: Sequence[_Reading]) -> list[str]:
    """Every device of any of the readings, in the order of the first that holds it."""
    return list(dict.fromkeys(name for r in readings for name in r.entries))


def _read_share(
    fabric: Fabric,
    readings: Sequence[_Reading],
    names: Iterable[str],
    into: list[dict[str, DeviceState]],
) -> None:
    """Every reading of each device of `names`, one device after the other, into `into` (a dict per
    reading). A device's earlier readings come first: its current one may take what they parsed of
    outputs that did not change (an EOS running config)."""
    shared: dict[tuple, object] = {}
    with paused_gc(keep=True) as kept:
        for name in names:
            for index in reversed(range(len(readings))):
                reading = readings[index]
                if name in reading.entries:
                    into[index][name] = reading.state(fabric, name, shared)
            kept.one_more()


@contextmanager
def snapshot_readings(
    fabric: Fabric, snapshot: Path | None, earlier: Sequence[tuple[str, Path]]
) -> Iterator[SnapshotReadings | None]:
    """`SnapshotReadings` of `snapshot` and its earlier readings (None without a snapshot or an
    earlier reading), for the block's duration; where the machine has a core to spare, a forked
    worker reads some of the devices in all of them (`_Claims`).

    The worker writes its states into an unnamed temporary file as pickle streams, a batch of
    devices at a time (so it holds only a batch), read back when they are asked for: sent through a
    pipe, the states would wait in both processes at once.
    """
    if snapshot is None or not earlier:
        yield None
        return
    readings = SnapshotReadings(fabric, snapshot, earlier)
    spool = (
        _spool_file()
        if (os.cpu_count() or 1) > 1 and process_context().get_start_method() == "fork"
        else None
    )
    if spool is None:
        yield readings
        return
    try:
        # Refused here, this is refused again when read one after the other, in that order.
        plan = [_Reading.of(fabric, snapshot, False)]
        for option, folder in earlier:
            check_earlier(snapshot, folder, f"--{option}")
            plan.append(_Reading.of(fabric, folder, True))
        claims = _Claims(_devices(plan))
    except Exception:  # raised again when read one after the other, in that order
        spool.close()
        yield readings
        return
    with spool:
        job = (fabric, plan, claims, spool.fileno())
        with ChildProcesses(_spool_share, [job], progress=False) as workers:
            readings._worker = (workers, spool, plan, claims)
            yield readings


def _spool_file() -> IO[bytes] | None:
    """An unnamed temporary file (gone with the last process holding it, however it ends); None
    where there is no writable temporary folder: the readings are then read in-process."""
    try:
        return tempfile.TemporaryFile(prefix="netcfg-readings-")
    except OSError:
        return None


def _read_earlier(
    fabric: Fabric, snapshot: Path, earlier: Sequence[tuple[str, Path]]
) -> list[dict[str, DeviceState]]:
    """Each earlier reading in turn: checked against the snapshot, then read for its counters."""
    found = []
    for option, folder in earlier:
        check_earlier(snapshot, folder, f"--{option}")
        found.append(snapshot_states(fabric, folder, counters_only=True))
    return found


# Devices whose states the worker pickles at a time: what it holds before writing them.
_BATCH = 100


def _spool_share(job: tuple[Fabric, list[_Reading], _Claims, int], progress: object) -> bool:
    """The worker's job: `_read_share` of the devices it claims, pickled a batch of devices at a
    time into the file it inherited (forked); False where the file could not be written."""
    fabric, readings, claims, fd = job
    try:
        # Claimed one at a time, as each is read: the last claimed is never far from done.
        claimed = iter(claims.first, None)
        with os.fdopen(os.dup(fd), "wb") as out:
            while True:
                got: list[dict[str, DeviceState]] = [{} for _ in readings]
                _read_share(fabric, readings, itertools.islice(claimed, _BATCH), got)
                batch = [(i, name, state) for i, found in enumerate(got) for name, state in found.items()]
                if not batch:
                    return True
                pickle.dump(batch, out, protocol=pickle.HIGHEST_PROTOCOL)
    except OSError:
        return False


def unchanged_devices(before: Path, after: Path) -> set[str]:
    """Devices whose outputs and collection result are the same in both snapshots, by `meta.json`.

    Snapshots without fingerprints (older netcfg, hand-made) have no unchanged devices.
    """
    old, new = _meta_devices(before), _meta_devices(after)

    def key(entry: dict) -> tuple[object, object]:
        return entry.get("fingerprint"), entry.get("error")

    return {
        name
        for name, entry in new.items()
        if entry.get("fingerprint") and key(entry) == key(old.get(name, {}))
    }


def check_earlier(snapshot: Path, earlier: Path, option: str) -> None:
    """Refuse `earlier` (`--previous`, `--baseline`) as the readings `snapshot`'s counters are judged
    since when it cannot be: the same folder, a snapshot of another fabric, or one taken after it.
    Judged backwards, counters that grew look like counters reset: swapping the two hides a pause
    storm and FEC errors. A hand-made snapshot without `meta.json` says neither fabric nor time."""
    where = f"{option} {earlier}"
    if earlier.resolve() == snapshot.resolve():
        raise InputError(where, f"is the same folder as --snapshot {snapshot}; expected an earlier snapshot")
    now, then = _meta_identity(snapshot), _meta_identity(earlier)
    if now[0] and then[0] and now[0] != then[0]:
        raise InputError(
            where,
            f"is a snapshot of fabric {then[0]!r} and --snapshot {snapshot} of {now[0]!r}; "
            "expected an earlier snapshot of the same fabric",
        )
    if now[1] and then[1] and then[1] > now[1]:
        raise InputError(
            where,
            f"was taken at {then[1]:{CREATED_FORMAT}}, after --snapshot {snapshot} "
            f"({now[1]:{CREATED_FORMAT}}); expected an earlier snapshot (are the two swapped?)",
        )


def _meta_identity(folder: Path) -> tuple[str | None, datetime | None]:
    """(fabric, time) a snapshot's `meta.json` names, each None where it names none."""
    meta = _read_meta(folder)
    path = folder / META_FILE
    fabric = meta.get("fabric")
    if fabric is not None and not isinstance(fabric, str):
        raise InputError(f"{path}: fabric", f"{_json_type(fabric)}; expected the fabric's name")
    return fabric, created_at(meta, path)


def _meta_devices(folder: Path) -> dict[str, dict]:
    """`meta.json`'s per-device entries, each checked: `error` null or {kind, message} with a kind a
    collect rule reports, `fingerprint` null or a string. Anything else is refused, naming the field."""
    path = folder / META_FILE
    devices = _read_meta(folder).get("devices")
    if devices is None:
        return {}
    if not isinstance(devices, dict):
        raise InputError(f"{path}: devices", f"{_json_type(devices)}; expected an object device -> entry")
    kinds = sorted(r.removeprefix("collect.") for r in RULES if r.startswith("collect."))
    for name, entry in devices.items():
        where = f"{path}: devices.{name}"
        if not isinstance(entry, dict):
            raise InputError(where, f"{_json_type(entry)}; expected an object")
        error = entry.get("error")
        if error is not None and not (
            isinstance(error, dict) and error.get("kind") in kinds and isinstance(error.get("message"), str)
        ):
            raise InputError(
                f"{where}.error",
                f"{_json_type(error)} that is not a collection error; expected null or "
                f'{{"kind": {"|".join(kinds)}, "message": "..."}}',
            )
        fingerprint = entry.get("fingerprint")
        if fingerprint is not None and not isinstance(fingerprint, str):
            raise InputError(f"{where}.fingerprint", f"{_json_type(fingerprint)}; expected a string or null")
        read_at = entry.get("read_at")
        if read_at is not None and (
            isinstance(read_at, bool) or not isinstance(read_at, int | float) or not 0 <= read_at < 2**33
        ):
            raise InputError(
                f"{where}.read_at", f"{_json_type(read_at)} {read_at!r}; expected seconds since 1970 or null"
            )
    return devices


def _json_type(value: object) -> str:
    """'an object', 'a list', ...: what a JSON value is, as an error says it."""
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number"}
    return "null" if value is None else names.get(type(value), "a number")


# Per-port tables of numbers that most ports of a fabric hold alike (every NIC's 64-entry DSCP map,
# its DCQCN knobs, pause counters still at zero): a state's own copy of each was two fifths of a
# parsed snapshot's memory.
_PORT_TABLES = ("dscp_map", "dcqcn", "priority_buffers", "class_mtu")
# Tables of settings objects (ECN per queue, buffers per group): equal when their reprs are, which
# also tells 1 from 1.0 in every field.
_SETTING_TABLES = ("ecn", "pg_buffers")
_COUNTER_TABLES = ("pause_rx", "pause_tx", "ecn_marked", "queue_drops", "watchdog_storms")


def share_equal(state: DeviceState, shared: dict[tuple, object]) -> DeviceState:
    """The state with each per-port table replaced by an equal one already in `shared` (one object
    for all equal tables of a snapshot, which rules only read), or added to it."""
    for port in state.interfaces.values():
        for name in _PORT_TABLES:
            table = getattr(port, name)
            if table:
                setattr(port, name, _one_of(name, table, shared))
        for name in _SETTING_TABLES:
            table = getattr(port, name)
            if table:
                setattr(port, name, shared.setdefault((name, repr(table)), table))
    for counters in state.counters.values():
        for name in _COUNTER_TABLES:
            table = getattr(counters, name)
            if table:
                setattr(counters, name, _one_of(name, table, shared))
    return state


def _one_of(name: str, table: dict, shared: dict[tuple, object]) -> dict:
    # The values' types are part of the key: 1, 1.0 and True are equal, and plausibility tells a
    # counter read as a float from one read as a whole number.
    try:
        key = (name, *table.items(), *map(type, table.values()))
        return shared.setdefault(key, table)  # type: ignore[return-value]
    except TypeError:  # a value that is not hashable: kept as it is
        return table


SECRET_WITHHELD = "a line holding a secret, not shown"


def withhold_secrets(platform: Platform, state: DeviceState) -> DeviceState:
    """The state with every reason that quotes a secret (a malformed line holding a password, as a
    parser shows it) replaced by `SECRET_WITHHELD`: reasons go into error messages, reports and CI
    logs, and the platform's masking is what knows a secret when it sees one."""
    for what, why in state.unparsed.items():
        if platform.mask_secrets(why) != why:
            state.unparsed[what] = SECRET_WITHHELD
    return state


def device_state(
    device: Device, outputs: dict[str, str], error: tuple[str, str] | None, *, counters_only: bool = False
) -> DeviceState:
    """One collected device's state: its parsed outputs, or why it could not be collected.

    `counters_only`: only what an earlier reading is judged by (`Platform.parse_counters`): a state
    of its counters and facets."""
    if error:
        return DeviceState(name=device.name, platform=device.platform, collection_error=error)
    # No catch-all: a parser that raises has a bug, and blaming the device's output for it would hide
    # the bug and the device's real findings. Parsers report what they cannot read in `unparsed`.
    platform = get_platform(device.platform)
    # An output no parser can read is left out and reported in its stead (a platform that misses it
    # would say "output missing" under the same command).
    unreadable = {file: found for file, text in outputs.items() if (found := unreadable_output(text))}
    parse = platform.parse_counters if counters_only else platform.parse_outputs
    readable = {f: t for f, t in outputs.items() if f not in unreadable}
    state = parse(readable, device)
    if not counters_only:
        read_routes(platform, readable, state)
    # Saved outputs are masked already, a folder of outputs netcfg did not save may not be.
    state = withhold_secrets(platform, state)
    if unreadable:
        cli = {
            command.file: command.cli
            for command in (*platform.commands(device), *(s.command for s in platform.route_tables))
        }
        for file, (line, why) in unreadable.items():
            state.unparsed[cli.get(file, file)] = f"line {line}: {why}"
    if wrong := implausible_setting(state):
        port, setting, value = wrong
        state.unparsed["port settings"] = f"{port} {setting} reads {value}, not a number a port setting holds"
        state.facets -= {"qos", "link"}
    if wrong := implausible_counter(state):
        # One impossible value makes the whole reading suspect: no counter of it is judged.
        state.unparsed["port counters"] = f"{wrong}, beyond any 64-bit counter"
        state.counters = {}
        state.facets -= {"counters"}
    if counters_only:
        # What rules read of an earlier reading, and no more: its ports' settings would be memory
        # held for nothing, and time to send back from a worker.
        return DeviceState(
            name=state.name, platform=state.platform, facets=state.facets, counters=state.counters
        )
    return state


def unreadable_output(text: str) -> tuple[int, str] | None:
    """(line, why) of what makes a command output unreadable to any parser: a character that is not
    text (a NUL, a byte that is not UTF-8), or a number longer than Python reads."""
    if found := not_text(text):
        return found
    if overlong := overlong_number(text):
        line, digits = overlong
        return line, f"a number of {digits:,} digits, longer than any number a device prints"
    return None


def _read_meta(folder: Path) -> dict:
    path = folder / META_FILE
    try:
        path.lstat()
    except FileNotFoundError:
        return {}  # a hand-made snapshot
    except OSError:
        pass  # unreadable: read_text names why
    text = read_text(path, "snapshot metadata")
    try:
        data = json.loads(text)
    except ValueError as exc:
        line = f":{exc.lineno}" if isinstance(exc, json.JSONDecodeError) else ""
        raise InputError(f"{path}{line}", f"unreadable snapshot metadata ({exc}): expected JSON") from None
    except RecursionError:
        raise InputError(str(path), "JSON nested too deeply: expected snapshot metadata") from None
    if not isinstance(data, dict):
        raise InputError(str(path), f"the JSON is {_json_type(data)}; expected a JSON object")
    return data
