"""An audit: collect the fabric into a timestamped snapshot, check it, and compare with the last one.

An audit either ends with its snapshot and its reports written, or leaves neither: a later audit
must never drift against a snapshot whose findings nobody saw.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from netcfg.checks.runner import run_checks
from netcfg.collect import CollectOptions, DeviceCollection, Selection, collect, selected_devices
from netcfg.drift import Change, changed_drift
from netcfg.errors import InputError, OutputError
from netcfg.files import read_text
from netcfg.model import DeviceState, Fabric
from netcfg.nornir_inventory import Login
from netcfg.policy import Policy
from netcfg.report import FORMATS, Report, rules_not_run
from netcfg.report.layout import fabric_layout
from netcfg.rules import Finding
from netcfg.scratch import sweep_files, temp_file_name
from netcfg.snapshot import device_entries, discard, snapshot_meta
from netcfg.sources import device_state, snapshot_states, unchanged_devices

BASELINE_FILE = "baseline.json"


@dataclass(slots=True)
class AuditResult:
    snapshot: Path
    previous: Path | None
    report: Report
    changes: list[Change]
    collected: dict[str, DeviceCollection]
    reports: dict[str, Path]
    # No device was read (every one failed, or the lab or the network died): the snapshot is kept
    # for inspection, but no later audit compares with it and it was not recorded as the baseline.
    nothing_read: bool = False

    @property
    def findings(self) -> list[Finding]:
        return self.report.findings


def previous_snapshot(root: Path, current: Path, devices: Collection[str] | None = None) -> Path | None:
    """The newest complete snapshot before `current` (names sort by time) that read any of `devices`.

    Complete means netcfg's `meta.json` is there: it is written last, so a folder without it (an
    interrupted collection, or something netcfg did not write) is never compared against. A snapshot
    in which every one of them failed has no readings: drift against it would be every device's
    "collection ok", and the counters would be judged since a reading that never happened.
    """
    wanted = set(devices) if devices is not None else None
    earlier = sorted(
        (p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".") and p.name < current.name),
        reverse=True,
    )
    for path in earlier:
        meta = snapshot_meta(path)
        if meta is not None and _read_any(meta["devices"], wanted):
            return path
    return None


def _read_any(devices: dict[str, object], wanted: set[str] | None) -> bool:
    """Whether a snapshot's `meta.json` devices show any of `wanted` (None: any) read without error."""
    return any(
        isinstance(entry, dict) and not entry.get("error")
        for name, entry in devices.items()
        if wanted is None or name in wanted
    )


def selection_states(
    fabric: Fabric,
    snapshot: Path,
    selected: Collection[str],
    *,
    counters_only: bool = False,
) -> dict[str, DeviceState]:
    """The states an earlier snapshot holds of the `selected` devices (those audited now);
    `counters_only`: what the counter rules judge by, alone (`snapshot_states`).

    Devices of that snapshot outside the selection are left out: an audit of one rail says nothing
    about the others, so they are neither drift ("present -> absent") nor counters to compare.
    """
    elsewhere = set(device_entries(snapshot)) - set(selected)
    return snapshot_states(fabric, snapshot, skip=elsewhere, counters_only=counters_only)


def baseline_snapshot(root: Path) -> Path | None:
    """The go-live snapshot `netcfg audit --baseline` recorded for the fabric, if any."""
    path = root / BASELINE_FILE
    if not path.exists() and not path.is_symlink():
        return None
    text = read_text(path, "baseline record")
    try:
        name = json.loads(text).get("snapshot")
    except (ValueError, AttributeError):
        name = None
    if not isinstance(name, str) or "/" in name or name.startswith("."):
        raise InputError(
            str(path), 'expected {"snapshot": "<snapshot folder name>"} as `audit --baseline` writes it'
        )
    snapshot = root / name
    if snapshot_meta(snapshot) is None:
        raise InputError(
            str(path),
            f"the baseline snapshot {snapshot} is missing or incomplete; record one with audit --baseline",
        )
    return snapshot


def record_baseline(root: Path, snapshot: Path) -> Path:
    """Make `snapshot` the fabric's go-live baseline: later audits compare error counters with it."""
    path = root / BASELINE_FILE
    data = {"snapshot": snapshot.name, "recorded": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}
    # A killed earlier recording left its temporary file under netcfg's own name: that goes first.
    sweep_files(root, {BASELINE_FILE})
    tmp = temp_file_name(path)
    try:
        tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise OutputError.from_os_error(path, exc) from None
    return path


def run_audit(
    fabric: Fabric,
    policy: Policy,
    login: Login,
    snapshots: Path,
    reports: Path,
    opts: CollectOptions,
    selection: Selection | None = None,
    connections: dict[str, dict] | None = None,
    baseline: bool = False,
) -> AuditResult:
    """Collect, check and report; `baseline`: record this audit as the go-live baseline."""
    root = snapshots / fabric.name
    folder = reports / fabric.name
    names = selected_devices(fabric, selection)  # an empty selection is refused before anything is written
    # Read before anything is collected: a broken baseline record fails the audit now.
    go_live = baseline_snapshot(root) if root.is_dir() else None
    try:
        # Before any device is contacted: a reports folder that cannot be made fails the audit now.
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError.from_os_error(exc.filename or folder, exc) from None
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    parsing = dataclasses.replace(opts, parse=True)
    previous = previous_snapshot(root, root / stamp, names) if root.is_dir() else None
    # The baseline's counters are compared on their own only when it is not the previous audit.
    earlier = _EarlierReadings(fabric, names, previous, go_live if go_live != previous else None)
    snapshot, collected = collect(
        fabric, login, root / stamp, parsing, selection, connections, meanwhile=earlier.read
    )
    written: dict[str, Path] = {}
    try:
        states = {
            name: c.state or device_state(fabric.devices[name], c.outputs, c.error)
            for name, c in sorted(collected.items())
        }
        nothing_read = all(state.collection_error for state in states.values())
        before, since = earlier.result()
        findings = run_checks(fabric, policy, states, before, since)
        changes = earlier.drift(states, snapshot) if previous is not None else []
        extra = {
            "snapshot": str(snapshot),
            "drift_against": str(previous) if previous else None,
            "drift_changes": len(changes),
            "baseline": str(snapshot if baseline else go_live) if (baseline or go_live) else None,
        }
        report = Report(
            fabric.name,
            f"live audit, snapshot {snapshot}",
            len(states),
            findings,
            extra,
            not_run=rules_not_run(
                states.values(), collected=True, previous=bool(before), baseline=bool(since)
            ),
            layout=fabric_layout(fabric, states),
            drift=changes if previous is not None else None,
        )
        written = write_reports(report, changes, folder, stamp)
        if baseline and not nothing_read:
            record_baseline(root, snapshot)
    except BaseException:
        for path in written.values():
            path.unlink(missing_ok=True)
        discard(snapshot)
        raise
    return AuditResult(snapshot, previous, report, changes, collected, written, nothing_read)


class _EarlierReadings:
    """The previous audit's and the go-live baseline's counters of the audited devices, parsed while
    the devices are collected (a nightly audit of thousands of devices otherwise spends most of a
    minute reading them after collection), and what drift needs of the previous audit's settings.

    Counters are all the rules judge an earlier reading by. Drift passes over the devices whose
    fingerprints show their outputs unchanged, nearly all of them on a nightly audit; the settings
    of the rest are parsed once they are known, after collection."""

    def __init__(
        self, fabric: Fabric, names: Collection[str], previous: Path | None, baseline: Path | None
    ) -> None:
        self._fabric, self._names = fabric, names
        self._previous, self._baseline = previous, baseline
        self._states: tuple[dict[str, DeviceState], dict[str, DeviceState]] = ({}, {})
        self._error: BaseException | None = None

    def read(self) -> None:
        try:
            self._states = (self._read(self._previous), self._read(self._baseline))
        except BaseException as exc:  # raised again by result(), in the audit's own thread
            self._error = exc

    def _read(self, snapshot: Path | None) -> dict[str, DeviceState]:
        if snapshot is None:
            return {}
        return selection_states(self._fabric, snapshot, self._names, counters_only=True)

    def result(self) -> tuple[dict[str, DeviceState], dict[str, DeviceState]]:
        """(previous, baseline) counter states; what reading them raised, raised here."""
        if self._error is not None:
            raise self._error
        return self._states

    def drift(self, states: dict[str, DeviceState], snapshot: Path) -> list[Change]:
        """The drift of `states` (collected into `snapshot`) since the previous audit.

        A device that failed now is compared by its collection result alone, which its counter
        state holds; the settings of the others that changed are read from the previous audit."""
        assert self._previous is not None
        same = unchanged_devices(self._previous, snapshot)
        wanted = [name for name, state in states.items() if name not in same and not state.collection_error]
        settings = selection_states(self._fabric, self._previous, wanted) if wanted else {}
        return changed_drift({**self.result()[0], **settings}, states, same)


# The reports of one audit, named by its snapshot's time stamp.
_REPORT = re.compile(r"\.(?P<name>\d{8}T\d{6}\.\d{6}Z\.(?:json|md|html))\.netcfg-\d+-[0-9a-f]{8}")


def _report_names(folder: Path) -> set[str]:
    """The report names of the temporary files a killed audit may have left in `folder`."""
    return {m["name"] for p in folder.iterdir() if (m := _REPORT.fullmatch(p.name))}


def write_reports(report: Report, changes: list[Change], folder: Path, stamp: str) -> dict[str, Path]:
    """`<stamp>.json`, `<stamp>.md` and `<stamp>.html` in `folder`; on any failure none is left
    (OutputError). The HTML page shows the report's own drift (`report.drift`)."""
    paths: dict[str, Path] = {}
    path = folder
    temp: Path | None = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        sweep_files(folder, _report_names(folder))
        for fmt, suffix in (("json", "json"), ("markdown", "md"), ("html", "html")):
            path = folder / f"{stamp}.{suffix}"
            text = FORMATS[fmt](report)
            if fmt == "json":
                data = json.loads(text)
                data["drift"] = [c.as_dict() for c in changes]
                text = json.dumps(data, indent=2) + "\n"
            elif fmt == "markdown" and changes:
                text += "\n## Drift since the previous audit\n\n"
                text += "| device | setting | before | after |\n|---|---|---|---|\n"
                text += "".join(f"| {c.device} | {c.setting} | {c.before} | {c.after} |\n" for c in changes)
            # Written whole under netcfg's temporary name, then linked into place: a killed audit
            # leaves no half report, and a file of that name netcfg did not write is never replaced.
            temp = temp_file_name(path)
            temp.write_text(text, encoding="utf-8")
            os.link(temp, path)
            paths[fmt] = path
            temp.unlink()
            temp = None
    except BaseException as exc:
        if temp is not None:
            temp.unlink(missing_ok=True)
        for written in paths.values():
            written.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise OutputError.from_os_error(path, exc) from None
        raise
    return paths
